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
 * With --swap the library comes in without a change of size: the main
 * process reserves (before its start delay, so before the fork) an
 * anonymous region exactly as large as the library's mapping (its ELF load
 * segments' span), and the child unmaps it right after dlopen(), the two
 * a few microseconds apart. The child's line then also says whether its
 * size (VSZ) was the same before the dlopen() and after the munmap():
 *   child PID inside I outside O attached A same_size Z
 *
 * Usage: dlopenload [--report FILE] [--lib PATH] [--outside N] [--inside N]
 *                   [--after N] [--wait SECONDS] [--start-delay SECONDS] [--swap]
 * --lib defaults to libdlprobe.so next to the executable; --start-delay
 * (default 0) is how long the main process waits before it forks, for a
 * tracer given its pid.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
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
	"                  [--after N] [--wait SECONDS] [--start-delay SECONDS] [--swap]\n";

static const char *report_path, *lib_path;
static unsigned long outside = 100, inside = 300, after = 50;
static double wait_s = 20, start_delay;
static int swap;
static void *reserved; /* --swap: the region the child gives back after dlopen() */
static size_t reserved_len;

static const struct option long_opts[] = {
	{ "report", required_argument, NULL, 'r' },
	{ "lib", required_argument, NULL, 'l' },
	{ "outside", required_argument, NULL, 'o' },
	{ "inside", required_argument, NULL, 'i' },
	{ "after", required_argument, NULL, 'a' },
	{ "wait", required_argument, NULL, 'w' },
	{ "start-delay", required_argument, NULL, 's' },
	{ "swap", no_argument, NULL, 'x' },
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
	case 'x': swap = 1; break;
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

/* The size of the mapping the loader makes for the ELF object at path:
 * from the first load segment's page to the end of the last one's memory,
 * in whole pages. */
static size_t lib_span(const char *path, size_t page)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned long lo = ~0UL, hi = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), i;

	if (fd < 0)
		die(path);
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		usage_error(path, "not a 64-bit ELF object");
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (size_t)i * eh.e_phentsize)) !=
		    (ssize_t)sizeof(ph))
			die(path);
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr < lo)
			lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > hi)
			hi = ph.p_vaddr + ph.p_memsz;
	}
	close(fd);
	if (hi <= lo)
		usage_error(path, "no load segments");
	lo &= ~(page - 1);
	return ((hi + page - 1) & ~(page - 1)) - lo;
}

/* This process's size (VSZ) in pages, from /proc/self/statm. */
static unsigned long vsz_pages(void)
{
	char buf[128];
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (n <= 0)
		die("/proc/self/statm");
	close(fd);
	buf[n] = '\0';
	return strtoul(buf, NULL, 10);
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
	unsigned long waited = 0, size_before = vsz_pages(), size_after;
	int ok;
	void *h;

	h = dlopen(lib_path ? lib_path : default_lib(buf, sizeof(buf)), RTLD_NOW);
	if (h && reserved && munmap(reserved, reserved_len))
		die("munmap");
	size_after = vsz_pages();
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
	if (swap)
		line_kv(&l, "same_size", size_after == size_before);
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
	if (swap) {
		void *volatile heap; /* not a pair the compiler may drop */
		char buf[4096];

		reserved_len = lib_span(lib_path ? lib_path : default_lib(buf, sizeof(buf)), page);
		reserved = mmap(NULL, reserved_len, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (reserved == MAP_FAILED)
			die("mmap");
		heap = malloc(1); /* the heap set up now: dlopen()'s allocations grow nothing */
		free(heap);
	}
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
