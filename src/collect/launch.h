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
	int out_fd;  /* set before start: the child's stdout and stderr go there
		      * (stdin still to /dev/null when quiet); 0 or -1: none */
	int tty_fd;  /* set before release: a terminal whose foreground cowtop
		     * holds and hands to the command (batch mode), or -1 */
	int foreground; /* the command's group holds tty_fd's foreground now */
};

/* Fork a child that waits at the gate, then runs fn(arg) (which execs, or
 * returns an errno). Returns 0 or -errno. */
int launch__start(struct launch *l, int (*fn)(void *arg), void *arg);
/* Open the gate (handing the terminal's foreground to the child's process
 * group first, with tty_fd); returns 0 when the child exec'd, else the
 * positive errno of the failed exec (the child has exited 127 then). The
 * child runs in a process group of its own: a server that signals its whole
 * group (Apache's prefork does at stop) does not hit cowtop. */
int launch__release(struct launch *l);
/* The exec used by launch__start for a command line. */
int launch_exec_argv(void *argv);
/* Take the terminal's foreground back from the command, if it has it. */
void launch__take_terminal(struct launch *l);
/* Hand the terminal's foreground (tty_fd) to the command again, if cowtop
 * holds it now. */
void launch__give_terminal(struct launch *l);
/* The command stopped with sig: when it holds the terminal and sig is a
 * job-control stop (Ctrl-Z), stop cowtop with it so the shell sees the job
 * stopped; once continued, hand the terminal back and continue it. */
void launch__stopped(struct launch *l, int sig);
/* End the command if it still runs: close an unopened gate (it exits 127
 * without running anything), else SIGTERM to its process group and SIGKILL
 * after grace seconds; reaps it and takes the terminal back. Returns its
 * wait status, or -1 when there was nothing to end. */
int launch__end(struct launch *l, double grace);
/* Close what is still open; the child, if any, is the caller's to reap. */
void launch__free(struct launch *l);

#endif
