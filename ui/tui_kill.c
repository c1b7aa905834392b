/* The signal menu (k): a live process picked, a signal chosen, sent
 * through a pidfd so that it reaches that process or none. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <string.h>
#include "keys.h"
#include "row.h"
#include "tui_int.h"

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
void tui_kill_open(struct tui *t)
{
	const struct proc *p = view__selected(&t->v);
	char name[ROW_LABEL_MAX];

	if (!p) {
		tui_say(t, false, "no process selected");
		return;
	}
	kill_name(p, t->s.utf8, name, sizeof(name));
	if (p->exited) {
		tui_say(t, true, "PID %d %s has exited: no signal to send", p->pid, name);
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
		tui_say(t, true, "cannot send %s to PID %d %s: %s (%s)", c->name, t->s.kill_pid,
		    t->s.kill_name, strerror(-err), signal_errno_name(err));
	else
		tui_say(t, false, "sent %s to PID %d %s", c->name, t->s.kill_pid, t->s.kill_name);
	signal_target__free(&t->kill);
}

/* A key in the signal menu: pick, send, or cancel. */
void tui_kill_key(struct tui *t, int ch)
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
		tui_say(t, false, "no signal sent");
	}
}
