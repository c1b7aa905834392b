/* The full-screen ncursesw view: header, process tree with sparklines,
 * footer, help; keys; snapshots. It reads the model and never touches /proc
 * or BPF: the app feeds it a status and calls it from the event loop. */
#ifndef COWTOP_TUI_H
#define COWTOP_TUI_H

#include <stdbool.h>
#include "model.h"

struct tui;

struct tui_opts {
	bool ascii;                /* force ASCII glyphs */
	const char *snapshot_path; /* -o, NULL: ./cowtop-YYYYmmdd-HHMMSS.txt */
	enum sort_key sort;
	bool reverse;
	bool flat;
	double delay;              /* refresh interval, seconds */
};

/* What the app knows that the model does not. */
struct tui_status {
	const char *mechanism;     /* CoW detection in use */
	unsigned long long lost;   /* records/processes lost since start */
	double interval;           /* seconds the last frame covered */
	double cpu_pct;            /* cowtop's own CPU use over the last interval */
	const char *target;        /* what is watched, e.g. "pid 123", "command: ruby x.rb", "all" */
	bool command_done;         /* the -- command and its descendants all exited */
	int command_status;        /* its exit status then */
};

enum tui_action {
	TUI_NONE,
	TUI_QUIT,
	TUI_DELAY_CHANGED, /* read tui__delay() and re-arm the timer */
};

int tui__open(struct tui **out, const struct tui_opts *o);
void tui__close(struct tui *t);
void tui__frame(struct tui *t, struct model *m, const struct tui_status *st);
enum tui_action tui__input(struct tui *t, struct model *m, const struct tui_status *st);
void tui__resize(struct tui *t, struct model *m, const struct tui_status *st);
double tui__delay(const struct tui *t);

#endif
