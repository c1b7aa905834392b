// SPDX-License-Identifier: GPL-2.0
/*
 * cowload: a forking workload whose copy-on-write page copies are known in
 * advance, used by cowtop's integration tests.
 *
 * The main process maps and pre-touches private anonymous memory, forks
 * children of several kinds, and each process writes a known number of pages
 * that are still shared with another process when written, so that each write
 * makes the kernel copy exactly one page. One report line per process tells
 * the tests which pid is expected to copy how many pages.
 *
 * After a fork, children only write their stack and their target pages: no
 * stdio, no malloc, no globals. Report lines are formatted on the stack and
 * written with write(2). By default processes are forked with the raw system
 * call, which skips glibc's fork bookkeeping (atfork handlers, lock resets,
 * thread-block updates) that would dirty a few more shared pages.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "wlio.h"

const char wl_prog[] = "cowload";

#define MAX_LIST	1024
#define PAD_PAGES	64
#define MAX_PAGES	(1UL << 26)
#define MAX_SHORT	100000 /* short-lived children share one slice: no list */

#define PM_PFN_MASK	((UINT64_C(1) << 55) - 1)
#define PM_PRESENT	(UINT64_C(1) << 63)

struct list {
	unsigned long v[MAX_LIST];
	int n;
};

/* Command line, read-only once the first process is forked. */
struct config {
	struct list child_writes;
	struct list early_writes;
	struct list chain_writes;
	unsigned long parent_writes;
	unsigned long race;
	unsigned long nshort;
	unsigned long short_writes;
	unsigned long exec_writes;
	int exec_on;
	unsigned long zero;
	int no_zero_page;
	unsigned long kread;
	const char *kread_file;
	unsigned long rounds;
	unsigned long round_ms;
	double linger;
	int wait_signal;
	const char *report;
	int check;
	int libc_fork;
	int exit_code;
	unsigned long min_pages;
	char **exec_argv;
};

/* A run of pages some process writes. */
struct slice {
	char *base;
	unsigned long pages;
};

/* Shared (MAP_SHARED) page used to synchronise the race pair. */
struct sync {
	int arrived;
	int child_done;
	unsigned long child_copied;
};

/* Memory and descriptors set up before the first fork; children read it. */
struct layout {
	size_t page;
	char *region;
	unsigned long region_pages;
	struct slice child[MAX_LIST];
	struct slice early[MAX_LIST];
	struct slice chain[MAX_LIST];
	struct slice parent;
	struct slice shorts;
	struct slice exec;
	struct slice kread;
	struct slice race;
	struct slice zero;
	struct sync *sync;
	int release[2];
	int go[2];
	int race_start[2];
	int report_fd;
	int zero_page;		/* the kernel maps one shared zero page */
	uint64_t zero_pfn;	/* its frame, 0 when there is none */
};

/* Per-process write classification, kept on the process' own stack. */
struct checker {
	int pagemap;
	unsigned long copied;
	unsigned long reused;
	unsigned long zerofill;
	unsigned long fresh;
};

/* What a child is asked to do; the child only reads it. */
struct job {
	const char *role;
	int (*fn)(const struct job *job);
	const struct slice *slice;
	unsigned long wrote;
	unsigned long zero;
	unsigned long race;
	int depth;
	int level;
	int wait_go;
	int rounds;
};

static struct config cfg = {
	.short_writes = 100,
	.kread_file = "/dev/zero",
	.rounds = 1,
	.round_ms = 100,
};
static struct layout lay = {
	.release = { -1, -1 },
	.go = { -1, -1 },
	.race_start = { -1, -1 },
	.report_fd = STDOUT_FILENO,
};

static const char usage_text[] =
"usage: cowload [OPTIONS] [-- COMMAND [ARGS...]]\n"
"\n"
"Pre-touches private anonymous memory (4 KiB pages, MADV_NOHUGEPAGE), forks\n"
"children and writes pages whose copy-on-write copies are known in advance.\n"
"Every written page is still mapped by another process when written, so each\n"
"write copies exactly one page.\n"
"\n"
"Children:\n"
"  --child-writes LIST  one child (role child) per entry; child i writes\n"
"                       LIST[i] distinct pages, e.g. 1000,2000,3000\n"
"  --early-writes LIST  like --child-writes (role early), but forked before\n"
"                       \"ready\"; they write once the go signal arrives\n"
"  --chain-writes LIST  a line of descendants (role chain): a child writes\n"
"                       LIST[0] pages, its own child LIST[1], and so on\n"
"  --parent-writes P    the main process writes P pages no child writes\n"
"  --race N             a child (role race) and the main process write the\n"
"                       same N pages at the same time (main ascending, child\n"
"                       descending): one of the two copies each page\n"
"  --short N            N short-lived children (role short) that write their\n"
"                       pages and _exit at once\n"
"  --short-writes W     pages each short-lived child writes (default 100)\n"
"  --exec-writes W      a child (role exec) writes W pages, then executes\n"
"                       COMMAND (default /bin/true); /proc/self/exe runs\n"
"                       cowload again\n"
"  --zero M             a child (role zero) writes M pages the main process\n"
"                       only read: zero fills where the kernel maps them to\n"
"                       its shared zero page, copies where it gives each a\n"
"                       page of its own (measured at start, see --check)\n"
"  --kread K            a child (role kread) read()s a page into each of K\n"
"                       shared pages: copies made by kernel-mode writes\n"
"  --kread-file PATH    file --kread reads (default /dev/zero, else a file of\n"
"                       at least one page)\n"
"\n"
"Timing:\n"
"  --rounds R           child, early and chain writers write in R rounds\n"
"  --round-ms MS        sleep between rounds (default 100)\n"
"  --linger S           children that wait for the main process sleep S\n"
"                       seconds (fractions allowed) before exiting\n"
"  --wait-signal        after pre-touching and forking early children, print\n"
"                       \"ready PID\" on stdout and wait for SIGUSR1\n"
"\n"
"Other:\n"
"  --pages N            pre-touch at least N pages in all\n"
"  --report FILE        append report lines to FILE instead of stdout\n"
"  --check              check each write through /proc/self/pagemap (needs\n"
"                       CAP_SYS_ADMIN), print \"done\" lines, fail on\n"
"                       mismatch\n"
"  --no-zero-page       behave as on a kernel without a shared zero page:\n"
"                       the main process writes the --zero pages instead\n"
"                       of reading them, so the zero child copies them (a\n"
"                       test switch; also COWLOAD_NO_ZERO_PAGE=1)\n"
"  --libc-fork          fork with fork(3) instead of the raw system call\n"
"                       (glibc then dirties a few more pages per fork)\n"
"  --exit-code N        exit status when everything went fine (default 0)\n"
"  -h, --help           show this help\n"
"\n"
"Report lines, one per process, written by its parent right after the fork\n"
"(the main line before any fork):\n"
"  main PID ppid PPID wrote P role main depth 0 zero 0 race N\n"
"  child PID ppid PPID wrote W role ROLE depth D zero M race N\n"
"wrote is the number of pages expected to be copied by that pid (a pid that\n"
"executes cowload again gets a main line too: add them up); zero counts zero\n"
"fills (0 on a kernel without a shared zero page, where the zero child's\n"
"writes are copies and count in wrote); race pages are copied by either member of the race pair. depth is\n"
"relative to the cowload process that printed the main line. With --check:\n"
"  done PID copied C reused R zerofill Z fresh F race_copied X check ok|fail\n"
"  race N main_copied A child_copied B\n"
"\n"
"The go signal is SIGUSR1 with --wait-signal, else it comes at once.\n"
"Fork order after the go signal: chain, child, race, zero, kread, exec,\n"
"short, then a holder child (role holder, writes nothing) when the pages of\n"
"--parent-writes have no other waiting child to share them with. Waiting\n"
"children (all but exec and short) stay until the main process has written\n"
"its pages, then linger.\n"
"\n"
"Exit status: the --exit-code value if every process did what it was asked\n"
"(and passed --check), 1 otherwise, 2 on usage errors.\n";

/* Parse a non-negative decimal number, or exit 2. */
static unsigned long parse_num(const char *s, const char *opt)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		usage_error(opt, "not a number");
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end)
		usage_error(opt, "not a number");
	return v;
}

/* Parse a comma-separated list of page counts, or exit 2. */
static void parse_list(struct list *l, const char *s, const char *opt)
{
	char buf[32];
	const char *p = s;

	l->n = 0;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (!n || n >= sizeof(buf) || l->n == MAX_LIST)
			usage_error(opt, "bad list");
		memcpy(buf, p, n);
		buf[n] = '\0';
		l->v[l->n++] = parse_num(buf, opt);
		p += n;
		if (*p == ',' && !*++p)
			usage_error(opt, "bad list");
	}
	if (!l->n)
		usage_error(opt, "empty list");
}

enum {
	OPT_CHILD = 256, OPT_EARLY, OPT_CHAIN, OPT_PARENT, OPT_RACE, OPT_SHORT,
	OPT_SHORT_WRITES, OPT_EXEC, OPT_ZERO, OPT_KREAD, OPT_KREAD_FILE,
	OPT_ROUNDS, OPT_ROUND_MS, OPT_LINGER, OPT_WAIT, OPT_PAGES, OPT_REPORT,
	OPT_CHECK, OPT_NO_ZERO_PAGE, OPT_LIBC_FORK, OPT_EXIT_CODE,
};

static const struct option long_opts[] = {
	{ "child-writes", required_argument, NULL, OPT_CHILD },
	{ "early-writes", required_argument, NULL, OPT_EARLY },
	{ "chain-writes", required_argument, NULL, OPT_CHAIN },
	{ "parent-writes", required_argument, NULL, OPT_PARENT },
	{ "race", required_argument, NULL, OPT_RACE },
	{ "short", required_argument, NULL, OPT_SHORT },
	{ "short-writes", required_argument, NULL, OPT_SHORT_WRITES },
	{ "exec-writes", required_argument, NULL, OPT_EXEC },
	{ "zero", required_argument, NULL, OPT_ZERO },
	{ "kread", required_argument, NULL, OPT_KREAD },
	{ "kread-file", required_argument, NULL, OPT_KREAD_FILE },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "round-ms", required_argument, NULL, OPT_ROUND_MS },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ "wait-signal", no_argument, NULL, OPT_WAIT },
	{ "pages", required_argument, NULL, OPT_PAGES },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "no-zero-page", no_argument, NULL, OPT_NO_ZERO_PAGE },
	{ "libc-fork", no_argument, NULL, OPT_LIBC_FORK },
	{ "exit-code", required_argument, NULL, OPT_EXIT_CODE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Apply one parsed option with a number argument to cfg. */
static void set_num_opt(int opt, const char *arg, const char *name)
{
	unsigned long v = parse_num(arg, name);

	switch (opt) {
	case OPT_PARENT: cfg.parent_writes = v; break;
	case OPT_RACE: cfg.race = v; break;
	case OPT_SHORT: cfg.nshort = v; break;
	case OPT_SHORT_WRITES: cfg.short_writes = v; break;
	case OPT_EXEC: cfg.exec_writes = v; cfg.exec_on = 1; break;
	case OPT_ZERO: cfg.zero = v; break;
	case OPT_KREAD: cfg.kread = v; break;
	case OPT_ROUNDS: cfg.rounds = v; break;
	case OPT_ROUND_MS: cfg.round_ms = v; break;
	case OPT_PAGES: cfg.min_pages = v; break;
	case OPT_EXIT_CODE: cfg.exit_code = (int)v; break;
	}
}

/* Apply one parsed option to cfg; name is "--option" for messages. */
static void set_opt(int opt, const char *arg, const char *name)
{
	switch (opt) {
	case OPT_CHILD: parse_list(&cfg.child_writes, arg, name); break;
	case OPT_EARLY: parse_list(&cfg.early_writes, arg, name); break;
	case OPT_CHAIN: parse_list(&cfg.chain_writes, arg, name); break;
	case OPT_KREAD_FILE: cfg.kread_file = arg; break;
	case OPT_LINGER: cfg.linger = parse_seconds(arg, name); break;
	case OPT_WAIT: cfg.wait_signal = 1; break;
	case OPT_REPORT: cfg.report = arg; break;
	case OPT_CHECK: cfg.check = 1; break;
	case OPT_NO_ZERO_PAGE: cfg.no_zero_page = 1; break;
	case OPT_LIBC_FORK: cfg.libc_fork = 1; break;
	default: set_num_opt(opt, arg, name); break;
	}
}

/* Check option values that only make sense together. */
static void validate_config(void)
{
	if (cfg.rounds < 1 || cfg.rounds > 1000000)
		usage_error("--rounds", "must be between 1 and 1000000");
	if (cfg.round_ms > 3600000)
		usage_error("--round-ms", "too large");
	if (cfg.exit_code > 255)
		usage_error("--exit-code", "must be at most 255");
	if (cfg.nshort > MAX_SHORT)
		usage_error("--short", "too many children");
	if (cfg.exec_argv && !cfg.exec_on)
		usage_error("COMMAND", "needs --exec-writes");
}

/* Parse the command line into cfg. */
static void parse_args(int argc, char **argv)
{
	int first = parse_options(argc, argv, "+h", long_opts, usage_text, set_opt);

	if (first < argc)
		cfg.exec_argv = argv + first;
	if (first < argc && strcmp(argv[first - 1], "--"))
		usage_error(argv[first], "unexpected argument");
	validate_config();
}

/* Report one process: "KIND PID ppid PPID wrote W role ROLE ...". */
static int report_proc(const char *kind, pid_t pid, pid_t ppid,
		       const struct job *job)
{
	struct line l = { .len = 0 };

	line_str(&l, kind);
	line_str(&l, " ");
	line_num(&l, (unsigned long)pid);
	line_kv(&l, "ppid", (unsigned long)ppid);
	line_kv(&l, "wrote", job->wrote);
	line_str(&l, " role ");
	line_str(&l, job->role);
	line_kv(&l, "depth", (unsigned long)job->depth);
	line_kv(&l, "zero", job->zero);
	line_kv(&l, "race", job->race);
	return line_emit(&l, lay.report_fd);
}

/* Fork without glibc's bookkeeping unless --libc-fork was given. */
static pid_t do_fork(void)
{
	if (cfg.libc_fork)
		return fork();
#ifdef SYS_fork
	return (pid_t)syscall(SYS_fork);
#else
	return (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
}

/* Open /proc/self/pagemap for this process when checking. */
static void checker_init(struct checker *ck)
{
	ck->copied = ck->reused = ck->zerofill = ck->fresh = 0;
	ck->pagemap = -1;
	if (cfg.check)
		ck->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
}

/* Classify one write from the pagemap entries before and after it. */
static void checker_count(struct checker *ck, uint64_t before, uint64_t after)
{
	uint64_t pfn = before & PM_PFN_MASK;

	if (!(before & PM_PRESENT))
		ck->fresh++;
	else if (pfn == lay.zero_pfn)
		ck->zerofill++;
	else if (pfn != (after & PM_PFN_MASK))
		ck->copied++;
	else
		ck->reused++;
}

/* Write one byte of page p, classifying the write when checking. */
static void touch(struct checker *ck, char *p, unsigned long tag)
{
	uint64_t before;

	if (ck->pagemap < 0) {
		*(volatile char *)p = (char)(tag | 1);
		return;
	}
	before = pm_entry(ck->pagemap, p, lay.page);
	*(volatile char *)p = (char)(tag | 1);
	checker_count(ck, before, pm_entry(ck->pagemap, p, lay.page));
}

/* Write pages [from, to) of a slice, ascending or descending. */
static void write_range(struct checker *ck, const struct slice *s,
			unsigned long from, unsigned long to, int down)
{
	unsigned long i;

	for (i = from; i < to; i++) {
		unsigned long k = down ? to - 1 - (i - from) : i;

		touch(ck, s->base + k * lay.page, k);
	}
}

/* Write all pages of a slice in the given number of rounds. */
static void write_rounds(struct checker *ck, const struct slice *s,
			 unsigned long rounds)
{
	unsigned long r;

	for (r = 0; r < rounds; r++) {
		if (r)
			sleep_ms(cfg.round_ms);
		write_range(ck, s, s->pages * r / rounds,
			    s->pages * (r + 1) / rounds, 0);
	}
}

/* Print the --check line of this process; return 0 if counts match. */
static int checker_done(struct checker *ck, const struct job *job,
			unsigned long race_copied, int ok)
{
	struct line l = { .len = 0 };

	if (ck->pagemap < 0)
		return 0;
	close(ck->pagemap);
	ok = ok && ck->fresh == 0 && ck->zerofill == job->zero;
	line_str(&l, "done ");
	line_num(&l, (unsigned long)getpid());
	line_kv(&l, "copied", ck->copied);
	line_kv(&l, "reused", ck->reused);
	line_kv(&l, "zerofill", ck->zerofill);
	line_kv(&l, "fresh", ck->fresh);
	line_kv(&l, "race_copied", race_copied);
	line_str(&l, ok ? " check ok" : " check fail");
	line_emit(&l, lay.report_fd);
	return ok ? 0 : 1;
}

/* Default check: every write copied, nothing else happened. */
static int checker_plain(struct checker *ck, const struct job *job)
{
	return checker_done(ck, job, 0,
			    ck->copied == job->wrote && ck->reused == 0);
}

/* Close the pipe ends a child must not hold. */
static void child_enter(void)
{
	if (lay.release[1] >= 0)
		close(lay.release[1]);
	if (lay.go[1] >= 0)
		close(lay.go[1]);
	close(lay.race_start[1]);
}

/* Wait for the main process to finish its writes, then linger. */
static void child_leave(void)
{
	wait_eof(lay.release);
	if (cfg.linger > 0)
		sleep_ms((unsigned long)(cfg.linger * 1000 + 0.5));
}

/* Fork a child that runs job->fn, report it, return its pid. */
static pid_t spawn(const struct job *job)
{
	pid_t pid = do_fork();

	if (pid < 0) {
		say("fork failed, errno ", (unsigned long)errno, NULL, 0);
		return -1;
	}
	if (pid == 0) {
		child_enter();
		_exit(job->fn(job));
	}
	if (report_proc("child", pid, getpid(), job) < 0)
		say("cannot write report, errno ", (unsigned long)errno, NULL, 0);
	return pid;
}

/* Body of child, early and holder children: write own slice, wait. */
static int run_writer(const struct job *job)
{
	struct checker ck;
	int rc;

	checker_init(&ck);
	if (job->wait_go)
		wait_eof(lay.go);
	write_rounds(&ck, job->slice, (unsigned long)job->rounds);
	rc = checker_plain(&ck, job);
	child_leave();
	return rc;
}

/* Body of a chain member: fork the next one, write, wait, reap. */
static int run_chain(const struct job *job)
{
	struct job next = *job;
	struct checker ck;
	int rc;

	if (job->level + 1 < cfg.chain_writes.n) {
		next.level = job->level + 1;
		next.depth = job->depth + 1;
		next.slice = &lay.chain[next.level];
		next.wrote = lay.chain[next.level].pages;
		if (spawn(&next) < 0)
			return 1;
	}
	checker_init(&ck);
	write_rounds(&ck, job->slice, (unsigned long)job->rounds);
	rc = checker_plain(&ck, job);
	child_leave();
	return reap_children() ? 1 : rc;
}

/* Seconds on the monotonic clock. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Meet the other member of the race pair; -1 if it never comes. */
static int race_barrier(void)
{
	double limit = now() + 10;
	unsigned long spins = 0;

	__atomic_add_fetch(&lay.sync->arrived, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&lay.sync->arrived, __ATOMIC_SEQ_CST) < 2) {
		if (++spins % 65536 == 0 && now() > limit) {
			say("race partner never came, waited s ", 10, NULL, 0);
			return -1;
		}
	}
	return 0;
}

/* Block until the main process is about to start its race writes. */
static void race_wait_start(void)
{
	char c;

	while (read(lay.race_start[0], &c, 1) < 0 && errno == EINTR)
		;
}

/* Body of the race child: write the race pages top down with main. */
static int run_race(const struct job *job)
{
	struct checker ck;
	int rc;

	checker_init(&ck);
	race_wait_start();
	if (race_barrier() < 0)
		return 1;
	write_range(&ck, &lay.race, 0, lay.race.pages, 1);
	__atomic_store_n(&lay.sync->child_copied, ck.copied, __ATOMIC_SEQ_CST);
	__atomic_store_n(&lay.sync->child_done, 1, __ATOMIC_SEQ_CST);
	rc = checker_done(&ck, job, ck.copied,
			  ck.copied + ck.reused == lay.race.pages);
	child_leave();
	return rc;
}

/* Read every page of a slice so that it maps the shared zero page. */
static void read_pages(const struct slice *s)
{
	unsigned long i, sum = 0;

	for (i = 0; i < s->pages; i++)
		sum += (unsigned long)*(volatile char *)(s->base + i * lay.page);
	if (sum)
		say("zero pages are not zero, sum ", sum, NULL, 0);
}

/* Body of the zero child: write the pages main only read. */
static int run_zero(const struct job *job)
{
	struct checker ck;
	int rc;

	checker_init(&ck);
	read_pages(job->slice);
	write_range(&ck, job->slice, 0, job->slice->pages, 0);
	rc = checker_done(&ck, job, 0,
			  ck.copied == job->wrote && ck.reused == 0);
	child_leave();
	return rc;
}

/* read() one page of fd into page p, classifying the kernel's write. */
static int kread_page(struct checker *ck, int fd, char *p)
{
	uint64_t before = 0;
	ssize_t n;

	if (ck->pagemap >= 0)
		before = pm_entry(ck->pagemap, p, lay.page);
	do
		n = pread(fd, p, lay.page, 0);
	while (n < 0 && errno == EINTR);
	if (ck->pagemap >= 0)
		checker_count(ck, before, pm_entry(ck->pagemap, p, lay.page));
	return n == (ssize_t)lay.page ? 0 : -1;
}

/* Body of the kread child: let the kernel write the shared pages. */
static int run_kread(const struct job *job)
{
	struct checker ck;
	unsigned long i;
	int fd, rc = 0;

	checker_init(&ck);
	fd = open(cfg.kread_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say("cannot open --kread-file, errno ", (unsigned long)errno,
		    NULL, 0);
		return 1;
	}
	for (i = 0; i < job->slice->pages && !rc; i++)
		rc = kread_page(&ck, fd, job->slice->base + i * lay.page) < 0;
	close(fd);
	if (rc)
		say("short read from --kread-file into page ", i - 1, NULL, 0);
	rc |= checker_plain(&ck, job);
	child_leave();
	return rc;
}

/* Body of the exec child: write, then become COMMAND. */
static int run_exec(const struct job *job)
{
	static char *const dflt[] = { "/bin/true", NULL };
	char *const *argv = cfg.exec_argv ? cfg.exec_argv : dflt;
	struct checker ck;

	checker_init(&ck);
	write_range(&ck, job->slice, 0, job->slice->pages, 0);
	if (checker_plain(&ck, job))
		return 1;
	execv(argv[0], argv);
	say("cannot execute COMMAND, errno ", (unsigned long)errno, NULL, 0);
	return 127;
}

/* Body of a short-lived child: write and leave at once. */
static int run_short(const struct job *job)
{
	struct checker ck;

	checker_init(&ck);
	write_range(&ck, job->slice, 0, job->slice->pages, 0);
	return checker_plain(&ck, job);
}

/* Add up a list of page counts. */
static unsigned long list_sum(const struct list *l)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < l->n; i++)
		sum += l->v[i] < MAX_PAGES ? l->v[i] : MAX_PAGES;
	return sum;
}

/* Count the pages of the main region that somebody writes. */
static unsigned long region_needs(void)
{
	unsigned long n;

	n = list_sum(&cfg.chain_writes) + list_sum(&cfg.child_writes) +
	    list_sum(&cfg.early_writes);
	n += cfg.kread + cfg.exec_writes + cfg.parent_writes;
	n += cfg.nshort ? cfg.short_writes : 0;
	if (n > MAX_PAGES || cfg.kread > MAX_PAGES ||
	    cfg.exec_writes > MAX_PAGES || cfg.parent_writes > MAX_PAGES ||
	    cfg.short_writes > MAX_PAGES || cfg.min_pages > MAX_PAGES ||
	    cfg.race > MAX_PAGES || cfg.zero > MAX_PAGES)
		usage_error("page counts", "too large");
	return n;
}

/* Hand out the next n pages of the main region to slice s. */
static void take(struct slice *s, unsigned long *cursor, unsigned long n)
{
	s->base = lay.region + *cursor * lay.page;
	s->pages = n;
	*cursor += n;
}

/* Give each role its own pages of the main region. */
static void plan_region(void)
{
	unsigned long cur = 0;
	int i;

	for (i = 0; i < cfg.chain_writes.n; i++)
		take(&lay.chain[i], &cur, cfg.chain_writes.v[i]);
	for (i = 0; i < cfg.child_writes.n; i++)
		take(&lay.child[i], &cur, cfg.child_writes.v[i]);
	for (i = 0; i < cfg.early_writes.n; i++)
		take(&lay.early[i], &cur, cfg.early_writes.v[i]);
	take(&lay.kread, &cur, cfg.kread);
	take(&lay.exec, &cur, cfg.exec_writes);
	take(&lay.shorts, &cur, cfg.nshort ? cfg.short_writes : 0);
	take(&lay.parent, &cur, cfg.parent_writes);
}

/* Map n private (or shared) anonymous pages without huge pages. */
static char *map_pages(unsigned long n, int flags)
{
	size_t len = n * lay.page;
	char *p;

	if (!n)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	if (!(flags & MAP_SHARED) && madvise(p, len, MADV_NOHUGEPAGE) < 0)
		die("madvise(MADV_NOHUGEPAGE)");
	return p;
}

/* Write every byte of n pages before any fork. */
static void pretouch(char *base, unsigned long pages)
{
	if (pages)
		memset(base, 0x5a, pages * lay.page);
}

/* Map the race pages, kept out of every child but the race one. */
static void setup_race(void)
{
	lay.race.pages = cfg.race;
	if (!cfg.race)
		return;
	lay.race.base = map_pages(cfg.race, MAP_PRIVATE);
	if (madvise(lay.race.base, cfg.race * lay.page, MADV_DONTFORK) < 0)
		die("madvise(MADV_DONTFORK)");
	pretouch(lay.race.base, cfg.race);
}

/* Map the main, race and zero regions and pre-touch them. */
static void setup_memory(void)
{
	/* the padding after the written pages keeps them out of the per-CPU
	 * LRU batches, whose extra reference turns a reuse into a copy; the
	 * race pages are touched first for the same reason */
	lay.region_pages = region_needs() + PAD_PAGES;
	if (lay.region_pages < cfg.min_pages)
		lay.region_pages = cfg.min_pages;
	setup_race();
	lay.region = map_pages(lay.region_pages, MAP_PRIVATE);
	pretouch(lay.region, lay.region_pages);
	plan_region();
	lay.zero.pages = cfg.zero;
	lay.zero.base = map_pages(cfg.zero, MAP_PRIVATE);
	if (lay.zero_page)
		read_pages(&lay.zero);
	else if (cfg.zero)	/* a read there gives zeroed pages of their own */
		memset(lay.zero.base, 0, cfg.zero * lay.page);
	lay.sync = (struct sync *)map_pages(1, MAP_SHARED);
	memset(lay.sync, 0, sizeof(*lay.sync));
}

/* The frame of the first page at base, or exit 2 when pagemap gives no
 * frame numbers (they need CAP_SYS_ADMIN). */
static uint64_t frame_of(int fd, const char *base)
{
	uint64_t pfn = pm_entry(fd, base, lay.page) & PM_PFN_MASK;

	if (!pfn) {
		fprintf(stderr, "cowload: --check and --zero need page frame "
			"numbers from /proc/self/pagemap (CAP_SYS_ADMIN)\n");
		exit(2);
	}
	return pfn;
}

/* Measure whether this kernel maps fresh memory that was only read to one
 * shared zero page: read two fresh pages and compare their frames. Some
 * kernels run without it (a read gets a page of its own, and a write after
 * fork copies it); --no-zero-page makes this run behave as on those. */
static void probe_zero_page(void)
{
	struct slice s = { .pages = 2 };
	uint64_t a, b;
	int fd;

	s.base = map_pages(2, MAP_PRIVATE);
	read_pages(&s);
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("/proc/self/pagemap");
	a = frame_of(fd, s.base);
	b = frame_of(fd, s.base + lay.page);
	close(fd);
	/* the zero page is never freed; two pages of their own are, and a
	 * frame freed here must not be taken for the zero page later */
	munmap(s.base, 2 * lay.page);
	lay.zero_page = a == b && !cfg.no_zero_page;
	lay.zero_pfn = lay.zero_page ? a : 0;
}

/* Open the report file and the synchronisation pipes. */
static void setup_files(void)
{
	if (cfg.report) {
		lay.report_fd = open(cfg.report,
				     O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
				     0644);
		if (lay.report_fd < 0)
			die(cfg.report);
	}
	if (pipe2(lay.release, O_CLOEXEC) < 0 || pipe2(lay.go, O_CLOEXEC) < 0 ||
	    pipe2(lay.race_start, O_CLOEXEC) < 0)
		die("pipe");
}

/* Fill in a job with the fields shared by all kinds of children. */
static struct job make_job(const char *role, int (*fn)(const struct job *),
			   const struct slice *s)
{
	struct job job = {
		.role = role,
		.fn = fn,
		.slice = s,
		.wrote = s ? s->pages : 0,
		.depth = 1,
		.rounds = 1,
	};

	return job;
}

/* Fork one child per entry of a list of slices; return failures. */
static int spawn_writers(const char *role, struct slice *s, int n, int wait_go)
{
	struct job job = make_job(role, run_writer, NULL);
	int i, failed = 0;

	job.wait_go = wait_go;
	job.rounds = (int)cfg.rounds;
	for (i = 0; i < n; i++) {
		job.slice = &s[i];
		job.wrote = s[i].pages;
		failed += spawn(&job) < 0;
	}
	return failed;
}

/* Fork the head of the chain of descendants. */
static int spawn_chain(void)
{
	struct job job = make_job("chain", run_chain, &lay.chain[0]);

	if (!cfg.chain_writes.n)
		return 0;
	job.rounds = (int)cfg.rounds;
	return spawn(&job) < 0;
}

/* Fork the race child with the race pages mapped in it. */
static int spawn_race(void)
{
	struct job job = make_job("race", run_race, &lay.race);
	size_t len = cfg.race * lay.page;
	pid_t pid;

	if (!cfg.race)
		return 0;
	job.wrote = 0;
	job.race = cfg.race;
	if (madvise(lay.race.base, len, MADV_DOFORK) < 0)
		die("madvise(MADV_DOFORK)");
	pid = spawn(&job);
	if (madvise(lay.race.base, len, MADV_DONTFORK) < 0)
		die("madvise(MADV_DONTFORK)");
	return pid < 0;
}

/* Fork the zero, kread and exec children that were asked for. */
static int spawn_singles(void)
{
	struct job job;
	int failed = 0;

	if (cfg.zero) {
		job = make_job("zero", run_zero, &lay.zero);
		job.wrote = lay.zero_page ? 0 : cfg.zero;
		job.zero = lay.zero_page ? cfg.zero : 0;
		failed += spawn(&job) < 0;
	}
	if (cfg.kread) {
		job = make_job("kread", run_kread, &lay.kread);
		failed += spawn(&job) < 0;
	}
	if (cfg.exec_on) {
		job = make_job("exec", run_exec, &lay.exec);
		failed += spawn(&job) < 0;
	}
	return failed;
}

/* Fork the short-lived children; they all write the same pages. */
static int spawn_shorts(void)
{
	struct job job = make_job("short", run_short, &lay.shorts);
	unsigned long i;
	int failed = 0;

	for (i = 0; i < cfg.nshort; i++)
		failed += spawn(&job) < 0;
	return failed;
}

/* Count the children that stay until the main process is done. */
static unsigned long waiting_children(void)
{
	return (unsigned long)cfg.child_writes.n + cfg.early_writes.n +
	       cfg.chain_writes.n + !!cfg.race + !!cfg.zero + !!cfg.kread;
}

/* Fork a child that writes nothing when the parent's pages need one. */
static int spawn_holder(void)
{
	static const struct slice nothing;
	struct job job = make_job("holder", run_writer, &nothing);

	if (!cfg.parent_writes || waiting_children())
		return 0;
	return spawn(&job) < 0;
}

/* The main process' side of the race; return its copies. */
static unsigned long main_race(struct checker *ck)
{
	unsigned long before = ck->copied;

	if (!cfg.race)
		return 0;
	if (write(lay.race_start[1], "g", 1) != 1)
		die("race pipe");
	if (race_barrier() < 0)
		return 0;
	write_range(ck, &lay.race, 0, lay.race.pages, 0);
	return ck->copied - before;
}

/* Print the race summary and check that every race page was copied. */
static int check_race(unsigned long main_copied)
{
	struct line l = { .len = 0 };
	unsigned long child = lay.sync->child_copied;

	if (!cfg.race || !cfg.check)
		return 0;
	if (!lay.sync->child_done)
		return 1;
	line_str(&l, "race ");
	line_num(&l, cfg.race);
	line_kv(&l, "main_copied", main_copied);
	line_kv(&l, "child_copied", child);
	line_emit(&l, lay.report_fd);
	if (main_copied + child > cfg.race)
		say("race: pages copied by both members ",
		    main_copied + child - cfg.race, NULL, 0);
	return main_copied + child < cfg.race;
}

/* Fork everything that comes after the go signal; return failures. */
static int spawn_all(void)
{
	int failed = 0;

	failed += spawn_chain();
	failed += spawn_writers("child", lay.child, cfg.child_writes.n, 0);
	failed += spawn_race();
	failed += spawn_singles();
	failed += spawn_shorts();
	failed += spawn_holder();
	return failed;
}

/* Main process after setup: fork, write, release, reap, check. */
static int run_main(void)
{
	struct job me = make_job("main", NULL, &lay.parent);
	unsigned long race_copied;
	struct checker ck;
	int failed;

	me.depth = 0;
	me.race = cfg.race;
	if (report_proc("main", getpid(), getppid(), &me) < 0)
		die("report");
	failed = spawn_writers("early", lay.early, cfg.early_writes.n, 1);
	if (cfg.wait_signal)
		wait_for_signal();
	close(lay.go[1]);
	lay.go[1] = -1;
	failed += spawn_all();
	checker_init(&ck);
	write_range(&ck, &lay.parent, 0, lay.parent.pages, 0);
	race_copied = main_race(&ck);
	close(lay.release[1]);
	lay.release[1] = -1;
	failed += reap_children();
	failed += checker_done(&ck, &me, race_copied,
			       ck.copied - race_copied == cfg.parent_writes);
	failed += check_race(race_copied);
	return failed;
}

/* Parse, set up memory, run the process tree, report the outcome. */
int main(int argc, char **argv)
{
	parse_args(argc, argv);
	lay.page = page_size();
	setup_files();
	if (getenv("COWLOAD_NO_ZERO_PAGE") && *getenv("COWLOAD_NO_ZERO_PAGE") == '1')
		cfg.no_zero_page = 1;
	if (cfg.check || cfg.zero)
		probe_zero_page();
	setup_memory();
	if (run_main()) {
		fprintf(stderr, "cowload: some processes failed\n");
		return 1;
	}
	return cfg.exit_code;
}
