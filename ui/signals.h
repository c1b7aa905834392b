/* The signals the kill menu (k, F9) offers, as htop does, and sending one
 * to a process picked on screen. */
#ifndef COWTOP_UI_SIGNALS_H
#define COWTOP_UI_SIGNALS_H

#include <stddef.h>

struct signal_choice {
	int sig;
	const char *name; /* without "SIG" */
};

#define SIGNAL_MENU_N 7
extern const struct signal_choice signal_menu[SIGNAL_MENU_N];

/* A process to signal, pinned when it was picked. */
struct signal_target {
	int pid;
	int pidfd; /* -1: none (pidfds unsupported); -2: the process had gone. A
	              target starts with -1, never 0 (that would close stdin) */
};

void signal_target__open(struct signal_target *t, int pid);
void signal_target__free(struct signal_target *t);
int signal_send(const struct signal_target *t, int sig);
const char *signal_errno_name(int err);

#endif
