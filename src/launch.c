/* Starting a command behind a gate. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
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

/* In the child: restore what cowtop changed for itself, wait at the gate,
 * then run fn; report its errno through err_w and die like a shell would. */
static void child_main(int gate_r, int err_w, int quiet, int (*fn)(void *), void *arg)
{
	sigset_t none;
	ssize_t n;
	char c;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	do
		n = read(gate_r, &c, 1);
	while (n < 0 && errno == EINTR);
	close(gate_r);
	/* The gate closed without opening: cowtop died or gave up before it
	 * was watching. Running the command unwatched would be a surprise. */
	if (n != 1)
		_exit(127);
	if (quiet)
		silence_stdio();
	e = fn(arg);
	if (write(err_w, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Fork the gated child (see launch.h). */
int launch__start(struct launch *l, int (*fn)(void *arg), void *arg)
{
	int gate[2], err[2];

	l->pid = -1;
	l->gate_fd = l->err_fd = -1;
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
		child_main(gate[0], err[1], l->quiet, fn, arg);
	}
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

/* Close what is still open; the child, if any, is the caller's to reap. */
void launch__free(struct launch *l)
{
	if (l->gate_fd >= 0)
		close(l->gate_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->gate_fd = l->err_fd = -1;
}
