/* Rows of the process table formatted off-screen. */
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

#define CMD_MIN 16
#define CMD_MAX 32
#define CMD_MAX_ARGV 96 /* columns of a command line at most */
#define HIST_MIN 4
#define SPANS_AFTER_SPARK 4 /* tree lines and name, kept coloured before marks */

_Static_assert(FIELD_N <= 64, "ROW_HIDE bits fit in an unsigned long long");

/* The columns of the field table, left to right (read once). */
static enum field_id columns[FIELD_N];
static size_t ncolumns;

/* Fill the column list from the field table, the first time. */
static void columns_load(void)
{
	if (!ncolumns)
		ncolumns = fields_columns(columns);
}

/* A column's title: the copy columns say when they count bytes. */
static const char *column_title(const struct field *f, bool bytes)
{
	return bytes && f->title_bytes ? f->title_bytes : f->title;
}

/* Whether column id is shown at drop level keep, hidden those hidden. */
static bool column_shown(enum field_id id, int keep, unsigned long long hidden)
{
	return fields[id].drop <= keep && !(hidden & ROW_HIDE(id));
}

/* Screen columns of the fixed columns shown at drop level keep, but
 * hidden, a space after each. */
static int columns_width(int keep, unsigned long long hidden)
{
	int w = 0;
	size_t i;

	columns_load();
	for (i = 0; i < ncolumns; i++)
		if (column_shown(columns[i], keep, hidden))
			w += fields[columns[i]].width + 1;
	return w;
}

/* Screen columns of the fixed columns shown at drop level keep. */
int row_columns_width(int keep)
{
	return columns_width(keep, 0);
}

/* The highest drop level of a column or the sparkline: everything is
 * shown at it. */
static int columns_keep_all(void)
{
	int keep = ROW_HIST_DROP;
	size_t i;

	columns_load();
	for (i = 0; i < ncolumns; i++)
		if (fields[columns[i]].drop > keep)
			keep = fields[columns[i]].drop;
	return keep;
}

/* Screen columns wanted at drop level keep at least: the fixed columns,
 * the sparkline's ROW_HIST_KEEP (and its space) while its level is kept,
 * COMMAND's CMD_MIN. */
static int layout_min_width(int keep, unsigned long long hidden)
{
	return columns_width(keep, hidden) + (keep >= ROW_HIST_DROP ? ROW_HIST_KEEP + 1 : 0) + CMD_MIN;
}

/* Split width between the columns, the sparkline and the command. While
 * they do not fit, columns leave by their drop level (fields.h), the
 * highest first, the sparkline at ROW_HIST_DROP. The command gets half of
 * what the fixed columns leave (16 to 32 columns), with cmdline (COMMAND
 * shows command lines) two thirds, up to CMD_MAX_ARGV; the sparkline gets
 * the rest, at most ROW_HIST_MAX columns, and COMMAND what is over.
 * Columns in hidden (ROW_HIDE bits, F2) are never shown. */
void row_layout_split(struct row_layout *l, int width, bool utf8, bool cmdline, unsigned long long hidden)
{
	int keep = columns_keep_all(), extra, cmd, hist = 0;
	int max = cmdline ? CMD_MAX_ARGV : CMD_MAX;

	while (keep > 0 && layout_min_width(keep, hidden) > width)
		keep--;
	extra = width - columns_width(keep, hidden);
	if (keep >= ROW_HIST_DROP) {
		cmd = cmdline ? extra * 2 / 3 : extra / 2;
		if (cmd < CMD_MIN)
			cmd = CMD_MIN;
		if (cmd > max)
			cmd = max;
		hist = extra - 1 - cmd;
		if (hist < HIST_MIN)
			hist = 0;
		if (hist > ROW_HIST_MAX)
			hist = ROW_HIST_MAX;
	}
	*l = (struct row_layout){ .width = width, .hist = hist, .scale = 0, .utf8 = utf8, .keep = keep,
				  .cmdline = cmdline, .hidden = hidden };
}

/* The common scale of the rows' sparklines: their highest rate in view. */
double rows_scale(const struct row *rows, size_t n, int hist)
{
	double max = 0, v;
	size_t i;

	for (i = 0; i < n && hist > 0; i++) {
		v = spark_scale(&rows[i].p->rate, (size_t)hist);
		if (v > max)
			max = v;
	}
	return max;
}

/* Set the sparkline's metric and its scale over rows: the highest rate in
 * view, or 100 for shared%. */
void row_layout_scale(struct row_layout *l, enum row_metric metric, const struct row *rows, size_t n)
{
	l->metric = metric;
	l->scale = metric == METRIC_SHARED ? 100.0 : rows_scale(rows, n, l->hist);
}

/* Whether key lists largest first when not reversed. */
static bool sort_descends(enum field_id key, bool reverse)
{
	bool desc = (unsigned)key < FIELD_N && fields[key].order == FIELD_DESC;

	return desc != reverse;
}

/* Put s in a cell of width columns, right- or left-aligned, in role. */
static void put_cell(struct line *out, enum role role, const char *s, int width, bool left)
{
	int w = text_width(s);

	if (!left)
		line_add(out, ROLE_PLAIN, "%*s", w < width ? width - w : 0, "");
	line_put(out, role, s, strlen(s));
	if (left)
		line_add(out, ROLE_PLAIN, "%*s", w < width ? width - w : 0, "");
}

/* The sparkline title that fits in hist columns, longest first: what it
 * shows, then its scale if it can. */
static void hist_title(const struct row_layout *l, char *buf, size_t cap)
{
	static const char *const shared[] = {
		"SHR% history (full 100%)", "SHR% history", "SHR% hist", "SHR%",
	};
	char v[32];
	int i;

	if (l->bytes)
		fmt_kib_rate(l->scale * (double)fmt_page_kib(), v, sizeof(v));
	else
		fmt_rate(l->scale, v, sizeof(v));
	for (i = 0; i < 4; i++) {
		if (l->metric == METRIC_SHARED)
			snprintf(buf, cap, "%s", shared[i]);
		else if (i == 0)
			snprintf(buf, cap, "%s history (max %s/s)", l->bytes ? "CoW B/s" : "CoW/s", v);
		else if (i == 1)
			snprintf(buf, cap, "history (max %s/s)", v);
		else if (i == 2)
			snprintf(buf, cap, "max %s/s", v);
		else
			snprintf(buf, cap, "history");
		if ((int)strlen(buf) <= l->hist)
			return;
	}
	buf[0] = '\0';
}

/* The column titles, the sort column marked with its direction. */
void row_titles(const struct row_layout *l, enum field_id key, bool reverse, struct line *out)
{
	const struct glyphs *g = glyphs_pick(l->utf8);
	const char *dir = sort_descends(key, reverse) ? g->sort_down : g->sort_up;
	char cell[64];
	size_t i;

	line_clear(out);
	out->base = ROLE_COLHDR;
	columns_load();
	for (i = 0; i < ncolumns; i++) {
		const struct field *f = &fields[columns[i]];
		bool on = f->sort_name && columns[i] == key;

		if (!column_shown(columns[i], l->keep, l->hidden))
			continue;
		snprintf(cell, sizeof(cell), "%s%s", on ? dir : "", column_title(f, l->bytes));
		put_cell(out, on ? ROLE_SORT : ROLE_COLHDR, cell, f->width, f->left);
		line_put(out, ROLE_PLAIN, " ", 1);
	}
	if (l->hist) {
		hist_title(l, cell, sizeof(cell));
		put_cell(out, ROLE_COLHDR, cell, l->hist, true);
		line_put(out, ROLE_PLAIN, " ", 1);
	}
	snprintf(cell, sizeof(cell), "COMMAND%s", key == FIELD_COMM ? dir : "");
	if (l->scroll > 0)
		snprintf(cell + strlen(cell), sizeof(cell) - strlen(cell), " (scrolled %d)", l->scroll);
	line_put(out, key == FIELD_COMM ? ROLE_SORT : ROLE_COLHDR, cell, strlen(cell));
	line_pad(out, l->width);
	line_fit(out, l->width);
}

/* What a click at screen column x of the titles (or a row) is on: the
 * field of the column there (FIELD_COMM for COMMAND and what is right of
 * it), or -1 for the sparkline and the spaces between columns. Laid out
 * as row_titles lays them out. */
int row_column_at(const struct row_layout *l, int x)
{
	int left = 0;
	size_t i;

	if (x < 0)
		return -1;
	columns_load();
	for (i = 0; i < ncolumns; i++) {
		const struct field *f = &fields[columns[i]];

		if (!column_shown(columns[i], l->keep, l->hidden))
			continue;
		if (x < left + f->width)
			return (int)columns[i];
		if (x == left + f->width)
			return -1;
		left += f->width + 1;
	}
	if (l->hist && x < left + l->hist + 1)
		return -1;
	return FIELD_COMM;
}

/* p's name made safe for the terminal. */
size_t row_name(const struct proc *p, bool utf8, char *buf, size_t cap)
{
	size_t n = strnlen(p->comm, sizeof(p->comm));

	return utf8 ? text_sanitize(p->comm, n, buf, cap) : text_sanitize_ascii(p->comm, n, buf, cap);
}

/* What COMMAND shows for p, made safe: its command line when cmdline and
 * it has one (a kernel thread has none), else its name. */
size_t row_label(const struct proc *p, bool cmdline, bool utf8, char *buf, size_t cap)
{
	size_t n = strnlen(p->cmdline, sizeof(p->cmdline));

	if (!cmdline || !n)
		return row_name(p, utf8, buf, cap);
	return utf8 ? text_sanitize(p->cmdline, n, buf, cap) : text_sanitize_ascii(p->cmdline, n, buf, cap);
}

/* The state letter shown for p: X once it has exited. */
static char row_state(const struct proc *p)
{
	if (p->exited)
		return p->exit.left ? 'L' : 'X';
	return (p->state >= 'A' && p->state <= 'z') ? p->state : '?';
}

/* The text of figure id of p, "-" when not known; copies in bytes when
 * bytes. */
static void cell_text(enum field_id id, const struct proc *p, bool bytes, char *buf, size_t cap)
{
	const struct field *f = &fields[id];
	struct fval v = field_value(id, NULL, p);

	if (id == FIELD_PID) {
		snprintf(buf, cap, "%d", p->pid);
		return;
	}
	if (id == FIELD_STATE) {
		snprintf(buf, cap, "%c", row_state(p));
		return;
	}
	if (!v.known) {
		snprintf(buf, cap, "-");
		return;
	}
	switch (f->unit) {
	case FIELD_PAGES:
		if (bytes)
			fmt_kib(v.u * fmt_page_kib(), buf, cap);
		else
			fmt_count(v.u, buf, cap);
		break;
	case FIELD_PER_SEC:
		if (bytes)
			fmt_kib_rate(v.d * (double)fmt_page_kib(), buf, cap);
		else
			fmt_rate(v.d, buf, cap);
		break;
	case FIELD_KIB:
		fmt_kib(v.u, buf, cap);
		break;
	case FIELD_PERCENT:
		snprintf(buf, cap, "%.0f%%", v.d);
		break;
	default:
		if (f->type == FIELD_REAL)
			snprintf(buf, cap, "%.1f", v.d);
		else
			snprintf(buf, cap, "%llu", v.u);
		break;
	}
}

/* The fixed cells of p, those shown at drop level keep but hidden;
 * copies in bytes when bytes. */
static void row_cells(const struct proc *p, int keep, unsigned long long hidden, bool bytes, struct line *out)
{
	char cell[32];
	size_t i;

	columns_load();
	for (i = 0; i < ncolumns; i++) {
		const struct field *f = &fields[columns[i]];

		if (!column_shown(columns[i], keep, hidden))
			continue;
		cell_text(columns[i], p, bytes, cell, sizeof(cell));
		put_cell(out, ROLE_PLAIN, cell, f->width, f->left);
		line_put(out, ROLE_PLAIN, " ", 1);
	}
}

/* Bytes of the probe mark at s[0..n), 0 when none starts there. */
static size_t mark_at(const struct glyphs *g, const char *s, size_t n)
{
	size_t a = strlen(g->mark), b = strlen(g->mark_idle);

	if (n >= a && memcmp(s, g->mark, a) == 0)
		return a;
	if (n >= b && memcmp(s, g->mark_idle, b) == 0)
		return b;
	return 0;
}

/* Bytes of the run at s[0..n): all marks, or no mark at all (*marked says
 * which). UTF-8 is self-synchronizing, so bytewise steps never find a mark
 * inside another glyph. */
static size_t mark_run(const struct glyphs *g, const char *s, size_t n, bool *marked)
{
	size_t i = 0, k;

	*marked = mark_at(g, s, n) > 0;
	while (i < n) {
		k = mark_at(g, s + i, n - i);
		if ((k > 0) != *marked)
			break;
		i += k ? k : 1;
	}
	return i;
}

/* Put a sparkline, its probe marks in their own colour when the line has
 * spans enough left (else the marks keep only their glyph). */
static void put_spark(struct line *out, const char *s, size_t n, bool utf8)
{
	const struct glyphs *g = glyphs_pick(utf8);
	size_t i, r;
	bool marked;
	int runs = 0;

	for (i = 0; i < n; i += r) {
		r = mark_run(g, s + i, n - i, &marked);
		runs += marked;
	}
	if (!runs || out->nspan + 2 * runs + 1 + SPANS_AFTER_SPARK > LINE_SPANS) {
		line_put(out, ROLE_SPARK, s, n);
		return;
	}
	for (i = 0; i < n; i += r) {
		r = mark_run(g, s + i, n - i, &marked);
		line_put(out, marked ? ROLE_MARK : ROLE_SPARK, s + i, r);
	}
}

/* After the name of an exited process, how it ended: "[exit 0]",
 * "[SIGSEGV (core)]", "[oom-killed]"; a death by signal in warning colour. */
static void put_exit_reason(const struct proc *p, struct line *out)
{
	char why[32];

	if (!p->exited)
		return;
	proc_exit_reason(p, why, sizeof(why));
	line_add(out, (p->exit.status & 0x7f) || p->exit.oom ? ROLE_WARN : ROLE_PLAIN, " [%s]", why);
}

/* Bytes of sanitized text s[0..n) that fill its first cols screen
 * columns: what scrolling cols columns to the left hides. Never stops
 * inside a character or before a zero-width one that follows it. */
static size_t skip_columns(const char *s, size_t n, int cols)
{
	size_t i = 0;
	unsigned cp;
	int len, w;

	while (i < n) {
		len = utf8_decode((const unsigned char *)s + i, n - i, &cp);
		w = len > 0 ? wcwidth((wchar_t)cp) : 1;
		if (len <= 0)
			len = 1;
		if (cols <= 0 && w > 0)
			break;
		cols -= w > 0 ? w : 0;
		i += (size_t)len;
	}
	return i;
}

/* One process as a line of the table, exactly l->width columns or fewer. */
void row_format(const struct row *r, const struct row_layout *l, struct line *out)
{
	char spark[SERIES_CAP * 4 + 1], prefix[1024], name[ROW_LABEL_MAX];
	size_t n, k;

	line_clear(out);
	out->base = r->p->exited ? ROLE_DIM : ROLE_PLAIN;
	row_cells(r->p, l->keep, l->hidden, l->bytes, out);
	if (l->hist) {
		n = spark_series(l->metric == METRIC_SHARED ? &r->p->shared : &r->p->rate,
				 (size_t)l->hist, l->scale, l->utf8, spark, sizeof(spark));
		put_spark(out, spark, n, l->utf8);
		line_put(out, ROLE_PLAIN, " ", 1);
	}
	n = tree_prefix(r, l->utf8, prefix, sizeof(prefix));
	line_put(out, ROLE_TREE, prefix, n);
	n = row_label(r->p, l->cmdline, l->utf8, name, sizeof(name));
	k = l->scroll > 0 ? skip_columns(name, n, l->scroll) : 0;
	line_put(out, ROLE_PLAIN, name + k, n - k);
	put_exit_reason(r->p, out);
	line_fit(out, l->width);
}

/* Whether what COMMAND shows of r contains pattern, ignoring case: its
 * name, and its command line when those are shown (cmdline): "worker"
 * then finds the workers whose name is their runtime's. What is filtered
 * is what is seen. */
bool row_matches(const struct row *r, const char *pattern, bool utf8, bool cmdline)
{
	char name[ROW_LABEL_MAX];

	row_name(r->p, utf8, name, sizeof(name));
	if (strcasestr(name, pattern))
		return true;
	if (!cmdline)
		return false;
	row_label(r->p, true, utf8, name, sizeof(name));
	return strcasestr(name, pattern) != NULL;
}

/* Leave out kernel threads, in place (they hang off kthreadd, a kernel
 * thread too, so no other row loses its parent); returns the rows kept. */
size_t rows_drop_kthreads(struct row *rows, size_t n, bool tree)
{
	size_t i, j = 0;

	for (i = 0; i < n; i++)
		if (!rows[i].p->kthread)
			rows[j++] = rows[i];
	if (tree && j < n)
		tree_relink(rows, j);
	return j;
}

/* Keep the rows whose name contains pattern (case-insensitive), in place;
 * in a tree their ancestors stay too, and the tree lines are redrawn.
 * Returns the number of rows kept. */
size_t rows_filter(struct row *rows, size_t n, const char *pattern, bool utf8, bool cmdline, bool tree)
{
	int frontier = -1; /* depth of the nearest kept row after this one */
	size_t i, j = n;

	if (!pattern || !*pattern)
		return n;
	for (i = n; i-- > 0;) {
		bool keep = row_matches(&rows[i], pattern, utf8, cmdline);

		if (!keep && tree && frontier >= 0 && rows[i].depth < frontier)
			keep = true;
		if (!keep)
			continue;
		frontier = rows[i].depth;
		rows[--j] = rows[i];
	}
	memmove(rows, rows + j, (n - j) * sizeof(*rows));
	if (tree)
		tree_relink(rows, n - j);
	return n - j;
}
