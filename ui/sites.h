/* The "top copy sites" pane: for the selected process, the functions whose
 * writes copied pages (innermost frame of each stack), their copies and
 * share; or, opened on a site, its heaviest stack frame by frame. Lines are
 * built off-screen, so they can be tested. */
#ifndef COWTOP_UI_SITES_H
#define COWTOP_UI_SITES_H

#include <stdbool.h>
#include "frame.h"
#include "line.h"

/* The pane's title: whose sites, how they are sampled, what keys do. */
void sites_title(const struct frame *f, const struct proc *p, bool focus, struct line *l);
/* One site: share of the process's sampled copies, copies, function (object). */
void sites_row(const struct stack_site *s, unsigned long long total, bool utf8, struct line *l);
/* The title of an opened stack, and one of its frames (0 innermost). */
void sites_stack_title(const struct stack_site *s, const struct stack_top *st, bool utf8,
		       struct line *l);
void sites_frame(int depth, const char *frame, bool utf8, struct line *l);

#endif
