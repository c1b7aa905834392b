/* The full-screen view: terminal, drawing, keys. Everything shown is built
 * off-screen as lines (row.c, header.c, help.c, screen.c, snapshot.c) and
 * drawn with one screen update per frame; the panes are drawn by panes.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "header.h"
#include "help.h"
#include "keys.h"
#include "line.h"
#include "panes.h"
#include "regions.h"
#include "row.h"
#include "screen.h"
#include "safefile.h"
#include "snapshot.h"
#include "terminal.h"
#include "text.h"
#include "tui.h"
#include "tui_int.h"
#include "view.h"

#define DELAY_MIN 0.1
#define DELAY_MAX 86400.0
#define ESC_KEY 27

/* Set the status message (replaced by the next one, cleared by a key). */
static void __attribute__((format(printf, 3, 4)))
say(struct tui *t, bool warn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->s.msg, sizeof(t->s.msg), fmt, ap);
	va_end(ap);
	t->s.msg_warn = warn;
}

/* Show what the view noted changing (focus, follow) on the status line. */
static void take_note(struct tui *t)
{
	if (!t->v.note[0])
		return;
	say(t, false, "%s", t->v.note);
	t->v.note[0] = '\0';
}

/* Whether the locale's character set is UTF-8. */
static bool locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

/* Host name and kernel, read once. */
static void read_system(struct tui *t)
{
	struct utsname u;

	if (gethostname(t->host, sizeof(t->host)))
		snprintf(t->host, sizeof(t->host), "?");
	t->host[sizeof(t->host) - 1] = '\0';
	if (uname(&u) == 0)
		snprintf(t->kernel, sizeof(t->kernel), "%s %s %s", u.sysname, u.release, u.machine);
	else
		snprintf(t->kernel, sizeof(t->kernel), "?");
	t->hi.host = t->host;
	t->hi.kernel = t->kernel;
}

/* Open the view on the terminal (stdin/stdout). Returns 0 or -errno. */
int tui__open(struct tui **out, const struct tui_opts *o)
{
	struct tui *t;

	*out = NULL;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -ENOTTY;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->o = *o;
	t->kill.pidfd = -1; /* never fd 0: that is the terminal */
	t->s.delay = o->delay > 0 ? o->delay : 1.0;
	t->s.allow = o->allow;
	t->sites = o->stacks;
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C"); /* "1.5" means the same to every reader */
	t->s.utf8 = !o->ascii && locale_utf8();
	view__init(&t->v, &(struct view_opts){ .sort = o->sort, .reverse = o->reverse, .tree = !o->flat },
		   t->s.utf8);
	read_system(t);
	if (o->replay_host) {
		snprintf(t->host, sizeof(t->host), "%s", o->replay_host);
		snprintf(t->kernel, sizeof(t->kernel), "%s", o->replay_kernel ? o->replay_kernel : "?");
		t->hi.replay = t->replay_text;
	}
	t->screen = newterm(NULL, stdout, stdin);
	if (!t->screen) {
		free(t);
		return -ENOTTY;
	}
	terminal_setup(t->attr);
	*out = t;
	return 0;
}

/* Give the terminal back as it was and let go of the frames; NULL is fine. */
void tui__free(struct tui *t)
{
	if (!t)
		return;
	if (t->screen) {
		curs_set(1);
		endwin();
		delscreen(t->screen);
	}
	signal_target__free(&t->kill);
	view__free(&t->v);
	frame__free(t->latest);
	free(t->pane);
	free(t);
}

/* The refresh interval in seconds. */
double tui__delay(const struct tui *t)
{
	return t->s.delay;
}

/* The screen's areas for what the view shows now. */
static struct areas areas_now(const struct tui *t, int lines)
{
	return screen_areas(lines, screen_has_group(&t->v), t->hi.nphases > 0,
			    t->s.log || t->sites);
}

/* Put the cursor at the end of a prompt, or hide it. */
static void place_cursor(struct tui *t, int y)
{
	if (t->s.mode != MODE_FILTER && t->s.mode != MODE_DELAY && t->s.mode != MODE_JUMP) {
		curs_set(0);
		return;
	}
	screen_status_line(&t->s, &t->v, &t->scratch);
	curs_set(1);
	move(y, text_width(t->scratch.text));
}

/* Draw the header, the group and phase lines, the table and the log pane. */
static void draw_body(struct tui *t, const struct areas *a, int cols)
{
	struct line hdr[HEADER_LINES];
	int y = 0, i;

	t->hi.paused = t->s.paused;
	t->hi.delay = t->s.delay;
	t->hi.utf8 = t->s.utf8;
	t->hi.bytes = t->v.bytes;
	t->hi.cols = cols;
	view__scroll(&t->v, (size_t)a->body); /* the rows shown, for their oldest reading */
	t->hi.smaps_age = view__oldest_reading(&t->v, t->v.top, (size_t)a->body);
	t->hi.smaps_read = t->hi.smaps_age >= 0;
	header_build(&t->hi, hdr);
	for (i = 0; i < a->header; i++)
		terminal_draw_line(t->attr, y++, &hdr[i], cols, false);
	if (a->group) {
		screen_group_line(&t->v, t->s.utf8, &t->scratch);
		terminal_draw_line(t->attr, y++, &t->scratch, cols, false);
	}
	if (a->phases) {
		screen_phase_line(&t->v, t->s.utf8, &t->scratch);
		terminal_draw_line(t->attr, y++, &t->scratch, cols, false);
	}
	panes_draw_table(t, y, a, cols);
	if (a->log && t->sites)
		panes_draw_sites(t, y + a->titles + a->body, a->log, cols);
	else if (a->log)
		panes_draw_log(t, y + a->titles + a->body, a->log, cols);
}

/* Draw the whole screen into the buffer, then show it in one update. */
static void draw(struct tui *t)
{
	int lines, cols, y;
	struct areas a;

	view__settle(&t->v);
	terminal_size(&lines, &cols);
	t->sink.history = view__history_points(&t->v, cols);
	a = areas_now(t, lines);
	t->s.log_hidden = t->s.log && !a.log;
	erase();
	if (t->s.mode == MODE_HELP)
		panes_draw_help(t, lines - a.status - a.footer, cols);
	else if (t->s.mode == MODE_REGIONS)
		panes_draw_regions(t, lines - a.status - a.footer, cols);
	else
		draw_body(t, &a, cols);
	y = lines - a.footer - a.status;
	if (a.status) {
		screen_status_line(&t->s, &t->v, &t->scratch);
		terminal_draw_line(t->attr, y, &t->scratch, cols, false);
	}
	if (a.footer) {
		screen_footer_line(&t->s, t->hi.nprobes, cols, &t->scratch);
		terminal_draw_line(t->attr, lines - 1, &t->scratch, cols, false);
	}
	place_cursor(t, y);
	wnoutrefresh(stdscr);
	doupdate();
}

/* Make f the frame shown. */
static void show(struct tui *t, struct frame *f)
{
	view__set_frame(&t->v, f);
	header_take_frame(&t->hi, f);
}

/* Show frame f, holding it; paused, keep it to resume with and leave the
 * screen as it is. */
void tui__frame(struct tui *t, struct frame *f)
{
	if (!t || !t->screen || !f)
		return;
	if (t->s.paused) {
		frame__hold(f);
		frame__free(t->latest);
		t->latest = f;
	} else {
		show(t, f);
	}
	take_note(t);
	draw(t);
}

/* The view as one of the app's sinks; it lives as long as the view. */
static enum sink_status tui_sink_frame(struct sink *s, struct frame *f, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	tui__frame((struct tui *)s, f);
	return SINK_OK;
}

static void tui_sink_free(struct sink *s)
{
	(void)s; /* the app frees the view with tui__free: it also reads keys */
}

static const struct sink_ops tui_sink_ops = { .frame = tui_sink_frame, .free = tui_sink_free };

struct sink *tui__sink(struct tui *t)
{
	t->sink.ops = &tui_sink_ops;
	t->sink.screen_only = true;
	t->sink.own_rows = true;
	t->sink.own_groups = true; /* summed when a snapshot is written */
	if (!t->sink.history)
		t->sink.history = SERIES_CAP; /* until the first draw knows the width */
	return &t->sink;
}

/* A warning from elsewhere (the recorder's full disk) on the status line,
 * shown with the next draw. */
void tui__notice(struct tui *t, const char *msg)
{
	if (t)
		say(t, true, "%s", msg);
}

/* The terminal changed size: take the new size and lay out again. */
void tui__resize(struct tui *t)
{
	if (!t || !t->screen)
		return;
	terminal_sync_size();
	draw(t);
}

/* What the order of the rows needs read of every process, beyond what the
 * kernel side gives (copies, tree, name): the sort field's source (fields.h):
 * /proc/PID/stat (read every tick), or the memory sampler's reading (on its
 * budget). The other keys need only the rows on screen. */
unsigned tui__sort_sources(const struct tui *t)
{
	switch (fields[t->v.vo.sort].source) {
	case FIELD_STAT:
		return TUI_SOURCE_STAT;
	case FIELD_SMAPS:
	case FIELD_DERIVED:
		return TUI_SOURCE_SMAPS;
	default:
		return 0;
	}
}

/* The live processes on screen, the selection first: whose memory to read
 * first. Returns how many pids were put (at most max). */
size_t tui__visible(const struct tui *t, int *pids, size_t max)
{
	if (!t)
		return 0;
	return view__visible(&t->v, t->body, pids, max);
}

/* Rows of the table on screen now (a page). */
static long page_rows(const struct tui *t)
{
	int lines, cols, body;

	terminal_size(&lines, &cols);
	body = areas_now(t, lines).body;
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
		say(t, true, "snapshot: cannot write %s: out of memory", path);
		return;
	}
	if (safefile_write(path, text, len, &t->snapshot_file, err, sizeof(err)))
		say(t, true, "snapshot: cannot write %s: %s", path, err);
	else
		say(t, false, "snapshot written to %s (%zu processes)", path, t->v.n);
	free(text);
}

/* Show or hide the probe log; without probes, say how to get some. */
static void log_toggle(struct tui *t)
{
	if (!t->hi.nprobes && !t->hi.nkprobes && !t->s.log) {
		say(t, false, "no USDT probes attached and no OOM kill or reclaim stall yet: "
			"start cowtop with -u PROVIDER:NAME");
		return;
	}
	t->s.log = !t->s.log;
}

/* Enter a prompt, its input starting as init. */
static void prompt(struct tui *t, enum mode mode, const char *init)
{
	t->s.mode = mode;
	snprintf(t->s.input, sizeof(t->s.input), "%s", init);
}

/* Pause or resume; resuming shows the newest frame at once. */
static void pause_toggle(struct tui *t)
{
	t->s.paused = !t->s.paused;
	if (t->s.paused || !t->latest)
		return;
	show(t, t->latest);
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
	say(t, false, "copies by code path %s", t->sites ? "on: capturing user stacks" : "off");
	return TUI_STACKS_TOGGLE;
}

/* How the signal menu names p: its name, and its command line when it has
 * one ("sleep (respawn-worker[1] 600)"), both made safe. */
static void kill_name(const struct proc *p, bool utf8, char *buf, size_t cap)
{
	char line[ROW_LABEL_MAX];
	size_t n = row_name(p, utf8, buf, cap);

	if (!p->cmdline[0] || n + 4 >= cap)
		return;
	row_label(p, true, utf8, line, sizeof(line));
	snprintf(buf + n, cap - n, " (%.*s)", (int)(cap - n - 4), line);
}

/* Open the signal menu for the selected process, pinning it now; an
 * exited row has nobody to signal. */
static void kill_open(struct tui *t)
{
	const struct proc *p = view__selected(&t->v);
	char name[ROW_LABEL_MAX];

	if (!p) {
		say(t, false, "no process selected");
		return;
	}
	kill_name(p, t->s.utf8, name, sizeof(name));
	if (p->exited) {
		say(t, true, "PID %d %s has exited: no signal to send", p->pid, name);
		return;
	}
	signal_target__free(&t->kill); /* one left open by a menu never closed */
	signal_target__open(&t->kill, p->pid);
	t->s.kill_pid = p->pid;
	snprintf(t->s.kill_name, sizeof(t->s.kill_name), "%s", name);
	t->s.kill_sel = 0;
	t->s.mode = MODE_KILL;
}

/* Send the signal picked and say what came of it. */
static void kill_send(struct tui *t)
{
	const struct signal_choice *c = &signal_menu[t->s.kill_sel];
	int err = signal_send(&t->kill, c->sig);

	if (err)
		say(t, true, "cannot send %s to PID %d %s: %s (%s)", c->name, t->s.kill_pid,
		    t->s.kill_name, strerror(-err), signal_errno_name(err));
	else
		say(t, false, "sent %s to PID %d %s", c->name, t->s.kill_pid, t->s.kill_name);
	signal_target__free(&t->kill);
}

/* A key in the signal menu: pick, send, or cancel. */
static void kill_key(struct tui *t, int ch)
{
	enum cmd c = keys_lookup(ch);

	if (ch == KEY_RESIZE)
		return;
	if (ch == KEY_LEFT || c == CMD_UP)
		t->s.kill_sel = (t->s.kill_sel + SIGNAL_MENU_N - 1) % SIGNAL_MENU_N;
	else if (ch == KEY_RIGHT || c == CMD_DOWN)
		t->s.kill_sel = (t->s.kill_sel + 1) % SIGNAL_MENU_N;
	else if (ch >= '1' && ch < '1' + SIGNAL_MENU_N)
		t->s.kill_sel = ch - '1';
	else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		t->s.mode = MODE_TABLE;
		kill_send(t);
	} else if (ch == ESC_KEY || c == CMD_QUIT || c == CMD_BACK) {
		t->s.mode = MODE_TABLE;
		signal_target__free(&t->kill);
		say(t, false, "no signal sent");
	}
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
		prompt(t, MODE_JUMP, "");
		return TUI_NONE;
	}
	t->time_cmd = c;
	t->time_arg[0] = '\0';
	return TUI_TIME;
}

/* A key in the table. */
static enum tui_action key_table(struct tui *t, int ch)
{
	enum cmd c = keys_lookup(ch);

	if (ch == KEY_RESIZE)
		return TUI_NONE;
	t->s.msg[0] = '\0';
	if (keys_need(c) & ~t->s.allow) { /* the source does not do that */
		say(t, false, "%s", keys_refusal(keys_need(c) & ~t->s.allow));
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
			say(t, false, "no copy-sites pane: c shows it");
		return TUI_NONE;
	}
	if (cmd_move(t, c) || cmd_sort(t, c, ch) || cmd_view(t, c))
		return TUI_NONE;
	switch (c) {
	case CMD_FILTER: prompt(t, MODE_FILTER, t->v.filter); break;
	case CMD_DELAY: prompt(t, MODE_DELAY, ""); break;
	case CMD_SNAPSHOT: snapshot(t); break;
	case CMD_KILL: kill_open(t); break;
	case CMD_LOG: log_toggle(t); break;
	case CMD_REGIONS: t->s.mode = MODE_REGIONS; break;
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

/* Take the typed delay; TUI_DELAY_CHANGED when it is a new valid one. */
static enum tui_action delay_accept(struct tui *t)
{
	char *end;
	double v;

	if (!t->s.input[0])
		return TUI_NONE;
	errno = 0;
	v = strtod(t->s.input, &end);
	if (errno || end == t->s.input || *end || !isfinite(v) || v < DELAY_MIN || v > DELAY_MAX) {
		say(t, true, "invalid delay '%s': seconds, from 0.1 to 86400", t->s.input);
		return TUI_NONE;
	}
	t->s.delay = v;
	say(t, false, "refresh every %gs", v);
	return TUI_DELAY_CHANGED;
}

/* Edit the prompt's input with key ch; true when ch was an edit. */
static bool prompt_edit(struct tui *t, int ch)
{
	size_t len = strlen(t->s.input);

	if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (len)
			t->s.input[len - 1] = '\0';
		return true;
	}
	if (ch == ('u' & 0x1f)) {
		t->s.input[0] = '\0';
		return true;
	}
	if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof(t->s.input)) {
		t->s.input[len] = (char)ch;
		t->s.input[len + 1] = '\0';
		return true;
	}
	return false;
}

/* A key in a prompt: the filter applies as it is typed. */
static enum tui_action key_prompt(struct tui *t, int ch)
{
	enum mode mode = t->s.mode;
	bool enter = ch == '\n' || ch == '\r' || ch == KEY_ENTER;

	if (ch == ESC_KEY)
		t->s.input[0] = '\0';
	else if (!enter && !prompt_edit(t, ch))
		return TUI_NONE;
	if (mode == MODE_FILTER)
		view__set_filter(&t->v, t->s.input);
	if (ch != ESC_KEY && !enter)
		return TUI_NONE;
	t->s.mode = MODE_TABLE;
	t->s.msg[0] = '\0';
	if (mode == MODE_JUMP && enter && t->s.input[0]) {
		t->time_cmd = CMD_JUMP;
		snprintf(t->time_arg, sizeof(t->time_arg), "%s", t->s.input);
		return TUI_TIME;
	}
	return mode == MODE_DELAY && enter ? delay_accept(t) : TUI_NONE;
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

/* A key on the regions pane: r, Esc, Bksp or q go back to the table; the
 * others act as in the table (Up/Down pick another process to show). */
static enum tui_action regions_key(struct tui *t, int ch)
{
	switch (keys_lookup(ch)) {
	case CMD_REGIONS:
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
		return regions_key(t, ch);
	case MODE_KILL:
		kill_key(t, ch);
		return TUI_NONE;
	case MODE_FILTER:
	case MODE_DELAY:
	case MODE_JUMP:
		return key_prompt(t, ch);
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
		take_note(t);
	}
	draw(t);
	return act;
}

/* Whether copy stacks are wanted (the copy-sites pane is shown). */
bool tui__stacks(const struct tui *t)
{
	return t && t->sites;
}

/* Replay: the time key last pressed, and what was typed for a jump. */
int tui__time_cmd(const struct tui *t, const char **arg)
{
	if (arg)
		*arg = t->time_arg;
	return t->time_cmd;
}

/* Replay: where in the recording, shown in the header after "REPLAY". */
void tui__replay_status(struct tui *t, const char *text)
{
	if (t)
		snprintf(t->replay_text, sizeof(t->replay_text), "%s", text);
}
