/* The table's state and how keys change it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "row.h"
#include "view.h"

/* The sort keys in the order of the columns on screen. */
static const enum sort_key sort_cycle[] = {
	SORT_PID, SORT_COW_RATE, SORT_COW, SORT_RSS, SORT_VSZ, SORT_COMM,
};

/* Leave a note for the status line. */
static void __attribute__((format(printf, 2, 3)))
note(struct view *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->note, sizeof(v->note), fmt, ap);
	va_end(ap);
}

/* Start with these options and no rows. */
void view__init(struct view *v, const struct view_opts *vo, bool utf8)
{
	memset(v, 0, sizeof(*v));
	v->vo = *vo;
	v->utf8 = utf8;
}

/* Free the copy of the rows; the view can be rebuilt after. */
void view__free(struct view *v)
{
	free(v->rows);
	free(v->procs);
	v->rows = NULL;
	v->procs = NULL;
	v->n = v->cap = 0;
}

/* Room for n rows in the copy. */
static int view_reserve(struct view *v, size_t n)
{
	struct row *r;
	struct proc *p;

	if (n <= v->cap)
		return 0;
	r = realloc(v->rows, n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	v->rows = r;
	p = realloc(v->procs, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	v->procs = p;
	v->cap = n;
	return 0;
}

/* Index of the row of process (pid, start; any start when 0), or -1. */
long view__find(const struct view *v, int pid, unsigned long long start)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->rows[i].p->pid == pid && (!start || v->rows[i].p->start_time == start))
			return (long)i;
	return -1;
}

/* The selected process, NULL when the view is empty. */
const struct proc *view__selected(const struct view *v)
{
	return v->n ? v->rows[v->sel].p : NULL;
}

/* Leave a focus whose process has left the model altogether. */
static void focus_check(struct view *v, struct model *m)
{
	while (v->vo.focus_pid && !model__find(m, v->vo.focus_pid, 0)) {
		note(v, "PID %d has gone: focus left", v->vo.focus_pid);
		v->vo.focus_pid = v->nfocus ? v->focus[--v->nfocus] : 0;
	}
}

/* Keep the selection on the followed process, or stop following it. */
static void follow_update(struct view *v)
{
	long i;

	if (!v->follow)
		return;
	i = view__find(v, v->follow_pid, v->follow_start);
	if (i >= 0) {
		v->sel = (size_t)i;
		return;
	}
	v->follow = false;
	note(v, "PID %d is not in the view any more: follow stopped", v->follow_pid);
}

/* Copy the model's rows for the current options, filtered; the selection
 * stays on its row number, or on the followed process. */
int view__rebuild(struct view *v, struct model *m)
{
	struct row *rows;
	size_t n, i;

	focus_check(v, m);
	if (model__rows(m, &v->vo, &rows, &n) || view_reserve(v, n)) {
		note(v, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		v->procs[i] = *rows[i].p;
		v->rows[i] = rows[i];
		v->rows[i].p = &v->procs[i];
	}
	v->n = rows_filter(v->rows, n, v->filter, v->utf8, v->vo.tree);
	follow_update(v);
	if (v->sel >= v->n)
		v->sel = v->n ? v->n - 1 : 0;
	return 0;
}

/* Move the selection by d rows, within the view. Moving by hand stops
 * following, as in htop. */
void view__move(struct view *v, long d)
{
	long s = (long)v->sel + d;

	if (s >= (long)v->n)
		s = (long)v->n - 1;
	if (s < 0)
		s = 0;
	v->sel = (size_t)s;
	v->follow = false;
}

/* Scroll so that the selection is among the height rows shown. */
void view__scroll(struct view *v, size_t height)
{
	size_t h = height ? height : 1;

	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + h)
		v->top = v->sel - h + 1;
	if (v->top + h > v->n)
		v->top = v->n > h ? v->n - h : 0;
}

/* Show only the selected process and its descendants; returns its pid, or
 * 0 when there is nothing to focus on. */
int view__focus_in(struct view *v, struct model *m)
{
	const struct proc *p = view__selected(v);
	char name[ROW_NAME_MAX];
	int pid;

	if (!p || (p->pid == v->vo.focus_pid && v->sel == 0))
		return 0;
	pid = p->pid;
	row_name(p, v->utf8, name, sizeof(name));
	note(v, "focus on PID %d %s: Backspace goes back", pid, name);
	if (v->nfocus == VIEW_FOCUS_DEPTH) {
		memmove(v->focus, v->focus + 1, (VIEW_FOCUS_DEPTH - 1) * sizeof(*v->focus));
		v->nfocus--;
	}
	v->focus[v->nfocus++] = v->vo.focus_pid;
	v->vo.focus_pid = pid;
	v->sel = v->top = 0;
	view__rebuild(v, m);
	return pid;
}

/* Go back to the view before the last focus, selecting what was focused;
 * returns the pid that was focused, 0 if there was no focus. */
int view__focus_out(struct view *v, struct model *m)
{
	int was = v->vo.focus_pid;
	long i;

	if (!was) {
		note(v, "showing everything already");
		return 0;
	}
	v->vo.focus_pid = v->nfocus ? v->focus[--v->nfocus] : 0;
	view__rebuild(v, m);
	i = view__find(v, was, 0);
	if (i >= 0 && !v->follow)
		v->sel = (size_t)i;
	return was;
}

/* Start or stop following the selected process; true when now following. */
bool view__follow_toggle(struct view *v)
{
	const struct proc *p = view__selected(v);
	char name[ROW_NAME_MAX];

	if (v->follow) {
		v->follow = false;
		note(v, "follow stopped");
		return false;
	}
	if (!p)
		return false;
	v->follow = true;
	v->follow_pid = p->pid;
	v->follow_start = p->start_time;
	row_name(p, v->utf8, name, sizeof(name));
	note(v, "following PID %d %s", v->follow_pid, name);
	return true;
}

/* Sort by k, in its natural direction. */
void view__sort(struct view *v, struct model *m, enum sort_key k)
{
	v->vo.sort = k;
	v->vo.reverse = false;
	view__rebuild(v, m);
}

/* Sort by the column dir steps right (or left) of the current one. */
void view__sort_cycle(struct view *v, struct model *m, int dir)
{
	int n = (int)(sizeof(sort_cycle) / sizeof(*sort_cycle)), i;

	for (i = 0; i < n && sort_cycle[i] != v->vo.sort; i++)
		;
	view__sort(v, m, sort_cycle[((i < n ? i : 0) + dir % n + n) % n]);
}

/* Reverse the sort order. */
void view__reverse(struct view *v, struct model *m)
{
	v->vo.reverse = !v->vo.reverse;
	view__rebuild(v, m);
}

/* Switch between the tree and the flat list. */
void view__tree_toggle(struct view *v, struct model *m)
{
	v->vo.tree = !v->vo.tree;
	view__rebuild(v, m);
}

/* Show only names containing filter (and, in a tree, their ancestors). */
void view__set_filter(struct view *v, struct model *m, const char *filter)
{
	snprintf(v->filter, sizeof(v->filter), "%s", filter ? filter : "");
	view__rebuild(v, m);
}
