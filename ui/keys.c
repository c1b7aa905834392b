/* The key map as one table: lookup and help read the same rows, so every
 * key that works is documented. Keys follow top and htop. */
#include <curses.h>
#include "fields.h"
#include "keys.h"

#define CTRL(c) ((c) & 0x1f)
#define ESC 27

static const struct keybind keymap[] = {
	{ CMD_UP, { KEY_UP }, "Up", "move the selection up" },
	{ CMD_DOWN, { KEY_DOWN, 'j' }, "Down j", "move the selection down" },
	{ CMD_PGUP, { KEY_PPAGE, CTRL('b') }, "PgUp ^B", "one page up" },
	{ CMD_PGDN, { KEY_NPAGE, CTRL('f') }, "PgDn ^F", "one page down" },
	{ CMD_HOME, { KEY_HOME, 'g' }, "Home g", "go to the first process" },
	{ CMD_END, { KEY_END, 'G' }, "End G", "go to the last process" },
	{ CMD_FOCUS, { '\n', '\r', KEY_ENTER, 'f' }, "Enter f",
	  "focus: show only the selected process and its descendants" },
	{ CMD_BACK, { KEY_BACKSPACE, 127, CTRL('h'), 'u' }, "Bksp u",
	  "leave the focus (back to the previous view)" },
	{ CMD_ESCAPE, { ESC }, "Esc", "clear the filter, else leave the focus" },
	{ CMD_FOLLOW, { 'F' }, "F", "follow the selected process as rows move (moving stops it)" },
	{ CMD_TREE, { 't', KEY_F(5) }, "t F5", "tree view / flat list" },
	{ CMD_SORT_NEXT, { '>', '.', KEY_F(6) }, "> F6", "sort by the next column" },
	{ CMD_SORT_PREV, { '<', ',' }, "<", "sort by the previous column" },
	{ CMD_METRIC, { 'm' }, "m", "history: CoW/s or SHR% (the sharing-decay curve)" },
	{ CMD_REVERSE, { 'R', 'I' }, "R I", "reverse the sort order" },
	{ CMD_FILTER, { '/', '\\', KEY_F(4) }, "/ \\ F4",
	  "filter by name (and command line, after p) (Enter keeps it, Esc clears it)" },
	{ CMD_SEARCH, { KEY_F(3) }, "F3",
	  "search: the selection jumps to the next name (or command line) with the text; F3 again: the next" },
	{ CMD_SETUP, { KEY_F(2) }, "F2",
	  "choose the columns shown (saved in ~/.config/cowtop/cowtoprc)" },
	{ CMD_PAUSE, { ' ', 'z', 'Z' }, "Space z Z", "pause / resume the display" },
	{ CMD_DELAY, { 'd', 's' }, "d s", "change the refresh interval (seconds)" },
	{ CMD_SNAPSHOT, { 'w' }, "w", "write the view as text to ./cowtop-DATE-TIME.txt (or -o FILE)" },
	{ CMD_LOG, { 'l' }, "l", "show / hide the marker log: USDT probe hits (-u), OOM kills, reclaim stalls, exits" },
	{ CMD_REGIONS, { 'r' }, "r", "the selected process's copies by memory region (r again: back)" },
	{ CMD_OBJECTS, { 'o' }, "o",
	  "the selected process's copies by runtime object and kind of write (--objects; o again: back)" },
	{ CMD_STACKS, { 'c' }, "c",
	  "copies by code path: capture user stacks and show the top copy sites, or stop" },
	{ CMD_SITES, { '\t' }, "Tab",
	  "keys to the copy-sites pane and back (Up/Down pick, Enter its stack, Esc back)" },
	{ CMD_KILL, { 'k', KEY_F(9) }, "k F9",
	  "send a signal to the selected process (TERM KILL HUP INT QUIT USR1 USR2), after asking" },
	{ CMD_CMDLINE, { 'p' }, "p", "COMMAND shows the process name / its command line (argv)" },
	{ CMD_KTHREADS, { 'K' }, "K", "show / hide kernel threads (hidden at start)" },
	{ CMD_UNITS, { 'b' }, "b", "copies in pages (CoW/s, COW) / in bytes (B/s, K M G suffixes)" },
	{ CMD_SCROLL_LEFT, { KEY_SLEFT, '(' }, "S-Left (",
	  "scroll COMMAND back to the left (live: Left too)" },
	{ CMD_SCROLL_RIGHT, { KEY_SRIGHT, ')' }, "S-Right )",
	  "scroll COMMAND to the right, for long command lines (live: Right too)" },
	{ CMD_STEP_BACK, { KEY_LEFT, '[' }, "Left [", "replay: one frame back (pauses); live: Left scrolls" },
	{ CMD_STEP_FWD, { KEY_RIGHT, ']' }, "Right ]", "replay: one frame forward (pauses); live: Right scrolls" },
	{ CMD_MARK_PREV, { '{' }, "{", "replay: the previous frame with a probe hit or an exit" },
	{ CMD_MARK_NEXT, { '}', 'n' }, "} n", "replay: the next frame with a probe hit or an exit" },
	{ CMD_JUMP, { ':' }, ":", "replay: jump to a time (HH:MM:SS, +SECONDS from the start, #FRAME)" },
	{ CMD_FASTER, { '+', '=' }, "+", "replay: play twice as fast" },
	{ CMD_SLOWER, { '-' }, "-", "replay: play half as fast" },
	{ CMD_HELP, { 'h', '?', KEY_F(1) }, "h ? F1", "this help" },
	{ CMD_REDRAW, { CTRL('l') }, "^L", "redraw the screen" },
	{ CMD_QUIT, { 'q', KEY_F(10) }, "q F10", "quit" },
};

/* The keys that act beyond the view, and what on: the source of the
 * frames allows some of these actions (a replay, none of the live ones). */
static const struct {
	enum cmd cmd;
	unsigned need;
} needs[] = {
	{ CMD_KILL, ACT_SIGNAL }, { CMD_DELAY, ACT_REFRESH },
	{ CMD_STACKS, ACT_STACKS }, { CMD_SITES, ACT_STACKS },
	{ CMD_STEP_BACK, ACT_TIME }, { CMD_STEP_FWD, ACT_TIME }, { CMD_MARK_PREV, ACT_TIME },
	{ CMD_MARK_NEXT, ACT_TIME }, { CMD_JUMP, ACT_TIME }, { CMD_FASTER, ACT_TIME },
	{ CMD_SLOWER, ACT_TIME },
};

/* In key order, htop's function keys first; the higher prio, the longer
 * a hint stays on a narrow screen (Quit always). */
static const struct keyhint footer[] = {
	{ "h", "Help", 0, "F1", 8 }, { "F2", "Setup", 0, "F2", 5 }, { "F3", "Search", 0, "F3", 5 },
	{ "/", "Filter", 0, "F4", 7 },
	{ "t", "Tree", 0, "F5", 6 }, { "<>", "Sort", 0, "F6", 6 },
	{ "k", "Kill", ACT_SIGNAL, "F9", 5 }, { "Enter", "Focus", 0, NULL, 4 },
	{ "Bksp", "Back", 0, NULL, 2 }, { "F", "Follow", 0, NULL, 3 },
	{ "Spc", "Pause", 0, NULL, 4 }, { "p", "Cmdline", 0, NULL, 3 },
	{ "w", "Snapshot", 0, NULL, 3 }, { "r", "Regions", 0, NULL, 2 },
	{ "d", "Delay", ACT_REFRESH, NULL, 1 }, { "l", "Log", HINT_USDT, NULL, 3 },
	{ "q", "Quit", 0, "F10", 9 },
};

/* The command bound to key ch, CMD_NONE if none. */
enum cmd keys_lookup(int ch)
{
	size_t i, k;

	if (field_by_sort_key(ch) >= 0)
		return CMD_SORT_FIELD;
	for (i = 0; i < sizeof(keymap) / sizeof(*keymap); i++)
		for (k = 0; k < KEYS_PER_CMD && keymap[i].keys[k]; k++)
			if (keymap[i].keys[k] == ch)
				return keymap[i].cmd;
	return CMD_NONE;
}

/* The field key ch sorts by, or -1. */
int keys_sort_field(int ch)
{
	return field_by_sort_key(ch);
}

/* The actions (enum action) command c takes beyond the view; 0 none. */
unsigned keys_need(enum cmd c)
{
	size_t i;

	for (i = 0; i < sizeof(needs) / sizeof(*needs); i++)
		if (needs[i].cmd == c)
			return needs[i].need;
	return 0;
}

/* Why a key needing need does nothing here: where those actions exist. */
const char *keys_refusal(unsigned need)
{
	if (need & ACT_SIGNAL)
		return "signals go to live processes only: a recording's pids may be other processes now";
	if (need & ACT_REFRESH)
		return "the refresh interval is a live run's: a replay plays faster with +, slower with -";
	if (need & ACT_STACKS)
		return "copy stacks are captured live: recordings do not hold them";
	return "time keys move in a recording: cowtop -r FILE";
}

/* The whole key map, for the help screen: the sort keys of the field
 * table after the sort cycle's keys, in the order of the columns. */
const struct keybind *keys_table(size_t *n)
{
	static struct keybind all[sizeof(keymap) / sizeof(*keymap) + FIELD_N];
	static size_t nall;
	enum field_id cycle[FIELD_N];
	size_t i, k, nc;

	if (!nall) {
		nc = fields_sort_cycle(cycle);
		for (i = 0; i < sizeof(keymap) / sizeof(*keymap); i++) {
			all[nall++] = keymap[i];
			if (keymap[i].cmd != CMD_SORT_PREV)
				continue;
			for (k = 0; k < nc; k++)
				all[nall++] = (struct keybind){ CMD_SORT_FIELD, { fields[cycle[k]].sort_key[0] },
								fields[cycle[k]].sort_key, fields[cycle[k]].sort_help };
		}
	}
	*n = nall;
	return all;
}

/* The hints shown in the footer (those marked HINT_USDT only with probes). */
const struct keyhint *keys_footer(size_t *n)
{
	*n = sizeof(footer) / sizeof(*footer);
	return footer;
}
