// SPDX-License-Identifier: GPL-2.0
/* What cowtop's test workloads share (see wlio.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "wlio.h"

void usage_error(const char *what, const char *msg)
{
	fprintf(stderr, "%s: %s: %s (see --help)\n", wl_prog, what, msg);
	exit(2);
}

void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", wl_prog, what, strerror(errno));
	exit(1);
}

double parse_seconds(const char *s, const char *opt)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !(v >= 0) || v > 86400)
		usage_error(opt, "bad number of seconds");
	return v;
}

void line_str(struct line *l, const char *s)
{
	while (*s && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = *s++;
}

void line_num(struct line *l, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = tmp[--n];
}

void line_kv(struct line *l, const char *key, unsigned long v)
{
	line_str(l, " ");
	line_str(l, key);
	line_str(l, " ");
	line_num(l, v);
}

int line_emit(struct line *l, int fd)
{
	ssize_t n;

	l->buf[l->len++] = '\n';
	do
		n = write(fd, l->buf, l->len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)l->len ? 0 : -1;
}

void say(const char *a, unsigned long x, const char *b, unsigned long y)
{
	struct line l = { .len = 0 };

	line_str(&l, wl_prog);
	line_str(&l, ": pid ");
	line_num(&l, (unsigned long)getpid());
	line_str(&l, ": ");
	line_str(&l, a);
	line_num(&l, x);
	if (b) {
		line_str(&l, b);
		line_num(&l, y);
	}
	line_emit(&l, STDERR_FILENO);
}

int reap_children(void)
{
	int status, failed = 0;
	pid_t pid;

	for (;;) {
		pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (WIFEXITED(status))
			say("child ", (unsigned long)pid, " exited with status ",
			    (unsigned long)WEXITSTATUS(status));
		else
			say("child ", (unsigned long)pid, " killed by signal ",
			    (unsigned long)WTERMSIG(status));
		failed++;
	}
	return failed;
}

size_t page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	if (page <= 0)
		die("sysconf(_SC_PAGESIZE)");
	return (size_t)page;
}

void sleep_ms(unsigned long ms)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ms / 1000),
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void wait_eof(const int fd[2])
{
	char c;
	ssize_t n;

	do
		n = read(fd[0], &c, 1);
	while (n > 0 || (n < 0 && errno == EINTR));
}

uint64_t pm_entry(int fd, const void *addr, unsigned long page)
{
	uint64_t e = 0;
	off_t off = (off_t)((uintptr_t)addr / page * sizeof(e));

	if (pread(fd, &e, sizeof(e), off) != (ssize_t)sizeof(e))
		return 0;
	return e;
}

int parse_options(int argc, char **argv, const char *shortopts, const struct option *opts,
		  const char *usage, void (*set)(int opt, const char *arg, const char *name))
{
	char name[32];
	int opt, idx;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, opts, &idx)) != -1) {
		if (opt == 'h') {
			fputs(usage, stdout);
			exit(0);
		}
		if (opt == '?')
			usage_error(argv[optind - 1], "unknown option or missing argument");
		snprintf(name, sizeof(name), "--%s", opts[idx].name);
		set(opt, optarg, name);
	}
	return optind;
}

void wait_for_signal(void)
{
	sigset_t set, old;
	struct line l = { .len = 0 };
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0)
		die("sigprocmask");
	line_str(&l, "ready ");
	line_num(&l, (unsigned long)getpid());
	if (line_emit(&l, STDOUT_FILENO) < 0)
		die("stdout");
	while (sigwait(&set, &sig))
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
}
