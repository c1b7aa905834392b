/* The full-screen view's keys: what each key does in each mode (the
 * table, the help, the regions pane), the view and sort commands, snapshot,
 * pause, the copy-sites pane, replay's time keys. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdlib.h>
#include "keys.h"
#include "snapshot.h"
#include "terminal.h"
#include "tui_int.h"

#define SCROLL_STEP 8 /* columns COMMAND scrolls a key */

/* Rows of the table on screen now (a page). */
static long page_rows(const struct tui *t)
{
	int lines, cols, body;

	terminal_size(&lines, &cols);
	body = tui_areas_now(t, lines).body;
	return body > 1 ? body - 1 : 1;
}

/* Handle a selection move; false if cmd is not one. */
static bool cmd_move(struct tui *t, enum cmd c)
{
	switch (c) {
	case CMD_UP: view__move(&t->v, -1); return true;
	case CMD_DOWN: view__move(&t->v, 1); return true;
	case CMD_PGUP: view__move(&t->v, -page_rows(t)); return true;
	case CMD_PGDN: view__move(&t->v, page_rows(t)); return true;
	case CMD_HOME: view__move(&t->v, -(long)t->v.sel); return true;
	case CMD_END: view__move(&t->v, (long)t->v.n); return true;
	default: return false;
	}
}

/* Handle a sort command of key ch; false if cmd is not one. */
static bool cmd_sort(struct tui *t, enum cmd c, int ch)
{
	switch (c) {
	case CMD_SORT_FIELD: view__sort(&t->v, (enum field_id)keys_sort_field(ch)); return true;
	case CMD_SORT_NEXT: view__sort_cycle(&t->v, 1); return true;
	case CMD_SORT_PREV: view__sort_cycle(&t->v, -1); return true;
	case CMD_REVERSE: view__reverse(&t->v); return true;
	default: return false;
	}
}

/* Before the view opens: -o FILE must be a file cowtop may create (not
 * there yet, in a directory it can write). 0, or -1 with a line in err. */
int tui_check_snapshot(const char *path, char *err, size_t errlen)
{
	char why[256];

	if (!path || !safefile_check_new(path, why, sizeof(why)))
		return 0;
	snprintf(err, errlen, "snapshot: cannot write %s: %s", path, why);
	return -1;
}

/* Write the view to the snapshot file and say where (or why not). */
static void snapshot(struct tui *t)
{
	char path[4096], err[256];
	int lines, cols;
	size_t len;
	char *text;

	if (t->o.snapshot_path)
		snprintf(path, sizeof(path), "%s", t->o.snapshot_path);
	else
		snapshot_default_path(time(NULL), path, sizeof(path));
	terminal_size(&lines, &cols);
	text = snapshot_text(&t->v, &t->hi, cols, &len);
	if (!text) {
		tui_say(t, true, "snapshot: cannot write %s: out of memory", path);
		return;
	}
	if (safefile_write(path, text, len, &t->snapshot_file, err, sizeof(err)))
		tui_say(t, true, "snapshot: cannot write %s: %s", path, err);
	else
		tui_say(t, false, "snapshot written to %s (%zu processes)", path, t->v.n);
	free(text);
}

/* Show or hide the probe log; without probes, say how to get some. */
static void log_toggle(struct tui *t)
{
	if (!t->hi.nprobes && !t->hi.nkprobes && !t->s.log) {
		tui_say(t, false, "no USDT probes attached and no OOM kill or reclaim stall yet: "
			"start cowtop with -u PROVIDER:NAME");
		return;
	}
	t->s.log = !t->s.log;
}

/* Pause or resume; resuming shows the newest frame at once. */
static void pause_toggle(struct tui *t)
{
	t->s.paused = !t->s.paused;
	if (t->s.paused || !t->latest)
		return;
	tui_show(t, t->latest);
	frame__free(t->latest);
	t->latest = NULL;
}

/* Handle a view command; false if cmd is not one. */
static bool cmd_view(struct tui *t, enum cmd c)
{
	switch (c) {
	case CMD_FOCUS: view__focus_in(&t->v); return true;
	case CMD_BACK: view__focus_out(&t->v); return true;
	case CMD_ESCAPE:
		if (t->v.filter[0])
			view__set_filter(&t->v, "");
		else
			view__focus_out(&t->v);
		return true;
	case CMD_FOLLOW: view__follow_toggle(&t->v); return true;
	case CMD_TREE: view__tree_toggle(&t->v); return true;
	case CMD_METRIC: view__metric_cycle(&t->v); return true;
	case CMD_PAUSE: pause_toggle(t); return true;
	case CMD_CMDLINE: view__cmdline_toggle(&t->v); return true;
	case CMD_KTHREADS: view__kthreads_toggle(&t->v); return true;
	case CMD_UNITS: view__units_toggle(&t->v); return true;
	case CMD_SCROLL_LEFT: view__hscroll(&t->v, -SCROLL_STEP); return true;
	case CMD_SCROLL_RIGHT: view__hscroll(&t->v, SCROLL_STEP); return true;
	default: return false;
	}
}

/* A key while the copy-sites pane has the keys: pick a site, open its
 * stack, go back. False for keys the table handles as usual. */
static bool site_key(struct tui *t, enum cmd c)
{
	switch (c) {
	case CMD_UP: t->site_sel -= t->site_sel > 0; t->site_open = false; return true;
	case CMD_DOWN: t->site_sel++; t->site_open = false; return true; /* drawing clamps it */
	case CMD_FOCUS: t->site_open = !t->site_open; return true;
	case CMD_BACK:
	case CMD_ESCAPE:
		if (t->site_open)
			t->site_open = false;
		else
			t->site_focus = false;
		return true;
	default: return false;
	}
}

/* Show or hide the copy-sites pane; stacks are captured while it is shown. */
static enum tui_action sites_toggle(struct tui *t)
{
	t->sites = !t->sites;
	t->site_focus = t->site_open = false;
	tui_say(t, false, "copies by code path %s", t->sites ? "on: capturing user stacks" : "off");
	return TUI_STACKS_TOGGLE;
}

/* Whether c moves in time: the time keys, and pause when the source has
 * time to move in (a replay). */
static bool is_time_key(const struct tui *t, enum cmd c)
{
	return keys_need(c) & ACT_TIME || (c == CMD_PAUSE && t->s.allow & ACT_TIME);
}

/* A time key: the source moves in time. */
static enum tui_action time_key(struct tui *t, enum cmd c)
{
	if (c == CMD_JUMP) {
		tui_prompt(t, MODE_JUMP, "");
		return TUI_NONE;
	}
	t->time_cmd = c;
	t->time_arg[0] = '\0';
	return TUI_TIME;
}

/* Left and Right scroll COMMAND where the source has no time to move in
 * (a live run); in a replay they move in time, and Shift scrolls. */
static enum cmd arrow_cmd(const struct tui *t, enum cmd c, int ch)
{
	if (t->s.allow & ACT_TIME)
		return c;
	if (ch == KEY_LEFT)
		return CMD_SCROLL_LEFT;
	if (ch == KEY_RIGHT)
		return CMD_SCROLL_RIGHT;
	return c;
}

/* A key in the table. */
static enum tui_action key_table(struct tui *t, int ch)
{
	enum cmd c = arrow_cmd(t, keys_lookup(ch), ch);

	if (ch == KEY_RESIZE)
		return TUI_NONE;
	if (ch == KEY_MOUSE) {
		tui_mouse(t);
		return TUI_NONE;
	}
	t->s.msg[0] = '\0';
	if (keys_need(c) & ~t->s.allow) { /* the source does not do that */
		tui_say(t, false, "%s", keys_refusal(keys_need(c) & ~t->s.allow));
		return TUI_NONE;
	}
	if (is_time_key(t, c))
		return time_key(t, c);
	if (t->site_focus && t->sites && site_key(t, c))
		return TUI_NONE;
	if (c == CMD_STACKS)
		return sites_toggle(t);
	if (c == CMD_SITES) {
		t->site_focus = t->sites && !t->site_focus;
		t->site_open = false;
		if (!t->sites)
			tui_say(t, false, "no copy-sites pane: c shows it");
		return TUI_NONE;
	}
	if (cmd_move(t, c) || cmd_sort(t, c, ch) || cmd_view(t, c))
		return TUI_NONE;
	switch (c) {
	case CMD_FILTER: tui_prompt(t, MODE_FILTER, t->v.filter); break;
	case CMD_SEARCH:
		tui_prompt(t, MODE_SEARCH, t->search);
		t->s.search_miss = t->search[0] && !view__search(&t->v, t->search, true);
		break;
	case CMD_SETUP: tui_setup_open(t); break;
	case CMD_DELAY: tui_prompt(t, MODE_DELAY, ""); break;
	case CMD_SNAPSHOT: snapshot(t); break;
	case CMD_KILL: tui_kill_open(t); break;
	case CMD_LOG: log_toggle(t); break;
	case CMD_REGIONS: t->s.mode = MODE_REGIONS; break;
	case CMD_OBJECTS: t->s.mode = MODE_OBJECTS; break;
	case CMD_HELP:
		t->s.mode = MODE_HELP;
		t->help_top = 0;
		break;
	case CMD_REDRAW: clearok(curscr, TRUE); break;
	case CMD_QUIT: return TUI_QUIT;
	default: break;
	}
	return TUI_NONE;
}

/* A key on the help screen: scroll, or go back to the table. */
static void help_key(struct tui *t, int ch)
{
	switch (keys_lookup(ch)) {
	case CMD_UP:
		t->help_top -= t->help_top > 0;
		break;
	case CMD_DOWN:
		t->help_top++; /* drawing clamps it */
		break;
	case CMD_PGUP:
		t->help_top = t->help_top > (size_t)page_rows(t) ? t->help_top - (size_t)page_rows(t) : 0;
		break;
	case CMD_PGDN:
		t->help_top += (size_t)page_rows(t);
		break;
	default:
		if (ch != KEY_RESIZE)
			t->s.mode = MODE_TABLE;
	}
}

/* A key on the regions or the objects pane: its own key again, Esc, Bksp
 * or q go back to the table, the other pane's key shows that pane; the
 * others act as in the table (Up/Down pick another process to show). */
static enum tui_action pane_key(struct tui *t, int ch)
{
	enum cmd c = keys_lookup(ch);
	enum mode own = c == CMD_REGIONS ? MODE_REGIONS : MODE_OBJECTS;

	switch (c) {
	case CMD_REGIONS:
	case CMD_OBJECTS:
		if (t->s.mode != own) {
			t->s.mode = own;
			return TUI_NONE;
		}
		/* fall through */
	case CMD_ESCAPE:
	case CMD_BACK:
	case CMD_QUIT:
		t->s.mode = MODE_TABLE;
		t->s.msg[0] = '\0';
		return TUI_NONE;
	default:
		return key_table(t, ch);
	}
}

/* One key, in whatever mode the view is in. */
static enum tui_action on_key(struct tui *t, int ch)
{
	if (t->s.mode != MODE_FILTER)
		view__settle(&t->v); /* a key that may read the rows */
	switch (t->s.mode) {
	case MODE_HELP:
		help_key(t, ch);
		return TUI_NONE;
	case MODE_REGIONS:
	case MODE_OBJECTS:
		return pane_key(t, ch);
	case MODE_KILL:
		tui_kill_key(t, ch);
		return TUI_NONE;
	case MODE_SETUP:
		tui_setup_key(t, ch);
		return TUI_NONE;
	case MODE_SEARCH:
	case MODE_FILTER:
	case MODE_DELAY:
	case MODE_JUMP:
		return tui_key_prompt(t, ch);
	default:
		return key_table(t, ch);
	}
}

/* Read every pending key, act on them, draw once. */
enum tui_action tui__input(struct tui *t)
{
	enum tui_action act = TUI_NONE, a;
	int ch;

	if (!t || !t->screen)
		return TUI_NONE;
	while ((ch = getch()) != ERR) {
		a = on_key(t, ch);
		if (a == TUI_QUIT)
			return a;
		if (a != TUI_NONE)
			act = a;
		tui_take_note(t);
	}
	tui_draw(t);
	return act;
}
