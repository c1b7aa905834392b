/* Drawing the panes of the full-screen view into the screen buffer; the
 * caller (tui.c) shows the buffer in one update. */
#ifndef COWTOP_PANES_H
#define COWTOP_PANES_H

#include "screen.h"

struct tui;

/* Draw the column titles and the visible rows from screen row y. */
void panes_draw_table(struct tui *t, int y, const struct areas *a, int cols);

/* Draw the probe log pane: its title, then the newest hits that fit. */
void panes_draw_log(struct tui *t, int y, int rows, int cols);

/* Draw the copy-sites pane of the selected process, or a site's stack. */
void panes_draw_sites(struct tui *t, int y, int rows, int cols);

/* Draw the help screen, scrolled, in the rows above the status line. */
void panes_draw_help(struct tui *t, int rows, int cols);

/* Draw the regions pane of the selected process above the status line. */
void panes_draw_regions(struct tui *t, int rows, int cols);

/* Draw the objects pane of the selected process above the status line. */
void panes_draw_objects(struct tui *t, int rows, int cols);

#endif
