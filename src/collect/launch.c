/* Starting a command behind a gate. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "launch.h"

/* execvp argv (a char **); returns errno when it fails. */
int launch_exec_argv(void *argv)
{
	char **av = argv;

	execvp(av[0], av);
	return errno;
}

/* Point stdin, stdout and stderr at /dev/null (the screen is cowtop's). */
static void silence_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
}

/* Point stdout and stderr at out_fd (stdin at /dev/null when quiet), else
 * all three at /dev/null when quiet. */
static void redirect_stdio(int out_fd, int quiet)
{
	int fd;

	if (out_fd <= 0) {
		if (quiet)
			silence_stdio();
		return;
	}
	fd = quiet ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	dup2(out_fd, 1);
	dup2(out_fd, 2);
}

/* In the child: restore what cowtop changed for itself, wait at the gate,
 * then run fn; report its errno through err_w and die like a shell would. */
static void child_main(pid_t parent, int gate_r, int err_w, const struct launch *l,
		       int (*fn)(void *), void *arg)
{
	sigset_t none;
	ssize_t n;
	char c;
	int e;

	setpgid(0, 0); /* a group of its own (the parent does the same: no race) */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* A job of its own, as a shell starts one: job control as by default
	 * (curses' terminal set-up leaves SIGTTIN and SIGTTOU ignored, and a
	 * command reading the terminal from the background would then get
	 * EIO instead of being stopped). */
	signal(SIGTTIN, SIG_DFL);
	signal(SIGTTOU, SIG_DFL);
	signal(SIGTSTP, SIG_DFL);
	do
		n = read(gate_r, &c, 1);
	while (n < 0 && errno == EINTR);
	close(gate_r);
	/* The gate closed without opening: cowtop died or gave up before it
	 * was watching. Running the command unwatched would be a surprise. */
	if (n != 1)
		_exit(127);
	/* Should cowtop die without ending it (SIGKILL, a crash), the command
	 * is ended too rather than left running unwatched. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	redirect_stdio(l->out_fd, l->quiet);
	e = fn(arg);
	if (write(err_w, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Fork the gated child (see launch.h). */
int launch__start(struct launch *l, int (*fn)(void *arg), void *arg)
{
	int gate[2], err[2];
	pid_t parent = getpid();

	l->pid = -1;
	l->gate_fd = l->err_fd = -1;
	l->foreground = 0;
	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		int e = errno;

		close(gate[0]);
		close(gate[1]);
		return -e;
	}
	l->pid = fork();
	if (l->pid < 0) {
		int e = errno;

		close(gate[0]); close(gate[1]); close(err[0]); close(err[1]);
		return -e;
	}
	if (l->pid == 0) {
		close(gate[1]);
		close(err[0]);
		child_main(parent, gate[0], err[1], l, fn, arg);
	}
	setpgid(l->pid, l->pid);
	close(gate[0]);
	close(err[1]);
	l->gate_fd = gate[1];
	l->err_fd = err[0];
	return 0;
}

/* Let the child go and learn whether its exec worked. */
int launch__release(struct launch *l)
{
	ssize_t n;
	int e = 0;

	launch__give_terminal(l);
	if (write(l->gate_fd, "g", 1) < 0)
		return errno;
	close(l->gate_fd);
	l->gate_fd = -1;
	do
		n = read(l->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	return n == sizeof(e) ? (e ? e : ENOEXEC) : 0;
}

/* Set the foreground process group of tty_fd to pgrp. SIGTTOU is blocked
 * for good: from the background, tcsetpgrp would stop cowtop with it, and
 * so would writing batch frames to a terminal set to "tostop". */
static int set_foreground(int fd, pid_t pgrp)
{
	sigset_t ttou;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, NULL);
	return tcsetpgrp(fd, pgrp);
}

/* Take the terminal's foreground back; see launch.h. */
void launch__take_terminal(struct launch *l)
{
	if (!l->foreground)
		return;
	set_foreground(l->tty_fd, getpgrp());
	l->foreground = 0;
}

/* Hand the terminal's foreground to the command; see launch.h. */
void launch__give_terminal(struct launch *l)
{
	if (l->tty_fd < 0 || l->pid <= 0 || l->foreground || tcgetpgrp(l->tty_fd) != getpgrp())
		return;
	if (set_foreground(l->tty_fd, l->pid) == 0)
		l->foreground = 1;
}

/* The command stopped; see launch.h. */
void launch__stopped(struct launch *l, int sig)
{
	if (!l->foreground || (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU))
		return;
	launch__take_terminal(l);
	raise(SIGTSTP); /* stops here until the shell continues the job */
	launch__give_terminal(l); /* only when continued in the foreground */
	kill(-l->pid, SIGCONT);
}

/* Wait up to seconds for pid to end; its wait status, or -1 when it still runs. */
static int wait_for(pid_t pid, double seconds)
{
	struct timespec step = { 0, 10 * 1000 * 1000 };
	int status, i, n = (int)(seconds * 100);

	for (i = 0; i <= n; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return 0; /* reaped elsewhere already */
		nanosleep(&step, NULL);
	}
	return -1;
}

/* Signal the command's process group, and the command itself should it
 * have left the group. */
static void signal_command(pid_t pid, int sig)
{
	kill(-pid, sig);
	kill(pid, sig);
	if (sig == SIGTERM)
		kill(-pid, SIGCONT); /* a stopped process acts on it only once continued */
}

/* End the command if it still runs; see launch.h. */
int launch__end(struct launch *l, double grace)
{
	int status;

	if (l->pid <= 0)
		return -1;
	if (l->gate_fd >= 0) {
		close(l->gate_fd); /* unopened: it exits 127 at once */
		l->gate_fd = -1;
		status = wait_for(l->pid, grace);
	} else {
		signal_command(l->pid, SIGTERM);
		status = wait_for(l->pid, grace);
	}
	if (status < 0) {
		signal_command(l->pid, SIGKILL);
		while (waitpid(l->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	launch__take_terminal(l);
	return status;
}

/* Close what is still open; the child, if any, is the caller's to reap. */
void launch__free(struct launch *l)
{
	if (l->gate_fd >= 0)
		close(l->gate_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->gate_fd = l->err_fd = -1;
}
