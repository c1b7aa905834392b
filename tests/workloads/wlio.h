/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cowtop's test workloads share: report lines built on the stack and
 * written with one write(2), sleeping, waiting on a pipe, reading pagemap.
 * Safe in a forked child: no stdio, no malloc, no global written, so they
 * make no page copies of their own beyond the caller's stack.
 */
#ifndef COWTOP_WLIO_H
#define COWTOP_WLIO_H

#include <stddef.h>
#include <stdint.h>

#define LINE_LEN 512

/* The program's name for messages: each workload defines it. */
extern const char wl_prog[];

/* "PROG: WHAT: MSG (see --help)" on stderr, exit 2. */
void usage_error(const char *what, const char *msg) __attribute__((noreturn));
/* "PROG: WHAT: strerror(errno)" on stderr, exit 1. */
void die(const char *what) __attribute__((noreturn));
/* Parse a number of seconds in [0, 86400] for option opt, or exit 2. */
double parse_seconds(const char *s, const char *opt);
struct option;
/* Run getopt_long over argv: -h prints usage and exits 0; an unknown
 * option or a missing value exits 2; each option goes to set(opt, arg,
 * "--NAME"). Returns the index of the first operand. */
int parse_options(int argc, char **argv, const char *shortopts, const struct option *opts,
		  const char *usage, void (*set)(int opt, const char *arg, const char *name));
/* Print "ready PID" on stdout and wait for SIGUSR1. */
void wait_for_signal(void);

/* A report line being built on the stack. */
struct line {
	char buf[LINE_LEN];
	size_t len;
};

/* Append a string; the line is cut at LINE_LEN - 1 bytes. */
void line_str(struct line *l, const char *s);
/* Append an unsigned decimal number. */
void line_num(struct line *l, unsigned long v);
/* Append " KEY VALUE". */
void line_kv(struct line *l, const char *key, unsigned long v);
/* Write a finished line (a newline is added) to fd in one write(2). */
int line_emit(struct line *l, int fd);

/* "PROG: pid PID: A X[B Y]" on stderr, without stdio (b may be NULL). */
void say(const char *a, unsigned long x, const char *b, unsigned long y);
/* Reap every child of this process, saying how each failed one ended;
 * returns how many failed. */
int reap_children(void);

/* The page size; exits 1 if the system will not say. */
size_t page_size(void);
/* Sleep for ms milliseconds, resuming after signals. */
void sleep_ms(unsigned long ms);
/* Block until the write end of pipe fd[] is closed everywhere. */
void wait_eof(const int fd[2]);
/* The pagemap entry (fd: /proc/self/pagemap) of the page at addr, pages of
 * page bytes; 0 if unavailable. */
uint64_t pm_entry(int fd, const void *addr, unsigned long page);

#endif
