/* The terminal itself: whether it can show the full screen (asked before
 * anything is started), its modes and colours, its size, and drawing one
 * line. <term.h> defines a macro for every terminfo capability (lines,
 * columns, ...): names here steer clear of them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <term.h>
#include <unistd.h>
#include "terminal.h"
#include "tui.h"

/* Largest LINES or COLUMNS taken from the environment: curses allocates
 * the whole screen at once, and fails (late, after the command started)
 * on sizes no terminal has. */
#define SIZE_ENV_MAX 10000

/* 0 when the environment variable name (LINES, COLUMNS) is unset, empty or
 * a size curses can use; else -1 and why in err. */
static int check_size_env(const char *name, char *err, size_t errlen)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return 0;
	n = strtol(v, &end, 10);
	if (*end || end == v || v[0] < '0' || v[0] > '9' || n < 1 || n > SIZE_ENV_MAX) {
		snprintf(err, errlen, "%s=%.20s is not a terminal size (1 to %d): cannot show the "
			 "full-screen view (unset it, or use -b for text)", name, v, SIZE_ENV_MAX);
		return -1;
	}
	return 0;
}

/* Whether the terminfo entry set up by setupterm can address the cursor
 * (TERM=dumb cannot: every frame would come out as one garbled line). */
static bool can_move_cursor(void)
{
	char *cup = tigetstr("cup");

	return cup && cup != (char *)-1;
}

/* 0 when $TERM names a terminal that can move the cursor and LINES and
 * COLUMNS, if set, are sizes; else -1 and why, in one line, in err. */
int tui_check_terminal(char *err, size_t errlen)
{
	const char *term = getenv("TERM");
	int e = 0;
	bool cursor;

	if (!term || !*term) {
		snprintf(err, errlen, "TERM is not set: cannot show the full-screen view (use -b for text)");
		return -1;
	}
	if (check_size_env("LINES", err, errlen) || check_size_env("COLUMNS", err, errlen))
		return -1;
	if (setupterm(term, STDOUT_FILENO, &e) == OK) {
		cursor = can_move_cursor();
		del_curterm(cur_term);
		if (cursor)
			return 0;
		e = 1;
	}
	if (e == 1)
		snprintf(err, errlen, "terminal type '%s' cannot move the cursor: cannot show the full-screen "
			 "view (use -b for text)", term);
	else if (e == -1)
		snprintf(err, errlen, "no terminfo database: cannot show the full-screen view (use -b for text)");
	else
		snprintf(err, errlen, "unknown terminal type '%s': cannot show the full-screen view (use -b for "
			 "text)", term);
	return -1;
}

/* Attributes of each role, with colours when the terminal has them. */
static void pick_attrs(attr_t attr[ROLE_N])
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
		attr[i] = color ? roles[i].extra : roles[i].mono;
		if (!color || (roles[i].fg < 0 && roles[i].bg < 0))
			continue;
		/* without the terminal's own colours, say white on black */
		fg = roles[i].fg < 0 && !defaults ? COLOR_WHITE : roles[i].fg;
		bg = roles[i].bg < 0 && !defaults ? COLOR_BLACK : roles[i].bg;
		if (init_pair((short)(i + 1), fg, bg) == OK)
			attr[i] |= COLOR_PAIR(i + 1);
	}
}

/* Make curses' idea of the screen size the terminal's. Called on SIGWINCH
 * (delivered through the app's signalfd, so curses' own handler never runs). */
void terminal_sync_size(void)
{
	struct winsize ws;

	if ((ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 || ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0) &&
	    ws.ws_row > 0 && ws.ws_col > 0 && (ws.ws_row != LINES || ws.ws_col != COLS))
		resizeterm(ws.ws_row, ws.ws_col);
}

/* Put the terminal in the modes a top-like view needs. */
void terminal_setup(attr_t attr[ROLE_N])
{
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	/* htop's mouse: clicks and the wheel, reported as they happen (no
	 * click timing: a press is a click) */
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	pick_attrs(attr);
	terminal_sync_size(); /* LINES and COLUMNS in the environment may be stale */
}

/* Current screen size. */
void terminal_size(int *rows, int *cols)
{
	getmaxyx(stdscr, *rows, *cols);
	if (*rows < 0)
		*rows = 0;
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
static attr_t span_attr(const attr_t attr[ROLE_N], const struct line *l, enum role role)
{
	if (l->base == ROLE_DIM)
		return (attr[role] & ~A_BOLD) | A_DIM;
	return attr[role];
}

/* Draw l on screen row y (erased before), cut to cols. A selected line is
 * drawn in the selection colour through and through. */
void terminal_draw_line(const attr_t attr[ROLE_N], int y, const struct line *l, int cols, bool sel)
{
	size_t keep = text_fit(l->text, l->len, cols, NULL), pos = 0, end;
	attr_t base = attr[sel ? ROLE_SEL : l->base];
	int i;

	move(y, 0);
	for (i = 0; i < l->nspan && l->span[i].off < keep; i++) {
		const struct span *s = &l->span[i];

		put_text(base, l->text + pos, s->off - pos);
		end = s->off + s->len < keep ? s->off + s->len : keep;
		put_text(sel ? base : span_attr(attr, l, s->role), l->text + s->off, end - s->off);
		pos = end;
	}
	put_text(base, l->text + pos, keep - pos);
	if (sel)
		mvchgat(y, 0, -1, base & ~A_COLOR, (short)PAIR_NUMBER(base), NULL);
	attrset(A_NORMAL);
}
