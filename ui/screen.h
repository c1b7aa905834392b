/* What the full screen shows around the table, as lines: how the rows are
 * shared out, the phase line, the status line and the footer. Pure: the
 * screen's state in, lines out (the terminal code draws them). */
#ifndef COWTOP_UI_SCREEN_H
#define COWTOP_UI_SCREEN_H

#include <stdbool.h>
#include "line.h"
#include "view.h"

#define SCREEN_PROMPT_MAX 64
#define SCREEN_MSG_MAX 1024
#define SCREEN_LOG_MIN_BODY 4 /* body rows below which the log pane stays hidden */

enum mode {
	MODE_TABLE, MODE_HELP, MODE_FILTER, MODE_DELAY, MODE_REGIONS, MODE_OBJECTS, MODE_KILL, MODE_JUMP, MODE_SEARCH,
	MODE_SETUP,
};

/* How the screen's rows are shared out. */
struct areas {
	int header, group, phases, titles, body, log, status, footer;
};

/* The screen's own state, besides the view. */
struct screen_state {
	enum mode mode;
	char input[SCREEN_PROMPT_MAX]; /* what is typed in a prompt */
	char msg[SCREEN_MSG_MAX];      /* the status message, "" for none */
	bool msg_warn;
	bool search_miss;              /* the search text is in no row */
	bool paused;
	bool log;                      /* the probe log pane is asked for */
	bool log_hidden;               /* ... but there is no room for it */
	double delay;                  /* refresh interval, seconds */
	bool utf8;
	unsigned allow;                /* the actions the source allows (enum action) */
	/* The signal menu (k): whom to send to, named as the row was, and
	 * the signal picked (an index of signal_menu). */
	int kill_pid;
	char kill_name[ROW_LABEL_MAX];  /* made safe */
	int kill_sel;
};

struct areas screen_areas(int lines, bool group, bool phases, bool log);
void screen_phase_line(const struct view *v, bool utf8, struct line *l);
bool screen_has_group(const struct view *v);
void screen_group_line(const struct view *v, bool utf8, struct line *l);
void screen_group_text(const struct frame *f, const struct frame_group *g, bool utf8, struct line *l);
void screen_status_line(const struct screen_state *s, const struct view *v, struct line *l);
void screen_footer_line(const struct screen_state *s, int nprobes, int cols, struct line *l);

#endif
