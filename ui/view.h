/* What the table shows, apart from how: the frame shown, the view options,
 * the rows laid out over the frame's processes, the selection, focus,
 * follow and filter. No curses here, so the behaviour of the keys can be
 * tested without a terminal. */
#ifndef COWTOP_UI_VIEW_H
#define COWTOP_UI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include "frame.h"
#include "row.h"

#define VIEW_FOCUS_DEPTH 32
#define VIEW_FILTER_MAX 64
#define VIEW_NOTE_MAX 256

struct view {
	struct view_opts vo;
	enum row_metric metric;          /* what the sparklines show */
	bool cmdline;                    /* COMMAND shows command lines, not names */
	bool kthreads;                   /* kernel threads are shown (hidden at start, as in htop) */
	bool bytes;                      /* copies shown in bytes, not pages */
	bool utf8;                       /* names as the terminal shows them */
	int hscroll;                     /* columns of COMMAND scrolled out on the left */
	unsigned long long hidden;       /* columns hidden by choice (F2): ROW_HIDE bits */
	struct view_pin {                /* a process: pid and start time */
		int pid;
		unsigned long long start;
	} focus[VIEW_FOCUS_DEPTH];       /* the focus before each focus_in */
	int nfocus;
	char filter[VIEW_FILTER_MAX];
	bool stale;                      /* the filter changed: lay out before use */
	unsigned long layouts;           /* times laid out (a paste lays out once) */
	unsigned long sorts;             /* ... of them, by sorting: the frame's rows were
	                                    not for the view's options */

	/* The frame shown, held: pausing, or a process leaving the model,
	 * never leaves a dangling pointer. The rows point into its procs. */
	struct frame *f;
	struct row *rows;
	size_t n, cap;
	size_t sel, top;
	/* The selected process: the selection (and the panes that show it)
	 * stays on it when the rows re-sort, not on the row number. */
	struct view_pin sel_pin;

	bool follow;
	int follow_pid;
	unsigned long long follow_start;

	char note[VIEW_NOTE_MAX];        /* what changed by itself, for the status line */
};

void view__init(struct view *v, const struct view_opts *vo, bool utf8);
int view__history_points(const struct view *v, int cols);
void view__free(struct view *v);
int view__set_frame(struct view *v, struct frame *f);
int view__layout(struct view *v);
void view__move(struct view *v, long d);
void view__scroll(struct view *v, size_t height);
const struct proc *view__selected(const struct view *v);
long view__find(const struct view *v, int pid, unsigned long long start);
int view__focus_in(struct view *v);
int view__focus_out(struct view *v);
bool view__follow_toggle(struct view *v);
void view__sort(struct view *v, enum field_id k);
void view__sort_cycle(struct view *v, int dir);
void view__reverse(struct view *v);
void view__tree_toggle(struct view *v);
void view__set_filter(struct view *v, const char *filter);
void view__settle(struct view *v);
void view__metric_cycle(struct view *v);
void view__cmdline_toggle(struct view *v);
void view__kthreads_toggle(struct view *v);
void view__units_toggle(struct view *v);
void view__hscroll(struct view *v, int d);
bool view__search(struct view *v, const char *pattern, bool next);
void view__row_layout(const struct view *v, int cols, struct row_layout *rl);
double view__oldest_reading(const struct view *v, size_t from, size_t n);
size_t view__visible(const struct view *v, size_t height, int *pids, size_t max);

#endif
