/* The panes of the full-screen view, drawn from the view's state: the
 * process table, the probe log, the copy-sites pane (or a site's stack),
 * the help screen, the regions and the objects pane. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <curses.h>
#include <stdlib.h>
#include "help.h"
#include "line.h"
#include "objpane.h"
#include "panes.h"
#include "regions.h"
#include "row.h"
#include "screen.h"
#include "sites.h"
#include "terminal.h"
#include "tui_int.h"
#include "view.h"

/* The layout of the table's columns at this width, and its scale. */
static void table_layout(const struct tui *t, int cols, struct row_layout *rl)
{
	view__row_layout(&t->v, cols, rl);
}

/* Draw the column titles and the visible rows from screen row y. */
void panes_draw_table(struct tui *t, int y, const struct areas *a, int cols)
{
	struct row_layout rl;
	size_t i;
	int k;

	table_layout(t, cols, &rl);
	if (a->titles) {
		row_titles(&rl, t->v.vo.sort, t->v.vo.reverse, &t->scratch);
		t->titles_y = y;
		terminal_draw_line(t->attr, y++, &t->scratch, cols, false);
	}
	t->rows_y = y;
	view__scroll(&t->v, (size_t)a->body);
	t->body = (size_t)a->body;
	for (k = 0; k < a->body; k++) {
		i = t->v.top + (size_t)k;
		if (i >= t->v.n)
			break;
		row_format(&t->v.rows[i], &rl, &t->scratch);
		terminal_draw_line(t->attr, y + k, &t->scratch, cols, i == t->v.sel);
	}
}

/* Draw the probe log pane: its title, then the newest hits that fit. */
void panes_draw_log(struct tui *t, int y, int rows, int cols)
{
	const struct frame *f = t->v.f;
	size_t i, nlog = f ? f->nlog : 0;

	row_marker_titles(f ? f->log_kept : 0, cols, &t->scratch);
	terminal_draw_line(t->attr, y++, &t->scratch, cols, false);
	if (--rows < 1)
		return;
	if (!nlog) {
		line_clear(&t->scratch);
		line_add(&t->scratch, ROLE_DIM, "no probe hits yet");
		terminal_draw_line(t->attr, y, &t->scratch, cols, false);
		return;
	}
	for (i = nlog > (size_t)rows ? nlog - (size_t)rows : 0; i < nlog; i++) {
		const struct frame_mark *e = &f->log[i];

		row_marker(&e->mk, e->comm, frame_probe_label(f, e->mk.probe), t->s.utf8, cols, &t->scratch);
		terminal_draw_line(t->attr, y++, &t->scratch, cols, false);
	}
}

/* The lines of a full-screen pane, allocated once; NULL when out of memory. */
static struct line *pane_lines(struct tui *t)
{
	if (!t->pane)
		t->pane = calloc(PANE_MAX, sizeof(*t->pane));
	return t->pane;
}

/* Draw pane lines from first on, in the rows above the status line. */
static void draw_pane(struct tui *t, size_t first, size_t n, int rows, int cols)
{
	int y;

	for (y = 0; first < n && y < rows; first++, y++)
		terminal_draw_line(t->attr, y, &t->pane[first], cols, false);
}

/* The stacks of the selected process in the frame shown, NULL if none. */
static const struct stacks_proc *selected_stacks(const struct tui *t)
{
	const struct proc *p = view__selected(&t->v);

	return p && t->v.f ? stacks_snap__of(t->v.f->stacks, p->pid, p->start_time) : NULL;
}

/* Draw the opened stack of the selected site. */
static void draw_stack(struct tui *t, const struct stacks_proc *sp, int y, int rows, int cols)
{
	const struct stack_site *site = &sp->sites[t->site_sel];
	const struct stack_top *st = site->heaviest >= 0 ? &sp->top[site->heaviest] : NULL;
	int k;

	sites_stack_title(site, st, t->s.utf8, &t->scratch);
	terminal_draw_line(t->attr, y++, &t->scratch, cols, false);
	for (k = 0; st && k < st->nframes && k < rows - 1; k++) {
		sites_frame(k, st->frames[k], t->s.utf8, &t->scratch);
		terminal_draw_line(t->attr, y++, &t->scratch, cols, false);
	}
}

/* Draw the copy-sites pane of the selected process, or a site's stack. */
void panes_draw_sites(struct tui *t, int y, int rows, int cols)
{
	const struct stacks_proc *sp = selected_stacks(t);
	size_t i;

	if (sp && t->site_sel >= sp->nsites)
		t->site_sel = sp->nsites ? sp->nsites - 1 : 0;
	if (t->site_open && sp && t->site_sel < sp->nsites) {
		draw_stack(t, sp, y, rows, cols);
		return;
	}
	sites_title(t->v.f, view__selected(&t->v), t->site_focus, &t->scratch);
	terminal_draw_line(t->attr, y++, &t->scratch, cols, false);
	for (i = 0; sp && i < sp->nsites && (int)i < rows - 1; i++) {
		sites_row(&sp->sites[i], sp->pages, t->s.utf8, &t->scratch);
		terminal_draw_line(t->attr, y++, &t->scratch, cols, t->site_focus && i == t->site_sel);
	}
}

/* Draw the help screen, scrolled, in the rows above the status line. */
void panes_draw_help(struct tui *t, int rows, int cols)
{
	if (!pane_lines(t))
		return;
	t->help_n = help_build(t->pane, PANE_MAX, t->s.utf8, t->s.allow);
	if (rows < 1)
		return;
	if (t->help_top + (size_t)rows > t->help_n)
		t->help_top = t->help_n > (size_t)rows ? t->help_n - (size_t)rows : 0;
	draw_pane(t, t->help_top, t->help_n, rows, cols);
}

/* Draw the regions pane of the selected process above the status line. */
void panes_draw_regions(struct tui *t, int rows, int cols)
{
	size_t n;

	if (!pane_lines(t))
		return;
	n = regions_build(t->v.f, view__selected(&t->v), cols, t->s.utf8, t->pane, PANE_MAX);
	draw_pane(t, 0, n, rows, cols);
}

/* Draw the objects pane of the selected process above the status line. */
void panes_draw_objects(struct tui *t, int rows, int cols)
{
	size_t n;

	if (!pane_lines(t))
		return;
	n = objpane_build(t->v.f, view__selected(&t->v), cols, t->s.utf8, t->pane, PANE_MAX);
	draw_pane(t, 0, n, rows, cols);
}
