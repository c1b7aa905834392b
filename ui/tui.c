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


/* Set the status message (replaced by the next one, cleared by a key). */
void tui_say(struct tui *t, bool warn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->s.msg, sizeof(t->s.msg), fmt, ap);
	va_end(ap);
	t->s.msg_warn = warn;
}

/* Show what the view noted changing (focus, follow) on the status line. */
void tui_take_note(struct tui *t)
{
	if (!t->v.note[0])
		return;
	tui_say(t, false, "%s", t->v.note);
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
	t->titles_y = t->rows_y = -1;
	tui_setup_load(t);
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
struct areas tui_areas_now(const struct tui *t, int lines)
{
	return screen_areas(lines, screen_has_group(&t->v), t->hi.nphases > 0,
			    t->s.log || t->sites);
}

/* Put the cursor at the end of a prompt, or hide it. */
static void place_cursor(struct tui *t, int y)
{
	if (t->s.mode != MODE_FILTER && t->s.mode != MODE_DELAY && t->s.mode != MODE_JUMP &&
	    t->s.mode != MODE_SEARCH) {
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
void tui_draw(struct tui *t)
{
	int lines, cols, y;
	struct areas a;

	view__settle(&t->v);
	terminal_size(&lines, &cols);
	t->sink.history = view__history_points(&t->v, cols);
	a = tui_areas_now(t, lines);
	t->s.log_hidden = t->s.log && !a.log;
	erase();
	t->titles_y = t->rows_y = -1;
	if (t->s.mode == MODE_SETUP)
		tui_setup_draw(t, lines - a.status - a.footer, cols);
	else if (t->s.mode == MODE_HELP)
		panes_draw_help(t, lines - a.status - a.footer, cols);
	else if (t->s.mode == MODE_REGIONS)
		panes_draw_regions(t, lines - a.status - a.footer, cols);
	else if (t->s.mode == MODE_OBJECTS)
		panes_draw_objects(t, lines - a.status - a.footer, cols);
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
void tui_show(struct tui *t, struct frame *f)
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
		tui_show(t, f);
	}
	tui_take_note(t);
	tui_draw(t);
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
		tui_say(t, true, "%s", msg);
}

/* The terminal changed size: take the new size and lay out again. */
void tui__resize(struct tui *t)
{
	if (!t || !t->screen)
		return;
	terminal_sync_size();
	tui_draw(t);
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
