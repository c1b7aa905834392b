/* The lines around the table, built off-screen. */
#include <stdio.h>
#include <string.h>
#include "keys.h"
#include "row.h"
#include "screen.h"
#include "text.h"
#include "tree.h"
#include "header.h"

/* Share the screen's rows out: a body row first, then titles, footer,
 * status, header lines and the phase line (when there are phases), and the
 * rest to the body; the log pane (when shown and there is room) takes the
 * lower part of the body. */
struct areas screen_areas(int lines, bool phases, bool log)
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
	if (log && a.body >= SCREEN_LOG_MIN_BODY) {
		a.log = a.body * 2 / 5 > 2 ? a.body * 2 / 5 : 2;
		a.body -= a.log;
	}
	return a;
}

/* The phase line: how the selected process's copies split between phases. */
void screen_phase_line(const struct view *v, bool utf8, struct line *l)
{
	const struct proc *p = view__selected(v);

	line_clear(l);
	line_add(l, ROLE_LABEL, "phases ");
	if (!p)
		line_add(l, ROLE_PLAIN, "no process selected");
	else if (!row_phases(p, v->f, utf8, false, l))
		line_add(l, ROLE_PLAIN, "pid %d: no copies yet", p->pid);
}

/* The state of the view in a few words: sort, tree, focus, filter, follow. */
static void status_indicators(const struct screen_state *s, const struct view *v, struct line *l)
{
	line_add(l, ROLE_PLAIN, "sort %s%s  %s", sort_key_name(v->vo.sort),
		 v->vo.reverse ? " (reversed)" : "", v->vo.tree ? "tree" : "flat");
	if (v->vo.focus_pid)
		line_add(l, ROLE_STATUS, "  focus PID %d (Bksp: back)", v->vo.focus_pid);
	if (v->filter[0])
		line_add(l, ROLE_STATUS, "  filter \"%s\" (Esc: clear)", v->filter);
	if (v->follow)
		line_add(l, ROLE_STATUS, "  following PID %d", v->follow_pid);
	if (s->paused)
		line_add(l, ROLE_WARN, "  PAUSED");
	if (s->log)
		line_add(l, ROLE_STATUS, "  probe log%s (l: hide)", s->log_hidden ? ": no room" : "");
	line_add(l, ROLE_PLAIN, "  %zu shown", v->n);
}

/* The status line: a prompt, a message, or the view's state. */
void screen_status_line(const struct screen_state *s, const struct view *v, struct line *l)
{
	char safe[SCREEN_MSG_MAX];

	line_clear(l);
	if (s->mode == MODE_FILTER) {
		line_add(l, ROLE_STATUS, "Filter: ");
		line_add(l, ROLE_PLAIN, "%s", s->input);
	} else if (s->mode == MODE_DELAY) {
		line_add(l, ROLE_STATUS, "Change delay from %.1f to: ", s->delay);
		line_add(l, ROLE_PLAIN, "%s", s->input);
	} else if (s->msg[0]) {
		/* messages can quote file names and other outside text */
		if (s->utf8)
			text_sanitize(s->msg, strlen(s->msg), safe, sizeof(safe));
		else
			text_sanitize_ascii(s->msg, strlen(s->msg), safe, sizeof(safe));
		line_put(l, s->msg_warn ? ROLE_WARN : ROLE_STATUS, safe, strlen(safe));
	} else {
		status_indicators(s, v, l);
	}
}

/* The footer: key hints, or what the keys do in a prompt. */
void screen_footer_line(const struct screen_state *s, int nprobes, struct line *l)
{
	static const struct keyhint prompt[] = { { "Enter", "Done", false }, { "Esc", "Cancel", false } };
	static const struct keyhint help[] = {
		{ "Up/Down", "Scroll", false }, { "other keys", "Back", false },
	};
	const struct keyhint *h;
	size_t n, i;

	line_clear(l);
	if (s->mode == MODE_FILTER || s->mode == MODE_DELAY) {
		h = prompt;
		n = 2;
	} else if (s->mode == MODE_HELP) {
		h = help;
		n = 2;
	} else {
		h = keys_footer(&n);
	}
	for (i = 0; i < n; i++) {
		if (h[i].usdt && !nprobes)
			continue;
		line_add(l, ROLE_KEY, "%s", h[i].key);
		line_add(l, ROLE_KEYDESC, "%s", h[i].what);
		line_add(l, ROLE_PLAIN, " ");
	}
}
