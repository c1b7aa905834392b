/* What the table shows, apart from how: the view options, a private copy of
 * the rows, the selection, focus, follow and filter. No curses here, so the
 * behaviour of the keys can be tested without a terminal. */
#ifndef COWTOP_UI_VIEW_H
#define COWTOP_UI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include "model.h"

#define VIEW_FOCUS_DEPTH 32
#define VIEW_FILTER_MAX 64
#define VIEW_NOTE_MAX 256

struct view {
	struct view_opts vo;
	bool utf8;                       /* names as the terminal shows them */
	int focus[VIEW_FOCUS_DEPTH];     /* the focus before each focus_in */
	int nfocus;
	char filter[VIEW_FILTER_MAX];

	/* The rows shown: a copy, so that pausing, or a process leaving the
	 * model, never leaves a dangling pointer. */
	struct row *rows;
	struct proc *procs;
	size_t n, cap;
	size_t sel, top;

	bool follow;
	int follow_pid;
	unsigned long long follow_start;

	char note[VIEW_NOTE_MAX];        /* what changed by itself, for the status line */
};

void view__init(struct view *v, const struct view_opts *vo, bool utf8);
void view__free(struct view *v);
int view__rebuild(struct view *v, struct model *m);
void view__move(struct view *v, long d);
void view__scroll(struct view *v, size_t height);
const struct proc *view__selected(const struct view *v);
long view__find(const struct view *v, int pid, unsigned long long start);
int view__focus_in(struct view *v, struct model *m);
int view__focus_out(struct view *v, struct model *m);
bool view__follow_toggle(struct view *v);
void view__sort(struct view *v, struct model *m, enum sort_key k);
void view__sort_cycle(struct view *v, struct model *m, int dir);
void view__reverse(struct view *v, struct model *m);
void view__tree_toggle(struct view *v, struct model *m);
void view__set_filter(struct view *v, struct model *m, const char *filter);

#endif
