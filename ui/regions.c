/* The regions pane, built off-screen. */
#include <string.h>
#include "glyphs.h"
#include "regions.h"
#include "row.h"
#include "text.h"

#define SHARE_COLS 4   /* "100%", " <1%" */
#define COUNT_COLS 10
#define BAR_MAX 60     /* wider bars tell no more */

static const char *const legend[] = {
	"heap: the brk area  stack: the main thread's  anon: anonymous mappings",
	"file:NAME: private mappings of a file  other: the rest (see cowtop(8))",
};

/* Columns the widest label takes, within [5, REGIONS_LABEL_MAX]. */
static int label_cols(const struct split_part *part, int n)
{
	int cols = 5, w, i;

	for (i = 0; i < n; i++) {
		text_fit(part[i].label, strlen(part[i].label), REGIONS_LABEL_MAX, &w);
		if (w > cols)
			cols = w;
	}
	return cols;
}

/* Append a bar of width cells, filled to pages of total (a sliver for any
 * copy at all). */
static void put_bar(struct line *l, unsigned long long pages, unsigned long long total, int width,
		    bool utf8)
{
	const struct glyphs *g = glyphs_pick(utf8);
	int steps = g->nbar - 1, i;
	long long units = total ? (long long)((double)pages * width * steps / (double)total + 0.5) : 0;

	if (pages && !units)
		units = 1;
	for (i = 0; i < width; i++, units -= steps) {
		const char *s = g->bar[units >= steps ? steps : units > 0 ? units : 0];

		line_put(l, ROLE_SPARK, s, strlen(s));
	}
}

/* One region: its name, share, count and bar. */
static void region_line(struct line *l, const struct split_part *part, unsigned long long total,
			int lcols, int cols, bool utf8)
{
	double pct = total ? 100.0 * (double)part->pages / (double)total : 0;
	int bar = cols - (2 + lcols + 1 + SHARE_COLS + COUNT_COLS + 2);

	line_add(l, ROLE_PLAIN, "  ");
	row_put_cell_safe(l, ROLE_LABEL, part->label, strlen(part->label), utf8, lcols);
	if (part->pages && pct < 0.5)
		line_add(l, ROLE_VALUE, " %*s", SHARE_COLS, "<1%");
	else
		line_add(l, ROLE_VALUE, " %*.0f%%", SHARE_COLS - 1, pct);
	line_add(l, ROLE_PLAIN, "%*llu  ", COUNT_COLS, part->pages);
	if (bar > 0)
		put_bar(l, part->pages, total, bar < BAR_MAX ? bar : BAR_MAX, utf8);
	line_fit(l, cols);
}

/* Fill out (room for max lines, REGIONS_LINES is enough) with the pane of
 * p in frame f, cols wide: a title (with the copies not classified yet, if
 * any), a line per region (heap, stack, anon, the files with copies, other
 * last), a legend. Returns the lines used. */
size_t regions_build(const struct frame *f, const struct proc *p, int cols, bool utf8,
		     struct line *out, size_t max)
{
	struct split_part part[SPLIT_SLOTS];
	unsigned long long total = 0;
	char name[ROW_NAME_MAX];
	struct line *l;
	size_t n = 0;
	int nparts, lcols, i;

	if (!(l = line_next(out, max, &n)))
		return n;
	line_add(l, ROLE_VALUE, "copies by region: ");
	if (!f || !p) {
		line_add(l, ROLE_PLAIN, "no process selected");
		return n;
	}
	nparts = frame_split_parts(f, p, SPLIT_REGION, false, part);
	for (i = 0; i < nparts; i++)
		total += part[i].pages;
	row_name(p, utf8, name, sizeof(name));
	line_add(l, ROLE_PLAIN, "pid %d %s, %llu cop%s", p->pid, name, total, total == 1 ? "y" : "ies");
	if (p->counts.cow > total) /* pending in the kernel when read: next frame */
		line_add(l, ROLE_DIM, " (%llu not classified yet)", p->counts.cow - total);
	line_fit(l, cols);
	line_next(out, max, &n);
	lcols = label_cols(part, nparts);
	for (i = 0; i < nparts && (l = line_next(out, max, &n)); i++)
		region_line(l, &part[i], total, lcols, cols, utf8);
	line_next(out, max, &n);
	for (i = 0; i < (int)(sizeof(legend) / sizeof(*legend)) && (l = line_next(out, max, &n)); i++) {
		line_add(l, ROLE_DIM, "  %s", legend[i]);
		line_fit(l, cols);
	}
	return n;
}
