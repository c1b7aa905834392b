/* Sending a signal to the process picked in the kill menu. The process is
 * pinned with a pidfd when the menu opens, so that a pid reused while the
 * menu is shown never gets the signal meant for the process that had it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "signals.h"

const struct signal_choice signal_menu[SIGNAL_MENU_N] = {
	{ SIGTERM, "TERM" }, { SIGKILL, "KILL" }, { SIGHUP, "HUP" }, { SIGINT, "INT" },
	{ SIGQUIT, "QUIT" }, { SIGUSR1, "USR1" }, { SIGUSR2, "USR2" },
};

/* Pin process pid as the menu's target (a pidfd when the kernel has them). */
void signal_target__open(struct signal_target *t, int pid)
{
	t->pid = pid;
	t->pidfd = -1;
#ifdef SYS_pidfd_open
	if (pid > 0)
		t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (t->pidfd < 0 && errno == ESRCH)
		t->pidfd = -2; /* gone already: sending says so */
#endif
}

/* Let the target go; fine on one never opened (pidfd < 0). */
void signal_target__free(struct signal_target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
	t->pid = 0;
}

/* Send sig to the target. Returns 0 or -errno (-ESRCH: it has gone,
 * -EPERM: not ours to signal). */
int signal_send(const struct signal_target *t, int sig)
{
	if (t->pid <= 0 || t->pidfd == -2)
		return -ESRCH;
#ifdef SYS_pidfd_send_signal
	if (t->pidfd >= 0)
		return syscall(SYS_pidfd_send_signal, t->pidfd, sig, NULL, 0) ? -errno : 0;
#endif
	return kill(t->pid, sig) ? -errno : 0;
}

/* The symbolic name of the errors a send can meet. */
const char *signal_errno_name(int err)
{
	switch (err < 0 ? -err : err) {
	case ESRCH: return "ESRCH";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	default: return "error";
	}
}
