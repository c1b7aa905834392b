/* Header lines built off-screen: labels and values, trouble in warning colour. */
#include <stdio.h>
#include <string.h>
#include "fmt.h"
#include "header.h"
#include "text.h"

/* Append untrusted text s, made safe, in role. */
static void put_safe(struct line *l, enum role role, const char *s, bool utf8)
{
	char buf[1024];
	size_t n;

	if (!s)
		s = "?";
	if (utf8)
		n = text_sanitize(s, strlen(s), buf, sizeof(buf));
	else
		n = text_sanitize_ascii(s, strlen(s), buf, sizeof(buf));
	line_put(l, role, buf, n);
}

/* Append "label value" with a gap before it unless it starts the line. */
static void put_field(struct line *l, const char *label, const char *value, bool utf8)
{
	if (l->len)
		line_put(l, ROLE_PLAIN, "  ", 2);
	line_add(l, ROLE_LABEL, "%s ", label);
	put_safe(l, ROLE_VALUE, value, utf8);
}

/* Line 1: who and where: time, host, kernel, mechanism. */
static void header_where(const struct header_info *h, struct line *l)
{
	char when[32];
	struct tm tm;

	localtime_r(&h->now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	line_add(l, ROLE_VALUE, "cowtop %s", when);
	if (h->replay) {
		line_add(l, ROLE_WARN, "  REPLAY");
		line_add(l, ROLE_VALUE, " %s", h->replay);
	}
	put_field(l, "host", h->host, h->utf8);
	put_field(l, "kernel", h->kernel, h->utf8);
	put_field(l, "mechanism", h->mechanism, h->utf8);
}

/* Line 2: what is watched and how often. */
static void header_what(const struct header_info *h, struct line *l)
{
	char buf[128];

	put_field(l, "target", h->target, h->utf8);
	if (h->command_done) {
		snprintf(buf, sizeof(buf), " (exited, status %d)", h->command_status);
		line_put(l, ROLE_WARN, buf, strlen(buf));
	}
	snprintf(buf, sizeof(buf), "%zu (%zu running)", h->watched, h->live);
	put_field(l, "processes", buf, false);
	snprintf(buf, sizeof(buf), "%.1fs", h->delay);
	put_field(l, "refresh", buf, false);
	snprintf(buf, sizeof(buf), "%.1f%%", h->cpu_pct);
	put_field(l, "cowtop CPU", buf, false);
}

/* The USDT probes attached and the phases they form, when there are any. */
static void header_probes(const struct header_info *h, struct line *l)
{
	char buf[64];

	if (h->nprobes <= 0)
		return;
	if (h->nphases > 0)
		snprintf(buf, sizeof(buf), "%d (%d phase%s)", h->nprobes, h->nphases,
			 h->nphases == 1 ? "" : "s");
	else
		snprintf(buf, sizeof(buf), "%d", h->nprobes);
	put_field(l, "probes", buf, false);
}

/* Copy stacks, when on: what a capture costs each copy, as the kernel
 * measured it, and the sampling. */
static void header_stacks(const struct header_info *h, struct line *l)
{
	char buf[64];

	if (!h->stacks_every)
		return;
	if (h->stacks_us >= 0)
		snprintf(buf, sizeof(buf), "+%.2f us/copy", h->stacks_us);
	else
		snprintf(buf, sizeof(buf), "cost not measured yet");
	if (h->stacks_every > 1)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (1 in %u)", h->stacks_every);
	put_field(l, "stacks on:", buf, false);
}

/* Line 3: the totals, lost events in warning colour when there are any,
 * the USDT probes, and how old the oldest memory reading shown is. */
static void header_totals(const struct header_info *h, struct line *l)
{
	char buf[64], rate[32];

	fmt_rate(h->rate, rate, sizeof(rate));
	snprintf(buf, sizeof(buf), "%s/s", rate);
	put_field(l, "CoW", buf, false);
	snprintf(buf, sizeof(buf), "%llu", h->cow);
	put_field(l, "copies", buf, false);
	line_put(l, ROLE_PLAIN, "  ", 2);
	line_add(l, h->lost ? ROLE_WARN : ROLE_LABEL, "lost ");
	line_add(l, h->lost ? ROLE_WARN : ROLE_VALUE, "%llu", h->lost);
	header_probes(h, l);
	header_stacks(h, l);
	if (h->smaps_read) {
		snprintf(buf, sizeof(buf), "%.1fs", h->smaps_age);
		put_field(l, "oldest reading", buf, false);
	}
	if (h->paused)
		line_add(l, ROLE_WARN, "  [PAUSED]");
}

/* Take what the header shows of frame f (strings stay the frame's); host,
 * kernel, delay, pause and glyphs are the screen's own. */
void header_take_frame(struct header_info *h, const struct frame *f)
{
	h->mechanism = f->mechanism;
	h->target = f->target;
	h->now = (time_t)f->time;
	h->cpu_pct = f->cpu_pct;
	h->lost = f->lost;
	h->stacks_every = f->stacks ? f->stacks->every : 0;
	h->stacks_us = f->stacks ? f->stacks->us_per_copy : -1;
	h->command_done = f->command_done;
	h->command_status = f->command_status;
	h->watched = f->totals.watched;
	h->live = f->totals.live;
	h->rate = f->totals.rate;
	h->cow = f->totals.cow;
	h->nprobes = f->nprobes;
	h->nphases = frame_nlabels(f, SPLIT_PHASE) > 1 ? frame_nlabels(f, SPLIT_PHASE) - 1 : 0;
}

/* Build the header lines; they are cut to the screen when drawn. */
void header_build(const struct header_info *h, struct line out[HEADER_LINES])
{
	int i;

	for (i = 0; i < HEADER_LINES; i++)
		line_clear(&out[i]);
	header_where(h, &out[0]);
	header_what(h, &out[1]);
	header_totals(h, &out[2]);
}
