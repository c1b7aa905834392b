/* The help screen as lines: every key of the key map, then what the columns
 * and the sparkline glyphs mean. */
#ifndef COWTOP_UI_HELP_H
#define COWTOP_UI_HELP_H

#include <stdbool.h>
#include <stddef.h>
#include "line.h"

#define HELP_LINES 128 /* room enough for the whole help */

size_t help_build(struct line *out, size_t max, bool utf8, unsigned allow);

#endif
