/* The key map: every key, what it does, and its line in the help screen. */
#ifndef COWTOP_UI_KEYS_H
#define COWTOP_UI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

enum cmd {
	CMD_NONE,
	CMD_UP, CMD_DOWN, CMD_PGUP, CMD_PGDN, CMD_HOME, CMD_END,
	CMD_FOCUS, CMD_BACK, CMD_ESCAPE, CMD_FOLLOW, CMD_TREE,
	CMD_SORT_NEXT, CMD_SORT_PREV,
	CMD_SORT_FIELD, /* the sort key of a field (fields.h): keys_sort_field says which */
	CMD_METRIC,
	CMD_REVERSE, CMD_FILTER, CMD_PAUSE, CMD_DELAY, CMD_SNAPSHOT, CMD_LOG, CMD_REGIONS, CMD_OBJECTS,
	CMD_STACKS, CMD_SITES,
	CMD_KILL, CMD_CMDLINE, CMD_KTHREADS, CMD_UNITS, CMD_SCROLL_LEFT, CMD_SCROLL_RIGHT,
	CMD_STEP_BACK, CMD_STEP_FWD, CMD_MARK_PREV, CMD_MARK_NEXT, CMD_JUMP, CMD_FASTER, CMD_SLOWER,
	CMD_SEARCH, CMD_SETUP, CMD_HELP, CMD_REDRAW, CMD_QUIT,
	CMD_N,
};

#define KEYS_PER_CMD 6

/* What a key acts on beyond the view. The source of the frames says which
 * of these it allows (tui_opts.allow): a key needing another does nothing
 * but say why, and neither the footer nor the help offers it. A replay
 * never acts on the live machine: its pids may be other processes now. */
enum action {
	ACT_SIGNAL = 1 << 0,  /* signal a live process (k) */
	ACT_REFRESH = 1 << 1, /* change the refresh interval (d) */
	ACT_STACKS = 1 << 2,  /* capture copy stacks (c) */
	ACT_TIME = 1 << 3,    /* move in a recording's time */
};
#define ACTIONS_LIVE (ACT_SIGNAL | ACT_REFRESH | ACT_STACKS)
#define ACTIONS_REPLAY ACT_TIME

struct keybind {
	enum cmd cmd;
	int keys[KEYS_PER_CMD]; /* curses key codes, 0-terminated */
	const char *label;      /* the keys as the help screen names them */
	const char *help;
};

/* A hint's need beyond the actions: only when USDT probes are attached. */
#define HINT_USDT (1u << 16)

/* A short hint in the footer. */
struct keyhint {
	const char *key, *what;
	unsigned need;    /* its key's actions (enum action), and HINT_USDT */
	const char *fkey; /* its function key (htop's F1..F10 layout), NULL none */
	int prio;         /* the lowest go first when the footer is too narrow */
};

enum cmd keys_lookup(int ch);
/* The field key ch sorts by (CMD_SORT_FIELD), or -1. */
int keys_sort_field(int ch);
unsigned keys_need(enum cmd c);
const char *keys_refusal(unsigned need);
const struct keybind *keys_table(size_t *n);
const struct keyhint *keys_footer(size_t *n);

#endif
