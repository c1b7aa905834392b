/* The full-screen view's state, shared by tui.c (screen update), its keys
 * (tui_keys.c, tui_prompt.c, tui_kill.c) and panes.c (drawing the panes)
 * only; tui.h is the API. */
#ifndef COWTOP_TUI_INT_H
#define COWTOP_TUI_INT_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include "header.h"
#include "help.h"
#include "line.h"
#include "objpane.h"
#include "regions.h"
#include "safefile.h"
#include "screen.h"
#include "signals.h"
#include "tui.h"
#include "sink.h"
#include "view.h"

#define DELAY_MIN 0.1
#define DELAY_MAX 86400.0
#define ESC_KEY 27
#define PANE_MAX HELP_LINES /* lines of the help or the regions pane */
_Static_assert(REGIONS_LINES <= PANE_MAX, "the regions pane does not fit");
_Static_assert(OBJPANE_LINES <= PANE_MAX, "the objects pane does not fit");

/* The view's state: the frame shown, the screen and the panes. */
struct tui {
	struct sink sink;        /* frames reach the view through the app's sinks */
	struct tui_opts o;
	SCREEN *screen;
	attr_t attr[ROLE_N];     /* of each role, chosen once */

	struct view v;           /* holds the frame shown */
	struct frame *latest;    /* the newest frame while paused, to resume with */
	struct screen_state s;
	size_t body;             /* table rows on screen at the last draw */

	struct signal_target kill;  /* the process the signal menu is for */
	struct safefile_id snapshot_file; /* the last written: w may write it again */

	struct header_info hi;
	char host[256], kernel[512];

	struct line scratch;
	struct line *pane;       /* PANE_MAX lines for the help or the regions pane */
	size_t help_top, help_n; /* first help line shown, lines in all */

	bool sites;              /* the copy-sites pane is shown (and stacks wanted) */
	bool site_focus;         /* keys move in the pane */
	bool site_open;          /* the selected site's stack is shown */
	size_t site_sel;

	/* where the table was drawn last, for the mouse: the titles' line and
	 * the first row's (-1: not drawn) */
	int titles_y, rows_y;
	char search[SCREEN_PROMPT_MAX]; /* the last search (F3) */

	/* the columns screen (F2) and where its choice is kept */
	size_t setup_sel;
	bool setup_dirty;
	bool config_ok;          /* config_path names the file */
	char config_path[4096];

	int time_cmd;            /* replay: the last time key (an enum cmd) */
	char time_arg[SCREEN_PROMPT_MAX];
	char replay_text[128];
};

/* tui.c: the status message, the screen's areas now, drawing. */
void tui_say(struct tui *t, bool warn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tui_take_note(struct tui *t);
struct areas tui_areas_now(const struct tui *t, int lines);
void tui_draw(struct tui *t);
void tui_show(struct tui *t, struct frame *f);
/* tui_prompt.c: open a prompt in mode, its input starting as init; a key
 * in it. */
void tui_prompt(struct tui *t, enum mode mode, const char *init);
enum tui_action tui_key_prompt(struct tui *t, int ch);
/* tui_setup.c: the columns screen (F2), its keys, its drawing; the
 * settings read at start; a click of the mouse. */
void tui_setup_load(struct tui *t);
void tui_setup_open(struct tui *t);
void tui_setup_key(struct tui *t, int ch);
void tui_setup_draw(struct tui *t, int rows, int cols);
void tui_mouse(struct tui *t);
/* tui_kill.c: open the signal menu for the selected process; a key in it. */
void tui_kill_open(struct tui *t);
void tui_kill_key(struct tui *t, int ch);

#endif
