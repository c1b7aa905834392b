/* The terminal under the full-screen view (curses): modes and colours of
 * each role, size, drawing a line built off-screen. */
#ifndef COWTOP_UI_TERMINAL_H
#define COWTOP_UI_TERMINAL_H

#include <curses.h>
#include <stdbool.h>
#include "line.h"

void terminal_setup(attr_t attr[ROLE_N]);
void terminal_sync_size(void);
void terminal_size(int *rows, int *cols);
void terminal_draw_line(const attr_t attr[ROLE_N], int y, const struct line *l, int cols, bool sel);

#endif
