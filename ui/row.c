/* Rows of the process table formatted off-screen. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "glyphs.h"
#include "output.h"
#include "row.h"
#include "spark.h"
#include "text.h"

#define CMD_MIN 16
#define CMD_MAX 32
#define HIST_MIN 4

/* The fixed columns, left to right, and the key each one sorts by. */
static const struct column {
	const char *title;
	int width;
	int sort; /* enum sort_key, or -1 */
	bool left;
} columns[] = {
	{ "PID", 7, SORT_PID, false },
	{ "S", 1, -1, true },
	{ "CoW/s", 7, SORT_COW_RATE, false },
	{ "COW", 7, SORT_COW, false },
	{ "RSS", 6, SORT_RSS, false },
	{ "VSZ", 6, SORT_VSZ, false },
};
#define NCOLUMNS (sizeof(columns) / sizeof(*columns))

/* Split width between the sparkline and the command: the command gets half
 * of what the fixed columns leave (16 to 32 columns), the sparkline the rest. */
void row_layout_init(struct row_layout *l, int width, bool utf8)
{
	int extra = width - ROW_FIXED, cmd = extra / 2, hist;

	if (cmd < CMD_MIN)
		cmd = CMD_MIN;
	if (cmd > CMD_MAX)
		cmd = CMD_MAX;
	hist = extra - 1 - cmd;
	if (hist < HIST_MIN)
		hist = 0;
	if (hist > SERIES_CAP)
		hist = SERIES_CAP;
	*l = (struct row_layout){ .width = width, .hist = hist, .scale = 0, .utf8 = utf8 };
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

/* Whether key lists largest first when not reversed. */
static bool sort_descends(enum sort_key key, bool reverse)
{
	bool desc = key != SORT_PID && key != SORT_COMM;

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

/* The sparkline title that fits in hist columns, with the scale if it can. */
static void hist_title(const struct row_layout *l, char *buf, size_t cap)
{
	char v[32];
	int i;

	fmt_rate(l->scale, v, sizeof(v));
	for (i = 0; i < 4; i++) {
		if (i == 0)
			snprintf(buf, cap, "CoW/s history (max %s/s)", v);
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
void row_titles(const struct row_layout *l, enum sort_key key, bool reverse, struct line *out)
{
	const struct glyphs *g = glyphs__pick(l->utf8);
	const char *dir = sort_descends(key, reverse) ? g->sort_down : g->sort_up;
	char cell[64];
	size_t i;

	line_clear(out);
	out->base = ROLE_COLHDR;
	for (i = 0; i < NCOLUMNS; i++) {
		bool on = columns[i].sort == (int)key;

		snprintf(cell, sizeof(cell), "%s%s", on ? dir : "", columns[i].title);
		put_cell(out, on ? ROLE_SORT : ROLE_COLHDR, cell, columns[i].width, columns[i].left);
		line_put(out, ROLE_PLAIN, " ", 1);
	}
	if (l->hist) {
		hist_title(l, cell, sizeof(cell));
		put_cell(out, ROLE_COLHDR, cell, l->hist, true);
		line_put(out, ROLE_PLAIN, " ", 1);
	}
	snprintf(cell, sizeof(cell), "COMMAND%s", key == SORT_COMM ? dir : "");
	line_put(out, key == SORT_COMM ? ROLE_SORT : ROLE_COLHDR, cell, strlen(cell));
	line_pad(out, l->width);
	line_fit(out, l->width);
}

/* p's name made safe for the terminal. */
size_t row_name(const struct proc *p, bool utf8, char *buf, size_t cap)
{
	size_t n = strnlen(p->comm, sizeof(p->comm));

	return utf8 ? text_sanitize(p->comm, n, buf, cap) : text_sanitize_ascii(p->comm, n, buf, cap);
}

/* The state letter shown for p: X once it has exited. */
static char row_state(const struct proc *p)
{
	if (p->exited)
		return 'X';
	return (p->state >= 'A' && p->state <= 'z') ? p->state : '?';
}

/* The fixed cells of p. */
static void row_cells(const struct proc *p, struct line *out)
{
	char rate[32], cow[32], rss[32], vsz[32];

	fmt_rate(p->cow_rate, rate, sizeof(rate));
	fmt_count((unsigned long long)p->counts.cow, cow, sizeof(cow));
	fmt_kib(p->rss_kib, rss, sizeof(rss));
	fmt_kib(p->vsz_kib, vsz, sizeof(vsz));
	line_add(out, ROLE_PLAIN, "%7d %c %7s %7s %6s %6s ", p->pid, row_state(p),
		 rate, cow, rss, vsz);
}

/* One process as a line of the table, exactly l->width columns or fewer. */
void row_format(const struct row *r, const struct row_layout *l, struct line *out)
{
	char spark[SERIES_CAP * 4 + 1], prefix[1024], name[ROW_NAME_MAX];
	size_t n;

	line_clear(out);
	out->base = r->p->exited ? ROLE_DIM : ROLE_PLAIN;
	row_cells(r->p, out);
	if (l->hist) {
		n = spark_series(&r->p->rate, (size_t)l->hist, l->scale, l->utf8, spark, sizeof(spark));
		line_put(out, ROLE_SPARK, spark, n);
		line_put(out, ROLE_PLAIN, " ", 1);
	}
	n = output_tree_prefix(r, l->utf8, prefix, sizeof(prefix));
	line_put(out, ROLE_TREE, prefix, n);
	n = row_name(r->p, l->utf8, name, sizeof(name));
	line_put(out, ROLE_PLAIN, name, n);
	line_fit(out, l->width);
}

/* Whether r's name contains pattern, ignoring case. */
static bool row_matches(const struct row *r, const char *pattern, bool utf8)
{
	char name[ROW_NAME_MAX];

	row_name(r->p, utf8, name, sizeof(name));
	return strcasestr(name, pattern) != NULL;
}

/* Recompute the tree bits (last, more) of rows after some were dropped. */
static void rows_relink(struct row *rows, size_t n)
{
	int maxd = 0, d;
	unsigned long long open = 0;
	bool *seen;
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].depth > maxd)
			maxd = rows[i].depth;
	seen = calloc((size_t)maxd + 2, sizeof(*seen));
	if (!seen)
		return;
	for (i = n; i-- > 0;) {
		d = rows[i].depth;
		rows[i].last = !seen[d];
		seen[d] = true;
		memset(seen + d + 1, 0, (size_t)(maxd - d) * sizeof(*seen));
	}
	free(seen);
	for (i = 0; i < n; i++) {
		d = rows[i].depth;
		rows[i].more = d < 64 ? open & ((1ULL << d) - 1) : open;
		if (d < 64) {
			open &= d < 63 ? (1ULL << (d + 1)) - 1 : UINT64_MAX;
			open = rows[i].last ? open & ~(1ULL << d) : open | (1ULL << d);
		}
	}
}

/* Keep the rows whose name contains pattern (case-insensitive), in place;
 * in a tree their ancestors stay too, and the tree lines are redrawn.
 * Returns the number of rows kept. */
size_t rows_filter(struct row *rows, size_t n, const char *pattern, bool utf8, bool tree)
{
	int frontier = -1; /* depth of the nearest kept row after this one */
	size_t i, j = n;

	if (!pattern || !*pattern)
		return n;
	for (i = n; i-- > 0;) {
		bool keep = row_matches(&rows[i], pattern, utf8);

		if (!keep && tree && frontier >= 0 && rows[i].depth < frontier)
			keep = true;
		if (!keep)
			continue;
		frontier = rows[i].depth;
		rows[--j] = rows[i];
	}
	memmove(rows, rows + j, (n - j) * sizeof(*rows));
	if (tree)
		rows_relink(rows, n - j);
	return n - j;
}
