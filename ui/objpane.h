/* The objects pane (--objects): the runtime objects on the selected
 * process's copied pages, by type and kind of write. Pure: a frame and a
 * process in, lines out; the full screen draws them. */
#ifndef COWTOP_UI_OBJPANE_H
#define COWTOP_UI_OBJPANE_H

#include <stdbool.h>
#include <stddef.h>
#include "frame.h"
#include "line.h"

#define OBJPANE_LINES (OBJECTS_TOP + 14) /* lines the pane can fill */

size_t objpane_build(const struct frame *f, const struct proc *p, int cols, bool utf8,
		     struct line *out, size_t max);

#endif
