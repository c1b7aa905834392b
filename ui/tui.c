/* The full-screen view: state, frames, keys. Everything shown is built
 * off-screen as lines (row.c, header.c, help.c) and drawn here with one
 * screen update per frame. */
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
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "header.h"
#include "help.h"
#include "keys.h"
#include "line.h"
#include "row.h"
#include "snapshot.h"
#include "text.h"
#include "tui.h"
#include "view.h"

#define PROMPT_MAX 64
#define MSG_MAX 1024
#define HELP_MAX 64
#define DELAY_MIN 0.1
#define DELAY_MAX 86400.0
#define ESC_KEY 27
#define LOG_KEEP 256     /* probe hits copied for the log pane */
#define LOG_MIN_BODY 4   /* body rows below which the log pane stays hidden */

enum mode { MODE_TABLE, MODE_HELP, MODE_FILTER, MODE_DELAY };

/* How the screen's rows are shared out. */
struct areas {
	int header, phases, titles, body, log, status, footer;
};

/* A probe hit as the log pane shows it, copied so a pause freezes it. */
struct log_entry {
	struct marker mk;
	char comm[PROC_COMM_MAX];
};

struct tui {
	struct tui_opts o;
	SCREEN *screen;
	bool utf8;
	double delay;
	attr_t attr[ROLE_N];

	struct view v;
	bool paused;

	enum mode mode;
	char input[PROMPT_MAX];
	char msg[MSG_MAX];
	bool msg_warn;

	struct header_info hi;
	char host[256], kernel[512], mechanism[128], target[1024];

	struct line scratch;
	struct line *help;
	size_t help_top, help_n; /* first help line shown, lines in all */

	bool log;                /* the probe log pane is asked for */
	bool log_hidden;         /* ... but there is no room for it */
	struct log_entry logs[LOG_KEEP];
	size_t nlog, log_kept;   /* hits copied (newest last), hits the model keeps */
};

/* Set the status message (replaced by the next one, cleared by a key). */
static void __attribute__((format(printf, 3, 4)))
say(struct tui *t, bool warn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
	t->msg_warn = warn;
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
	t->hi.mechanism = t->mechanism;
	t->hi.target = t->target;
}

/* Attributes of each role, with colours when the terminal has them. */
static void pick_attrs(struct tui *t)
{
	static const struct { short fg, bg; attr_t extra, mono; } roles[ROLE_N] = {
		[ROLE_PLAIN] = { -1, -1, A_NORMAL, A_NORMAL },
		[ROLE_LABEL] = { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
		[ROLE_VALUE] = { -1, -1, A_BOLD, A_BOLD },
		[ROLE_WARN] = { COLOR_RED, -1, A_BOLD, A_BOLD | A_REVERSE },
		[ROLE_SPARK] = { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
		[ROLE_TREE] = { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
		[ROLE_COLHDR] = { COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_REVERSE },
		[ROLE_SORT] = { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD },
		[ROLE_KEY] = { -1, -1, A_BOLD, A_BOLD },
		[ROLE_KEYDESC] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
		[ROLE_STATUS] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
		[ROLE_SEL] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
		[ROLE_DIM] = { -1, -1, A_DIM, A_DIM },
		[ROLE_MARK] = { COLOR_MAGENTA, -1, A_BOLD, A_BOLD },
	};
	bool color = has_colors() && start_color() == OK;
	bool defaults = color && use_default_colors() == OK;
	short fg, bg;
	int i;

	for (i = 0; i < ROLE_N; i++) {
		t->attr[i] = color ? roles[i].extra : roles[i].mono;
		if (!color || (roles[i].fg < 0 && roles[i].bg < 0))
			continue;
		/* without the terminal's own colours, say white on black */
		fg = roles[i].fg < 0 && !defaults ? COLOR_WHITE : roles[i].fg;
		bg = roles[i].bg < 0 && !defaults ? COLOR_BLACK : roles[i].bg;
		if (init_pair((short)(i + 1), fg, bg) == OK)
			t->attr[i] |= COLOR_PAIR(i + 1);
	}
}

/* Make curses' idea of the screen size the terminal's. Called on SIGWINCH
 * (delivered through the app's signalfd, so curses' own handler never runs). */
static void sync_size(void)
{
	struct winsize ws;

	if ((ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 || ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0) &&
	    ws.ws_row > 0 && ws.ws_col > 0 && (ws.ws_row != LINES || ws.ws_col != COLS))
		resizeterm(ws.ws_row, ws.ws_col);
}

/* Put the terminal in the modes a top-like view needs. */
static void setup_terminal(struct tui *t)
{
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	pick_attrs(t);
	sync_size(); /* LINES and COLUMNS in the environment may be stale */
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
	t->delay = o->delay > 0 ? o->delay : 1.0;
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C"); /* "1.5" means the same to every reader */
	t->utf8 = !o->ascii && locale_utf8();
	view__init(&t->v, &(struct view_opts){ .sort = o->sort, .reverse = o->reverse, .tree = !o->flat },
		   t->utf8);
	read_system(t);
	t->screen = newterm(NULL, stdout, stdin);
	if (!t->screen) {
		free(t);
		return -ENOTTY;
	}
	setup_terminal(t);
	*out = t;
	return 0;
}

/* Give the terminal back as it was; NULL is fine. */
void tui__close(struct tui *t)
{
	if (!t)
		return;
	if (t->screen) {
		curs_set(1);
		endwin();
		delscreen(t->screen);
	}
	view__free(&t->v);
	free(t->help);
	free(t);
}

/* The refresh interval in seconds. */
double tui__delay(const struct tui *t)
{
	return t->delay;
}

/* Share the screen's rows out: a body row first, then titles, footer,
 * status, header lines and the phase line (when there are phases), and the
 * rest to the body; the log pane (when shown and there is room) takes the
 * lower part of the body. */
static struct areas areas_of(int lines, bool phases, bool log)
{
	struct areas a = { 0 };
	int left = lines;

	a.body = left > 0;
	left -= a.body;
	a.titles = left > 0;
	left -= a.titles;
	a.footer = left > 0;
	left -= a.footer;
	a.status = left > 0;
	left -= a.status;
	a.header = left < HEADER_LINES ? left : HEADER_LINES;
	left -= a.header;
	a.phases = phases && left > 0;
	left -= a.phases;
	a.body += left;
	if (log && a.body >= LOG_MIN_BODY) {
		a.log = a.body * 2 / 5 > 2 ? a.body * 2 / 5 : 2;
		a.body -= a.log;
	}
	return a;
}

/* The screen's areas for what the view shows now. */
static struct areas areas_now(const struct tui *t, int lines)
{
	return areas_of(lines, t->hi.nphases > 0, t->log);
}

/* Copy a string the app owns into a buffer the header can keep. */
static void keep_string(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "?");
}

/* Copy the newest probe hits, with their processes' names, for the log. */
static void log_collect(struct tui *t, struct model *m)
{
	const struct marker *mk;
	struct log_entry *e;
	struct proc *p;
	size_t kept = model__marker_log(m, 0, &mk), i;

	t->log_kept = kept;
	t->nlog = 0;
	for (i = kept > LOG_KEEP ? kept - LOG_KEEP : 0; i < kept; i++) {
		model__marker_log(m, i, &mk);
		if (!mk)
			continue;
		e = &t->logs[t->nlog++];
		e->mk = *mk;
		p = model__find_live(m, mk->pid);
		if (!p)
			p = model__find(m, mk->pid, 0);
		memset(e->comm, 0, sizeof(e->comm));
		if (p)
			memcpy(e->comm, p->comm, sizeof(e->comm) - 1);
	}
}

/* Take what the header shows from the app's status and the model. */
static void status_collect(struct tui *t, struct model *m, const struct tui_status *st)
{
	struct proc *p;
	size_t i;

	keep_string(t->mechanism, sizeof(t->mechanism), st ? st->mechanism : NULL);
	keep_string(t->target, sizeof(t->target), st ? st->target : NULL);
	t->hi.now = time(NULL);
	t->hi.cpu_pct = st ? st->cpu_pct : 0;
	t->hi.lost = st ? st->lost : 0;
	t->hi.command_done = st && st->command_done;
	t->hi.command_status = st ? st->command_status : 0;
	t->hi.watched = model__count(m);
	t->hi.live = model__live(m);
	t->hi.nprobes = model__nprobes(m);
	t->hi.nphases = model__nphases(m) > 1 ? model__nphases(m) - 1 : 0;
	if (t->hi.nprobes)
		log_collect(t, m);
	t->hi.rate = 0;
	t->hi.cow = 0;
	for (i = 0; (p = model__at(m, i)); i++) {
		t->hi.rate += p->cow_rate;
		t->hi.cow += p->counts.cow;
	}
}

/* Current screen size. */
static void screen_size(int *lines, int *cols)
{
	getmaxyx(stdscr, *lines, *cols);
	if (*lines < 0)
		*lines = 0;
	if (*cols < 0)
		*cols = 0;
}

/* Draw n bytes of s at the cursor in attributes a. */
static void put_text(attr_t a, const char *s, size_t n)
{
	if (!n)
		return;
	attrset(a);
	addnstr(s, (int)n);
}

/* The attributes of a span of role in l: dimmed, never bold, in a dimmed line. */
static attr_t span_attr(const struct tui *t, const struct line *l, enum role role)
{
	if (l->base == ROLE_DIM)
		return (t->attr[role] & ~A_BOLD) | A_DIM;
	return t->attr[role];
}

/* Draw l on screen row y (erased before), cut to cols. A selected line is
 * drawn in the selection colour through and through. */
static void draw_line(struct tui *t, int y, const struct line *l, int cols, bool sel)
{
	size_t keep = text_fit(l->text, l->len, cols, NULL), pos = 0, end;
	attr_t base = t->attr[sel ? ROLE_SEL : l->base];
	int i;

	move(y, 0);
	for (i = 0; i < l->nspan && l->span[i].off < keep; i++) {
		const struct span *s = &l->span[i];

		put_text(base, l->text + pos, s->off - pos);
		end = s->off + s->len < keep ? s->off + s->len : keep;
		put_text(sel ? base : span_attr(t, l, s->role), l->text + s->off, end - s->off);
		pos = end;
	}
	put_text(base, l->text + pos, keep - pos);
	if (sel)
		mvchgat(y, 0, -1, base & ~A_COLOR, (short)PAIR_NUMBER(base), NULL);
	attrset(A_NORMAL);
}

/* The layout of the table's columns at this width, and its scale. */
static void table_layout(const struct tui *t, int cols, struct row_layout *rl)
{
	row_layout_init(rl, cols, t->utf8);
	rl->scale = rows_scale(t->v.rows, t->v.n, rl->hist);
}

/* Draw the column titles and the visible rows from screen row y. */
static void draw_table(struct tui *t, int y, const struct areas *a, int cols)
{
	struct row_layout rl;
	size_t i;
	int k;

	table_layout(t, cols, &rl);
	if (a->titles) {
		row_titles(&rl, t->v.vo.sort, t->v.vo.reverse, &t->scratch);
		draw_line(t, y++, &t->scratch, cols, false);
	}
	view__scroll(&t->v, (size_t)a->body);
	for (k = 0; k < a->body; k++) {
		i = t->v.top + (size_t)k;
		if (i >= t->v.n)
			break;
		row_format(&t->v.rows[i], &rl, &t->scratch);
		draw_line(t, y + k, &t->scratch, cols, i == t->v.sel);
	}
}

/* The phase line: how the selected process's copies split between phases. */
static void phase_line(const struct tui *t, const struct model *m, struct line *l)
{
	const struct proc *p = view__selected(&t->v);

	line_clear(l);
	line_add(l, ROLE_LABEL, "phases ");
	if (!p)
		line_add(l, ROLE_PLAIN, "no process selected");
	else if (!row_phases(p, m, t->utf8, false, l))
		line_add(l, ROLE_PLAIN, "pid %d: no copies yet", p->pid);
}

/* Draw the probe log pane: its title, then the newest hits that fit. */
static void draw_log(struct tui *t, const struct model *m, int y, int rows, int cols)
{
	const struct log_entry *e;
	size_t i;

	row_marker_titles(t->log_kept, cols, &t->scratch);
	draw_line(t, y++, &t->scratch, cols, false);
	if (--rows < 1)
		return;
	if (!t->nlog) {
		line_clear(&t->scratch);
		line_add(&t->scratch, ROLE_DIM, "no probe hits yet");
		draw_line(t, y, &t->scratch, cols, false);
		return;
	}
	for (i = t->nlog > (size_t)rows ? t->nlog - (size_t)rows : 0; i < t->nlog; i++) {
		e = &t->logs[i];
		row_marker(&e->mk, e->comm, model__probe_label(m, e->mk.probe), t->utf8, cols, &t->scratch);
		draw_line(t, y++, &t->scratch, cols, false);
	}
}

/* The state of the view in a few words: sort, tree, focus, filter, follow. */
static void status_indicators(const struct tui *t, struct line *l)
{
	const struct view *v = &t->v;

	line_add(l, ROLE_PLAIN, "sort %s%s  %s", sort_key_name(v->vo.sort),
		 v->vo.reverse ? " (reversed)" : "", v->vo.tree ? "tree" : "flat");
	if (v->vo.focus_pid)
		line_add(l, ROLE_STATUS, "  focus PID %d (Bksp: back)", v->vo.focus_pid);
	if (v->filter[0])
		line_add(l, ROLE_STATUS, "  filter \"%s\" (Esc: clear)", v->filter);
	if (v->follow)
		line_add(l, ROLE_STATUS, "  following PID %d", v->follow_pid);
	if (t->paused)
		line_add(l, ROLE_WARN, "  PAUSED");
	if (t->log)
		line_add(l, ROLE_STATUS, "  probe log%s (l: hide)", t->log_hidden ? ": no room" : "");
	line_add(l, ROLE_PLAIN, "  %zu shown", v->n);
}

/* The status line: a prompt, a message, or the view's state. */
static void status_line(const struct tui *t, struct line *l)
{
	char safe[MSG_MAX];

	line_clear(l);
	if (t->mode == MODE_FILTER) {
		line_add(l, ROLE_STATUS, "Filter: ");
		line_add(l, ROLE_PLAIN, "%s", t->input);
	} else if (t->mode == MODE_DELAY) {
		line_add(l, ROLE_STATUS, "Change delay from %.1f to: ", t->delay);
		line_add(l, ROLE_PLAIN, "%s", t->input);
	} else if (t->msg[0]) {
		/* messages can quote file names and other outside text */
		if (t->utf8)
			text_sanitize(t->msg, strlen(t->msg), safe, sizeof(safe));
		else
			text_sanitize_ascii(t->msg, strlen(t->msg), safe, sizeof(safe));
		line_put(l, t->msg_warn ? ROLE_WARN : ROLE_STATUS, safe, strlen(safe));
	} else {
		status_indicators(t, l);
	}
}

/* The footer: key hints, or what the keys do in a prompt. */
static void footer_line(const struct tui *t, struct line *l)
{
	static const struct keyhint prompt[] = { { "Enter", "Done", false }, { "Esc", "Cancel", false } };
	static const struct keyhint help[] = {
		{ "Up/Down", "Scroll", false }, { "other keys", "Back", false },
	};
	const struct keyhint *h;
	size_t n, i;

	line_clear(l);
	if (t->mode == MODE_FILTER || t->mode == MODE_DELAY) {
		h = prompt;
		n = 2;
	} else if (t->mode == MODE_HELP) {
		h = help;
		n = 2;
	} else {
		h = keys__footer(&n);
	}
	for (i = 0; i < n; i++) {
		if (h[i].usdt && !t->hi.nprobes)
			continue;
		line_add(l, ROLE_KEY, "%s", h[i].key);
		line_add(l, ROLE_KEYDESC, "%s", h[i].what);
		line_add(l, ROLE_PLAIN, " ");
	}
}

/* Draw the help screen, scrolled, in the rows above the status line. */
static void draw_help(struct tui *t, int rows, int cols)
{
	size_t i;
	int y;

	if (!t->help)
		t->help = calloc(HELP_MAX, sizeof(*t->help));
	if (!t->help)
		return;
	t->help_n = help_build(t->help, HELP_MAX, t->utf8);
	if (rows < 1)
		return;
	if (t->help_top + (size_t)rows > t->help_n)
		t->help_top = t->help_n > (size_t)rows ? t->help_n - (size_t)rows : 0;
	for (y = 0, i = t->help_top; i < t->help_n && y < rows; i++, y++)
		draw_line(t, y, &t->help[i], cols, false);
}

/* Put the cursor at the end of a prompt, or hide it. */
static void place_cursor(struct tui *t, int y)
{
	if (t->mode != MODE_FILTER && t->mode != MODE_DELAY) {
		curs_set(0);
		return;
	}
	status_line(t, &t->scratch);
	curs_set(1);
	move(y, text_width(t->scratch.text));
}

/* Draw the whole screen into the buffer, then show it in one update. */
static void draw(struct tui *t, const struct model *m)
{
	int lines, cols, y = 0, i;
	struct areas a;

	screen_size(&lines, &cols);
	a = areas_now(t, lines);
	t->log_hidden = t->log && !a.log;
	erase();
	if (t->mode == MODE_HELP) {
		draw_help(t, lines - a.status - a.footer, cols);
	} else {
		struct line hdr[HEADER_LINES];

		t->hi.paused = t->paused;
		t->hi.delay = t->delay;
		t->hi.utf8 = t->utf8;
		header_build(&t->hi, hdr);
		for (i = 0; i < a.header; i++)
			draw_line(t, y++, &hdr[i], cols, false);
		if (a.phases) {
			phase_line(t, m, &t->scratch);
			draw_line(t, y++, &t->scratch, cols, false);
		}
		draw_table(t, y, &a, cols);
		if (a.log)
			draw_log(t, m, y + a.titles + a.body, a.log, cols);
	}
	y = lines - a.footer - a.status;
	if (a.status) {
		status_line(t, &t->scratch);
		draw_line(t, y, &t->scratch, cols, false);
	}
	if (a.footer) {
		footer_line(t, &t->scratch);
		draw_line(t, lines - 1, &t->scratch, cols, false);
	}
	place_cursor(t, y);
	wnoutrefresh(stdscr);
	doupdate();
}

/* Draw a frame of the model (unless paused: then the last one stays). */
void tui__frame(struct tui *t, struct model *m, const struct tui_status *st)
{
	if (!t || !t->screen)
		return;
	if (!t->paused) {
		view__rebuild(&t->v, m);
		status_collect(t, m, st);
	}
	take_note(t);
	draw(t, m);
}

/* The terminal changed size: take the new size and lay out again. */
void tui__resize(struct tui *t, struct model *m, const struct tui_status *st)
{
	(void)st;
	if (!t || !t->screen)
		return;
	sync_size();
	draw(t, m);
}

/* Rows of the table on screen now (a page). */
static long page_rows(const struct tui *t)
{
	int lines, cols, body;

	screen_size(&lines, &cols);
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

/* Handle a sort command; false if cmd is not one. */
static bool cmd_sort(struct tui *t, struct model *m, enum cmd c)
{
	switch (c) {
	case CMD_SORT_NEXT: view__sort_cycle(&t->v, m, 1); return true;
	case CMD_SORT_PREV: view__sort_cycle(&t->v, m, -1); return true;
	case CMD_SORT_RATE: view__sort(&t->v, m, SORT_COW_RATE); return true;
	case CMD_SORT_COW: view__sort(&t->v, m, SORT_COW); return true;
	case CMD_SORT_RSS: view__sort(&t->v, m, SORT_RSS); return true;
	case CMD_SORT_VSZ: view__sort(&t->v, m, SORT_VSZ); return true;
	case CMD_SORT_PID: view__sort(&t->v, m, SORT_PID); return true;
	case CMD_SORT_COMM: view__sort(&t->v, m, SORT_COMM); return true;
	case CMD_REVERSE: view__reverse(&t->v, m); return true;
	default: return false;
	}
}

/* Write one line of text with its trailing blanks trimmed. */
static void put_trimmed(FILE *f, const char *s, size_t n)
{
	while (n > 0 && s[n - 1] == ' ')
		n--;
	fwrite(s, 1, n, f);
	fputc('\n', f);
}

/* Whether p made copies inside any phase. */
static bool in_phases(const struct proc *p)
{
	int i;

	for (i = 1; i < PHASE_MAX; i++)
		if (p->phase_cow[i])
			return true;
	return false;
}

/* The phase split of every row that made copies inside a phase, after a
 * blank line and a title; nothing when none did. */
static void snapshot_phases(struct tui *t, const struct model *m, FILE *f)
{
	bool titled = false;
	size_t k;

	for (k = 0; k < t->v.n; k++) {
		if (!in_phases(t->v.rows[k].p))
			continue;
		line_clear(&t->scratch);
		if (!row_phases(t->v.rows[k].p, m, t->utf8, true, &t->scratch))
			continue;
		if (!titled)
			fputs("\ncopies per phase: share of each process's copies (and their number)\n", f);
		titled = true;
		put_trimmed(f, t->scratch.text, t->scratch.len);
	}
}

/* The view as plain text: header, titles, every row, the phase split; no
 * footer. */
static char *snapshot_text(struct tui *t, const struct model *m, size_t *len)
{
	struct line hdr[HEADER_LINES];
	struct row_layout rl;
	int lines, cols, i;
	char *buf = NULL;
	size_t k;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	screen_size(&lines, &cols);
	header_build(&t->hi, hdr);
	for (i = 0; i < HEADER_LINES; i++)
		put_trimmed(f, hdr[i].text, hdr[i].len);
	table_layout(t, cols, &rl);
	row_titles(&rl, t->v.vo.sort, t->v.vo.reverse, &t->scratch);
	put_trimmed(f, t->scratch.text, t->scratch.len);
	for (k = 0; k < t->v.n; k++) {
		row_format(&t->v.rows[k], &rl, &t->scratch);
		put_trimmed(f, t->scratch.text, t->scratch.len);
	}
	snapshot_phases(t, m, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Write the view to the snapshot file and say where (or why not). */
static void snapshot(struct tui *t, const struct model *m)
{
	char path[4096], err[256];
	size_t len;
	char *text;

	if (t->o.snapshot_path)
		snprintf(path, sizeof(path), "%s", t->o.snapshot_path);
	else
		snapshot__default_path(time(NULL), path, sizeof(path));
	text = snapshot_text(t, m, &len);
	if (!text) {
		say(t, true, "snapshot: cannot write %s: out of memory", path);
		return;
	}
	if (snapshot__write(path, text, len, err, sizeof(err)))
		say(t, true, "snapshot: cannot write %s: %s", path, err);
	else
		say(t, false, "snapshot written to %s (%zu processes)", path, t->v.n);
	free(text);
}

/* Show or hide the probe log; without probes, say how to get some. */
static void log_toggle(struct tui *t, const struct model *m)
{
	if (!model__nprobes(m) && !t->log) {
		say(t, false, "no USDT probes attached: start cowtop with -u PROVIDER:NAME");
		return;
	}
	t->log = !t->log;
}

/* Enter a prompt, its input starting as init. */
static void prompt(struct tui *t, enum mode mode, const char *init)
{
	t->mode = mode;
	snprintf(t->input, sizeof(t->input), "%s", init);
}

/* Pause or resume; resuming shows the present at once. */
static void pause_toggle(struct tui *t, struct model *m, const struct tui_status *st)
{
	t->paused = !t->paused;
	if (t->paused)
		return;
	view__rebuild(&t->v, m);
	status_collect(t, m, st);
}

/* Handle a view command; false if cmd is not one. */
static bool cmd_view(struct tui *t, struct model *m, const struct tui_status *st, enum cmd c)
{
	switch (c) {
	case CMD_FOCUS: view__focus_in(&t->v, m); return true;
	case CMD_BACK: view__focus_out(&t->v, m); return true;
	case CMD_ESCAPE:
		if (t->v.filter[0])
			view__set_filter(&t->v, m, "");
		else
			view__focus_out(&t->v, m);
		return true;
	case CMD_FOLLOW: view__follow_toggle(&t->v); return true;
	case CMD_TREE: view__tree_toggle(&t->v, m); return true;
	case CMD_PAUSE: pause_toggle(t, m, st); return true;
	default: return false;
	}
}

/* A key in the table. */
static enum tui_action key_table(struct tui *t, struct model *m, const struct tui_status *st, int ch)
{
	enum cmd c = keys__lookup(ch);

	if (ch == KEY_RESIZE)
		return TUI_NONE;
	t->msg[0] = '\0';
	if (cmd_move(t, c) || cmd_sort(t, m, c) || cmd_view(t, m, st, c))
		return TUI_NONE;
	switch (c) {
	case CMD_FILTER: prompt(t, MODE_FILTER, t->v.filter); break;
	case CMD_DELAY: prompt(t, MODE_DELAY, ""); break;
	case CMD_SNAPSHOT: snapshot(t, m); break;
	case CMD_LOG: log_toggle(t, m); break;
	case CMD_HELP:
		t->mode = MODE_HELP;
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

	if (!t->input[0])
		return TUI_NONE;
	errno = 0;
	v = strtod(t->input, &end);
	if (errno || end == t->input || *end || !isfinite(v) || v < DELAY_MIN || v > DELAY_MAX) {
		say(t, true, "invalid delay '%s': seconds, from 0.1 to 86400", t->input);
		return TUI_NONE;
	}
	t->delay = v;
	say(t, false, "refresh every %gs", v);
	return TUI_DELAY_CHANGED;
}

/* Edit the prompt's input with key ch; true when ch was an edit. */
static bool prompt_edit(struct tui *t, int ch)
{
	size_t len = strlen(t->input);

	if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (len)
			t->input[len - 1] = '\0';
		return true;
	}
	if (ch == ('u' & 0x1f)) {
		t->input[0] = '\0';
		return true;
	}
	if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof(t->input)) {
		t->input[len] = (char)ch;
		t->input[len + 1] = '\0';
		return true;
	}
	return false;
}

/* A key in a prompt: the filter applies as it is typed. */
static enum tui_action key_prompt(struct tui *t, struct model *m, int ch)
{
	enum mode mode = t->mode;
	bool enter = ch == '\n' || ch == '\r' || ch == KEY_ENTER;

	if (ch == ESC_KEY)
		t->input[0] = '\0';
	else if (!enter && !prompt_edit(t, ch))
		return TUI_NONE;
	if (mode == MODE_FILTER)
		view__set_filter(&t->v, m, t->input);
	if (ch != ESC_KEY && !enter)
		return TUI_NONE;
	t->mode = MODE_TABLE;
	t->msg[0] = '\0';
	return mode == MODE_DELAY && enter ? delay_accept(t) : TUI_NONE;
}

/* A key on the help screen: scroll, or go back to the table. */
static void help_key(struct tui *t, int ch)
{
	switch (keys__lookup(ch)) {
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
			t->mode = MODE_TABLE;
	}
}

/* One key, in whatever mode the view is in. */
static enum tui_action on_key(struct tui *t, struct model *m, const struct tui_status *st, int ch)
{
	switch (t->mode) {
	case MODE_HELP:
		help_key(t, ch);
		return TUI_NONE;
	case MODE_FILTER:
	case MODE_DELAY:
		return key_prompt(t, m, ch);
	default:
		return key_table(t, m, st, ch);
	}
}

/* Read every pending key, act on them, draw once. */
enum tui_action tui__input(struct tui *t, struct model *m, const struct tui_status *st)
{
	enum tui_action act = TUI_NONE, a;
	int ch;

	if (!t || !t->screen)
		return TUI_NONE;
	while ((ch = getch()) != ERR) {
		a = on_key(t, m, st, ch);
		if (a == TUI_QUIT)
			return a;
		if (a != TUI_NONE)
			act = a;
		take_note(t);
	}
	draw(t, m);
	return act;
}
