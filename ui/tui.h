/* The full-screen ncursesw view: header, process tree with sparklines,
 * footer, help; keys; snapshots. It shows frames and never touches the
 * model, /proc or BPF: the app hands it a frame a tick and calls it from the
 * event loop. */
#ifndef COWTOP_TUI_H
#define COWTOP_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include "frame.h"
#include "keys.h"

struct tui;

struct tui_opts {
	bool ascii;                /* force ASCII glyphs */
	const char *snapshot_path; /* -o, NULL: ./cowtop-YYYYmmdd-HHMMSS.txt */
	enum field_id sort;
	bool reverse;
	bool flat;
	double delay;              /* refresh interval, seconds */
	bool stacks;               /* --stacks: the copy-sites pane from the start */
	unsigned allow;            /* the actions the source of the frames allows: ACTIONS_LIVE, ... */
	const char *replay_host;   /* replaying a recording made on this host; NULL: live */
	const char *replay_kernel;
};

enum tui_action {
	TUI_NONE,
	TUI_QUIT,
	TUI_DELAY_CHANGED, /* read tui__delay() and re-arm the timer */
	TUI_STACKS_TOGGLE, /* turn the capture of copy stacks on or off */
	TUI_TIME,          /* replay: a time key, read tui__time_cmd() */
};

int tui__open(struct tui **out, const struct tui_opts *o);
void tui__free(struct tui *t);
void tui__frame(struct tui *t, struct frame *f);
struct sink *tui__sink(struct tui *t); /* frames in through the app's sink list; tui__free frees it */
void tui__resize(struct tui *t);
void tui__notice(struct tui *t, const char *msg); /* a warning on the status line */
enum tui_action tui__input(struct tui *t);
double tui__delay(const struct tui *t);
size_t tui__visible(const struct tui *t, int *pids, size_t max);
/* What the order of the rows needs read of every process (a mask; 0: the
 * rows on screen are enough). */
enum tui_source {
	TUI_SOURCE_STAT = 1 << 0,  /* /proc/PID/stat each tick: RSS, VSZ */
	TUI_SOURCE_SMAPS = 1 << 1, /* smaps_rollup on the sampler's budget: shared, USS, PSS */
};
unsigned tui__sort_sources(const struct tui *t);
bool tui__stacks(const struct tui *t);
/* Replay: the time key last pressed (CMD_PAUSE, CMD_STEP_*, CMD_MARK_*,
 * CMD_JUMP with what was typed in *arg, CMD_FASTER, CMD_SLOWER). */
int tui__time_cmd(const struct tui *t, const char **arg);
void tui__replay_status(struct tui *t, const char *text); /* shown in the header after "REPLAY" */
int tui_check_terminal(char *err, size_t errlen);
int tui_check_snapshot(const char *path, char *err, size_t errlen);

#endif
