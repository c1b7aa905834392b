/* The lines around the table, built off-screen. */
#include <stdio.h>
#include <string.h>
#include "fmt.h"
#include "keys.h"
#include "row.h"
#include "screen.h"
#include "text.h"
#include "tree.h"
#include "header.h"

/* Share the screen's rows out: a body row first, then titles, footer,
 * status, header lines, the group line (when there are groups) and the
 * phase line (when there are phases), and the rest to the body; the log
 * pane (when shown and there is room) takes the lower part of the body. */
struct areas screen_areas(int lines, bool group, bool phases, bool log)
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
	a.group = group && left > 0;
	left -= a.group;
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
	char name[ROW_NAME_MAX];

	line_clear(l);
	line_add(l, ROLE_LABEL, "phases ");
	if (!p) {
		line_add(l, ROLE_PLAIN, "no process selected");
	} else if (!row_phases(p, v->f, utf8, false, l)) {
		/* Named as once it has copies, not by pid alone. */
		row_name(p, utf8, name, sizeof(name));
		line_add(l, ROLE_PLAIN, "pid %d %s: no copies yet", p->pid, name);
	}
}

/* Whether the screen has a group line: when some watched root has workers. */
bool screen_has_group(const struct view *v)
{
	return v->f && v->f->ngroups > 0;
}

/* Append a size from smaps, "-" when nothing was read. */
static void put_kib(struct line *l, const char *label, bool known, unsigned long long kib)
{
	char buf[32] = "-";

	if (known)
		fmt_kib(kib, buf, sizeof(buf));
	line_add(l, ROLE_LABEL, "%s", label);
	line_add(l, ROLE_VALUE, "%s", buf);
}

/* Append how many more workers fit, in MemAvailable and in the cgroup. */
static void put_headroom(struct line *l, const struct frame_group *g)
{
	line_add(l, ROLE_LABEL, "  headroom ");
	if (g->headroom >= 0)
		line_add(l, ROLE_VALUE, "+%lld workers", g->headroom);
	else
		line_add(l, ROLE_VALUE, "-");
	if (g->headroom_cgroup >= 0)
		line_add(l, ROLE_VALUE, " (+%lld in cgroup)", g->headroom_cgroup);
}

/* The name of the process (pid, start) in f, made safe; "?" if not held. */
static void put_name(struct line *l, const struct frame *f, int pid, unsigned long long start, bool utf8)
{
	char name[ROW_NAME_MAX];
	size_t i;

	for (i = 0; i < f->nprocs; i++)
		if (f->procs[i].pid == pid && f->procs[i].start_time == start)
			break;
	if (i == f->nprocs) {
		line_add(l, ROLE_PLAIN, "?");
		return;
	}
	row_name(&f->procs[i], utf8, name, sizeof(name));
	line_put(l, ROLE_PLAIN, name, strlen(name));
}

/* One group of frame f as a line: footprint, worker USS, headroom, and the
 * age of its oldest reading. */
void screen_group_text(const struct frame *f, const struct frame_group *g, bool utf8, struct line *l)
{
	line_add(l, ROLE_LABEL, "group ");
	line_add(l, ROLE_VALUE, "%d ", g->root_pid);
	put_name(l, f, g->root_pid, g->root_start, utf8);
	if (!g->workers) {
		line_add(l, ROLE_PLAIN, ": no workers");
		return;
	}
	line_add(l, ROLE_PLAIN, ": %zu worker%s", g->workers, g->workers == 1 ? "" : "s");
	put_kib(l, "  footprint ", g->smaps_age >= 0, g->pss_kib);
	put_kib(l, "  USS mean ", g->workers_read, g->worker_uss_mean_kib);
	put_kib(l, " max ", g->workers_read, g->worker_uss_max_kib);
	put_headroom(l, g);
	if (g->smaps_age >= 0)
		line_add(l, ROLE_LABEL, "  oldest reading %.1fs", g->smaps_age);
	if (g->unread)
		line_add(l, ROLE_WARN, "  %zu unread", g->unread);
}

/* The group line: the focused subtree, or the group of the selection's
 * watched root. */
void screen_group_line(const struct view *v, bool utf8, struct line *l)
{
	const struct proc *sel = view__selected(v);
	struct frame_group g;

	line_clear(l);
	if (!v->f || frame_group_of(v->f, v->vo.focus_pid, v->vo.focus_pid ? NULL : sel, &g)) {
		line_add(l, ROLE_LABEL, "group ");
		line_add(l, ROLE_PLAIN, "none shown");
		return;
	}
	screen_group_text(v->f, &g, utf8, l);
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
	static const struct keyhint regions[] = {
		{ "Up/Down", "Process", false }, { "w", "Snapshot", false }, { "r Esc", "Back", false },
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
	} else if (s->mode == MODE_REGIONS) {
		h = regions;
		n = 3;
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
