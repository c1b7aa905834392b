/* Batch frames: a top-like text table, or one JSON object per line. */
#include <string.h>
#include <time.h>
#include "json.h"
#include "output.h"
#include "text.h"

/* The state shown for p: its /proc letter, or "exited". */
const char *output_state(const struct proc *p)
{
	static char letters[256][2];
	unsigned char c = (unsigned char)p->state;

	if (p->exited)
		return "exited";
	if (c < 'A' || c > 'z')
		return "?";
	letters[c][0] = (char)c;
	return letters[c];
}

/* Write the tree-line prefix of row r ("|  `- " or its UTF-8 drawing) into
 * buf; returns its length. Depth 0 has no prefix. */
size_t output_tree_prefix(const struct row *r, bool utf8, char *buf, size_t cap)
{
	const char *bar = utf8 ? "\u2502 " : "| ";
	const char *tee = utf8 ? "\u251c\u2500 " : "|- ";
	const char *elbow = utf8 ? "\u2514\u2500 " : "`- ";
	size_t len = 0;
	int d;

	buf[0] = '\0';
	for (d = 1; d <= r->depth; d++) {
		const char *piece;
		size_t pl;

		if (d == r->depth)
			piece = r->last ? elbow : tee;
		else
			piece = (d < 64 && (r->more >> d & 1)) ? bar : "  ";
		pl = strlen(piece);
		if (len + pl + 1 > cap)
			break;
		memcpy(buf + len, piece, pl + 1);
		len += pl;
	}
	return len;
}

/* A process's copies per phase, "none" last. */
static void json_phases(FILE *f, const struct frame *fr, const struct proc *p)
{
	int i, n = model__nphases(fr->model);

	fputs(",\"cow_by_phase\":{", f);
	for (i = 1; i < n; i++) {
		const char *label = model__phase_label(fr->model, i);

		json_string(f, label, strlen(label));
		fprintf(f, ":%llu,", p->phase_cow[i]);
	}
	fprintf(f, "\"none\":%llu}", model__phase_none(p));
}

/* The probe hits of the frame. */
static void json_markers(FILE *f, const struct frame *fr)
{
	size_t i;
	int k;

	fputs(",\"markers\":[", f);
	for (i = 0; i < fr->nmarks; i++) {
		const struct marker *mk = fr->marks[i];
		const char *label = model__probe_label(fr->model, mk->probe);

		fprintf(f, "%s{\"time\":%.6f,\"pid\":%d,\"probe\":", i ? "," : "", mk->time, mk->pid);
		json_string(f, label, strlen(label));
		fputs(",\"args\":[", f);
		for (k = 0; k < mk->nargs; k++)
			fprintf(f, "%s%lld", k ? "," : "", mk->args[k]);
		fputs("]}", f);
	}
	fputc(']', f);
}

/* One process as a JSON object. */
static void json_proc(FILE *f, const struct frame *fr, const struct row *r)
{
	const struct proc *p = r->p;

	fprintf(f, "{\"pid\":%d,\"ppid\":%d,\"comm\":", p->pid, p->ppid);
	json_string(f, p->comm, strnlen(p->comm, sizeof(p->comm)));
	fprintf(f, ",\"depth\":%d,\"state\":\"%s\",\"start_time\":%llu,"
		"\"cow_pages\":%llu,\"cow_rate\":%.1f,\"cow_kernel\":%llu,"
		"\"reuse\":%llu,\"zero_fill\":%llu,\"rss_kib\":%llu,\"vsz_kib\":%llu",
		r->depth, output_state(p), p->start_time,
		(unsigned long long)p->counts.cow, p->cow_rate,
		(unsigned long long)p->counts.cow_kernel,
		(unsigned long long)p->counts.reuse,
		(unsigned long long)p->counts.zero_fill, p->rss_kib, p->vsz_kib);
	if (fr->usdt)
		json_phases(f, fr, p);
	fputc('}', f);
}

/* The frame as exactly one line of JSON. */
void output_json(FILE *f, const struct frame *fr)
{
	size_t i;

	fprintf(f, "{\"time\":%.3f,\"interval\":%.3f,\"mechanism\":", fr->time, fr->interval);
	json_string(f, fr->mechanism, strlen(fr->mechanism));
	fprintf(f, ",\"lost\":%llu,\"processes\":[", fr->lost);
	for (i = 0; i < fr->nrows; i++) {
		if (i)
			fputc(',', f);
		json_proc(f, fr, &fr->rows[i]);
	}
	fputc(']', f);
	if (fr->usdt)
		json_markers(f, fr);
	fputs("}\n", f);
}

/* Totals over the rows: copies and copy rate. */
static void totals(const struct frame *fr, unsigned long long *cow, double *rate)
{
	size_t i;

	*cow = 0;
	*rate = 0;
	for (i = 0; i < fr->nrows; i++) {
		*cow += fr->rows[i].p->counts.cow;
		*rate += fr->rows[i].p->cow_rate;
	}
}

/* Under the table: each process's copies per phase, then the probe hits. */
static void text_usdt(FILE *f, const struct frame *fr)
{
	size_t i;
	int k, n = model__nphases(fr->model);

	for (i = 0; i < fr->nrows; i++) {
		const struct proc *p = fr->rows[i].p;

		if (model__phase_none(p) == p->counts.cow)
			continue;
		fprintf(f, "phases %d:", p->pid);
		for (k = 1; k < n; k++)
			if (p->phase_cow[k])
				fprintf(f, " %s %llu", model__phase_label(fr->model, k), p->phase_cow[k]);
		fprintf(f, " none %llu\n", model__phase_none(p));
	}
	for (i = 0; i < fr->nmarks; i++) {
		const struct marker *mk = fr->marks[i];

		fprintf(f, "marker %.3f %d %s", mk->time, mk->pid, model__probe_label(fr->model, mk->probe));
		for (k = 0; k < mk->nargs; k++)
			fprintf(f, " %lld", mk->args[k]);
		fputc('\n', f);
	}
}

/* The frame as a text table with a header line, then a blank line. */
void output_text(FILE *f, const struct frame *fr)
{
	char when[32], prefix[256], name[4 * PROC_COMM_MAX + 1];
	time_t secs = (time_t)fr->time;
	unsigned long long cow;
	struct tm tm;
	double rate;
	size_t i;

	localtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	totals(fr, &cow, &rate);
	fprintf(f, "cowtop %s  interval %.2fs  processes %zu  cow %llu pages  %.1f/s  lost %llu  [%s]\n",
		when, fr->interval, fr->nrows, cow, rate, fr->lost, fr->mechanism);
	fprintf(f, "%7s %7s %-6s %9s %9s %8s %8s %9s %9s  %s\n", "PID", "PPID", "S",
		"COW/s", "COW", "REUSE", "ZFILL", "RSS_KiB", "VSZ_KiB", "COMMAND");
	for (i = 0; i < fr->nrows; i++) {
		const struct row *r = &fr->rows[i];
		const struct proc *p = r->p;

		output_tree_prefix(r, false, prefix, sizeof(prefix));
		text_sanitize_ascii(p->comm, strnlen(p->comm, sizeof(p->comm)), name, sizeof(name));
		fprintf(f, "%7d %7d %-6s %9.1f %9llu %8llu %8llu %9llu %9llu  %s%s\n",
			p->pid, p->ppid, output_state(p), p->cow_rate,
			(unsigned long long)p->counts.cow, (unsigned long long)p->counts.reuse,
			(unsigned long long)p->counts.zero_fill, p->rss_kib, p->vsz_kib,
			prefix, name);
	}
	if (fr->usdt)
		text_usdt(f, fr);
	fputc('\n', f);
}
