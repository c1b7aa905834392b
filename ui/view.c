/* The table's state and how keys change it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "row.h"
#include "tree.h"
#include "view.h"


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

/* Let go of the frame and the rows; the view can take a frame again after. */
void view__free(struct view *v)
{
	frame__free(v->f);
	free(v->rows);
	v->f = NULL;
	v->rows = NULL;
	v->n = v->cap = 0;
}

/* Room for n rows. */
static int view_reserve(struct view *v, size_t n)
{
	struct row *r;

	if (n <= v->cap)
		return 0;
	r = realloc(v->rows, n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	v->rows = r;
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

/* Whether the frame holds process (pid, start; any start when 0). */
static bool frame_has(const struct frame *f, int pid, unsigned long long start)
{
	size_t i;

	for (i = 0; f && i < f->nprocs; i++)
		if (f->procs[i].pid == pid && (!start || f->procs[i].start_time == start))
			return true;
	return false;
}

/* Focus on the process pinned (pid 0: everything). */
static void focus_set(struct view *v, struct view_pin pin)
{
	v->vo.focus_pid = pin.pid;
	v->vo.focus_start = pin.start;
}

/* Leave a focus whose process has left the model altogether (its pid
 * alone is not it: a pid reused is another process). */
static void focus_check(struct view *v)
{
	while (v->vo.focus_pid && !frame_has(v->f, v->vo.focus_pid, v->vo.focus_start)) {
		note(v, "PID %d has gone: focus left", v->vo.focus_pid);
		focus_set(v, v->nfocus ? v->focus[--v->nfocus] : (struct view_pin){ 0, 0 });
	}
}

/* Pin the selection to the process on its row now. */
static void sel_pin(struct view *v)
{
	const struct proc *p = view__selected(v);

	v->sel_pin = p ? (struct view_pin){ p->pid, p->start_time } : (struct view_pin){ 0, 0 };
}

/* Put the selection back on its process after the rows moved; when that
 * process is not in the view any more, on the same row number. */
static void sel_find(struct view *v)
{
	long i = v->sel_pin.pid ? view__find(v, v->sel_pin.pid, v->sel_pin.start) : -1;

	if (i >= 0)
		v->sel = (size_t)i;
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

/* The frame's processes as rows for the view's options, into v->rows:
 * the frame's own rows when they were laid out with the same (a recording
 * or batch output asked for them), else laid out here. Returns how many,
 * or -ENOMEM. */
static long view_rows(struct view *v)
{
	const struct frame *f = v->f;

	if (frame_rows_for(f, &v->vo)) {
		memcpy(v->rows, f->rows, f->nrows * sizeof(*v->rows));
		return (long)f->nrows;
	}
	v->sorts++;
	return tree_layout(f->procs, f->nprocs, &v->vo, v->rows);
}

/* Lay the frame's processes out for the current options, filtered; the
 * selection stays on its process (or the followed one), else on its row
 * number. */
int view__layout(struct view *v)
{
	size_t n = v->f ? v->f->nprocs : 0;
	long k = 0;

	v->stale = false;
	v->layouts++;
	focus_check(v);
	if (view_reserve(v, n ? n : 1) ||
	    (n && (k = view_rows(v)) < 0)) {
		note(v, "out of memory");
		v->n = 0;
		return -ENOMEM;
	}
	if (!v->kthreads)
		k = (long)rows_drop_kthreads(v->rows, (size_t)k, v->vo.tree);
	v->n = rows_filter(v->rows, (size_t)k, v->filter, v->utf8, v->cmdline, v->vo.tree);
	sel_find(v);
	follow_update(v);
	if (v->sel >= v->n)
		v->sel = v->n ? v->n - 1 : 0;
	sel_pin(v);
	return 0;
}

/* Show frame f (held until the next one) and lay it out. */
int view__set_frame(struct view *v, struct frame *f)
{
	frame__hold(f);
	frame__free(v->f);
	v->f = f;
	return view__layout(v);
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
	sel_pin(v);
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
int view__focus_in(struct view *v)
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
	v->focus[v->nfocus++] = (struct view_pin){ v->vo.focus_pid, v->vo.focus_start };
	focus_set(v, (struct view_pin){ pid, p->start_time });
	v->sel = v->top = 0;
	view__layout(v);
	return pid;
}

/* Go back to the view before the last focus, selecting what was focused;
 * returns the pid that was focused, 0 if there was no focus. */
int view__focus_out(struct view *v)
{
	int was = v->vo.focus_pid;
	unsigned long long was_start = v->vo.focus_start;
	long i;

	if (!was) {
		note(v, "showing everything already");
		return 0;
	}
	focus_set(v, v->nfocus ? v->focus[--v->nfocus] : (struct view_pin){ 0, 0 });
	view__layout(v);
	i = view__find(v, was, was_start);
	if (i >= 0 && !v->follow) {
		v->sel = (size_t)i;
		sel_pin(v);
	}
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
void view__sort(struct view *v, enum field_id k)
{
	v->vo.sort = k;
	v->vo.reverse = false;
	view__layout(v);
}

/* Sort by the column dir steps right (or left) of the current one. */
void view__sort_cycle(struct view *v, int dir)
{
	enum field_id cycle[FIELD_N];
	int n = (int)fields_sort_cycle(cycle), i;

	for (i = 0; i < n && cycle[i] != v->vo.sort; i++)
		;
	view__sort(v, cycle[((i < n ? i : 0) + dir % n + n) % n]);
}

/* Reverse the sort order. */
void view__reverse(struct view *v)
{
	v->vo.reverse = !v->vo.reverse;
	view__layout(v);
}

/* Switch between the tree and the flat list. */
void view__tree_toggle(struct view *v)
{
	v->vo.tree = !v->vo.tree;
	view__layout(v);
}

/* Show only names containing filter (and, in a tree, their ancestors),
 * from the next view__settle: a filter typed or pasted key by key is laid
 * out once per batch of keys, not once per key. */
void view__set_filter(struct view *v, const char *filter)
{
	snprintf(v->filter, sizeof(v->filter), "%s", filter ? filter : "");
	v->stale = true;
}

/* Lay out now if the filter changed since the last layout; call before the
 * rows are read (drawing, a key that moves or acts on the selection). */
void view__settle(struct view *v)
{
	if (v->stale)
		view__layout(v);
}

/* Switch what the sparklines show: copies per second, or shared%. */
void view__metric_cycle(struct view *v)
{
	v->metric = (v->metric + 1) % METRIC_N;
	note(v, "history shows %s", v->metric == METRIC_SHARED ?
	     "SHR%, the share of inherited memory still shared" : "CoW/s, copies per second");
}

/* Show command lines in COMMAND, or names. */
void view__cmdline_toggle(struct view *v)
{
	v->cmdline = !v->cmdline;
	note(v, "COMMAND shows %s", v->cmdline ? "command lines (p: names)" : "process names (p: command lines)");
}

/* Show or hide kernel threads. */
void view__kthreads_toggle(struct view *v)
{
	v->kthreads = !v->kthreads;
	note(v, "kernel threads %s", v->kthreads ? "shown (K: hide)" : "hidden (K: show)");
	view__layout(v);
}

/* Show copies in pages, or in bytes. */
void view__units_toggle(struct view *v)
{
	v->bytes = !v->bytes;
	note(v, "copies in %s", v->bytes ? "bytes (b: pages)" : "pages (b: bytes)");
}

/* Scroll COMMAND d columns sideways (left when negative), from 0 to
 * ROW_SCROLL_MAX. */
void view__hscroll(struct view *v, int d)
{
	int s = v->hscroll + d;

	v->hscroll = s < 0 ? 0 : s > ROW_SCROLL_MAX ? ROW_SCROLL_MAX : s;
	if (v->hscroll)
		note(v, "COMMAND scrolled %d columns (Left: back)", v->hscroll);
	else
		note(v, "COMMAND not scrolled");
}

/* Search: select the first row from the selection on (after it when
 * next), going round past the last, whose name (or command line, when
 * shown) contains pattern, ignoring case, as the filter matches. False
 * when no row does (the selection stays). */
bool view__search(struct view *v, const char *pattern, bool next)
{
	size_t k, i;

	view__settle(v);
	if (!pattern || !*pattern || !v->n)
		return false;
	for (k = next ? 1 : 0; k <= v->n; k++) {
		i = (v->sel + k) % v->n;
		if (row_matches(&v->rows[i], pattern, v->utf8, v->cmdline)) {
			view__move(v, (long)i - (long)v->sel);
			return true;
		}
	}
	return false;
}

/* The table's column layout for cols columns as the view shows it now:
 * metric, scale, names or command lines, units. */
void view__row_layout(const struct view *v, int cols, struct row_layout *rl)
{
	row_layout_split(rl, cols, v->utf8, v->cmdline, v->hidden);
	row_layout_scale(rl, v->metric, v->rows, v->n);
	rl->bytes = v->bytes;
	rl->scroll = v->hscroll;
}

/* The most history values a row shows at cols columns (with names, which
 * leave the sparkline more room than command lines). */
int view__history_points(const struct view *v, int cols)
{
	struct row_layout rl;

	row_layout_split(&rl, cols, v->utf8, false, v->hidden);
	return rl.hist;
}

/* Seconds since the oldest smaps reading among the live processes of rows
 * [from, from + n); -1 when none of them has one. */
double view__oldest_reading(const struct view *v, size_t from, size_t n)
{
	double oldest = -1, age;
	size_t i;

	for (i = from; i < v->n && i - from < n; i++) {
		age = frame_smaps_age(v->f, v->rows[i].p);
		if (!v->rows[i].p->exited && age > oldest)
			oldest = age;
	}
	return oldest;
}

/* The pids whose memory is worth reading first, in that order: the
 * selection, then the other rows among the height shown from the top;
 * live processes only. Returns how many were put in pids (at most max). */
size_t view__visible(const struct view *v, size_t height, int *pids, size_t max)
{
	const struct proc *sel = view__selected(v), *p;
	size_t n = 0, i;

	if (sel && !sel->exited && n < max)
		pids[n++] = sel->pid;
	for (i = v->top; i < v->n && i - v->top < height && n < max; i++) {
		p = v->rows[i].p;
		if (p != sel && !p->exited)
			pids[n++] = p->pid;
	}
	return n;
}
