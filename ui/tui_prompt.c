/* The prompts of the status line: filter, delay, replay's jump; their
 * editing and what Enter and Esc do. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tui_int.h"

/* Enter a prompt, its input starting as init. */
void tui_prompt(struct tui *t, enum mode mode, const char *init)
{
	t->s.mode = mode;
	snprintf(t->s.input, sizeof(t->s.input), "%s", init);
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
		tui_say(t, true, "invalid delay '%s': seconds, from 0.1 to 86400", t->s.input);
		return TUI_NONE;
	}
	t->s.delay = v;
	tui_say(t, false, "refresh every %gs", v);
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

/* A key in the search prompt: the selection jumps to the first match from
 * it as the text is typed, F3 to the next; Enter or Esc leave the
 * selection where it is, and the text for the next F3. */
static enum tui_action search_key(struct tui *t, int ch)
{
	bool next = ch == KEY_F(3);

	if (ch == ESC_KEY || ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		snprintf(t->search, sizeof(t->search), "%s", t->s.input);
		t->s.mode = MODE_TABLE;
		t->s.msg[0] = '\0';
		return TUI_NONE;
	}
	if (!next && !prompt_edit(t, ch))
		return TUI_NONE;
	t->s.search_miss = t->s.input[0] && !view__search(&t->v, t->s.input, next);
	return TUI_NONE;
}

/* A key in a prompt: the filter applies as it is typed. */
enum tui_action tui_key_prompt(struct tui *t, int ch)
{
	enum mode mode = t->s.mode;
	bool enter = ch == '\n' || ch == '\r' || ch == KEY_ENTER;

	if (mode == MODE_SEARCH)
		return search_key(t, ch);
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
