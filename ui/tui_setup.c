/* htop's habits beyond the keys: the columns screen (F2), whose choice is
 * kept in the settings file (settings.c), and the mouse (a click on a row
 * selects it, on a column title sorts by it, the wheel scrolls). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdio.h>
#include <string.h>
#include "settings.h"
#include "fields.h"
#include "terminal.h"
#include "tui_int.h"

#define WHEEL_ROWS 3 /* rows a turn of the wheel moves */

/* The columns the screen lists, left to right. */
static size_t setup_columns(enum field_id *out)
{
	return fields_columns(out);
}

/* Read the settings file at start: the columns hidden; a bad file is one
 * warning on the status line. */
void tui_setup_load(struct tui *t)
{
	struct config c = { 0 };
	char warn[SCREEN_MSG_MAX];

	t->config_ok = config_path(t->config_path, sizeof(t->config_path)) == 0;
	if (!t->config_ok)
		return;
	config_load(t->config_path, &c, warn, sizeof(warn));
	t->v.hidden = c.hidden & ~ROW_HIDE(FIELD_PID);
	if (warn[0])
		tui_say(t, true, "%s", warn);
}

/* Open the columns screen. */
void tui_setup_open(struct tui *t)
{
	t->s.mode = MODE_SETUP;
	t->setup_dirty = false;
	t->s.msg[0] = '\0';
}

/* Leave the columns screen; keep the choice in the settings file when it
 * changed, and say where (or why not). */
static void setup_close(struct tui *t)
{
	struct config c = { .hidden = t->v.hidden };
	char err[512];

	t->s.mode = MODE_TABLE;
	if (!t->setup_dirty)
		return;
	if (!t->config_ok)
		tui_say(t, true, "columns not saved: neither XDG_CONFIG_HOME nor HOME names a directory");
	else if (config_save(t->config_path, &c, err, sizeof(err)))
		tui_say(t, true, "config %s: cannot write it: %s", t->config_path, err);
	else
		tui_say(t, false, "columns saved to %s", t->config_path);
}

/* Show or hide the picked column; PID stays. */
static void setup_toggle(struct tui *t)
{
	enum field_id cols[FIELD_N];
	size_t n = setup_columns(cols);

	if (t->setup_sel >= n)
		return;
	if (cols[t->setup_sel] == FIELD_PID) {
		tui_say(t, false, "PID stays: rows are known by it");
		return;
	}
	t->v.hidden ^= ROW_HIDE(cols[t->setup_sel]);
	t->setup_dirty = true;
	t->s.msg[0] = '\0';
}

/* A key on the columns screen. */
void tui_setup_key(struct tui *t, int ch)
{
	enum field_id cols[FIELD_N];
	size_t n = setup_columns(cols);

	switch (ch) {
	case KEY_UP: case 'k':
		t->setup_sel -= t->setup_sel > 0;
		return;
	case KEY_DOWN: case 'j':
		t->setup_sel += t->setup_sel + 1 < n;
		return;
	case ' ': case '\n': case '\r': case KEY_ENTER:
		setup_toggle(t);
		return;
	case ESC_KEY: case 'q': case KEY_F(2): case KEY_F(10):
		setup_close(t);
		return;
	default:
		return;
	}
}

/* Draw the columns screen in the rows above the status line. */
void tui_setup_draw(struct tui *t, int rows, int cols)
{
	enum field_id ids[FIELD_N];
	size_t n = setup_columns(ids), i;
	int y = 0;

	line_clear(&t->scratch);
	t->scratch.base = ROLE_COLHDR;
	line_add(&t->scratch, ROLE_COLHDR, "Columns: Space shows or hides the one picked; F2 or Esc: back, saved in %s",
		 t->config_ok ? t->config_path : "(no file: HOME is not set)");
	line_pad(&t->scratch, cols);
	if (y < rows)
		terminal_draw_line(t->attr, y++, &t->scratch, cols, false);
	for (i = 0; i < n && y < rows; i++) {
		const struct field *f = &fields[ids[i]];
		char desc[256], *nl;

		snprintf(desc, sizeof(desc), "%s", f->desc ? f->desc : "");
		while ((nl = strchr(desc, '\n')))
			*nl = ' '; /* one line: the screen's width cuts it */
		line_clear(&t->scratch);
		line_add(&t->scratch, ROLE_PLAIN, " [%c] ", t->v.hidden & ROW_HIDE(ids[i]) ? ' ' : 'x');
		line_add(&t->scratch, ROLE_LABEL, "%-7s ", f->title);
		line_add(&t->scratch, ROLE_PLAIN, "%s", desc);
		terminal_draw_line(t->attr, y++, &t->scratch, cols, i == t->setup_sel);
	}
}

/* A click on the titles: sort by that column, again: the other way. */
static void click_title(struct tui *t, int x)
{
	struct row_layout rl;
	int lines, cols, id;

	terminal_size(&lines, &cols);
	view__row_layout(&t->v, cols, &rl);
	id = row_column_at(&rl, x);
	if (id < 0 || !fields[id].sort_name)
		return;
	if ((enum field_id)id == t->v.vo.sort)
		view__reverse(&t->v);
	else
		view__sort(&t->v, (enum field_id)id);
}

/* The mouse: a click on a row selects it, on a column title sorts by it;
 * the wheel moves the selection. */
void tui_mouse(struct tui *t)
{
	MEVENT ev;
	size_t i;

	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON4_PRESSED) {
		view__move(&t->v, -WHEEL_ROWS);
	} else if (ev.bstate & BUTTON5_PRESSED) {
		view__move(&t->v, WHEEL_ROWS);
	} else if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))) {
		return;
	} else if (t->titles_y >= 0 && ev.y == t->titles_y) {
		click_title(t, ev.x);
	} else if (t->rows_y >= 0 && ev.y >= t->rows_y && ev.y < t->rows_y + (int)t->body) {
		i = t->v.top + (size_t)(ev.y - t->rows_y);
		if (i < t->v.n)
			view__move(&t->v, (long)i - (long)t->v.sel);
	}
}
