// SPDX-License-Identifier: GPL-2.0
/*
 * phaseload: a forking workload with USDT probes (provider "cowtest") whose
 * copy-on-write page copies inside and outside a phase are known in advance,
 * used by the integration tests of cowtop -u.
 *
 * The main process maps and pre-touches private anonymous memory, then forks
 * children. Each child writes pages still shared with its parent, some while
 * a phase is open (between cowtest:phase__begin and cowtest:phase__end) and
 * some outside any phase, so that each write copies exactly one page. One
 * report line per process tells the tests which pid is expected to copy how
 * many pages inside and outside the phase.
 *
 * Probes (sys/sdt.h, no semaphores):
 *   cowtest:phase__begin  arg1 = phase number (child index + 1, 0 for the
 *                         main process)
 *   cowtest:phase__end    arg1 = the same phase number
 *   cowtest:mark          args 7, child index, 42
 *
 * A tracer that starts this program may only attach to its probes once the
 * program is mapped (after exec), so nothing fires before --start-delay has
 * passed (200 ms by default).
 *
 * As in cowload, children of the single-threaded mode are forked with the raw
 * system call and only write their stack and their target pages afterwards:
 * no stdio, no malloc. Threaded children are forked with fork(3), because
 * they start a thread.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "wlio.h"

const char wl_prog[] = "phaseload";

#define MAX_CHILDREN	256
#define MAX_PAGES	(1UL << 24)
#define PAD_PAGES	64

#define PM_PFN_MASK	((UINT64_C(1) << 55) - 1)
#define PM_PRESENT	(UINT64_C(1) << 63)

#define MARK_ARG1	7
#define MARK_ARG3	42

/* Command line, read-only once the first child is forked. */
struct config {
	unsigned long children;
	unsigned long outside;
	unsigned long inside;
	unsigned long after;
	unsigned long parent_inside;
	unsigned long start_delay_ms;
	unsigned long phase_ms;
	double linger;
	int threads;
	int wait_signal;
	int check;
	const char *report;
};

/* A run of pages one process writes. */
struct slice {
	char *base;
	unsigned long pages;
};

/* Memory and descriptors set up before the first fork. */
struct layout {
	size_t page;
	char *region;
	unsigned long region_pages;
	struct slice parent;
	int release[2];
	int report_fd;
};

/* Copies seen through /proc/self/pagemap, kept on a thread's own stack. */
struct checker {
	int pagemap;
	unsigned long copied;
	unsigned long other;
};

/* What the second thread of a threaded child writes. */
struct helper {
	const struct slice *before;
	const struct slice *after;
	int start[2];
	struct checker ck;
};

static struct config cfg = {
	.children = 1,
	.start_delay_ms = 200,
};
static struct layout lay = {
	.release = { -1, -1 },
	.report_fd = STDOUT_FILENO,
};

static const char usage_text[] =
"usage: phaseload [OPTIONS]\n"
"\n"
"Pre-touches private anonymous memory (4 KiB pages, MADV_NOHUGEPAGE) and\n"
"forks children that write pages still shared with their parent inside and\n"
"outside a phase marked by USDT probes, so every write copies one page.\n"
"\n"
"Probes (provider cowtest): phase__begin(PHASE), phase__end(PHASE) and\n"
"mark(7, INDEX, 42). PHASE is INDEX + 1 in child INDEX (0, 1, ...) and 0 in\n"
"the main process.\n"
"\n"
"Each child, in this order: writes A pages outside any phase, fires\n"
"phase__begin, writes B pages, fires phase__end, fires mark, writes C pages\n"
"outside any phase, then waits until the main process is done.\n"
"\n"
"  --children N         children to fork (default 1)\n"
"  --outside A          pages each child writes before its phase (default 0)\n"
"  --inside B           pages each child writes inside its phase (default 0)\n"
"  --after C            pages each child writes after its phase (default 0)\n"
"  --parent-inside P    after forking, the main process writes P pages inside\n"
"                       its own phase (0) while the children hold them\n"
"  --threads            children write their A and C pages from a second\n"
"                       thread while the first one has the phase open and\n"
"                       writes the B pages: the phase belongs to the faulting\n"
"                       thread, so the A + C copies are outside any phase\n"
"  --phase-ms MS        keep each phase open MS ms after its writes\n"
"  --start-delay MS     sleep MS ms before the first fork and the first probe\n"
"                       (default 200), so that a tracer that finds the probes\n"
"                       after the exec has attached by then\n"
"  --wait-signal        after pre-touching, print \"ready PID\" on stdout and\n"
"                       wait for SIGUSR1 (then --start-delay)\n"
"  --linger S           children sleep S seconds (fractions allowed) before\n"
"                       exiting\n"
"  --report FILE        append report lines to FILE instead of stdout\n"
"  --check              check each write through /proc/self/pagemap (needs\n"
"                       CAP_SYS_ADMIN), print \"done\" lines, fail on mismatch\n"
"  -h, --help           show this help\n"
"\n"
"Report lines, one per process, written by the parent right after the fork\n"
"(the main line before any fork):\n"
"  main PID ppid PPID wrote P role main inside P outside 0 index 0\n"
"  child PID ppid PPID wrote W role ROLE inside B outside O index I\n"
"W = B + O pages copied by that pid, B of them inside its phase and O = A + C\n"
"outside any phase; ROLE is child, thread (with --threads) or holder (a child\n"
"that writes nothing, forked when --parent-inside is given without children).\n"
"With --check, each process adds\n"
"  done PID copied_inside X copied_outside Y other Z check ok|fail\n"
"\n"
"Exit status: 0 if every process did what it was asked (and passed --check),\n"
"1 otherwise, 2 on usage errors.\n";

/* Parse a non-negative decimal number up to max, or exit 2. */
static unsigned long parse_num(const char *s, const char *opt,
			       unsigned long max)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		usage_error(opt, "not a number");
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end)
		usage_error(opt, "not a number");
	if (v > max)
		usage_error(opt, "too large");
	return v;
}

enum {
	OPT_CHILDREN = 256, OPT_OUTSIDE, OPT_INSIDE, OPT_AFTER,
	OPT_PARENT_INSIDE, OPT_THREADS, OPT_PHASE_MS, OPT_START_DELAY,
	OPT_WAIT, OPT_LINGER, OPT_REPORT, OPT_CHECK,
};

static const struct option long_opts[] = {
	{ "children", required_argument, NULL, OPT_CHILDREN },
	{ "outside", required_argument, NULL, OPT_OUTSIDE },
	{ "inside", required_argument, NULL, OPT_INSIDE },
	{ "after", required_argument, NULL, OPT_AFTER },
	{ "parent-inside", required_argument, NULL, OPT_PARENT_INSIDE },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "phase-ms", required_argument, NULL, OPT_PHASE_MS },
	{ "start-delay", required_argument, NULL, OPT_START_DELAY },
	{ "wait-signal", no_argument, NULL, OPT_WAIT },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Apply one parsed option to cfg; name is "--option" for messages. */
static void set_opt(int opt, const char *arg, const char *name)
{
	switch (opt) {
	case OPT_CHILDREN: cfg.children = parse_num(arg, name, MAX_CHILDREN); break;
	case OPT_OUTSIDE: cfg.outside = parse_num(arg, name, MAX_PAGES); break;
	case OPT_INSIDE: cfg.inside = parse_num(arg, name, MAX_PAGES); break;
	case OPT_AFTER: cfg.after = parse_num(arg, name, MAX_PAGES); break;
	case OPT_PARENT_INSIDE:
		cfg.parent_inside = parse_num(arg, name, MAX_PAGES);
		break;
	case OPT_THREADS: cfg.threads = 1; break;
	case OPT_PHASE_MS: cfg.phase_ms = parse_num(arg, name, 3600000); break;
	case OPT_START_DELAY:
		cfg.start_delay_ms = parse_num(arg, name, 3600000);
		break;
	case OPT_WAIT: cfg.wait_signal = 1; break;
	case OPT_LINGER: cfg.linger = parse_seconds(arg, name); break;
	case OPT_REPORT: cfg.report = arg; break;
	case OPT_CHECK: cfg.check = 1; break;
	}
}

/* Parse the command line into cfg. */
static void parse_args(int argc, char **argv)
{
	int first = parse_options(argc, argv, "h", long_opts, usage_text, set_opt);

	if (first < argc)
		usage_error(argv[first], "unexpected argument");
	if (cfg.children * (cfg.outside + cfg.inside + cfg.after) +
	    cfg.parent_inside > MAX_PAGES)
		usage_error("page counts", "too large");
}

/* Report one process: "KIND PID ppid PPID wrote W role ROLE ...". */
static int report_proc(const char *kind, pid_t pid, pid_t ppid,
		       const char *role, unsigned long inside,
		       unsigned long outside, unsigned long index)
{
	struct line l = { .len = 0 };

	line_str(&l, kind);
	line_str(&l, " ");
	line_num(&l, (unsigned long)pid);
	line_kv(&l, "ppid", (unsigned long)ppid);
	line_kv(&l, "wrote", inside + outside);
	line_str(&l, " role ");
	line_str(&l, role);
	line_kv(&l, "inside", inside);
	line_kv(&l, "outside", outside);
	line_kv(&l, "index", index);
	return line_emit(&l, lay.report_fd);
}

/* Open /proc/self/pagemap when checking. */
static void checker_init(struct checker *ck)
{
	ck->copied = ck->other = 0;
	ck->pagemap = -1;
	if (cfg.check)
		ck->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
}

/* Write one byte of page p, counting a copy when the frame changed. */
static void touch(struct checker *ck, char *p, unsigned long tag)
{
	uint64_t before, after;

	if (ck->pagemap < 0) {
		*(volatile char *)p = (char)(tag | 1);
		return;
	}
	before = pm_entry(ck->pagemap, p, lay.page);
	*(volatile char *)p = (char)(tag | 1);
	after = pm_entry(ck->pagemap, p, lay.page);
	if ((before & PM_PRESENT) &&
	    (before & PM_PFN_MASK) != (after & PM_PFN_MASK))
		ck->copied++;
	else
		ck->other++;
}

/* Write every page of a slice once. */
static void write_slice(struct checker *ck, const struct slice *s)
{
	unsigned long i;

	for (i = 0; i < s->pages; i++)
		touch(ck, s->base + i * lay.page, i);
}

/* The pages of child index: A before, B inside, C after its phase. */
static void child_slices(unsigned long index, struct slice *a,
			 struct slice *b, struct slice *c)
{
	unsigned long per = cfg.outside + cfg.inside + cfg.after;
	char *base = lay.region + index * per * lay.page;

	a->base = base;
	a->pages = cfg.outside;
	b->base = a->base + a->pages * lay.page;
	b->pages = cfg.inside;
	c->base = b->base + b->pages * lay.page;
	c->pages = cfg.after;
}

/* Print the --check line; return 0 if the counts are the expected ones. */
static int check_done(const struct checker *in, const struct checker *out,
		      unsigned long inside, unsigned long outside)
{
	struct line l = { .len = 0 };
	int ok;

	if (!cfg.check)
		return 0;
	ok = in->copied == inside && out->copied == outside &&
	     !in->other && !out->other;
	line_str(&l, "done ");
	line_num(&l, (unsigned long)getpid());
	line_kv(&l, "copied_inside", in->copied);
	line_kv(&l, "copied_outside", out->copied);
	line_kv(&l, "other", in->other + out->other);
	line_str(&l, ok ? " check ok" : " check fail");
	line_emit(&l, lay.report_fd);
	return ok ? 0 : 1;
}

/* Close the checkers' pagemap descriptors. */
static void checkers_close(struct checker *a, struct checker *b)
{
	if (a->pagemap >= 0)
		close(a->pagemap);
	if (b->pagemap >= 0)
		close(b->pagemap);
}

/* Wait for the main process to finish its writes, then linger. */
static void child_leave(void)
{
	wait_eof(lay.release);
	if (cfg.linger > 0)
		sleep_ms((unsigned long)(cfg.linger * 1000 + 0.5));
}

/* Body of a single-threaded child. */
static int run_child(unsigned long index)
{
	struct slice a, b, c;
	struct checker in, out;
	int phase = (int)index + 1, idx = (int)index, rc;

	child_slices(index, &a, &b, &c);
	checker_init(&in);
	checker_init(&out);
	write_slice(&out, &a);
	DTRACE_PROBE1(cowtest, phase__begin, phase);
	write_slice(&in, &b);
	if (cfg.phase_ms)
		sleep_ms(cfg.phase_ms);
	DTRACE_PROBE1(cowtest, phase__end, phase);
	DTRACE_PROBE3(cowtest, mark, MARK_ARG1, idx, MARK_ARG3);
	write_slice(&out, &c);
	rc = check_done(&in, &out, b.pages, a.pages + c.pages);
	checkers_close(&in, &out);
	child_leave();
	return rc;
}

/* The second thread of a threaded child: write A and C outside any phase. */
static void *helper_main(void *arg)
{
	struct helper *h = arg;
	char c;

	while (read(h->start[0], &c, 1) < 0 && errno == EINTR)
		;
	write_slice(&h->ck, h->before);
	write_slice(&h->ck, h->after);
	return NULL;
}

/* Body of a threaded child: the first thread holds the phase open. */
static int run_threaded(unsigned long index)
{
	struct slice a, b, c;
	struct helper h = { .before = &a, .after = &c };
	struct checker in;
	pthread_t tid;
	int phase = (int)index + 1, idx = (int)index, rc, err;

	child_slices(index, &a, &b, &c);
	checker_init(&in);
	checker_init(&h.ck);
	if (pipe2(h.start, O_CLOEXEC) < 0) {
		say("pipe failed, errno ", (unsigned long)errno, NULL, 0);
		return 1;
	}
	/* thread creation dirties a few pages: keep that out of the phase */
	err = pthread_create(&tid, NULL, helper_main, &h);
	if (err) {
		say("pthread_create failed, error ", (unsigned long)err, NULL, 0);
		return 1;
	}
	DTRACE_PROBE1(cowtest, phase__begin, phase);
	if (write(h.start[1], "g", 1) != 1)
		say("cannot start the helper thread, errno ",
		    (unsigned long)errno, NULL, 0);
	write_slice(&in, &b);
	pthread_join(tid, NULL);
	if (cfg.phase_ms)
		sleep_ms(cfg.phase_ms);
	DTRACE_PROBE1(cowtest, phase__end, phase);
	DTRACE_PROBE3(cowtest, mark, MARK_ARG1, idx, MARK_ARG3);
	rc = check_done(&in, &h.ck, b.pages, a.pages + c.pages);
	checkers_close(&in, &h.ck);
	close(h.start[0]);
	close(h.start[1]);
	child_leave();
	return rc;
}

/* Body of a holder child: keep the parent's pages shared until released. */
static int run_holder(void)
{
	child_leave();
	return 0;
}

/* Fork one child; report it; return its pid or -1. */
static pid_t spawn(const char *role, unsigned long index)
{
	unsigned long inside = 0, outside = 0;
	pid_t pid;

	if (cfg.threads && strcmp(role, "holder"))
		pid = fork();
	else
		pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid < 0) {
		say("fork failed, errno ", (unsigned long)errno, NULL, 0);
		return -1;
	}
	if (pid == 0) {
		close(lay.release[1]);
		if (!strcmp(role, "holder"))
			_exit(run_holder());
		_exit(cfg.threads ? run_threaded(index) : run_child(index));
	}
	if (strcmp(role, "holder")) {
		inside = cfg.inside;
		outside = cfg.outside + cfg.after;
	}
	if (report_proc("child", pid, getpid(), role, inside, outside, index) < 0)
		say("cannot write report, errno ", (unsigned long)errno, NULL, 0);
	return pid;
}

/* Map and pre-touch the pages every process writes, without huge pages. */
static void setup_memory(void)
{
	unsigned long per = cfg.outside + cfg.inside + cfg.after;
	size_t len;

	/* the padding keeps the written pages out of the per-CPU LRU
	 * batches, whose extra reference would turn a reuse into a copy */
	lay.region_pages = cfg.children * per + cfg.parent_inside + PAD_PAGES;
	len = lay.region_pages * lay.page;
	lay.region = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (lay.region == MAP_FAILED)
		die("mmap");
	if (madvise(lay.region, len, MADV_NOHUGEPAGE) < 0)
		die("madvise(MADV_NOHUGEPAGE)");
	memset(lay.region, 0x5a, len);
	lay.parent.base = lay.region + cfg.children * per * lay.page;
	lay.parent.pages = cfg.parent_inside;
}

/* Check that pagemap gives page frame numbers (needs CAP_SYS_ADMIN). */
static void check_pagemap(void)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("/proc/self/pagemap");
	if (!(pm_entry(fd, lay.region, lay.page) & PM_PFN_MASK)) {
		fprintf(stderr, "phaseload: --check needs page frame numbers "
			"from /proc/self/pagemap (CAP_SYS_ADMIN)\n");
		exit(2);
	}
	close(fd);
}

/* Open the report file and the release pipe. */
static void setup_files(void)
{
	if (cfg.report) {
		lay.report_fd = open(cfg.report,
				     O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
				     0644);
		if (lay.report_fd < 0)
			die(cfg.report);
	}
	if (pipe2(lay.release, O_CLOEXEC) < 0)
		die("pipe");
}

/* Main process after setup: fork, write its phase, release, reap. */
static int run_main(void)
{
	struct checker in, out;
	unsigned long i;
	int failed = 0;

	if (report_proc("main", getpid(), getppid(), "main", cfg.parent_inside,
			0, 0) < 0)
		die("report");
	if (cfg.wait_signal)
		wait_for_signal();
	sleep_ms(cfg.start_delay_ms);
	for (i = 0; i < cfg.children; i++)
		failed += spawn(cfg.threads ? "thread" : "child", i) < 0;
	if (cfg.parent_inside && !cfg.children)
		failed += spawn("holder", 0) < 0;
	checker_init(&in);
	checker_init(&out);
	if (cfg.parent_inside) {
		DTRACE_PROBE1(cowtest, phase__begin, 0);
		write_slice(&in, &lay.parent);
		if (cfg.phase_ms)
			sleep_ms(cfg.phase_ms);
		DTRACE_PROBE1(cowtest, phase__end, 0);
	}
	close(lay.release[1]);
	lay.release[1] = -1;
	failed += reap_children();
	failed += check_done(&in, &out, cfg.parent_inside, 0);
	checkers_close(&in, &out);
	return failed;
}

/* Parse, set up memory, run the process tree, report the outcome. */
int main(int argc, char **argv)
{
	parse_args(argc, argv);
	lay.page = page_size();
	setup_files();
	setup_memory();
	if (cfg.check)
		check_pagemap();
	if (run_main()) {
		fprintf(stderr, "phaseload: some processes failed\n");
		return 1;
	}
	return 0;
}
