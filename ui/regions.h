/* The regions pane: where the selected process's copies went, a bar per
 * memory region. Pure: a frame and a process in, lines out; the full
 * screen draws them, snapshots write them. */
#ifndef COWTOP_UI_REGIONS_H
#define COWTOP_UI_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include "frame.h"
#include "line.h"

#define REGIONS_LABEL_MAX 32 /* columns a region's name may take */
#define REGIONS_LINES (SPLIT_SLOTS + 6) /* lines the pane can fill */

size_t regions_build(const struct frame *f, const struct proc *p, int cols, bool utf8,
		     struct line *out, size_t max);

#endif
