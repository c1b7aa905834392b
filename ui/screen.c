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
#include "signals.h"

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
	return v->f && v->f->grouped; /* its groups may not be summed */
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

/* Append how many more workers fit, in MemAvailable and in the cgroup;
 * "settling" until the mean they come from is settled. */
static void put_headroom(struct line *l, const struct frame_group *g)
{
	line_add(l, ROLE_LABEL, "  headroom ");
	if (g->headroom >= 0 && !g->settled) {
		line_add(l, ROLE_VALUE, "settling");
		return;
	}
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
	if (g->forked || g->reaped) {
		line_add(l, ROLE_LABEL, "  respawns ");
		line_add(l, ROLE_VALUE, "%llu forked %llu exited", g->forked, g->reaped);
	}
	if (g->memcg.psi_known) {
		line_add(l, ROLE_LABEL, "  cgroup pressure ");
		line_add(l, g->memcg.psi.some_avg10 > 0 ? ROLE_WARN : ROLE_VALUE, "some %.1f%%",
			 g->memcg.psi.some_avg10);
	}
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
	if (v->cmdline)
		line_add(l, ROLE_STATUS, "  command lines");
	if (v->bytes)
		line_add(l, ROLE_STATUS, "  bytes");
	if (v->kthreads)
		line_add(l, ROLE_STATUS, "  kernel threads");
	line_add(l, ROLE_PLAIN, "  %zu shown", v->n);
}

/* The signal menu: the signals, the one picked marked, then whom it goes
 * to (the name last: on a narrow screen it is what gets cut). */
static void kill_menu(const struct screen_state *s, struct line *l)
{
	int i;

	line_add(l, ROLE_WARN, "Send");
	for (i = 0; i < SIGNAL_MENU_N; i++) {
		if (i == s->kill_sel)
			line_add(l, ROLE_SEL, " [%s]", signal_menu[i].name);
		else
			line_add(l, ROLE_PLAIN, "  %s ", signal_menu[i].name);
	}
	line_add(l, ROLE_WARN, " to PID %d ", s->kill_pid);
	line_put(l, ROLE_WARN, s->kill_name, strlen(s->kill_name)); /* made safe when taken */
	line_add(l, ROLE_WARN, "?");
}

/* The status line: a prompt, a message, or the view's state. */
void screen_status_line(const struct screen_state *s, const struct view *v, struct line *l)
{
	char safe[SCREEN_MSG_MAX];

	line_clear(l);
	if (s->mode == MODE_KILL) {
		kill_menu(s, l);
	} else if (s->mode == MODE_FILTER) {
		line_add(l, ROLE_STATUS, "Filter: ");
		line_add(l, ROLE_PLAIN, "%s", s->input);
	} else if (s->mode == MODE_SEARCH) {
		line_add(l, ROLE_STATUS, "Search: ");
		line_add(l, ROLE_PLAIN, "%s", s->input);
		if (s->search_miss)
			line_add(l, ROLE_WARN, "  (no match)");
	} else if (s->mode == MODE_JUMP) {
		line_add(l, ROLE_STATUS, "Jump to (HH:MM:SS, +SECONDS, #FRAME): ");
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

#define FOOTER_MAX 32 /* hints in a footer at most */

/* The hint's key as the footer names it: its function key when fkeys. */
static const char *hint_key(const struct keyhint *h, bool fkeys)
{
	return fkeys && h->fkey ? h->fkey : h->key;
}

/* Columns the hints marked in on take, each with a space after. */
static int hints_width(const struct keyhint *h, const bool *on, size_t n, bool fkeys)
{
	int w = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (on[i])
			w += text_width(hint_key(&h[i], fkeys)) + text_width(h[i].what) + 1;
	return w;
}

/* Leave out hints, lowest prio first (the later of equals first), until
 * the rest fit in cols; the highest stays whatever the width. */
static void hints_fit(const struct keyhint *h, bool *on, size_t n, bool fkeys, int cols)
{
	size_t i, low;
	int left = (int)n;

	for (i = 0; i < n; i++)
		left -= !on[i];
	while (left > 1 && hints_width(h, on, n, fkeys) > cols) {
		low = n;
		for (i = 0; i < n; i++)
			if (on[i] && (low == n || h[i].prio <= h[low].prio))
				low = i;
		on[low] = false;
		left--;
	}
}

/* The hints of the mode the screen is in. */
static const struct keyhint *mode_hints(const struct screen_state *s, size_t *n)
{
	static const struct keyhint prompt[] = {
		{ "Enter", "Done", 0, NULL, 1 }, { "Esc", "Cancel", 0, NULL, 2 },
	};
	static const struct keyhint search[] = {
		{ "F3", "Next", 0, NULL, 1 }, { "Enter Esc", "Done", 0, NULL, 2 },
	};
	static const struct keyhint setup[] = {
		{ "Up/Down", "Pick", 0, NULL, 1 }, { "Space", "Show/Hide", 0, NULL, 2 },
		{ "F2 Esc", "Done", 0, NULL, 3 },
	};
	static const struct keyhint help[] = {
		{ "Up/Down", "Scroll", 0, NULL, 1 }, { "other keys", "Back", 0, NULL, 2 },
	};
	static const struct keyhint regions[] = {
		{ "Up/Down", "Process", 0, NULL, 1 }, { "w", "Snapshot", 0, NULL, 1 },
		{ "r Esc", "Back", 0, NULL, 2 },
	};
	static const struct keyhint objects[] = {
		{ "Up/Down", "Process", 0, NULL, 1 }, { "o Esc", "Back", 0, NULL, 2 },
	};
	static const struct keyhint kill[] = {
		{ "Left/Right 1-7", "Pick", 0, NULL, 1 }, { "Enter", "Send", 0, NULL, 2 },
		{ "Esc", "Cancel", 0, NULL, 3 },
	};

	switch (s->mode) {
	case MODE_FILTER:
	case MODE_JUMP:
	case MODE_DELAY: *n = 2; return prompt;
	case MODE_SEARCH: *n = 2; return search;
	case MODE_SETUP: *n = 3; return setup;
	case MODE_HELP: *n = 2; return help;
	case MODE_REGIONS: *n = 3; return regions;
	case MODE_OBJECTS: *n = 2; return objects;
	case MODE_KILL: *n = 3; return kill;
	default: return keys_footer(n);
	}
}

/* The footer: key hints, or what the keys do in a prompt. htop's function
 * keys name the hints that have one when the whole footer fits with them;
 * on a narrow screen the least needed hints go (Quit stays). */
void screen_footer_line(const struct screen_state *s, int nprobes, int cols, struct line *l)
{
	const struct keyhint *h;
	bool on[FOOTER_MAX], fkeys;
	size_t n, i;

	h = mode_hints(s, &n);
	if (n > FOOTER_MAX)
		n = FOOTER_MAX;
	for (i = 0; i < n; i++)
		on[i] = (!(h[i].need & HINT_USDT) || nprobes) && !(h[i].need & ~HINT_USDT & ~s->allow);
	fkeys = hints_width(h, on, n, true) <= cols;
	hints_fit(h, on, n, fkeys, cols);
	line_clear(l);
	for (i = 0; i < n; i++) {
		if (!on[i])
			continue;
		line_add(l, ROLE_KEY, "%s", hint_key(&h[i], fkeys));
		line_add(l, ROLE_KEYDESC, "%s", h[i].what);
		line_add(l, ROLE_PLAIN, " ");
	}
}
