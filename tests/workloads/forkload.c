// SPDX-License-Identifier: GPL-2.0
/*
 * forkload: a parent that forks short-lived children without pause, as a
 * server's master does under connection churn, for the attach test.
 *
 * Each child appends "born PID" to the report as its first act and
 * "exit PID" as its last, lives --life milliseconds in between, and
 * _exit(0)s. The parent keeps at most --max children alive, forking a new
 * one as soon as one is reaped, until SIGTERM (or SIGINT); then it forks
 * no more, reaps the rest and appends "done FORKED". All lines go to the
 * same O_APPEND file in one write(2) each, so the file's order is the
 * order in which they happened: a line another process appends to it (the
 * test's "attached") falls between the lines written before and after it.
 *
 *   forkload --report FILE [--life MS] [--max N]
 *
 * Prints "ready PID" on stdout once it forks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "wlio.h"

const char wl_prog[] = "forkload";

static const char *report;
static unsigned long life_ms = 20, max_alive = 8;
static volatile sig_atomic_t stop;

static const char usage_text[] =
	"usage: forkload --report FILE [--life MS] [--max N]\n"
	"Fork children that live MS ms (20) each, N (8) at a time, until SIGTERM.\n";

/* Parse one option. */
static void set_opt(int opt, const char *arg, const char *name)
{
	char *end;
	unsigned long v;

	if (opt == 'r') {
		report = arg;
		return;
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || end == arg || v > 100000 || (opt == 'm' && v == 0))
		usage_error(name, "bad number");
	if (opt == 'l')
		life_ms = v;
	else
		max_alive = v;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* Append "WHAT PID" to the report. */
static void report_line(int fd, const char *what, unsigned long v)
{
	struct line l = { .len = 0 };

	line_str(&l, what);
	line_str(&l, " ");
	line_num(&l, v);
	if (line_emit(&l, fd))
		_exit(1);
}

/* A child: say it was born, live, say it exits. */
static void child(int fd)
{
	unsigned long me = (unsigned long)getpid();

	report_line(fd, "born", me);
	sleep_ms(life_ms);
	report_line(fd, "exit", me);
	_exit(0);
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "report", required_argument, NULL, 'r' },
		{ "life", required_argument, NULL, 'l' },
		{ "max", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = on_stop };
	unsigned long alive = 0, forked = 0;
	int fd, status;
	pid_t pid;

	if (parse_options(argc, argv, "h", long_opts, usage_text, set_opt) != argc)
		usage_error("operands", "none taken");
	if (!report)
		usage_error("--report", "missing");
	fd = open(report, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die(report);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!stop) {
		while (alive < max_alive && !stop) {
			pid = fork();
			if (pid < 0)
				die("fork");
			if (pid == 0)
				child(fd);
			alive++;
			forked++;
		}
		/* a signal interrupts the wait: then no more forks */
		if (wait(&status) > 0) {
			alive--;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				say("child failed, status ", (unsigned long)status, NULL, 0);
		}
	}
	while (alive && wait(&status) > 0)
		alive--;
	report_line(fd, "done", forked);
	return 0;
}
