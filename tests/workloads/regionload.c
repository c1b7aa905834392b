// SPDX-License-Identifier: GPL-2.0
/*
 * regionload: a forking workload whose copy-on-write copies per memory
 * region are known in advance, used by the integration tests of cowtop's
 * copies by region.
 *
 * The main process pre-touches pages in four regions: a malloc'd block in
 * the brk heap, an anonymous private mapping, a static array in the .data of
 * libregiondata.so, and (with --file) a private mapping of a temporary file
 * that it only reads. It then forks one child from inside a function whose
 * frame holds a large array it has touched, so the array is on both stacks.
 * The child writes H heap, M mmap, S stack, D data pages, each from its own
 * non-inlined function (write_heap, write_mmap, write_stack, write_data),
 * and P pages of the file mapping (write_file). Each write copies one page:
 * the first four are still shared with the waiting parent; a page of the
 * file mapping the child never mapped is copied from the page cache.
 *
 * As in cowload, the child is forked with the raw system call and only
 * writes its stack and its target pages afterwards: no stdio, no malloc.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "wlio.h"

const char wl_prog[] = "regionload";

#define MAX_PAGES	(1UL << 20)
#define HEAP_MAX	(32UL << 20)   /* glibc's largest mmap threshold on 64-bit */
#define STACK_MAX_PAGES	1024           /* 4 MiB: half the default stack limit */

unsigned char *regiondata_block(size_t *len); /* libregiondata.so */

/* Command line, read-only once the child is forked. */
struct config {
	unsigned long heap, mmap, stack, data, file;
	const char *file_dir;
	double linger;
	int wait_signal;
	const char *report;
};

/* The pages set up before the fork; the child only reads this. */
struct layout {
	size_t page;
	char *heap, *mmap, *data, *file;
	char file_path[PATH_MAX];
	const char *file_name;
	int report_fd;
};

static struct config cfg = { .heap = 1000, .mmap = 1000, .stack = 64, .data = 64, .linger = 0.5 };
static struct layout lay = { .report_fd = STDOUT_FILENO, .file_name = "-" };

static const char usage_text[] =
"usage: regionload [OPTIONS]\n"
"\n"
"Pre-touches pages in the brk heap, an anonymous mapping, the .data of\n"
"libregiondata.so and a large array on its stack (and reads a private file\n"
"mapping), forks one child and has it write a known number of pages in each.\n"
"Every write copies exactly one page.\n"
"\n"
"  --heap H          pages the child writes in a malloc'd brk block (1000)\n"
"  --mmap M          pages it writes in an anonymous private mapping (1000)\n"
"  --stack S         pages it writes in an array on its stack (64, <= 1024)\n"
"  --data D          pages it writes in libregiondata.so's .data (64, <= 256)\n"
"  --file P          pages it writes in a private mapping of a temporary file\n"
"                    the main process only read (0)\n"
"  --file-dir DIR    where the temporary file goes (default $TMPDIR or /tmp)\n"
"  --linger S        seconds the child waits after writing (default 0.5)\n"
"  --wait-signal     after pre-touching, print \"ready PID\" and wait for\n"
"                    SIGUSR1 before forking\n"
"  --report FILE     append report lines to FILE instead of stdout\n"
"  -h, --help        show this help\n"
"\n"
"Report lines:\n"
"  main PID ppid PPID\n"
"  child PID ppid PPID heap H anon M stack S data D file P file_name NAME\n"
"NAME is the temporary file's name (\"-\" without --file): its copies are\n"
"expected under file:NAME, the data pages under file:libregiondata.so.\n"
"\n"
"Exit status: 0 if the child did its work, 1 otherwise, 2 on usage errors.\n";

enum { OPT_HEAP = 256, OPT_MMAP, OPT_STACK, OPT_DATA, OPT_FILE, OPT_FILE_DIR, OPT_LINGER, OPT_WAIT,
       OPT_REPORT };

static const struct option long_opts[] = {
	{ "heap", required_argument, NULL, OPT_HEAP },
	{ "mmap", required_argument, NULL, OPT_MMAP },
	{ "stack", required_argument, NULL, OPT_STACK },
	{ "data", required_argument, NULL, OPT_DATA },
	{ "file", required_argument, NULL, OPT_FILE },
	{ "file-dir", required_argument, NULL, OPT_FILE_DIR },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ "wait-signal", no_argument, NULL, OPT_WAIT },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A page count in [0, max] for option opt, or exit 2. */
static unsigned long parse_pages(const char *s, const char *opt, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || errno || *end || v > max)
		usage_error(opt, "not a page count in range");
	return v;
}

/* Apply one parsed option to cfg; name is "--option" for messages. */
static void set_opt(int opt, const char *arg, const char *name)
{
	switch (opt) {
	case OPT_HEAP: cfg.heap = parse_pages(arg, name, MAX_PAGES); break;
	case OPT_MMAP: cfg.mmap = parse_pages(arg, name, MAX_PAGES); break;
	case OPT_STACK: cfg.stack = parse_pages(arg, name, STACK_MAX_PAGES); break;
	case OPT_DATA: cfg.data = parse_pages(arg, name, MAX_PAGES); break;
	case OPT_FILE: cfg.file = parse_pages(arg, name, MAX_PAGES); break;
	case OPT_FILE_DIR: cfg.file_dir = arg; break;
	case OPT_LINGER: cfg.linger = parse_seconds(arg, name); break;
	case OPT_WAIT: cfg.wait_signal = 1; break;
	case OPT_REPORT: cfg.report = arg; break;
	}
}

/* Define a writer NAME: one byte added to in each of n pages from base.
 * Each adds its own V, so that no two have the same body and the compiler
 * cannot fold them into one function: each region's copies are made by a
 * function of its own name. */
#define WRITER(name, v)								\
	static __attribute__((noinline)) void name(char *base, unsigned long n)	\
	{									\
		for (unsigned long i = 0; i < n; i++)				\
			((volatile char *)base)[i * lay.page] += (v);		\
	}

WRITER(write_heap, 1)  /* the brk heap block */
WRITER(write_mmap, 2)  /* the anonymous mapping */
WRITER(write_stack, 3) /* the array on the stack */
WRITER(write_data, 4)  /* libregiondata.so's .data */
WRITER(write_file, 5)  /* the private file mapping */

/* Touch n pages from base so that they are present (and dirty). */
static void touch(char *base, unsigned long n)
{
	memset(base, 0x5a, n * lay.page);
}

/* A malloc'd block of n pages in the brk heap, page-aligned, touched. */
static char *setup_heap(unsigned long n)
{
	size_t size = (n + 1) * lay.page;
	char *start = sbrk(0), *block, *end;

	if (size > HEAP_MAX)
		usage_error("--heap", "too large for the brk heap");
	mallopt(M_MMAP_THRESHOLD, (int)HEAP_MAX); /* keep the block off mmap */
	block = malloc(size);
	end = sbrk(0);
	if (!block)
		die("malloc");
	if (block < start || block + size > end) {
		say("the heap block is not in the brk area, at", (unsigned long)block, NULL, 0);
		exit(1);
	}
	block = (char *)(((uintptr_t)block + lay.page - 1) & ~(uintptr_t)(lay.page - 1));
	touch(block, n);
	return block;
}

/* An anonymous private mapping of n pages, base pages only, touched. */
static char *setup_mmap(unsigned long n)
{
	char *p = mmap(NULL, (n ? n : 1) * lay.page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	madvise(p, (n ? n : 1) * lay.page, MADV_NOHUGEPAGE);
	touch(p, n);
	return p;
}

/* The first n pages of libregiondata.so's .data array, written (private). */
static char *setup_data(unsigned long n)
{
	size_t len;
	char *p = (char *)regiondata_block(&len);

	if (n > len / lay.page)
		usage_error("--data", "larger than libregiondata.so's array");
	touch(p, n);
	return p;
}

/* A temporary file of n pages mapped private and only read. */
static char *setup_file(unsigned long n)
{
	const char *dir = cfg.file_dir ? cfg.file_dir : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	volatile char sum = 0;
	unsigned long i;
	char *p, *buf;
	int fd;

	snprintf(lay.file_path, sizeof(lay.file_path), "%s/regionload-XXXXXX", dir);
	fd = mkstemp(lay.file_path);
	if (fd < 0)
		die(lay.file_path);
	lay.file_name = strrchr(lay.file_path, '/') + 1;
	buf = malloc(lay.page);
	if (!buf)
		die("malloc");
	memset(buf, 0x33, lay.page); /* real data: every page is in the page cache */
	for (i = 0; i < n; i++)
		if (write(fd, buf, lay.page) != (ssize_t)lay.page)
			die(lay.file_path);
	free(buf);
	p = mmap(NULL, n * lay.page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("mmap file");
	close(fd);
	for (i = 0; i < n; i++)
		sum += p[i * lay.page];
	(void)sum;
	return p;
}

/* "main PID ppid PPID" or "child PID ppid PPID heap H ... file_name NAME". */
static int report(pid_t pid, pid_t ppid, int child)
{
	struct line l = { .len = 0 };

	line_str(&l, child ? "child " : "main ");
	line_num(&l, (unsigned long)pid);
	line_kv(&l, "ppid", (unsigned long)ppid);
	if (child) {
		line_kv(&l, "heap", cfg.heap);
		line_kv(&l, "anon", cfg.mmap);
		line_kv(&l, "stack", cfg.stack);
		line_kv(&l, "data", cfg.data);
		line_kv(&l, "file", cfg.file);
		line_str(&l, " file_name ");
		line_str(&l, lay.file_name);
	}
	return line_emit(&l, lay.report_fd);
}

/* The child: write every region, linger, exit. */
static void __attribute__((noreturn)) child(char *stack)
{
	write_heap(lay.heap, cfg.heap);
	write_mmap(lay.mmap, cfg.mmap);
	write_stack(stack, cfg.stack);
	write_data(lay.data, cfg.data);
	write_file(lay.file, cfg.file);
	sleep_ms((unsigned long)(cfg.linger * 1000));
	_exit(0);
}

/* Touch an array of S pages in this frame, fork the child with it on both
 * stacks, report it and wait for it. Returns the exit status. */
static __attribute__((noinline)) int fork_child(void)
{
	char *raw = alloca((cfg.stack + 1) * lay.page);
	char *stack = (char *)(((uintptr_t)raw + lay.page - 1) & ~(uintptr_t)(lay.page - 1));
	pid_t pid;
	int status;

	touch(stack, cfg.stack);
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0); /* no glibc fork bookkeeping */
	if (pid < 0)
		die("fork");
	if (pid == 0)
		child(stack);
	if (report(pid, getpid(), 1) < 0)
		die("report");
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	int first = parse_options(argc, argv, "h", long_opts, usage_text, set_opt), rc;

	if (first < argc)
		usage_error(argv[first], "unexpected argument");
	lay.page = page_size();
	if (cfg.report) {
		lay.report_fd = open(cfg.report, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (lay.report_fd < 0)
			die(cfg.report);
	}
	lay.heap = setup_heap(cfg.heap);
	lay.mmap = setup_mmap(cfg.mmap);
	lay.data = setup_data(cfg.data);
	if (cfg.file)
		lay.file = setup_file(cfg.file);
	if (report(getpid(), getppid(), 0) < 0)
		die("report");
	if (cfg.wait_signal)
		wait_for_signal();
	rc = fork_child();
	if (cfg.file)
		unlink(lay.file_path);
	return rc;
}
