// SPDX-License-Identifier: GPL-2.0
/*
 * dlopenload: a forking workload whose USDT probes are in a shared library
 * (libdlprobe.so) it loads with dlopen() only after it started, for the
 * tests of cowtop -u with a library loaded later.
 *
 * The main process maps and pre-touches private anonymous memory, then
 * forks one child. The child dlopen()s the library, waits until a tracer
 * has attached its probes (the probes' semaphores are raised; at most
 * --wait seconds), then writes OUTSIDE pages still shared with its parent,
 * opens the phase dlprobe:work (dlprobe:work__begin), writes INSIDE pages,
 * closes it (dlprobe:work__end) and writes AFTER pages: each write copies
 * exactly one page. Its report line says what it did:
 *   child PID inside I outside O attached A
 * (A: 1 when the probes were attached before the phase, 0 when the wait
 * ran out), then the main process's "main PID".
 *
 * Usage: dlopenload [--report FILE] [--lib PATH] [--outside N] [--inside N]
 *                   [--after N] [--wait SECONDS] [--start-delay SECONDS]
 * --lib defaults to libdlprobe.so next to the executable; --start-delay
 * (default 0) is how long the main process waits before it forks, for a
 * tracer given its pid.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "wlio.h"

const char wl_prog[] = "dlopenload";

#define MAX_PAGES (1UL << 20)
#define POLL_MS 10

static const char usage_text[] =
	"usage: dlopenload [--report FILE] [--lib PATH] [--outside N] [--inside N]\n"
	"                  [--after N] [--wait SECONDS] [--start-delay SECONDS]\n";

static const char *report_path, *lib_path;
static unsigned long outside = 100, inside = 300, after = 50;
static double wait_s = 20, start_delay;

static const struct option long_opts[] = {
	{ "report", required_argument, NULL, 'r' },
	{ "lib", required_argument, NULL, 'l' },
	{ "outside", required_argument, NULL, 'o' },
	{ "inside", required_argument, NULL, 'i' },
	{ "after", required_argument, NULL, 'a' },
	{ "wait", required_argument, NULL, 'w' },
	{ "start-delay", required_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* A count of pages for option name. */
static unsigned long pages_arg(const char *arg, const char *name)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (!*arg || *end || v > MAX_PAGES)
		usage_error(name, "expected a number of pages up to 1048576");
	return v;
}

/* Take one option. */
static void set_opt(int opt, const char *arg, const char *name)
{
	switch (opt) {
	case 'r': report_path = arg; break;
	case 'l': lib_path = arg; break;
	case 'o': outside = pages_arg(arg, name); break;
	case 'i': inside = pages_arg(arg, name); break;
	case 'a': after = pages_arg(arg, name); break;
	case 'w': wait_s = parse_seconds(arg, name); break;
	case 's': start_delay = parse_seconds(arg, name); break;
	}
}

/* libdlprobe.so next to this executable, into buf. */
static const char *default_lib(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n < 0)
		die("/proc/self/exe");
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	snprintf(slash ? slash + 1 : buf, len - (size_t)(slash ? slash + 1 - buf : 0),
		 "libdlprobe.so");
	return buf;
}

/* Write one byte into each of n pages from p: n copies. */
static void write_pages(volatile char *p, unsigned long n, size_t page)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		p[i * page] = 2;
}

/* The child: load the library, wait for the probes, write around the phase. */
static void child(char *mem, size_t page, int fd)
{
	int (*attached)(void);
	void (*begin)(long), (*end)(long);
	struct line l = { .len = 0 };
	char buf[4096];
	unsigned long waited = 0;
	int ok;
	void *h;

	h = dlopen(lib_path ? lib_path : default_lib(buf, sizeof(buf)), RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopenload: %s\n", dlerror());
		_exit(1);
	}
	attached = (int (*)(void))dlsym(h, "dlprobe_attached");
	begin = (void (*)(long))dlsym(h, "dlprobe_begin");
	end = (void (*)(long))dlsym(h, "dlprobe_end");
	if (!attached || !begin || !end) {
		fprintf(stderr, "dlopenload: libdlprobe.so lacks its functions\n");
		_exit(1);
	}
	while (!(ok = attached()) && waited < wait_s * 1000) {
		sleep_ms(POLL_MS);
		waited += POLL_MS;
	}
	write_pages(mem, outside, page);
	begin(1);
	write_pages(mem + outside * page, inside, page);
	end(1);
	write_pages(mem + (outside + inside) * page, after, page);
	line_str(&l, "child ");
	line_num(&l, (unsigned long)getpid());
	line_kv(&l, "inside", inside);
	line_kv(&l, "outside", outside + after);
	line_kv(&l, "attached", (unsigned long)ok);
	if (line_emit(&l, fd))
		_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	size_t page = page_size(), total;
	struct line l = { .len = 0 };
	int fd = 1, failed;
	char *mem;
	pid_t pid;

	if (parse_options(argc, argv, "h", long_opts, usage_text, set_opt) != argc)
		usage_error("arguments", "none expected");
	if (report_path && (fd = open(report_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
		die(report_path);
	total = (outside + inside + after) * page;
	mem = mmap(NULL, total ? total : page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (mem == MAP_FAILED)
		die("mmap");
	madvise(mem, total ? total : page, MADV_NOHUGEPAGE);
	memset(mem, 1, total); /* pre-touched: every page present before the fork */
	sleep_ms((unsigned long)(start_delay * 1000));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		child(mem, page, fd);
	failed = reap_children();
	line_str(&l, "main ");
	line_num(&l, (unsigned long)getpid());
	if (line_emit(&l, fd))
		die("report");
	return failed ? 1 : 0;
}
