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

/* Fields a narrow screen leaves out, a bit each, in the order they go:
 * the mechanism first, the totals, lost and PAUSED never. */
enum {
	DROP_MECHANISM = 1 << 0, DROP_READING = 1 << 1, DROP_CPU = 1 << 2, DROP_STACKS = 1 << 3,
	DROP_KERNEL = 1 << 4, DROP_PROBES = 1 << 5, DROP_REFRESH = 1 << 6, DROP_HOST = 1 << 7,
	DROP_ALL = (1 << 8) - 1,
};

/* Line 1: who and where: time, host, kernel, mechanism. */
static void header_where(const struct header_info *h, unsigned drop, struct line *l)
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
	if (!(drop & DROP_HOST))
		put_field(l, "host", h->host, h->utf8);
	if (!(drop & DROP_KERNEL))
		put_field(l, "kernel", h->kernel, h->utf8);
	if (!(drop & DROP_MECHANISM))
		put_field(l, "mechanism", h->mechanism, h->utf8);
	if (!(drop & DROP_MECHANISM) && h->fallbacks && *h->fallbacks)
		put_field(l, "fallbacks", h->fallbacks, h->utf8);
}

/* Line 2: what is watched and how often. */
static void header_what(const struct header_info *h, unsigned drop, struct line *l)
{
	char buf[128];

	put_field(l, "target", h->target, h->utf8);
	if (h->command_done) {
		snprintf(buf, sizeof(buf), " (exited, status %d)", h->command_status);
		line_put(l, ROLE_WARN, buf, strlen(buf));
	}
	snprintf(buf, sizeof(buf), "%zu (%zu live)", h->watched, h->live);
	put_field(l, "processes", buf, false);
	snprintf(buf, sizeof(buf), "%.1fs", h->delay);
	if (!(drop & DROP_REFRESH))
		put_field(l, "refresh", buf, false);
	snprintf(buf, sizeof(buf), "%.1f%%", h->cpu_pct);
	if (!(drop & DROP_CPU))
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

/* The machine's memory pressure (PSI avg10), in warning colour once some
 * task stalled on memory. */
static void header_psi(const struct header_info *h, struct line *l)
{
	bool stalled = h->psi_some > 0;

	if (!h->psi)
		return;
	line_put(l, ROLE_PLAIN, "  ", 2);
	line_add(l, ROLE_LABEL, "mem pressure ");
	line_add(l, stalled ? ROLE_WARN : ROLE_VALUE, "some %.1f%% full %.1f%%", h->psi_some,
		 h->psi_full >= 0 ? h->psi_full : 0);
}

/* The sampling of copy stacks in parentheses: the rate in effect, and the
 * share of a CPU the captures cost of the budget the rate follows; nothing
 * when every copy is sampled without a budget. */
static void stacks_rate(const struct header_info *h, char *buf, size_t len)
{
	size_t n = strlen(buf);

	if (h->stacks_every <= 1 && h->stacks_budget <= 0)
		return;
	snprintf(buf + n, len - n, " (");
	n = strlen(buf);
	if (h->stacks_every > 1)
		snprintf(buf + n, len - n, "1 in %u%s", h->stacks_every, h->stacks_budget > 0 ? ", " : "");
	n = strlen(buf);
	if (h->stacks_budget > 0 && h->stacks_cpu >= 0)
		snprintf(buf + n, len - n, "%.2g%% CPU of %g%%", h->stacks_cpu, h->stacks_budget);
	else if (h->stacks_budget > 0)
		snprintf(buf + n, len - n, "budget %g%%", h->stacks_budget);
	n = strlen(buf);
	snprintf(buf + n, len - n, ")");
}

/* Copy stacks, when on: what a capture costs each copy, as the kernel
 * measured it, the sampling, and the captures that failed (their copies
 * are in no site), in warning colour. */
static void header_stacks(const struct header_info *h, struct line *l)
{
	char buf[96];

	if (!h->stacks_every)
		return;
	if (h->stacks_us >= 0)
		snprintf(buf, sizeof(buf), "+%.2f us/copy", h->stacks_us);
	else
		snprintf(buf, sizeof(buf), "cost not measured yet");
	stacks_rate(h, buf, sizeof(buf));
	put_field(l, "stacks on:", buf, false);
	if (h->stacks_failed)
		line_add(l, ROLE_WARN, ", %llu capture%s failed", h->stacks_failed,
			 h->stacks_failed == 1 ? "" : "s");
}

/* The total rate and copies, in pages or in bytes. */
static void header_copies(const struct header_info *h, struct line *l)
{
	char buf[64], num[32];

	if (h->bytes)
		fmt_kib_iec((unsigned long long)(h->rate * (double)fmt_page_kib() + 0.5), num, sizeof(num));
	else
		fmt_rate(h->rate, num, sizeof(num));
	snprintf(buf, sizeof(buf), "%s/s", num);
	put_field(l, "CoW", buf, false);
	if (h->bytes)
		fmt_kib_iec(h->cow * fmt_page_kib(), buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "%llu", h->cow);
	put_field(l, "copies", buf, false);
}

/* Line 3: the totals, lost events in warning colour when there are any,
 * the USDT probes, and how old the oldest memory reading shown is. */
static void header_totals(const struct header_info *h, unsigned drop, struct line *l)
{
	char buf[64];

	header_copies(h, l);
	line_put(l, ROLE_PLAIN, "  ", 2);
	line_add(l, h->lost ? ROLE_WARN : ROLE_LABEL, "lost ");
	line_add(l, h->lost ? ROLE_WARN : ROLE_VALUE, "%llu", h->lost);
	if (h->lost_procs)
		line_add(l, ROLE_WARN, " (%llu process%s not counted)", h->lost_procs,
			 h->lost_procs == 1 ? "" : "es");
	if (!(drop & DROP_PROBES))
		header_probes(h, l);
	if (!(drop & DROP_STACKS))
		header_stacks(h, l);
	if (h->smaps_read && !(drop & DROP_READING)) {
		snprintf(buf, sizeof(buf), "%.1fs", h->smaps_age);
		put_field(l, "oldest reading", buf, false);
	}
	if (h->paused)
		line_add(l, ROLE_WARN, "  [PAUSED]");
	header_psi(h, l); /* last: the first to be cut on a narrow screen */
}

/* Take what the header shows of frame f (strings stay the frame's); host,
 * kernel, delay, pause and glyphs are the screen's own. */
void header_take_frame(struct header_info *h, const struct frame *f)
{
	h->mechanism = f->mechanism;
	h->fallbacks = f->fallbacks;
	h->target = f->target;
	h->now = (time_t)f->time;
	h->cpu_pct = f->cpu_pct;
	h->lost = f->lost;
	h->lost_procs = f->lost_by_kind[LOST_MAP_FULL];
	h->stacks_every = f->stacks ? f->stacks->every : 0;
	h->stacks_us = f->stacks ? f->stacks->us_per_copy : -1;
	h->stacks_budget = f->stacks ? f->stacks->budget_pct : 0;
	h->stacks_cpu = f->stacks ? f->stacks->cpu_pct : -1;
	h->stacks_failed = f->stacks ? f->stacks->capture.failed : 0;
	h->command_done = f->command_done;
	h->command_status = f->command_status;
	h->watched = f->totals.watched;
	h->live = f->totals.live;
	h->rate = f->totals.rate;
	h->cow = f->totals.cow;
	h->nprobes = f->nprobes - f->nkprobes;
	h->nkprobes = f->nkprobes;
	h->psi = f->psi.some_avg10 >= 0;
	h->psi_some = f->psi.some_avg10;
	h->psi_full = f->psi.full_avg10;
	h->nphases = frame_nlabels(f, SPLIT_PHASE) > 1 ? frame_nlabels(f, SPLIT_PHASE) - 1 : 0;
}

/* Build line i leaving out the fields in drop. */
static void header_line(const struct header_info *h, int i, unsigned drop, struct line *l)
{
	line_clear(l);
	if (i == 0)
		header_where(h, drop, l);
	else if (i == 1)
		header_what(h, drop, l);
	else
		header_totals(h, drop, l);
}

/* Build the header lines. On a screen h->cols wide, whole fields are left
 * out, the least needed first, until each line fits (what still does not
 * fit is cut when drawn): an 80-column screen keeps the totals. */
void header_build(const struct header_info *h, struct line out[HEADER_LINES])
{
	unsigned drop;
	int i;

	for (i = 0; i < HEADER_LINES; i++) {
		drop = 0;
		header_line(h, i, drop, &out[i]);
		while (h->cols > 0 && text_width(out[i].text) > h->cols && drop != DROP_ALL) {
			drop = drop << 1 | 1;
			header_line(h, i, drop, &out[i]);
		}
	}
}
