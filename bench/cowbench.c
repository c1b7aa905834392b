// SPDX-License-Identifier: GPL-2.0
/*
 * cowbench: a page-fault workload that times only its faulting phase.
 *
 * Mode "cow" (default): map N private anonymous pages and write them all
 * (set-up, not timed), then R times: fork a child that writes one byte into
 * each of the N pages, so that every write is a copy-on-write fault that
 * copies one page. The child times its own write loop with CLOCK_MONOTONIC
 * and sends the figure to the parent through a pipe; the parent adds them up.
 *
 * Mode "fault": R times: map N fresh private anonymous pages, write one byte
 * into each (every write is a fault that allocates a zeroed page, no copy)
 * and unmap them. Only the write loops are timed.
 *
 * The result is written as "key value" lines to stdout or to --out FILE:
 *
 *   mode cow
 *   pages 16384
 *   rounds 8
 *   pid 1234            this process
 *   children 1235 1236  the children forked in mode cow, in order
 *   ns 98765432         sum of the timed write loops (the figure to compare)
 *   wall_ns 123456789   whole measured phase, fork, exit and wait included
 *   minflt 131072       minor faults of the timed work (kernel's own count)
 *
 * With --wait-signal the process prints its pid on stderr and waits for
 * SIGUSR1 after the set-up, before the measured phase, so that a tracer can
 * be attached to it in between.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum bench_mode {
	MODE_COW,
	MODE_FAULT,
};

struct bench_opts {
	enum bench_mode mode;
	long pages;
	long rounds;
	const char *out;
	int wait_signal;
};

struct bench_result {
	uint64_t ns;
	uint64_t wall_ns;
	long minflt;
	pid_t *children;
	long nchildren;
};

static long page_size;

/* Print a message with the errno text and exit with status 1. */
static void die(const char *what)
{
	fprintf(stderr, "cowbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Read CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Print the usage text to @f. */
static void usage(FILE *f)
{
	fprintf(f,
		"usage: cowbench [--mode cow|fault] [--pages N] [--rounds R]\n"
		"                [--out FILE] [--wait-signal]\n"
		"  --mode cow     fork R children, each writes N shared pages (default)\n"
		"  --mode fault   R times: mmap N fresh pages, write each, munmap\n"
		"  --pages N      pages per round (default 16384)\n"
		"  --rounds R     rounds (default 8)\n"
		"  --out FILE     write the result there instead of stdout\n"
		"  --wait-signal  after set-up, wait for SIGUSR1 before measuring\n");
}

/* Parse a positive integer option value or exit. */
static long parse_count(const char *name, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "cowbench: bad value for --%s: %s\n", name, s);
		exit(2);
	}
	return v;
}

/* Fill @o from the command line. */
static void parse_args(int argc, char **argv, struct bench_opts *o)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "pages", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		{ "wait-signal", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->mode = MODE_COW;
	o->pages = 16384;
	o->rounds = 8;
	o->out = NULL;
	o->wait_signal = 0;

	while ((c = getopt_long(argc, argv, "m:n:r:o:wh", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "cow")) {
				o->mode = MODE_COW;
			} else if (!strcmp(optarg, "fault")) {
				o->mode = MODE_FAULT;
			} else {
				fprintf(stderr, "cowbench: unknown mode: %s\n", optarg);
				exit(2);
			}
			break;
		case 'n':
			o->pages = parse_count("pages", optarg);
			break;
		case 'r':
			o->rounds = parse_count("rounds", optarg);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'w':
			o->wait_signal = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		usage(stderr);
		exit(2);
	}
}

/* Map @pages private anonymous pages, kept out of transparent huge pages. */
static char *map_pages(long pages)
{
	size_t len = (size_t)pages * page_size;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	/* one fault per base page, whatever the THP setting */
	if (madvise(p, len, MADV_NOHUGEPAGE) && errno != EINVAL)
		die("madvise");
	return p;
}

/* Write one byte into each of @pages pages at @p; return the time it took. */
static uint64_t touch_pages(char *p, long pages, char val)
{
	volatile char *q = p;
	uint64_t t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < pages; i++)
		q[i * page_size] = val;
	t1 = now_ns();
	return t1 - t0;
}

/* Block SIGUSR1, tell the user our pid, and wait for it. */
static void wait_for_signal(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		die("sigprocmask");
	fprintf(stderr, "cowbench: pid %d waiting for SIGUSR1\n", (int)getpid());
	if (sigwait(&set, &sig))
		die("sigwait");
}

/* Read exactly @len bytes from @fd. */
static int read_full(int fd, void *buf, size_t len)
{
	char *b = buf;
	ssize_t n;

	while (len) {
		n = read(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		b += n;
		len -= n;
	}
	return 0;
}

/* Return the minor faults of this process plus its waited-for children. */
static long minor_faults(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return self.ru_minflt + kids.ru_minflt;
}

/* Child side of one CoW round: write every page, report the time, exit. */
static void cow_child(int wfd, char *p, long pages, long round)
{
	uint64_t ns;

	ns = touch_pages(p, pages, (char)(round + 2));
	if (write(wfd, &ns, sizeof(ns)) != sizeof(ns))
		_exit(1);
	_exit(0);
}

/* Mode cow: set up the shared pages, then fork and time R writer children. */
static void run_cow(const struct bench_opts *o, struct bench_result *res)
{
	long flt0, r;
	uint64_t w0;
	char *p;

	p = map_pages(o->pages);
	touch_pages(p, o->pages, 1);

	res->children = calloc(o->rounds, sizeof(*res->children));
	if (!res->children)
		die("calloc");

	if (o->wait_signal)
		wait_for_signal();

	flt0 = minor_faults();
	w0 = now_ns();
	for (r = 0; r < o->rounds; r++) {
		int fds[2], status;
		uint64_t ns;
		pid_t pid;

		if (pipe(fds))
			die("pipe");
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			close(fds[0]);
			cow_child(fds[1], p, o->pages, r);
		}
		close(fds[1]);
		res->children[res->nchildren++] = pid;
		if (read_full(fds[0], &ns, sizeof(ns))) {
			fprintf(stderr, "cowbench: child %d sent no time\n", (int)pid);
			exit(1);
		}
		close(fds[0]);
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "cowbench: child %d failed\n", (int)pid);
			exit(1);
		}
		res->ns += ns;
	}
	res->wall_ns = now_ns() - w0;
	res->minflt = minor_faults() - flt0;
	munmap(p, (size_t)o->pages * page_size);
}

/* Mode fault: R times map fresh pages, write them all (timed) and unmap. */
static void run_fault(const struct bench_opts *o, struct bench_result *res)
{
	size_t len = (size_t)o->pages * page_size;
	long flt0, r;
	uint64_t w0;
	char *p;

	/* warm the code path and the page allocator once, untimed */
	p = map_pages(o->pages);
	touch_pages(p, o->pages, 1);
	munmap(p, len);

	if (o->wait_signal)
		wait_for_signal();

	flt0 = minor_faults();
	w0 = now_ns();
	for (r = 0; r < o->rounds; r++) {
		p = map_pages(o->pages);
		res->ns += touch_pages(p, o->pages, (char)(r + 2));
		if (munmap(p, len))
			die("munmap");
	}
	res->wall_ns = now_ns() - w0;
	res->minflt = minor_faults() - flt0;
}

/* Write the result as "key value" lines to @f. */
static void print_result(FILE *f, const struct bench_opts *o,
			 const struct bench_result *res)
{
	long i;

	fprintf(f, "mode %s\n", o->mode == MODE_COW ? "cow" : "fault");
	fprintf(f, "pages %ld\n", o->pages);
	fprintf(f, "rounds %ld\n", o->rounds);
	fprintf(f, "pid %d\n", (int)getpid());
	fprintf(f, "children");
	for (i = 0; i < res->nchildren; i++)
		fprintf(f, " %d", (int)res->children[i]);
	fprintf(f, "\n");
	fprintf(f, "ns %llu\n", (unsigned long long)res->ns);
	fprintf(f, "wall_ns %llu\n", (unsigned long long)res->wall_ns);
	fprintf(f, "minflt %ld\n", res->minflt);
}

/* Parse the options, run the chosen workload and report its timing. */
int main(int argc, char **argv)
{
	struct bench_result res = { 0 };
	struct bench_opts o;
	FILE *f = stdout;

	parse_args(argc, argv, &o);
	page_size = sysconf(_SC_PAGESIZE);

	if (o.mode == MODE_COW)
		run_cow(&o, &res);
	else
		run_fault(&o, &res);

	if (o.out) {
		f = fopen(o.out, "w");
		if (!f)
			die(o.out);
	}
	print_result(f, &o, &res);
	if (fclose(f))
		die(o.out ? o.out : "stdout");
	free(res.children);
	return 0;
}
