/* Starting a command under tracing: the child waits on a gate until the
 * probes are attached and it is watched, then execs. */
#ifndef COWTOP_LAUNCH_H
#define COWTOP_LAUNCH_H

#include <sys/types.h>

struct launch {
	pid_t pid;
	int gate_fd; /* write end: a byte lets the child go; closing it unopened
		     * makes the child exit 127 without running anything */
	int err_fd;  /* read end: the child's exec errno, EOF on success */
	int quiet;   /* set before start: the child's stdio goes to /dev/null */
};

/* Fork a child that waits at the gate, then runs fn(arg) (which execs, or
 * returns an errno). Returns 0 or -errno. */
int launch__start(struct launch *l, int (*fn)(void *arg), void *arg);
/* Open the gate; returns 0 when the child exec'd, else the positive errno of
 * the failed exec (the child has exited 127 then). */
int launch__release(struct launch *l);
/* The exec used by launch__start for a command line. */
int launch_exec_argv(void *argv);
/* Close what is still open; the child, if any, is the caller's to reap. */
void launch__free(struct launch *l);

#endif
