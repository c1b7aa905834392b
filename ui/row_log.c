/* The phases line and the probe log's rows, formatted off-screen (see row.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "fmt.h"
#include "glyphs.h"
#include "row.h"
#include "spark.h"
#include "text.h"
#include "tree.h"

#define LOG_COMM 15         /* columns of the command in the probe log */

/* Append untrusted text s made safe for the terminal, in role. */
static void put_safe(struct line *out, enum role role, const char *s, bool utf8)
{
	char buf[4 * LABEL_MAX + 1];
	size_t n = strnlen(s, LABEL_MAX);

	n = utf8 ? text_sanitize(s, n, buf, sizeof(buf)) : text_sanitize_ascii(s, n, buf, sizeof(buf));
	line_put(out, role, buf, n);
}

/* Append ", " unless this is the first part, then "label NN%" of total. */
static void put_share(struct line *out, int part, const char *label, unsigned long long n,
    unsigned long long total, bool counts, bool utf8)
{
	double pct = 100.0 * (double)n / (double)total;

	if (part)
		line_put(out, ROLE_PLAIN, ", ", 2);
	put_safe(out, ROLE_PLAIN, label, utf8);
	if (pct < 0.5)
		line_add(out, ROLE_VALUE, " <1%%");
	else
		line_add(out, ROLE_VALUE, " %.0f%%", pct);
	if (counts)
		line_add(out, ROLE_PLAIN, " (%llu)", n);
}

/* Append how p's copies split between the phases of frame f, e.g. "pid 123
 * ruby: ruby:gc__mark 81%, outside 19%": only the phases with copies,
 * outside them last; with counts, each share's copies in parentheses.
 * Returns the shares shown: 0 (and nothing appended) when f has no phases
 * or p has copied nothing. */
int row_phases(const struct proc *p, const struct frame *f, bool utf8, bool counts, struct line *out)
{
	struct split_part part[SPLIT_SLOTS];
	unsigned long long total = 0;
	char name[ROW_NAME_MAX];
	int n, i, shown = 0;

	if (frame_nlabels(f, SPLIT_PHASE) <= 1)
		return 0;
	n = frame_split_parts(f, p, SPLIT_PHASE, false, part);
	for (i = 0; i < n; i++)
		total += part[i].pages;
	if (!total)
		return 0;
	row_name(p, utf8, name, sizeof(name));
	line_add(out, ROLE_PLAIN, "pid %d %s: ", p->pid, name);
	for (i = 0; i < n; i++)
		if (part[i].pages)
			put_share(out, shown++, i == n - 1 ? PHASE_OUTSIDE : part[i].label, part[i].pages,
				  total, counts, utf8);
	return shown;
}

/* The title of the probe log, naming its columns; cut or padded to width. */
void row_marker_titles(size_t kept, int width, struct line *out)
{
	line_clear(out);
	out->base = ROLE_COLHDR;
	line_add(out, ROLE_COLHDR, "%-12s %7s %-*s PROBE ARGS", "TIME", "PID", LOG_COMM, "COMMAND");
	line_add(out, ROLE_COLHDR, "  (%zu hit%s kept, newest last)", kept, kept == 1 ? "" : "s");
	line_pad(out, width);
	line_fit(out, width);
}

/* Append a probe argument: decimal, or hex when it looks like an address. */
static void put_arg(struct line *out, long long v)
{
	if (v > 0xffffffffLL || v < -0x80000000LL)
		line_add(out, ROLE_PLAIN, " 0x%llx", (unsigned long long)v);
	else
		line_add(out, ROLE_PLAIN, " %lld", v);
}

/* Append untrusted text s[0..n) made safe for the terminal, cut or padded
 * to exactly cols columns. */
void row_put_cell_safe(struct line *out, enum role role, const char *s, size_t n, bool utf8, int cols)
{
	char buf[4 * LABEL_MAX + 1];
	int w;

	if (n > LABEL_MAX)
		n = LABEL_MAX;
	n = utf8 ? text_sanitize(s, n, buf, sizeof(buf)) : text_sanitize_ascii(s, n, buf, sizeof(buf));
	n = text_fit(buf, n, cols, &w);
	line_put(out, role, buf, n);
	line_add(out, ROLE_PLAIN, "%*s", cols - w, "");
}

/* Append comm made safe, in exactly LOG_COMM columns. */
static void put_comm(struct line *out, const char *comm, bool utf8)
{
	size_t n = comm ? strnlen(comm, PROC_COMM_MAX) : 0;

	if (!n) {
		comm = "?";
		n = 1;
	}
	row_put_cell_safe(out, ROLE_PLAIN, comm, n, utf8, LOG_COMM);
}

/* One probe hit as a line of the log: "12:34:56.789    1234 ruby
 * ruby:gc__mark__begin 1 2", with comm and label (any bytes, NULL: "?")
 * made safe. Cut to width columns. */
void row_marker(const struct marker *mk, const char *comm, const char *label, bool utf8,
    int width, struct line *out)
{
	char clock[32];
	int i, nargs = mk->nargs;

	line_clear(out);
	fmt_clock(mk->time, clock, sizeof(clock));
	line_add(out, ROLE_LABEL, "%-12s", clock);
	line_add(out, ROLE_PLAIN, " %7d ", mk->pid);
	put_comm(out, comm, utf8);
	line_put(out, ROLE_PLAIN, " ", 1);
	put_safe(out, ROLE_VALUE, label ? label : "?", utf8);
	if (nargs > MARK_ARGS)
		nargs = MARK_ARGS;
	for (i = 0; i < nargs; i++) {
		if (mk->unavail & (1u << i))
			line_add(out, ROLE_PLAIN, " -"); /* could not be read */
		else
			put_arg(out, mk->args[i]);
	}
	line_fit(out, width);
}
