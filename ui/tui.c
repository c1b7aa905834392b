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

#define FOCUS_DEPTH 32
#define PROMPT_MAX 64
#define MSG_MAX 1024
#define HELP_MAX 64
#define DELAY_MIN 0.1
#define DELAY_MAX 86400.0
#define ESC_KEY 27

enum mode { MODE_TABLE, MODE_HELP, MODE_FILTER, MODE_DELAY };

/* How the screen's rows are shared out. */
struct areas {
	int header, titles, body, status, footer;
};

struct tui {
	struct tui_opts o;
	SCREEN *screen;
	bool utf8;
	double delay;
	attr_t attr[ROLE_N];

	struct view_opts vo;
	int focus[FOCUS_DEPTH]; /* the focus before each Enter */
	int nfocus;
	char filter[PROMPT_MAX];

	/* The rows shown: a private copy, so pausing or a process leaving the
	 * model never leaves a dangling pointer. */
	struct row *rows;
	struct proc *procs;
	size_t n, cap;
	size_t sel, top;

	bool follow;
	int follow_pid;
	unsigned long long follow_start;
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
};

static const enum sort_key sort_cycle[] = {
	SORT_PID, SORT_COW_RATE, SORT_COW, SORT_RSS, SORT_VSZ, SORT_COMM,
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
	};
	bool color = has_colors() && start_color() == OK;
	int i;

	if (color)
		use_default_colors();
	for (i = 0; i < ROLE_N; i++) {
		t->attr[i] = color ? roles[i].extra : roles[i].mono;
		if (color && (roles[i].fg >= 0 || roles[i].bg >= 0) && init_pair((short)(i + 1), roles[i].fg, roles[i].bg) == OK)
			t->attr[i] |= COLOR_PAIR(i + 1);
	}
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
	t->vo = (struct view_opts){ .sort = o->sort, .reverse = o->reverse, .tree = !o->flat };
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C"); /* "1.5" means the same to every reader */
	t->utf8 = !o->ascii && locale_utf8();
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
	free(t->rows);
	free(t->procs);
	free(t->help);
	free(t);
}

/* The refresh interval in seconds. */
double tui__delay(const struct tui *t)
{
	return t->delay;
}

/* Share the screen's rows out: a body row first, then titles, footer,
 * status and header lines, and the rest to the body. */
static struct areas areas_of(int lines)
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
	a.body += left;
	return a;
}

/* Room for n rows in the private copy. */
static int view_reserve(struct tui *t, size_t n)
{
	struct row *r;
	struct proc *p;

	if (n <= t->cap)
		return 0;
	r = realloc(t->rows, n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	t->rows = r;
	p = realloc(t->procs, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->procs = p;
	t->cap = n;
	return 0;
}

/* Index of the row of process (pid, start), or -1. */
static long view_find(const struct tui *t, int pid, unsigned long long start)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->rows[i].p->pid == pid && (!start || t->rows[i].p->start_time == start))
			return (long)i;
	return -1;
}

/* Leave a focus whose process has left the model altogether. */
static void focus_check(struct tui *t, struct model *m)
{
	while (t->vo.focus_pid && !model__find(m, t->vo.focus_pid, 0)) {
		say(t, false, "PID %d has gone: focus left", t->vo.focus_pid);
		t->vo.focus_pid = t->nfocus ? t->focus[--t->nfocus] : 0;
	}
}

/* Keep the selection on the followed process, or stop following it. */
static void follow_update(struct tui *t)
{
	long i;

	if (!t->follow)
		return;
	i = view_find(t, t->follow_pid, t->follow_start);
	if (i >= 0) {
		t->sel = (size_t)i;
		return;
	}
	t->follow = false;
	say(t, false, "PID %d is not in the view any more: follow stopped", t->follow_pid);
}

/* Copy the model's rows for the current view options, filtered. */
static void view_rebuild(struct tui *t, struct model *m)
{
	struct row *rows;
	size_t n, i;

	focus_check(t, m);
	if (model__rows(m, &t->vo, &rows, &n) || view_reserve(t, n)) {
		say(t, true, "out of memory");
		return;
	}
	for (i = 0; i < n; i++) {
		t->procs[i] = *rows[i].p;
		t->rows[i] = rows[i];
		t->rows[i].p = &t->procs[i];
	}
	t->n = rows_filter(t->rows, n, t->filter, t->utf8, t->vo.tree);
	follow_update(t);
	if (t->sel >= t->n)
		t->sel = t->n ? t->n - 1 : 0;
}

/* Copy a string the app owns into a buffer the header can keep. */
static void keep_string(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "?");
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

/* Draw l on screen row y (erased before), cut to cols. A selected line is drawn in the selection colour through and through. */
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
		put_text(sel ? base : t->attr[s->role] | (l->base == ROLE_DIM ? A_DIM : 0),
			 l->text + s->off, end - s->off);
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
	rl->scale = rows_scale(t->rows, t->n, rl->hist);
}

/* Scroll so the selection is on screen. */
static void scroll_to_sel(struct tui *t, int body)
{
	size_t h = body > 0 ? (size_t)body : 1;

	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + h)
		t->top = t->sel - h + 1;
	if (t->top + h > t->n)
		t->top = t->n > h ? t->n - h : 0;
}

/* Draw the column titles and the visible rows from screen row y. */
static void draw_table(struct tui *t, int y, const struct areas *a, int cols)
{
	struct row_layout rl;
	size_t i;
	int k;

	table_layout(t, cols, &rl);
	if (a->titles) {
		row_titles(&rl, t->vo.sort, t->vo.reverse, &t->scratch);
		draw_line(t, y++, &t->scratch, cols, false);
	}
	scroll_to_sel(t, a->body);
	for (k = 0; k < a->body; k++) {
		i = t->top + (size_t)k;
		if (i >= t->n)
			break;
		row_format(&t->rows[i], &rl, &t->scratch);
		draw_line(t, y + k, &t->scratch, cols, i == t->sel);
	}
}

/* The state of the view in a few words: sort, tree, focus, filter, follow. */
static void status_indicators(const struct tui *t, struct line *l)
{
	line_add(l, ROLE_PLAIN, "sort %s%s  %s", sort_key_name(t->vo.sort),
		 t->vo.reverse ? " (reversed)" : "", t->vo.tree ? "tree" : "flat");
	if (t->vo.focus_pid)
		line_add(l, ROLE_STATUS, "  focus PID %d (Bksp: back)", t->vo.focus_pid);
	if (t->filter[0])
		line_add(l, ROLE_STATUS, "  filter \"%s\" (Esc: clear)", t->filter);
	if (t->follow)
		line_add(l, ROLE_STATUS, "  following PID %d", t->follow_pid);
	if (t->paused)
		line_add(l, ROLE_WARN, "  PAUSED");
	line_add(l, ROLE_PLAIN, "  %zu shown", t->n);
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
	static const struct keyhint prompt[] = { { "Enter", "Done" }, { "Esc", "Cancel" } };
	static const struct keyhint help[] = { { "Up/Down", "Scroll" }, { "other keys", "Back" } };
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
static void draw(struct tui *t)
{
	int lines, cols, y = 0, i;
	struct areas a;

	screen_size(&lines, &cols);
	a = areas_of(lines);
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
		draw_table(t, y, &a, cols);
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
		view_rebuild(t, m);
		status_collect(t, m, st);
	}
	draw(t);
}

/* The terminal changed size: take the new size and lay out again. */
void tui__resize(struct tui *t, struct model *m, const struct tui_status *st)
{
	struct winsize ws;

	(void)m;
	(void)st;
	if (!t || !t->screen)
		return;
	if ((ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 || ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0) &&
	    ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	draw(t);
}

/* Rows of the table on screen now (a page). */
static long page_rows(void)
{
	int lines, cols;

	screen_size(&lines, &cols);
	return areas_of(lines).body > 1 ? areas_of(lines).body - 1 : 1;
}

/* Move the selection by d rows, within the view. Moving by hand stops
 * following, as in htop. */
static void move_sel(struct tui *t, long d)
{
	long s = (long)t->sel + d;

	if (s >= (long)t->n)
		s = (long)t->n - 1;
	if (s < 0)
		s = 0;
	t->sel = (size_t)s;
	t->follow = false;
}

/* Handle a selection move; false if cmd is not one. */
static bool cmd_move(struct tui *t, enum cmd c)
{
	switch (c) {
	case CMD_UP: move_sel(t, -1); return true;
	case CMD_DOWN: move_sel(t, 1); return true;
	case CMD_PGUP: move_sel(t, -page_rows()); return true;
	case CMD_PGDN: move_sel(t, page_rows()); return true;
	case CMD_HOME: move_sel(t, -(long)t->sel); return true;
	case CMD_END: move_sel(t, (long)t->n); return true;
	default: return false;
	}
}

/* The selected process's name, safe to show. */
static const char *sel_name(const struct tui *t, char *buf, size_t cap)
{
	if (!t->n)
		return "";
	row_name(t->rows[t->sel].p, t->utf8, buf, cap);
	return buf;
}

/* Show only the selected process and its descendants. */
static void focus_in(struct tui *t, struct model *m)
{
	char name[ROW_NAME_MAX];
	int pid;

	if (!t->n)
		return;
	pid = t->rows[t->sel].p->pid;
	if (pid == t->vo.focus_pid && t->sel == 0)
		return;
	if (t->nfocus == FOCUS_DEPTH) {
		memmove(t->focus, t->focus + 1, (FOCUS_DEPTH - 1) * sizeof(*t->focus));
		t->nfocus--;
	}
	t->focus[t->nfocus++] = t->vo.focus_pid;
	t->vo.focus_pid = pid;
	t->sel = t->top = 0;
	say(t, false, "focus on PID %d %s: Backspace goes back", pid, sel_name(t, name, sizeof(name)));
	view_rebuild(t, m);
}

/* Go back to the view before the last focus, selecting what was focused. */
static void focus_out(struct tui *t, struct model *m)
{
	int was = t->vo.focus_pid;
	long i;

	if (!was) {
		say(t, false, "showing everything already");
		return;
	}
	t->vo.focus_pid = t->nfocus ? t->focus[--t->nfocus] : 0;
	view_rebuild(t, m);
	i = view_find(t, was, 0);
	if (i >= 0 && !t->follow)
		t->sel = (size_t)i;
}

/* Start or stop following the selected process. */
static void follow_toggle(struct tui *t)
{
	char name[ROW_NAME_MAX];

	if (t->follow) {
		t->follow = false;
		say(t, false, "follow stopped");
		return;
	}
	if (!t->n)
		return;
	t->follow = true;
	t->follow_pid = t->rows[t->sel].p->pid;
	t->follow_start = t->rows[t->sel].p->start_time;
	say(t, false, "following PID %d %s", t->follow_pid, sel_name(t, name, sizeof(name)));
}

/* Sort by k, in its natural direction. */
static void set_sort(struct tui *t, struct model *m, enum sort_key k)
{
	t->vo.sort = k;
	t->vo.reverse = false;
	view_rebuild(t, m);
}

/* Sort by the column dir steps right (or left) of the current one. */
static void cycle_sort(struct tui *t, struct model *m, int dir)
{
	int n = (int)(sizeof(sort_cycle) / sizeof(*sort_cycle)), i;

	for (i = 0; i < n && sort_cycle[i] != t->vo.sort; i++)
		;
	set_sort(t, m, sort_cycle[((i < n ? i : 0) + dir + n) % n]);
}

/* Handle a sort command; false if cmd is not one. */
static bool cmd_sort(struct tui *t, struct model *m, enum cmd c)
{
	switch (c) {
	case CMD_SORT_NEXT: cycle_sort(t, m, 1); return true;
	case CMD_SORT_PREV: cycle_sort(t, m, -1); return true;
	case CMD_SORT_RATE: set_sort(t, m, SORT_COW_RATE); return true;
	case CMD_SORT_COW: set_sort(t, m, SORT_COW); return true;
	case CMD_SORT_RSS: set_sort(t, m, SORT_RSS); return true;
	case CMD_SORT_VSZ: set_sort(t, m, SORT_VSZ); return true;
	case CMD_SORT_PID: set_sort(t, m, SORT_PID); return true;
	case CMD_SORT_COMM: set_sort(t, m, SORT_COMM); return true;
	case CMD_REVERSE:
		t->vo.reverse = !t->vo.reverse;
		view_rebuild(t, m);
		return true;
	default:
		return false;
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

/* The view as plain text: header, titles, every row; no footer. */
static char *snapshot_text(struct tui *t, size_t *len)
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
	row_titles(&rl, t->vo.sort, t->vo.reverse, &t->scratch);
	put_trimmed(f, t->scratch.text, t->scratch.len);
	for (k = 0; k < t->n; k++) {
		row_format(&t->rows[k], &rl, &t->scratch);
		put_trimmed(f, t->scratch.text, t->scratch.len);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Write the view to the snapshot file and say where (or why not). */
static void snapshot(struct tui *t)
{
	char path[4096], err[256];
	size_t len;
	char *text;

	if (t->o.snapshot_path)
		snprintf(path, sizeof(path), "%s", t->o.snapshot_path);
	else
		snapshot__default_path(time(NULL), path, sizeof(path));
	text = snapshot_text(t, &len);
	if (!text) {
		say(t, true, "snapshot: cannot write %s: out of memory", path);
		return;
	}
	if (snapshot__write(path, text, len, err, sizeof(err)))
		say(t, true, "snapshot: cannot write %s: %s", path, err);
	else
		say(t, false, "snapshot written to %s (%zu processes)", path, t->n);
	free(text);
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
	view_rebuild(t, m);
	status_collect(t, m, st);
}

/* Handle a view command; false if cmd is not one. */
static bool cmd_view(struct tui *t, struct model *m, const struct tui_status *st, enum cmd c)
{
	switch (c) {
	case CMD_FOCUS: focus_in(t, m); return true;
	case CMD_BACK: focus_out(t, m); return true;
	case CMD_ESCAPE:
		if (!t->filter[0]) {
			focus_out(t, m);
			return true;
		}
		t->filter[0] = '\0';
		view_rebuild(t, m);
		return true;
	case CMD_FOLLOW: follow_toggle(t); return true;
	case CMD_TREE:
		t->vo.tree = !t->vo.tree;
		view_rebuild(t, m);
		return true;
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
	case CMD_FILTER: prompt(t, MODE_FILTER, t->filter); break;
	case CMD_DELAY: prompt(t, MODE_DELAY, ""); break;
	case CMD_SNAPSHOT: snapshot(t); break;
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
	if (mode == MODE_FILTER) {
		snprintf(t->filter, sizeof(t->filter), "%s", t->input);
		view_rebuild(t, m);
	}
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
		t->help_top = t->help_top > (size_t)page_rows() ? t->help_top - (size_t)page_rows() : 0;
		break;
	case CMD_PGDN:
		t->help_top += (size_t)page_rows();
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
	}
	draw(t);
	return act;
}
