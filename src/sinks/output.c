/* Batch frames: a top-like text table, or one JSON object per line. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include "json.h"
#include "output.h"
#include "procjson.h"
#include "text.h"

/* The state shown for p: its /proc letter, or "exited". */
const char *output_state(const struct proc *p)
{
	static char letters[256][2];
	unsigned char c = (unsigned char)p->state;

	if (p->exited)
		return p->exit.left ? "left" : "exited";
	if (c < 'A' || c > 'z')
		return "?";
	letters[c][0] = (char)c;
	return letters[c];
}

/* Seconds with the given decimals, or, when that would read 0 for a
 * positive length (a first interval can be a fraction of a millisecond),
 * with two significant digits: an interval is never shown as 0. Returns
 * the length written. */
size_t output_interval(double seconds, int decimals, char *buf, size_t cap)
{
	double least = 0.5;
	int i, n;

	for (i = 0; i < decimals; i++)
		least /= 10;
	if (seconds > 0 && seconds < least)
		n = snprintf(buf, cap, "%.2g", seconds);
	else
		n = snprintf(buf, cap, "%.*f", decimals, seconds);
	return n > 0 ? (size_t)n : 0;
}

/* The probe hits of the frame. */
static void json_markers(struct jbuf *b, const struct frame *fr)
{
	size_t i;
	int k;

	jbuf_puts(b, ",\"markers\":[");
	for (i = 0; i < fr->nmarks; i++) {
		const struct marker *mk = &fr->marks[i];
		const char *label = frame_probe_label(fr, mk->probe);

		jbuf_puts(b, i ? ",{\"time\":" : "{\"time\":");
		jbuf_fixed(b, mk->time, 6);
		jbuf_puts(b, ",\"pid\":");
		jbuf_i64(b, mk->pid);
		jbuf_puts(b, ",\"probe\":");
		jbuf_string(b, label, strlen(label));
		jbuf_puts(b, ",\"args\":[");
		for (k = 0; k < mk->nargs; k++) {
			if (k)
				jbuf_putc(b, ',');
			if (mk->unavail & (1u << k))
				jbuf_puts(b, "null");
			else
				jbuf_i64(b, mk->args[k]);
		}
		jbuf_puts(b, "]}");
	}
	jbuf_puts(b, "],\"markers_lost\":");
	jbuf_u64(b, fr->marks_lost);
}

/* The memory pressure: ,"psi_memory":{"some_avg10":X,"full_avg10":Y},
 * nulls when not known. */
static void json_psi(struct jbuf *b, const struct psi *psi)
{
	jbuf_puts(b, ",\"psi_memory\":{\"some_avg10\":");
	if (psi->some_avg10 >= 0)
		jbuf_fixed(b, psi->some_avg10, 2);
	else
		jbuf_puts(b, "null");
	jbuf_real(b, "full_avg10", psi->full_avg10, 2);
	jbuf_putc(b, '}');
}

/* The memory pressure of a group root's cgroup v2, null when not known. */
static void json_group_psi(struct jbuf *b, const struct memcg *cg)
{
	if (!cg->psi_known) {
		jbuf_puts(b, ",\"cgroup_psi_memory\":null");
		return;
	}
	jbuf_puts(b, ",\"cgroup_psi_memory\":{\"some_avg10\":");
	jbuf_fixed(b, cg->psi.some_avg10, 2);
	jbuf_real(b, "full_avg10", cg->psi.full_avg10, 2);
	jbuf_putc(b, '}');
}

/* One group of a watched root and its workers. */
static void json_group(struct jbuf *b, const struct frame_group *g)
{
	bool read = g->smaps_age >= 0;

	jbuf_puts(b, "{\"root\":");
	jbuf_i64(b, g->root_pid);
	jbuf_count(b, "workers", true, g->workers);
	jbuf_count(b, "pss_kib", read, g->pss_kib);
	jbuf_count(b, "uss_kib", read, g->uss_kib);
	jbuf_count(b, "root_rss_kib", g->root_mem_known, g->root_rss_kib);
	jbuf_count(b, "worker_uss_mean_kib", g->workers_read, g->worker_uss_mean_kib);
	jbuf_count(b, "worker_uss_max_kib", g->workers_read, g->worker_uss_max_kib);
	jbuf_count(b, "cow_pages", true, g->cow);
	jbuf_key(b, "cow_rate");
	jbuf_fixed(b, g->rate, 1);
	jbuf_count(b, "headroom", g->headroom >= 0, (unsigned long long)g->headroom);
	jbuf_count(b, "headroom_cgroup", g->headroom_cgroup >= 0, (unsigned long long)g->headroom_cgroup);
	jbuf_puts(b, ",\"headroom_settled\":");
	jbuf_bool(b, g->settled);
	jbuf_count(b, "cgroup_limit_kib", g->memcg.limit_kib, g->memcg.limit_kib);
	jbuf_count(b, "cgroup_usage_kib", g->memcg.limit_kib, g->memcg.usage_kib);
	jbuf_real(b, "smaps_age", g->smaps_age, 3);
	jbuf_count(b, "unread", true, g->unread);
	jbuf_puts(b, ",\"respawns\":{\"forked\":");
	jbuf_u64(b, g->forked);
	jbuf_puts(b, ",\"exited\":");
	jbuf_u64(b, g->reaped);
	jbuf_putc(b, '}');
	json_group_psi(b, &g->memcg);
	jbuf_putc(b, '}');
}

/* The groups of watched roots and their workers, MemAvailable and PSI. */
static void json_groups(struct jbuf *b, const struct frame *fr)
{
	size_t i;

	jbuf_puts(b, ",\"groups\":[");
	for (i = 0; i < fr->ngroups; i++) {
		if (i)
			jbuf_putc(b, ',');
		json_group(b, &fr->groups[i]);
	}
	jbuf_putc(b, ']');
	jbuf_count(b, "mem_available_kib", fr->mem_available_kib, fr->mem_available_kib);
	json_psi(b, &fr->psi);
}

/* Whether stacks are on, the sampling rate in effect, the captures lost
 * (and why), the stack map's ids in use, the measured cost of a capture,
 * the budget the rate follows and the share of a CPU spent. */
static void output_json_stacks_status(struct jbuf *b, const struct stacks_snap *sn)
{
	const struct stacks_capture *c = &sn->capture;

	jbuf_puts(b, ",\"stacks\":{\"on\":");
	jbuf_bool(b, sn->every);
	jbuf_count(b, "sample", true, sn->every);
	jbuf_count(b, "failed", true, c->failed);
	jbuf_count(b, "failed_collision", true, c->collided);
	jbuf_count(b, "failed_walk", true, c->unwalked);
	jbuf_count(b, "failed_uncounted", true, c->uncounted);
	jbuf_count(b, "ids_used", c->ids > 0, c->ids_used);
	jbuf_count(b, "ids_limit", c->ids > 0, c->ids);
	jbuf_real(b, "us_per_copy", sn->us_per_copy, 3);
	jbuf_real(b, "budget_pct", sn->budget_pct, 3);
	jbuf_real(b, "cpu_pct", sn->cpu_pct, 4);
	jbuf_count(b, "skipped", true, sn->skipped);
	jbuf_putc(b, '}');
}

/* The frame as exactly one line of JSON, appended to b. printf is not
 * used: at thousands of processes it was most of the batch output's time. */
void output_json_buf(struct jbuf *b, const struct frame *fr)
{
	char interval[32];
	size_t i;

	output_interval(fr->interval, 3, interval, sizeof(interval));
	jbuf_puts(b, "{\"schema\":");
	jbuf_i64(b, OUTPUT_JSON_SCHEMA);
	jbuf_puts(b, ",\"host\":");
	jbuf_string(b, fr->host, strlen(fr->host));
	jbuf_key(b, "time");
	jbuf_fixed(b, fr->time, 3);
	jbuf_key(b, "interval");
	jbuf_puts(b, interval);
	jbuf_puts(b, ",\"mechanism\":");
	jbuf_string(b, fr->mechanism, strlen(fr->mechanism));
	jbuf_puts(b, ",\"fallbacks\":");
	jbuf_string(b, fr->fallbacks, strlen(fr->fallbacks));
	jbuf_count(b, "lost", true, fr->lost);
	jbuf_count(b, "lost_processes", true, fr->lost_by_kind[LOST_MAP_FULL]);
	if (fr->stacks)
		output_json_stacks_status(b, fr->stacks);
	if (fr->objects) {
		jbuf_puts(b, ",\"objects\":{\"sample\":");
		jbuf_u64(b, fr->objects->every);
		jbuf_count(b, "failed", true, fr->objects->failed);
		jbuf_real(b, "us_per_sample", fr->objects->us_per_sample, 3);
		jbuf_putc(b, '}');
	}
	jbuf_puts(b, ",\"processes\":[");
	for (i = 0; i < fr->nrows; i++) {
		if (i)
			jbuf_putc(b, ',');
		procjson_write(b, fr, &fr->rows[i]);
	}
	jbuf_putc(b, ']');
	json_groups(b, fr);
	if (fr->usdt || fr->nkprobes)
		json_markers(b, fr);
	jbuf_puts(b, "}\n");
}

/* The frame as exactly one line of JSON on f: 0, or -ENOMEM with nothing
 * written when the line could not be made. */
int output_json(FILE *f, const struct frame *fr)
{
	struct jbuf b = { 0 };
	int e = 0;

	output_json_buf(&b, fr);
	if (b.failed)
		e = -ENOMEM;
	else
		fwrite(b.s, 1, b.len, f);
	jbuf_free(&b);
	return e;
}

/* "what PID: label N<sep>label N ... slot0 N", p's copies split by kind k
 * (only the parts with copies, and the fixed region slots), labels made
 * plain text. */
static void text_split(FILE *f, const char *what, const char *sep, const struct frame *fr,
		       const struct proc *p, enum split_kind k)
{
	char label[4 * LABEL_MAX + 1];
	struct split_part part[SPLIT_SLOTS];
	int n = frame_split_parts(fr, p, k, false, part), i;

	fprintf(f, "%s %d:", what, p->pid);
	for (i = 0; i < n; i++) {
		text_sanitize_ascii(part[i].label, strnlen(part[i].label, LABEL_MAX), label, sizeof(label));
		fprintf(f, "%s%s %llu", i ? sep : " ", label, part[i].pages);
	}
	fputc('\n', f);
}

/* Under the table: the region split of each process with copies. */
static void text_regions(FILE *f, const struct frame *fr)
{
	size_t i;

	for (i = 0; i < fr->nrows; i++)
		if (fr->rows[i].p->counts.cow)
			text_split(f, "regions", "  ", fr, fr->rows[i].p, SPLIT_REGION);
}

/* Under the table: each process's copies per phase, then the probe hits. */
static void text_usdt(FILE *f, const struct frame *fr)
{
	size_t i;
	int k;

	for (i = 0; i < fr->nrows; i++) {
		const struct proc *p = fr->rows[i].p;

		if (frame_split_none(p, SPLIT_PHASE) != p->counts.cow)
			text_split(f, "phases", " ", fr, p, SPLIT_PHASE);
	}
	if (fr->marks_lost)
		fprintf(f, "markers lost %llu\n", fr->marks_lost);
	for (i = 0; i < fr->nmarks; i++) {
		const struct marker *mk = &fr->marks[i];

		fprintf(f, "marker %.3f %d %s", mk->time, mk->pid, frame_probe_label(fr, mk->probe));
		for (k = 0; k < mk->nargs; k++) {
			if (mk->unavail & (1u << k))
				fputs(" -", f);
			else
				fprintf(f, " %lld", mk->args[k]);
		}
		fputc('\n', f);
	}
}

/* v in buf as a decimal, or "-" when not known; returns buf. */
static const char *text_count(bool known, unsigned long long v, char *buf, size_t cap)
{
	if (known)
		snprintf(buf, cap, "%llu", v);
	else
		snprintf(buf, cap, "-");
	return buf;
}

/* Headroom as the group line says it: "N workers", or "- workers" unknown. */
static const char *text_headroom(long long headroom, char *buf, size_t cap)
{
	if (headroom < 0)
		snprintf(buf, cap, "- workers");
	else
		snprintf(buf, cap, "%lld workers", headroom);
	return buf;
}

/* Under the table, a line per group: its footprint, its workers' USS, how
 * many more fit, and how old its oldest reading is. */
static void text_groups(FILE *f, const struct frame *fr)
{
	char pss[32], uss[32], mean[32], max[32], room[32];
	size_t i;

	for (i = 0; i < fr->ngroups; i++) {
		const struct frame_group *g = &fr->groups[i];
		bool read = g->smaps_age >= 0, settling = g->headroom >= 0 && !g->settled;

		fprintf(f, "group %d: workers %zu  footprint %s KiB (PSS)  USS sum %s KiB  mean %s KiB"
			"  max %s KiB  %s%s (MemAvailable)", g->root_pid, g->workers,
			text_count(read, g->pss_kib, pss, sizeof(pss)),
			text_count(read, g->uss_kib, uss, sizeof(uss)),
			text_count(g->workers_read, g->worker_uss_mean_kib, mean, sizeof(mean)),
			text_count(g->workers_read, g->worker_uss_max_kib, max, sizeof(max)),
			settling ? "" : g->headroom >= 0 ? "+" : "",
			settling ? "settling" : text_headroom(g->headroom, room, sizeof(room)));
		if (g->headroom_cgroup >= 0 && !settling)
			fprintf(f, " +%lld in cgroup", g->headroom_cgroup);
		if (read)
			fprintf(f, "  age %.1fs", g->smaps_age);
		else
			fputs("  age -", f);
		if (g->unread)
			fprintf(f, "  unread %zu", g->unread);
		if (g->forked || g->reaped)
			fprintf(f, "  respawns %llu forked %llu exited", g->forked, g->reaped);
		fputc('\n', f);
	}
}

/* A percentage in buf, one decimal ("-" when unknown, below 0); returns buf. */
static const char *text_pct(double pct, char *buf, size_t cap)
{
	if (pct < 0)
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%.1f", pct);
	return buf;
}

/* Under the table, the command line of each process that has one (kernel
 * threads have none), "cmdline PID: TEXT", escaped as names are. */
static void text_cmdlines(FILE *f, const struct frame *fr)
{
	char safe[4 * PROC_CMDLINE_MAX + 1];
	size_t i;

	for (i = 0; i < fr->nrows; i++) {
		const struct proc *p = fr->rows[i].p;

		if (!p->cmdline[0])
			continue;
		text_sanitize_ascii(p->cmdline, strnlen(p->cmdline, sizeof(p->cmdline)), safe, sizeof(safe));
		fprintf(f, "cmdline %d: %s\n", p->pid, safe);
	}
}

/* The frame as a text table with a header line, then a blank line; oo
 * (NULL: none) asks for more under it. */
void output_text(FILE *f, const struct frame *fr, const struct output_opts *oo)
{
	char when[32], interval[32], prefix[256], name[4 * PROC_COMM_MAX + 1];
	char shr[16], fam[16], uss[32], pss[32], rss[32], vsz[32], why[32];
	time_t secs = (time_t)fr->time;
	struct tm tm;
	size_t i;

	localtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	output_interval(fr->interval, 2, interval, sizeof(interval));
	fprintf(f, "cowtop %s  interval %ss  processes %zu  cow %llu pages  %.1f/s  lost %llu",
		when, interval, fr->nrows, fr->totals.cow, fr->totals.rate, fr->lost);
	if (fr->lost_by_kind[LOST_MAP_FULL])
		fprintf(f, " (%llu processes not counted)", fr->lost_by_kind[LOST_MAP_FULL]);
	if (fr->psi.some_avg10 >= 0)
		fprintf(f, "  psi mem some %.2f%% full %.2f%%", fr->psi.some_avg10,
			fr->psi.full_avg10 >= 0 ? fr->psi.full_avg10 : 0);
	fprintf(f, "  [%s%s%s]\n", fr->mechanism, fr->fallbacks[0] ? "; fallbacks " : "",
		fr->fallbacks);
	fprintf(f, "%7s %7s %-6s %9s %9s %8s %8s %9s %6s %6s %9s %9s %9s  %s\n", "PID", "PPID", "S",
		"COW/s", "COW", "REUSE", "ZFILL", "RSS_KiB", "SHR%", "FAM%", "USS_KiB", "PSS_KiB", "VSZ_KiB",
		"COMMAND");
	for (i = 0; i < fr->nrows; i++) {
		const struct row *r = &fr->rows[i];
		const struct proc *p = r->p;

		tree_prefix(r, false, prefix, sizeof(prefix));
		if (oo && oo->utf8)
			text_sanitize(p->comm, strnlen(p->comm, sizeof(p->comm)), name, sizeof(name));
		else
			text_sanitize_ascii(p->comm, strnlen(p->comm, sizeof(p->comm)), name, sizeof(name));
		proc_exit_reason(p, why, sizeof(why));
		fprintf(f, "%7d %7d %-6s %9.1f %9llu %8llu %8llu %9s %6s %6s %9s %9s %9s  %s%s%s%s%s\n",
			p->pid, p->ppid, output_state(p), p->cow_rate,
			(unsigned long long)p->counts.cow, (unsigned long long)p->counts.reuse,
			(unsigned long long)p->counts.zero_fill,
			text_count(proc_mem_known(p), p->rss_kib, rss, sizeof(rss)),
			text_pct(proc_shared_pct(p), shr, sizeof(shr)),
			text_pct(proc_family_pct(p), fam, sizeof(fam)),
			text_count(p->smaps_time != 0, proc_uss_kib(p), uss, sizeof(uss)),
			text_count(p->smaps_time != 0, p->smaps.pss, pss, sizeof(pss)),
			text_count(proc_mem_known(p), p->vsz_kib, vsz, sizeof(vsz)), prefix, name,
			*why ? " [" : "", why, *why ? "]" : "");
	}
	text_groups(f, fr);
	text_cmdlines(f, fr);
	if (oo && oo->regions)
		text_regions(f, fr);
	if (fr->usdt || fr->nkprobes)
		text_usdt(f, fr);
	fputc('\n', f);
}
