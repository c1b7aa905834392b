/* Unit tests of the /proc readers: parsers on captured and hostile files,
 * readers on the live /proc and on directories made to look like it, the
 * maps walk on maps files (captured, hostile, generated, and our own).
 * Fixtures live in $FIXTURES_DIR/proc and $FIXTURES_DIR/maps, else under
 * FIXTURES_DIR (set at build time). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "tmpdir.h"
#include "objset.h"
#include "procfs.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

/* built with the address sanitizer (gcc says so with a macro, clang with
 * __has_feature): its shadow is terabytes mapped, which the walk of every
 * page mapped would take minutes to read */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* The way of reading every page mapped, however many; under the address
 * sanitizer, whose shadow makes it minutes long, the scan stands in. */
#define WALK_ALL (SANITIZED ? PROCFS_FAMILY_SCAN : PROCFS_FAMILY_WALK_ALL)

static int procfd = -1;

/* ---- fixtures ---- */

/* The directory of the fixtures. */
static const char *fixtures_dir(void)
{
	const char *dir = getenv("FIXTURES_DIR");

	return dir && *dir ? dir : FIXTURES_DIR;
}

/* Load a fixture into a heap buffer of exactly its size (one byte for an
 * empty file), so that a parser reading past len trips the sanitizers. */
static char *fixture(const char *name, size_t *len)
{
	char path[PATH_MAX];
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/proc/%s", fixtures_dir(), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("cannot open fixture %s: %s", path, strerror(errno));
	assert_int_equal(fstat(fd, &st), 0);
	*len = (size_t)st.st_size;
	buf = malloc(*len ? *len : 1);
	assert_non_null(buf);
	n = read(fd, buf, *len);
	assert_int_equal(n, (ssize_t)*len);
	close(fd);
	return buf;
}

/* Run the parser fn (a procfs_parse_* function) on a fixture, into out;
 * the parser's result. */
#define PARSE_FIXTURE(fn, name, out) __extension__ ({ \
	size_t len_; \
	char *buf_ = fixture(name, &len_); \
	int ret_ = fn(buf_, len_, out); \
	free(buf_); \
	ret_; \
})

/* Parse a stat fixture; returns the parser's result. */
static int parse_stat_fixture(const char *name, struct proc_stat *st)
{
	return PARSE_FIXTURE(procfs_parse_stat, name, st);
}

/* Parse a stat fixture that must be accepted. */
static void stat_ok(const char *name, struct proc_stat *st)
{
	memset(st, 0x5a, sizeof(*st));
	if (parse_stat_fixture(name, st) != 0)
		fail_msg("%s was refused", name);
}

/* ---- stat: captured files ---- */

/* A short-lived ordinary process (cat reading its own stat). */
static void test_stat_cat(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("cat.stat", &st);
	assert_int_equal(st.pid, 3744);
	assert_string_equal(st.comm, "cat");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 3741);
	assert_int_equal(st.utime, 0);
	assert_int_equal(st.stime, 0);
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.start_time, 36781);
	assert_int_equal(st.vsize, 3133440);
	assert_int_equal(st.rss, 371);
}

/* A multi-threaded process with a negative nice value among its fields. */
static void test_stat_multithread(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("multi.stat", &st);
	assert_int_equal(st.pid, 22026);
	assert_string_equal(st.comm, "worker-pool");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 22018);
	assert_int_equal(st.utime, 30);
	assert_int_equal(st.stime, 0);
	assert_int_equal(st.num_threads, 4);
	assert_int_equal(st.start_time, 96181);
	assert_int_equal(st.vsize, 27713536);
	assert_int_equal(st.rss, 274);
}

/* A thread's own stat (exit_signal -1 further on). */
static void test_stat_thread(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("thread.stat", &st);
	assert_int_equal(st.pid, 22027);
	assert_string_equal(st.comm, "pool-1");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 22018);
	assert_int_equal(st.utime, 0);
	assert_int_equal(st.num_threads, 4);
	assert_int_equal(st.start_time, 96211);
	assert_int_equal(st.rss, 306);
}

/* Kernel threads: no memory, idle state, long workqueue names, and a
 * real-time priority of -100. */
static void test_stat_kernel_threads(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("kthreadd.stat", &st);
	assert_int_equal(st.pid, 2);
	assert_string_equal(st.comm, "kthreadd");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 0);
	assert_int_equal(st.start_time, 14);
	assert_int_equal(st.vsize, 0);
	assert_int_equal(st.rss, 0);
	assert_true(st.flags & PROCFS_PF_KTHREAD);
	stat_ok("cat.stat", &st);
	assert_false(st.flags & PROCFS_PF_KTHREAD);

	stat_ok("kworker.stat", &st);
	assert_true(st.flags & PROCFS_PF_KTHREAD);
	assert_int_equal(st.pid, 12);
	assert_string_equal(st.comm, "kworker/u8:0-ipv6_addrconf");
	assert_int_equal(st.state, 'I');
	assert_int_equal(st.ppid, 2);
	assert_int_equal(st.utime, 0);
	assert_int_equal(st.stime, 11);

	stat_ok("migration.stat", &st);
	assert_int_equal(st.pid, 18);
	assert_string_equal(st.comm, "migration/0");
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.start_time, 14);
}

/* A process stopped by its tracer: a lower-case state letter. */
static void test_stat_traced(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("traced.stat", &st);
	assert_int_equal(st.pid, 18653);
	assert_string_equal(st.comm, "tr");
	assert_int_equal(st.state, 't');
	assert_int_equal(st.ppid, 18652);
	assert_int_equal(st.start_time, 83750);
	assert_int_equal(st.rss, 151);
}

/* A zombie: state Z, its memory gone. */
static void test_stat_zombie(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("zombie.stat", &st);
	assert_int_equal(st.pid, 3741);
	assert_string_equal(st.comm, "bash");
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.start_time, 36781);
	assert_int_equal(st.vsize, 0);
	assert_int_equal(st.rss, 0);
}

/* ---- stat: hostile names, captured from processes that set them ---- */

/* Names that hold ')', '(', spaces, newlines, escapes and bad UTF-8 are
 * kept byte for byte, and the fields after them still parse. */
static void test_stat_hostile_names(void **state)
{
	static const struct {
		const char *file;
		const char *comm;
		long long rss;
	} cases[] = {
		{ "paren-spoof.stat", "a) R 1 2 (b", 266 },
		{ "newline.stat", "evil\nTgid:\t1", 287 },
		{ "esc.stat", "\x1b[2J\x1b[31mred", 275 },
		{ "badutf8.stat", "\xff\xfe\xc0\xaf\xc2\x85", 280 },
		{ "lone-paren.stat", ")", 272 },
		{ "spaces.stat", " ) ( ", 275 },
	};
	struct proc_stat st;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		stat_ok(cases[i].file, &st);
		assert_string_equal(st.comm, cases[i].comm);
		assert_int_equal(st.state, 'R');
		assert_int_equal(st.ppid, 4935);
		assert_int_equal(st.num_threads, 1);
		assert_int_equal(st.vsize, 2400256);
		assert_int_equal(st.rss, cases[i].rss);
	}
}

/* A name longer than the buffer is cut to fit, the rest still parses. */
static void test_stat_long_comm(void **state)
{
	char want[PROCFS_COMM_MAX];
	struct proc_stat st;

	(void)state;
	memset(want, 'n', sizeof(want) - 1);
	want[sizeof(want) - 1] = '\0';
	stat_ok("long-comm.stat", &st);
	assert_string_equal(st.comm, want);
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.utime, 5);
	assert_int_equal(st.stime, 6);
	assert_int_equal(st.rss, 359);
}

/* The largest values that fit are accepted. */
static void test_stat_max_values(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("max-utime.stat", &st);
	assert_true(st.utime == ULLONG_MAX);
	assert_int_equal(st.stime, 7);
}

/* Malformed files are refused and leave out untouched. */
static void test_stat_malformed(void **state)
{
	static const char *const files[] = {
		"empty.stat", "trunc-pid.stat", "trunc-comm.stat",
		"trunc-state.stat", "trunc-stime.stat", "trunc-rss.stat",
		"missing-fields.stat", "overflow-utime.stat",
		"overflow-pid.stat", "overflow-threads.stat",
		"overflow-rss.stat", "negative-utime.stat",
		"garbage-field.stat", "no-rparen.stat", "no-lparen.stat",
		"bad-state.stat", "negative-ppid.stat", "negative-threads.stat",
		"zero-pid.stat", "negative-pid.stat", "garbage-rss.stat",
		"glued-state.stat", "long-state.stat",
	};
	struct proc_stat st, before;
	size_t i;

	(void)state;
	memset(&before, 0x5a, sizeof(before));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		st = before;
		if (parse_stat_fixture(files[i], &st) != -EINVAL)
			fail_msg("%s was not refused", files[i]);
		assert_memory_equal(&st, &before, sizeof(st));
	}
}

/* A file cut after rss and its separator holds every field used. */
static void test_stat_cut_after_rss(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("trunc-after-rss.stat", &st);
	assert_int_equal(st.ppid, 3656);
	assert_int_equal(st.start_time, 36153);
	assert_int_equal(st.vsize, 3133440);
	assert_int_equal(st.rss, 359);
}

/* Offset just past the separator that ends field 24 (rss): the 23rd space
 * after the last ')' of the file. */
static size_t stat_needed(const char *buf, size_t len)
{
	const char *rp = memrchr(buf, ')', len);
	size_t i;
	int spaces = 0;

	assert_non_null(rp);
	for (i = (size_t)(rp - buf); i < len; i++) {
		if (buf[i] == ' ' && ++spaces == 23)
			return i + 1;
	}
	fail_msg("fixture has fewer than 24 fields");
	return 0;
}

/* Every prefix of a real file: refused while a used field may be cut short,
 * identical to the whole file's parse once they are all there. */
static void test_stat_every_truncation(void **state)
{
	static const char *const files[] = {
		"cat.stat", "multi.stat", "kworker.stat", "zombie.stat",
		"paren-spoof.stat", "newline.stat", "spaces.stat",
	};
	struct proc_stat full, st;
	size_t i, len, cut, need;
	char *buf, *copy;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		buf = fixture(files[i], &len);
		memset(&full, 0, sizeof(full));
		assert_int_equal(procfs_parse_stat(buf, len, &full), 0);
		need = stat_needed(buf, len);
		for (cut = 0; cut <= len; cut++) {
			copy = malloc(cut ? cut : 1);
			assert_non_null(copy);
			memcpy(copy, buf, cut);
			memset(&st, 0, sizeof(st));
			ret = procfs_parse_stat(copy, cut, &st);
			if (cut < need && ret != -EINVAL)
				fail_msg("%s cut at %zu accepted", files[i], cut);
			if (cut >= need) {
				assert_int_equal(ret, 0);
				assert_memory_equal(&st, &full, sizeof(st));
			}
			free(copy);
		}
		free(buf);
	}
}

/* ---- status ---- */

/* Parse the Tgid of a status fixture. */
static int parse_tgid_fixture(const char *name)
{
	size_t len;
	char *buf = fixture(name, &len);
	int ret = procfs_parse_status_tgid(buf, len);

	free(buf);
	return ret;
}

/* Tgid of a thread, a kernel thread and a zombie; a name that spells a Tgid
 * line does not count; malformed files are refused. */
static void test_status_tgid(void **state)
{
	(void)state;
	assert_int_equal(parse_tgid_fixture("thread.status"), 22026);
	assert_int_equal(parse_tgid_fixture("kthreadd.status"), 2);
	assert_int_equal(parse_tgid_fixture("zombie.status"), 3741);
	assert_int_equal(parse_tgid_fixture("newline.status"), 4945);
	assert_int_equal(parse_tgid_fixture("empty.status"), -EINVAL);
	assert_int_equal(parse_tgid_fixture("no-tgid.status"), -EINVAL);
	assert_int_equal(parse_tgid_fixture("bad-tgid.status"), -EINVAL);
	assert_int_equal(parse_tgid_fixture("trunc-tgid.status"), -EINVAL);
	assert_int_equal(parse_tgid_fixture("overflow-tgid.status"), -EINVAL);
	assert_int_equal(parse_tgid_fixture("zero-tgid.status"), -EINVAL);
}

/* ---- cmdline ---- */

/* Tidy a cmdline fixture and compare with want. */
static void check_tidy(const char *name, const char *want)
{
	size_t len, n;
	char *raw = fixture(name, &len);
	char *buf = malloc(len + 1);

	assert_non_null(buf);
	memcpy(buf, raw, len);
	n = procfs_tidy_cmdline(buf, len);
	assert_int_equal(n, strlen(want));
	assert_string_equal(buf, want);
	free(buf);
	free(raw);
}

/* NULs become spaces, trailing ones go, inner empty arguments stay. */
static void test_cmdline_tidy(void **state)
{
	(void)state;
	check_tidy("cat.cmdline", "cat /proc/self/cmdline");
	check_tidy("args.cmdline", "sh -c echo a  b  x");
	check_tidy("padded.cmdline", "nginx: worker process");
	check_tidy("nuls.cmdline", "");
	check_tidy("zombie.cmdline", "");
}

/* ---- live /proc ---- */

/* Count the entries of /proc/self/task: the threads of this process. */
static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Seconds since boot, from /proc/uptime. */
static double uptime(void)
{
	FILE *f = fopen("/proc/uptime", "r");
	double up = -1;

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lf", &up), 1);
	fclose(f);
	return up;
}

static volatile unsigned long burn_sink;

/* Spin until this process has used ms milliseconds of CPU time more. */
static void burn_cpu(long ms)
{
	struct timespec t0, t;
	int i;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (i = 0; i < 100000; i++)
			burn_sink += (unsigned long)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
	    (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* This process's own stat matches what it knows of itself. */
static void test_live_self_stat(void **state)
{
	struct proc_stat st, st2;
	char name[17] = "";
	long ticks = procfs_clock_ticks();

	(void)state;
	assert_int_equal(prctl(PR_GET_NAME, name), 0);
	assert_int_equal(procfs_read_stat(procfd, getpid(), &st), 0);
	assert_int_equal(st.pid, getpid());
	assert_int_equal(st.ppid, getppid());
	assert_string_equal(st.comm, name);
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.num_threads, count_threads());
	assert_true(st.rss > 0);
	assert_true(st.vsize > 0);
	assert_true((double)st.start_time / (double)ticks <= uptime() + 1);

	/* 300 ms of CPU shows in utime + stime at the same positions. */
	burn_cpu(300);
	assert_int_equal(procfs_read_stat(procfd, getpid(), &st2), 0);
	assert_true(st2.utime + st2.stime >=
	    st.utime + st.stime + (unsigned long long)ticks / 10);
	assert_int_equal(st2.start_time, st.start_time);
}

/* Missing and impossible pids. */
static void test_live_missing(void **state)
{
	struct proc_stat st;
	int devnull;

	(void)state;
	assert_int_equal(procfs_read_stat(procfd, INT_MAX, &st), -ENOENT);
	assert_int_equal(procfs_read_tgid(procfd, INT_MAX), -ENOENT);
	assert_int_equal(procfs_read_stat(procfd, 0, &st), -EINVAL);
	assert_int_equal(procfs_read_stat(procfd, -1, &st), -EINVAL);
	assert_int_equal(procfs_read_tgid(procfd, -5), -EINVAL);
	/* The fd must be a directory of /proc. */
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(devnull >= 0);
	assert_int_equal(procfs_read_stat(devnull, getpid(), &st), -ENOTDIR);
	close(devnull);
	assert_int_equal(procfs_read_stat(-1, getpid(), &st), -EBADF);
}

/* A zombie child: state Z, no memory; gone once reaped. */
static void test_live_zombie(void **state)
{
	struct proc_stat st;
	pid_t pid;
	int i;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	for (i = 0; i < 5000; i++) {
		assert_int_equal(procfs_read_stat(procfd, pid, &st), 0);
		if (st.state == 'Z')
			break;
		usleep(1000);
	}
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.ppid, getpid());
	assert_int_equal(st.vsize, 0);
	assert_int_equal(st.rss, 0);
	assert_int_equal(procfs_read_tgid(procfd, pid), pid);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(procfs_read_stat(procfd, pid, &st), -ENOENT);
}

/* Our own smaps_rollup and the machine's MemAvailable read; a zombie has
 * no memory to read, a reaped process no file. */
static void test_live_smaps(void **state)
{
	unsigned long long kib = 0;
	struct smaps sm;
	pid_t pid;
	int i;

	(void)state;
	assert_int_equal(procfs_read_smaps_rollup(procfd, getpid(), &sm), 0);
	assert_true(sm.rss > 0 && sm.pss > 0 && sm.pss <= sm.rss);
	assert_true(sm.private_clean + sm.private_dirty <= sm.rss);
	assert_int_equal(procfs_read_meminfo_available(procfd, &kib), 0);
	assert_true(kib > 0);
	assert_int_equal(procfs_read_smaps_rollup(procfd, 0, &sm), -EINVAL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	for (i = 0; i < 5000 && procfs_read_smaps_rollup(procfd, pid, &sm) == 0; i++)
		usleep(1000);
	assert_int_equal(procfs_read_smaps_rollup(procfd, pid, &sm), -ESRCH);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(procfs_read_smaps_rollup(procfd, pid, &sm), -ENOENT);
}

/* A thread that reports its id and waits to be released. */
struct thread_ctl {
	int to_main[2];
	int to_thread[2];
};

/* Thread body: send our tid, block until main writes. */
static void *thread_main(void *arg)
{
	struct thread_ctl *c = arg;
	pid_t tid = gettid();
	char b;

	if (write(c->to_main[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	while (read(c->to_thread[0], &b, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* Walk state for procfs_for_each_pid. */
struct walk {
	int want[3];
	bool seen[3];
	int calls;
	int bad;
	int stop_at;     /* return stop_ret on this call, 0: never */
	int stop_ret;
};

/* Record one pid of the walk. */
static int walk_fn(int pid, void *arg)
{
	struct walk *w = arg;
	int i;

	w->calls++;
	if (pid <= 0)
		w->bad++;
	for (i = 0; i < 3; i++) {
		if (w->want[i] == pid)
			w->seen[i] = true;
	}
	if (w->stop_at && w->calls == w->stop_at)
		return w->stop_ret;
	return 0;
}

/* A thread id has this process as its tgid, is readable by id, and is not
 * listed as a process. */
static void test_live_thread(void **state)
{
	struct thread_ctl c;
	struct proc_stat st;
	struct walk w = { .want = { 0, 0, 0 } };
	pthread_t th;
	pid_t tid;
	char b = 'x';

	(void)state;
	assert_int_equal(pipe2(c.to_main, O_CLOEXEC), 0);
	assert_int_equal(pipe2(c.to_thread, O_CLOEXEC), 0);
	assert_int_equal(pthread_create(&th, NULL, thread_main, &c), 0);
	assert_int_equal(read(c.to_main[0], &tid, sizeof(tid)), sizeof(tid));
	assert_true(tid != getpid());

	assert_int_equal(procfs_read_tgid(procfd, tid), getpid());
	assert_int_equal(procfs_read_tgid(procfd, getpid()), getpid());
	assert_int_equal(procfs_read_stat(procfd, tid, &st), 0);
	assert_int_equal(st.pid, tid);
	assert_int_equal(procfs_read_stat(procfd, getpid(), &st), 0);
	assert_int_equal(st.num_threads, count_threads());
	assert_true(st.num_threads >= 2);

	w.want[0] = getpid();
	w.want[1] = tid;
	assert_int_equal(procfs_for_each_pid(procfd, walk_fn, &w), 0);
	assert_true(w.seen[0]);
	assert_false(w.seen[1]);

	assert_int_equal(write(c.to_thread[1], &b, 1), 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	close(c.to_main[0]);
	close(c.to_main[1]);
	close(c.to_thread[0]);
	close(c.to_thread[1]);
}

/* The walk lists this process, its parent and a child; stops early on request;
 * reports a bad fd. */
static void test_live_for_each_pid(void **state)
{
	struct walk w = { .want = { 0, 0, 0 } };
	int total, devnull;
	pid_t child;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	w.want[0] = getpid();
	w.want[1] = getppid();
	w.want[2] = child;
	assert_int_equal(procfs_for_each_pid(procfd, walk_fn, &w), 0);
	assert_true(w.seen[0]);
	assert_true(w.seen[1]);
	assert_true(w.seen[2]);
	assert_int_equal(w.bad, 0);
	assert_true(w.calls >= 3);
	total = w.calls;

	/* Stopping early returns fn's value after exactly that many calls. */
	memset(&w, 0, sizeof(w));
	w.stop_at = 2;
	w.stop_ret = 42;
	assert_int_equal(procfs_for_each_pid(procfd, walk_fn, &w), 42);
	assert_int_equal(w.calls, 2);
	w.calls = 0;
	w.stop_at = 1;
	w.stop_ret = -ECANCELED;
	assert_int_equal(procfs_for_each_pid(procfd, walk_fn, &w), -ECANCELED);
	assert_int_equal(w.calls, 1);

	/* The caller's fd is not used up: a second walk sees as much. */
	memset(&w, 0, sizeof(w));
	assert_int_equal(procfs_for_each_pid(procfd, walk_fn, &w), 0);
	assert_true(w.calls >= total - 20 && w.calls <= total + 20);

	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(devnull >= 0);
	assert_int_equal(procfs_for_each_pid(devnull, walk_fn, &w), -ENOTDIR);
	close(devnull);
	assert_int_equal(procfs_for_each_pid(-1, walk_fn, &w), -EBADF);

	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, NULL, 0), child);
}

/* rchar of /proc/self/io (bytes this process got from read()); -1 when the
 * kernel does not account it. */
static long long read_rchar(void)
{
	char buf[1024];
	long long v = -1;
	ssize_t n;
	int fd;

	fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "rchar: %lld", &v) != 1)
		return -1;
	return v;
}

/* ---- smaps_rollup, meminfo, cgroup ---- */

/* Captured here (kernel 6.18): a small process, and one that wrote 1 GiB. */
static void test_smaps_captured(void **state)
{
	struct smaps sm;

	(void)state;
	assert_int_equal(PARSE_FIXTURE(procfs_parse_smaps_rollup, "small.smaps_rollup", &sm), 0);
	assert_int_equal(sm.rss, 2592);
	assert_int_equal(sm.pss, 1183);
	assert_int_equal(sm.pss_anon, 1120);
	assert_int_equal(sm.pss_file, 63);
	assert_int_equal(sm.pss_shmem, 0);
	assert_int_equal(sm.shared_clean, 1460);
	assert_int_equal(sm.shared_dirty, 12);
	assert_int_equal(sm.private_clean, 0);
	assert_int_equal(sm.private_dirty, 1120);
	assert_int_equal(sm.anon, 1120);
	assert_int_equal(sm.swap, 0);
	assert_int_equal(sm.swap_pss, 0);
	assert_int_equal(PARSE_FIXTURE(procfs_parse_smaps_rollup, "1gib.smaps_rollup", &sm), 0);
	assert_int_equal(sm.rss, 1050208);
	assert_int_equal(sm.pss, 1048747);
	assert_int_equal(sm.private_dirty, 1048680);
	assert_int_equal(sm.anon, 1048680);
}

/* Before Linux 5.9 there is no Pss_Anon, Pss_File, Pss_Shmem: they read 0;
 * the largest values fit; anything missing, cut, malformed or too large is
 * refused and leaves the output alone. */
static void test_smaps_hostile(void **state)
{
	static const char *const bad[] = {
		"empty.smaps_rollup", "cut.smaps_rollup", "missing-pss.smaps_rollup",
		"garbage.smaps_rollup", "no-unit.smaps_rollup", "overflow.smaps_rollup",
		"meminfo",
	};
	struct smaps sm, canary;
	size_t i;

	(void)state;
	memset(&sm, 0x5a, sizeof(sm));
	assert_int_equal(PARSE_FIXTURE(procfs_parse_smaps_rollup, "old.smaps_rollup", &sm), 0);
	assert_int_equal(sm.pss, 1183);
	assert_int_equal(sm.pss_anon, 0);
	assert_int_equal(sm.pss_file, 0);
	assert_int_equal(sm.swap_pss, 0);
	assert_int_equal(sm.private_dirty, 1120);
	assert_int_equal(PARSE_FIXTURE(procfs_parse_smaps_rollup, "huge.smaps_rollup", &sm), 0);
	assert_true(sm.rss == ULLONG_MAX && sm.pss == ULLONG_MAX && sm.swap == ULLONG_MAX);
	assert_int_equal(sm.shared_dirty, 12);
	memset(&canary, 0x5a, sizeof(canary));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(&sm, &canary, sizeof(sm));
		if (PARSE_FIXTURE(procfs_parse_smaps_rollup, bad[i], &sm) != -EINVAL)
			fail_msg("%s was accepted", bad[i]);
		assert_memory_equal(&sm, &canary, sizeof(sm));
	}
}

/* Every prefix of a capture is refused until the last required line is
 * whole, and from there on reads as the whole file. */
/* VmPTE of status: the page tables; a kernel thread's status has none. */
static void test_status_pte(void **state)
{
	static const char status[] = "Name:\tw\nVmRSS:\t    1234 kB\nVmPTE:\t      88 kB\nVmSwap:\t0 kB\n";
	static const char kthread[] = "Name:\tkworker/0:1\nState:\tI (idle)\nThreads:\t1\n";
	unsigned long long kib = 7;

	(void)state;
	assert_int_equal(procfs_parse_status_pte(status, sizeof(status) - 1, &kib), 0);
	assert_int_equal(kib, 88);
	kib = 7;
	assert_int_equal(procfs_parse_status_pte(kthread, sizeof(kthread) - 1, &kib), -EINVAL);
	assert_int_equal(kib, 7); /* untouched */
	/* cut inside the line: not read, never a digit short */
	assert_int_equal(procfs_parse_status_pte(status, (size_t)(strstr(status, "88") + 1 - status), &kib),
			 -EINVAL);
}

static void test_smaps_every_truncation(void **state)
{
	struct smaps full, sm;
	size_t len, cut, need;
	char *buf, *copy;
	int ret;

	(void)state;
	buf = fixture("small.smaps_rollup", &len);
	memset(&full, 0, sizeof(full));
	assert_int_equal(procfs_parse_smaps_rollup(buf, len, &full), 0);
	need = (size_t)(strchr(strstr(buf, "\nAnonymous:") + 1, '\n') + 1 - buf);
	for (cut = 0; cut <= len; cut++) {
		copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, buf, cut);
		memset(&sm, 0, sizeof(sm));
		ret = procfs_parse_smaps_rollup(copy, cut, &sm);
		if (cut < need && ret != -EINVAL)
			fail_msg("cut at %zu accepted", cut);
		if (cut >= need) {
			assert_int_equal(ret, 0);
			assert_memory_equal(&sm, &full, sizeof(sm));
		}
		free(copy);
	}
	free(buf);
}

/* The avg10 figures of a PSI file; a "full" line is optional (the
 * machine-wide cpu file of older kernels had none); garbage is refused. */
static void test_psi_parse(void **state)
{
	static const char both[] = "some avg10=1.25 avg60=0.50 avg300=0.10 total=123\n"
				   "full avg10=0.75 avg60=0.00 avg300=0.00 total=45\n";
	static const char some[] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
	struct psi psi;

	(void)state;
	assert_int_equal(procfs_parse_psi(both, strlen(both), &psi), 0);
	assert_true(psi.some_avg10 == 1.25);
	assert_true(psi.full_avg10 == 0.75);
	assert_int_equal(procfs_parse_psi(some, strlen(some), &psi), 0);
	assert_true(psi.some_avg10 == 0);
	assert_true(psi.full_avg10 < 0);
	assert_int_equal(procfs_parse_psi("", 0, &psi), -EINVAL);
	assert_int_equal(procfs_parse_psi("some avg10=x\n", 13, &psi), -EINVAL);
	assert_int_equal(procfs_parse_psi("some avg10=250.0\n", 17, &psi), -EINVAL);
	assert_int_equal(procfs_parse_psi("full avg10=1.0\n", 15, &psi), -EINVAL);
}

/* The pid inside a process's own namespace: the last of NSpid. */
static void test_status_nspid(void **state)
{
	static const char nested[] = "Name:\tsh\nTgid:\t4242\nNSpid:\t4242\t17\t1\nPPid:\t1\n";
	static const char flat[] = "Name:\tsh\nNSpid:\t4242\n";
	static const char none[] = "Name:\tsh\nTgid:\t4242\n";
	static const char cut[] = "Name:\tsh\nNSpid:\t4242\t1";
	static const char bad[] = "NSpid:\t4242\tx\n";
	static const char forged[] = "Name:\tNSpid: 5\\nNSpid:\t7\nNSpid:\t9\n";

	(void)state;
	assert_int_equal(procfs_parse_status_nspid(nested, strlen(nested)), 1);
	assert_int_equal(procfs_parse_status_nspid(flat, strlen(flat)), 4242);
	assert_int_equal(procfs_parse_status_nspid(none, strlen(none)), -ENOENT);
	assert_int_equal(procfs_parse_status_nspid(cut, strlen(cut)), -EINVAL);
	assert_int_equal(procfs_parse_status_nspid(bad, strlen(bad)), -EINVAL);
	assert_int_equal(procfs_parse_status_nspid(forged, strlen(forged)), 9);
}

/* The boot time offset of a time namespace, by name or by clock id. */
static void test_timens_parse(void **state)
{
	static const char named[] = "monotonic 0 0\nboottime 100000 5\n";
	static const char ids[] = "1 7 0\n7 -20 0\n";

	(void)state;
	assert_true(procfs_parse_timens_boottime(named, strlen(named)) == 100000000000005LL);
	assert_true(procfs_parse_timens_boottime(ids, strlen(ids)) == -20000000000LL);
	assert_true(procfs_parse_timens_boottime("", 0) == 0);
	assert_true(procfs_parse_timens_boottime("monotonic 5 0\n", 14) == 0);
}

/* MemAvailable of a captured meminfo; none before Linux 3.14. */
static void test_meminfo_available(void **state)
{
	unsigned long long kib = 7;
	size_t len;
	char *buf;

	(void)state;
	buf = fixture("meminfo", &len);
	assert_int_equal(procfs_parse_meminfo_available(buf, len, &kib), 0);
	assert_int_equal(kib, 22019184);
	free(buf);
	buf = fixture("old.meminfo", &len);
	assert_int_equal(procfs_parse_meminfo_available(buf, len, &kib), -EINVAL);
	free(buf);
	buf = fixture("garbage.meminfo", &len);
	assert_int_equal(procfs_parse_meminfo_available(buf, len, &kib), -EINVAL);
	free(buf);
	assert_int_equal(procfs_parse_meminfo_available("MemAvailable: 5 kB\n", 19, &kib), 0);
	assert_int_equal(kib, 5);
	assert_int_equal(procfs_parse_meminfo_available("MemAvailable: 5 kB", 18, &kib), -EINVAL);
	assert_int_equal(procfs_parse_meminfo_available("", 0, &kib), -EINVAL);
}

/* The memory line of v1 (alone or in a list) wins over v2's; paths that
 * could leave the hierarchy are refused. */
static void test_cgroup_parse(void **state)
{
	struct procfs_cgroup cg;

	(void)state;
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "hybrid.cgroup", &cg), 0);
	assert_true(cg.v1);
	assert_string_equal(cg.path, "/process_api/d93c2de3a4a6066275aff8549943003b");
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "v2.cgroup", &cg), 0);
	assert_false(cg.v1);
	assert_string_equal(cg.path, "/system.slice/nginx.service");
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "cpu-memory.cgroup", &cg), 0);
	assert_true(cg.v1);
	assert_string_equal(cg.path, "/docker/abc");
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "cut.cgroup", &cg), 0);
	assert_true(cg.v1);
	assert_string_equal(cg.path, "/a");
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "no-memory.cgroup", &cg), -ENOENT);
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "empty.cgroup", &cg), -ENOENT);
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "dotdot.cgroup", &cg), -EINVAL);
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "relative.cgroup", &cg), -EINVAL);
	assert_int_equal(procfs_parse_cgroup("0::/a//b\n", 9, &cg), -EINVAL);
	assert_int_equal(procfs_parse_cgroup("0::/a/.\n", 8, &cg), -EINVAL);
	assert_int_equal(procfs_parse_cgroup("0::/\n", 5, &cg), 0);
	assert_string_equal(cg.path, "/");
	assert_int_equal(procfs_parse_cgroup("1:memoryx:/a\n0::/b\n", 19, &cg), 0);
	assert_false(cg.v1);
	assert_string_equal(cg.path, "/b");
}

/* ---- a directory made to look like /proc ---- */

static const char *const fake_names[] = {
	"12", "99", "2147483647", "012", "0", "-5", "+7", "7x", "abc",
	"2147483648", "4294967308", "99999999999999999999", "self",
};
static char fake_dir[PATH_MAX];

#define FAKE_PAD (256u << 10)       /* bytes of padding in fake 12/stat */

/* Write n bytes to dirfd/path, creating it. */
static int write_file(int dirfd, const char *path, const char *buf, size_t n)
{
	ssize_t w;
	int fd;

	fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	w = write(fd, buf, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

/* Copy a fixture to dirfd/path. */
static int copy_fixture(int dirfd, const char *name, const char *path)
{
	size_t len;
	char *buf = fixture(name, &len);
	int ret = write_file(dirfd, path, buf, len);

	free(buf);
	return ret;
}

/* Fill the fake /proc: pid-like and other names; in 12, a stat of 256 KiB
 * (a real line, then spaces before its newline) and a status; in 99, a stat
 * that is a directory. */
static int fake_fill(int fd)
{
	size_t i, len;
	char *big, *line;

	for (i = 0; i < sizeof(fake_names) / sizeof(fake_names[0]); i++) {
		if (mkdirat(fd, fake_names[i], 0700) < 0)
			return -1;
	}
	if (mkdirat(fd, "99/stat", 0700) < 0 ||
	    copy_fixture(fd, "thread.status", "12/status") < 0)
		return -1;
	big = malloc(FAKE_PAD);
	if (!big)
		return -1;
	line = fixture("cat.stat", &len);
	memset(big, ' ', FAKE_PAD);
	memcpy(big, line, len - 1); /* its newline goes at the very end */
	big[FAKE_PAD - 1] = '\n';
	free(line);
	i = (size_t)write_file(fd, "12/stat", big, FAKE_PAD);
	free(big);
	return (int)i;
}

/* Make an empty temporary directory to stand for /proc; its fd is the
 * test state. */
static int tmp_proc_setup(void **state)
{
	int fd;

	if (tmpdir_make(fake_dir, sizeof(fake_dir), "test_procfs") < 0)
		return -1;
	fd = open(fake_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	*state = (void *)(intptr_t)fd;
	return 0;
}

/* Make the fake /proc. */
static int fake_proc_setup(void **state)
{
	if (tmp_proc_setup(state) < 0)
		return -1;
	return fake_fill((int)(intptr_t)*state);
}

/* Remove the temporary /proc and all in it. */
static int tmp_proc_teardown(void **state)
{
	close((int)(intptr_t)*state);
	return tmpdir_remove(fake_dir);
}

/* Write "PATH\nCONTENT" pairs under dirfd, making the directories. */
static void write_tree(int dirfd, const char *const *files, size_t n)
{
	char path[PATH_MAX], *slash;
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		snprintf(path, sizeof(path), "%s", files[i]);
		for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			(void)mkdirat(dirfd, path, 0700);
			*slash = '/';
		}
		assert_int_equal(write_file(dirfd, path, files[i + 1], strlen(files[i + 1])), 0);
	}
}

/* Memory cgroups in a directory made to look like /proc and /sys/fs/cgroup:
 * the tightest limit on the way up counts; v1's huge limit and v2's "max"
 * are none; unreadable levels count as unlimited. */
static void test_fake_memcg(void **state)
{
	static const char *const files[] = {
		"1/cgroup", "4:memory:/a/b\n0::/\n",
		"cg/memory/a/memory.limit_in_bytes", "1073741824\n",
		"cg/memory/a/memory.usage_in_bytes", "536870912\n",
		"cg/memory/a/b/memory.limit_in_bytes", "9223372036854771712\n",
		"cg/memory/a/b/memory.usage_in_bytes", "104857600\n",
		"2/cgroup", "0::/s/t\n",
		"cg/unified/s/memory.max", "max\n",
		"cg/unified/s/memory.current", "4096000\n",
		"cg/unified/s/t/memory.max", "2097152\n",
		"cg/unified/s/t/memory.current", "1048576\n",
		"cg/unified/s/t/memory.pressure", "some avg10=3.25 avg60=1.00 avg300=0.00 total=9\n"
						  "full avg10=1.50 avg60=0.00 avg300=0.00 total=4\n",
		"cg/unified/u/memory.pressure", "garbage\n",
		"3/cgroup", "0::/\n",
		"4/cgroup", "0::/nomem/x\n",
		"cg/unified/nomem/x/cgroup.procs", "4\n",
		"5/cgroup", "0::/u\n",
		"cg/unified/u/memory.max", "max\n",
		"cg/unified/u/memory.current", "8192\n",
		"6/cgroup", "0::/bad\n",
		"cg/unified/bad/memory.max", "12x\n",
		"cg/unified/bad/memory.current", "8192\n",
		"7/cgroup", "3:cpu:/\n",
		"8/cgroup", "0::/../x\n",
	};
	static const struct {
		int pid, ret;
		unsigned long long limit, usage;
		bool psi; /* its cgroup v2's memory pressure read (only 2's is there and sane) */
	} want[] = {
		{ 1, 0, 1048576, 524288, false }, { 2, 0, 2048, 1024, true }, { 3, 0, 0, 0, false },
		{ 4, 0, 0, 0, false }, { 5, 0, 0, 8, false }, { 6, 0, 0, 0, false },
		{ 7, -ENOENT, 9, 9, false }, { 8, -EINVAL, 9, 9, false }, { 9, -ENOENT, 9, 9, false },
	};
	int fd = (int)(intptr_t)*state, cgfd;
	struct memcg cg;
	size_t i;

	write_tree(fd, files, sizeof(files) / sizeof(files[0]));
	cgfd = openat(fd, "cg", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(cgfd >= 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cg.limit_kib = cg.usage_kib = 9;
		cg.psi_known = false;
		if (procfs_read_memcg(fd, cgfd, want[i].pid, &cg) != want[i].ret)
			fail_msg("pid %d: not %d", want[i].pid, want[i].ret);
		assert_int_equal(cg.limit_kib, want[i].limit);
		assert_int_equal(cg.usage_kib, want[i].usage);
		assert_int_equal(cg.psi_known, want[i].psi);
	}
	procfs_read_memcg(fd, cgfd, 2, &cg);
	assert_true(cg.psi.some_avg10 == 3.25 && cg.psi.full_avg10 == 1.5);
	close(cgfd);
}

/* Only canonical decimal names that fit an int count as pids. */
static void test_fake_pid_names(void **state)
{
	int fd = (int)(intptr_t)*state;
	struct walk w;

	memset(&w, 0, sizeof(w));
	w.want[0] = 12;
	w.want[1] = 99;
	w.want[2] = INT_MAX;
	assert_int_equal(procfs_for_each_pid(fd, walk_fn, &w), 0);
	assert_int_equal(w.calls, 3);
	assert_true(w.seen[0] && w.seen[1] && w.seen[2]);
}

/* Oversized files are read only as far as the buffers go: a 256 KiB stat
 * still parses from its start. */
static void test_fake_bounded_reads(void **state)
{
	int fd = (int)(intptr_t)*state;
	struct proc_stat st;
	long long r0, r1;

	r0 = read_rchar();
	assert_int_equal(procfs_read_stat(fd, 12, &st), 0);
	r1 = read_rchar();
	if (r0 >= 0 && r1 >= 0)
		assert_true(r1 - r0 < (long long)(FAKE_PAD / 4));
	assert_int_equal(st.pid, 3744);
	assert_string_equal(st.comm, "cat");
	assert_int_equal(st.rss, 371);
	assert_int_equal(procfs_read_tgid(fd, 12), 22026);

	/* Read errors come back as -errno; missing files as -ENOENT. */
	assert_int_equal(procfs_read_stat(fd, 99, &st), -EISDIR);
	assert_int_equal(procfs_read_stat(fd, 13, &st), -ENOENT);
}

/* Write len bytes of s to dirfd/PID/cmdline, making PID/. */
static void write_cmdline(int dirfd, int pid, const char *s, size_t len)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%d", pid);
	assert_true(mkdirat(dirfd, path, 0755) == 0 || errno == EEXIST);
	snprintf(path, sizeof(path), "%d/cmdline", pid);
	fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, len), (ssize_t)len);
	close(fd);
}

/* A command line is read as one line, bounded by the buffer however long
 * the file is; a kernel thread's is empty; a process gone is -ENOENT. */
static void test_fake_cmdline(void **state)
{
	static const char args[] = "unicorn worker[3]\0-c\0app.rb\0";
	int fd = (int)(intptr_t)*state;
	char big[4096], buf[64];

	memset(big, 'a', sizeof(big));
	big[100] = '\0';
	write_cmdline(fd, 40, args, sizeof(args) - 1);
	write_cmdline(fd, 41, big, sizeof(big));
	write_cmdline(fd, 42, "", 0);
	assert_int_equal(procfs_read_cmdline(fd, 40, buf, sizeof(buf)), 27);
	assert_string_equal(buf, "unicorn worker[3] -c app.rb");
	assert_int_equal(procfs_read_cmdline(fd, 41, buf, sizeof(buf)), 63);
	assert_int_equal(strlen(buf), 63);
	assert_int_equal(procfs_read_cmdline(fd, 42, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(procfs_read_cmdline(fd, 43, buf, sizeof(buf)), -ENOENT);
	assert_string_equal(buf, "");
	assert_int_equal(procfs_read_cmdline(fd, 40, buf, 0), -EINVAL);
}

/* This process's own command line starts with its program. */
static void test_live_self_cmdline(void **state)
{
	char buf[256];

	(void)state;
	assert_true(procfs_read_cmdline(procfd, getpid(), buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "test_procfs"));
}

/* ---- procfs_for_each_object_at ---- */

#define MAX_OBJECTS 2048

struct objects {
	char *path[MAX_OBJECTS];
	int n;
	int stop_after;
};

/* Object callback: keep a copy of the path; stop when asked to. */
static int collect_object(const char *path, const char *at, void *arg)
{
	struct objects *o = arg;

	(void)at;
	if (o->n < MAX_OBJECTS) {
		o->path[o->n] = strdup(path);
		assert_non_null(o->path[o->n]);
	}
	o->n++;
	return o->stop_after && o->n == o->stop_after ? 7 : 0;
}

/* Free the paths of a collection. */
static void objects_free(struct objects *o)
{
	int i;

	for (i = 0; i < o->n && i < MAX_OBJECTS; i++)
		free(o->path[i]);
	free(o);
}

/* The objects pid maps, read through the directory dir. */
static struct objects *objects_of(const char *dir, int pid, int *ret)
{
	struct objects *o = calloc(1, sizeof(*o));
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_non_null(o);
	assert_true(fd >= 0);
	*ret = procfs_for_each_object_at(fd, pid, collect_object, o);
	close(fd);
	return o;
}

/* The directory holding the captured maps files, as a /proc tree. */
static const char *fixture_maps(char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/maps", fixtures_dir());
	return buf;
}

/* The hostile capture: only executable files still there, once each,
 * paths whole. */
static void test_maps_hostile(void **state)
{
	static const char *const want[] = {
		"/usr/bin/python3.11",
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/opt/my app/lib/with  two spaces.so",
		"/mnt/other/libc.so.6",
		"/usr/lib/jit\\012evil.so",
	};
	char dir[PATH_MAX];
	struct objects *o;
	size_t i;
	int ret;

	(void)state;
	o = objects_of(fixture_maps(dir, sizeof(dir)), 1, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(o->n, (int)(sizeof(want) / sizeof(want[0])));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(o->path[i], want[i]);
	objects_free(o);
}

/* No newline at the end; an empty file; nothing executable. */
static void test_maps_edges(void **state)
{
	char dir[PATH_MAX];
	struct objects *o;
	int ret;

	(void)state;
	fixture_maps(dir, sizeof(dir));
	o = objects_of(dir, 2, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(o->n, 1);
	assert_string_equal(o->path[0], "/usr/lib/x86_64-linux-gnu/libc.so.6");
	objects_free(o);
	o = objects_of(dir, 3, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(o->n, 0);
	objects_free(o);
	o = objects_of(dir, 4, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(o->n, 1);
	assert_string_equal(o->path[0], "/bin/static");
	objects_free(o);
}

/* A process that is not there, a pid that cannot be, and fn stopping. */
static void test_maps_errors_and_stop(void **state)
{
	char dir[PATH_MAX];
	struct objects *o;
	int ret, fd;

	(void)state;
	fixture_maps(dir, sizeof(dir));
	o = objects_of(dir, 99, &ret);
	assert_int_equal(ret, -ENOENT);
	objects_free(o);
	o = objects_of(dir, 0, &ret);
	assert_int_equal(ret, -EINVAL);
	objects_free(o);
	o = objects_of(dir, -1, &ret);
	assert_int_equal(ret, -EINVAL);
	objects_free(o);
	o = calloc(1, sizeof(*o));
	assert_non_null(o);
	o->stop_after = 2;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(procfs_for_each_object_at(fd, 1, collect_object, o), 7);
	close(fd);
	assert_int_equal(o->n, 2);
	objects_free(o);
}

/* Write a maps file for a made-up pid in the temporary /proc. */
static FILE *maps_create(int pid)
{
	char path[PATH_MAX];
	FILE *f;
	int n;

	n = snprintf(path, sizeof(path), "%s/%d", fake_dir, pid);
	assert_true(n > 0 && (size_t)n + sizeof("/maps") <= sizeof(path));
	mkdir(path, 0755);
	strcat(path, "/maps");
	f = fopen(path, "w");
	assert_non_null(f);
	return f;
}

/* Write a maps line of exactly len bytes (newline excluded) for an
 * executable file with the given inode, padding its path with 'x', and
 * with tail as the last bytes of the path. */
static void maps_line(FILE *f, size_t len, int inode, const char *tail)
{
	int n = fprintf(f, "1000-2000 r-xp 00000000 08:01 %d /", inode);
	size_t i, k = strlen(tail);

	assert_true(n > 0 && (size_t)n + k <= len);
	for (i = (size_t)n + k; i < len; i++)
		fputc('x', f);
	fputs(tail, f);
}

/* A line longer than PROCFS_MAPS_LINE_MAX, however long, is skipped whole,
 * even when what follows the bytes that fill the buffer reads as a maps
 * line of its own; lines before and after it are kept, and a line of
 * exactly PROCFS_MAPS_LINE_MAX bytes too. */
static void test_maps_long_line(void **state)
{
	static const char forged[] = "3000-4000 r-xp 00000000 08:01 66 /forged";
	const size_t max = PROCFS_MAPS_LINE_MAX;
	struct objects *o;
	size_t len;
	int ret, k;
	FILE *f;

	(void)state;
	for (k = 0; k < 4; k++) {
		len = k == 0 ? max + 1 + strlen(forged) : k == 1 ? max + 1 :
		    k == 2 ? 3 * max : 100000;
		f = maps_create(10 + k);
		maps_line(f, len, 1, forged);
		fprintf(f, "\n1000-2000 r-xp 00000000 08:01 2 /second\n");
		maps_line(f, max, 3, "/third");
		fputc('\n', f);
		maps_line(f, len, 4, forged); /* last, no newline */
		fclose(f);
		o = objects_of(fake_dir, 10 + k, &ret);
		assert_int_equal(ret, 0);
		if (o->n != 2)
			fail_msg("line of %zu bytes: %d objects, first %s", len, o->n, o->path[0]);
		assert_string_equal(o->path[0], "/second");
		assert_int_equal(strlen(o->path[1]), max - strlen("1000-2000 r-xp 00000000 08:01 3 "));
		objects_free(o);
	}
}

/* A path of PATH_MAX - 1 bytes, the longest there is, still fits. */
static void test_maps_longest_path(void **state)
{
	char *path = malloc(PATH_MAX);
	struct objects *o;
	int ret;
	FILE *f;

	(void)state;
	assert_non_null(path);
	memset(path, 'y', PATH_MAX - 1);
	path[0] = '/';
	path[PATH_MAX - 1] = '\0';
	f = maps_create(20);
	fprintf(f, "7ffd00100000-7ffd00102000 r-xp 00000000 fd:01 123456789012"
	    "                       %s (deleted)\n", path);
	fprintf(f, "7ffd00100000-7ffd00102000 r-xp 00000000 fd:01 123456789012"
	    "                       %s\n", path);
	fclose(f);
	o = objects_of(fake_dir, 20, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(o->n, 1);
	assert_string_equal(o->path[0], path);
	objects_free(o);
	free(path);
}

/* More distinct files than are remembered: each is still reported, and
 * memory stays bounded (a file past the limit may come twice). */
static void test_maps_many_objects(void **state)
{
	const int files = OBJSET_MAX + 100;
	char want[64];
	struct objects *o;
	int ret, i, j;
	FILE *f;

	(void)state;
	f = maps_create(30);
	for (i = 0; i < files; i++) {
		for (j = 0; j < 2; j++)
			fprintf(f, "%x000-%x000 r-xp 00000000 08:01 %d /lib/l%d.so\n",
			    2 * i + j + 1, 2 * i + j + 2, i + 1, i);
	}
	fclose(f);
	o = objects_of(fake_dir, 30, &ret);
	assert_int_equal(ret, 0);
	assert_true(o->n >= files && o->n <= 2 * files);
	for (i = 0; i < OBJSET_MAX; i++) {
		snprintf(want, sizeof(want), "/lib/l%d.so", i);
		assert_string_equal(o->path[i], want);
	}
	assert_string_equal(o->path[o->n - 1], "/lib/l1123.so");
	objects_free(o);
}

/* Whether a path ends in the basename of a libc. */
static bool is_libc(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libc-", 5) == 0;
}

/* Our own maps: this program and libc are there, once each, and nothing
 * that is not a file. */
static void test_maps_self(void **state)
{
	char exe[PATH_MAX];
	struct objects *o;
	bool self = false, libc = false;
	ssize_t n;
	int ret, i, j;

	(void)state;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	o = objects_of("/proc", getpid(), &ret);
	assert_int_equal(ret, 0);
	for (i = 0; i < o->n; i++) {
		assert_int_equal(o->path[i][0], '/');
		assert_null(strstr(o->path[i], "(deleted)"));
		for (j = 0; j < i; j++)
			assert_string_not_equal(o->path[i], o->path[j]);
		self = self || strcmp(o->path[i], exe) == 0;
		libc = libc || is_libc(o->path[i]);
	}
	assert_true(self);
	assert_true(libc);
	objects_free(o);
}

/* The family walk on a real fork: a child sharing 512 pre-touched pages
 * with this process shares them all; reading 64 fresh pages (the zero page,
 * where the kernel has one; else pages of its own) shares none more; once
 * it wrote 128 of the 512 its shared memory drops by those 128 pages and a
 * few of its own (its stack), never more. Without CAP_SYS_ADMIN pagemap
 * hides frame numbers: -EPERM, and the test is skipped. */
#define FAM_PAGES 512
#define FAM_FRESH 64
#define FAM_WRITES 128
#define FAM_SLACK 16 /* pages the child copies besides: stack, libc data */

/* A process with more private mappings than PROCFS_FAMILY_MAX_PAGES (a
 * sanitizer's shadow, a reserved arena: mapped, not present). Without
 * PAGEMAP_SCAN (forced here; on kernels before 6.7 the only way) it is not
 * walked: -E2BIG at once, before any of pagemap is read. With it, it is
 * walked like any other: the pages written in the sparse mapping count,
 * as the walk of every page mapped counts them. */
static void test_family_too_big(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long kib = (unsigned long long)page / 1024;
	size_t len = (size_t)(PROCFS_FAMILY_MAX_PAGES + 1) * (size_t)page;
	unsigned long long zero = 0;
	struct family_mem f = { 7, 7 }, all, scanned, none;
	int ret, i;
	char *huge;

	(void)state;
	huge = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (huge == MAP_FAILED)
		skip();
	assert_int_equal(procfs_read_family_way(procfd, getpid(), zero, PROCFS_FAMILY_WALK, &f), -E2BIG);
	assert_int_equal(f.anon_kib, 7); /* not written */
	assert_int_equal(f.shared_kib, 7);
	ret = procfs_zero_pfn(procfd, &zero);
	if (ret == -EPERM)
		skip();
	assert_int_equal(ret, 0);
	/* huge mapped, nothing present: the scan's way asks PAGEMAP_SCAN */
	ret = procfs_read_family_way(procfd, getpid(), zero, PROCFS_FAMILY_SCAN, &none);
	if (ret == -EOPNOTSUPP) {
		/* no PAGEMAP_SCAN: procfs_read_family falls back to the walk */
		assert_int_equal(procfs_read_family(procfd, getpid(), zero, &f), -E2BIG);
		munmap(huge, len);
		return;
	}
	assert_int_equal(ret, 0);
	for (i = 0; i < 8; i++)
		huge[(size_t)i * (len / 8)] = 1;
	assert_int_equal(procfs_read_family(procfd, getpid(), zero, &scanned), 0);
	assert_int_equal(procfs_read_family_way(procfd, getpid(), zero, WALK_ALL, &all), 0);
	assert_true(scanned.anon_kib >= none.anon_kib + 8 * kib);
	assert_true(all.anon_kib >= none.anon_kib + 8 * kib);
	munmap(huge, len);
}

/* Read a family's figures of pid every way, until two readings of every
 * page mapped agree (the process may still be settling: its stack, malloc):
 * then the readings from PAGEMAP_SCAN's ranges must agree too. */
static void family_same_ways(int pid, unsigned long long zero, struct family_mem *all)
{
	struct family_mem again, scanned, any;
	int tries;

	for (tries = 0; tries < 20; tries++) {
		assert_int_equal(procfs_read_family_way(procfd, pid, zero, WALK_ALL, all), 0);
		assert_int_equal(procfs_read_family_way(procfd, pid, zero, PROCFS_FAMILY_SCAN, &scanned), 0);
		assert_int_equal(procfs_read_family(procfd, pid, zero, &any), 0);
		assert_int_equal(procfs_read_family_way(procfd, pid, zero, WALK_ALL, &again), 0);
		if (all->anon_kib == again.anon_kib && all->shared_kib == again.shared_kib)
			break;
	}
	assert_true(tries < 20);
	assert_int_equal(scanned.anon_kib, all->anon_kib);
	assert_int_equal(scanned.shared_kib, all->shared_kib);
	assert_int_equal(any.anon_kib, all->anon_kib);
	assert_int_equal(any.shared_kib, all->shared_kib);
}

/* The walk over PAGEMAP_SCAN's ranges counts what the walk of every page
 * mapped counts, on the same state of two children (this process, walking,
 * changes under its own walks): a sparse 64 GiB NORESERVE mapping with a
 * few pages written and a few only read (the zero page), and a run of every
 * other page written (more ranges than one scan returns); 512 pages they
 * share, of which one child wrote 128; a private file mapping read and
 * written in part, by both sides. Skipped on kernels without PAGEMAP_SCAN
 * (test_family_too_big checks the fallback there); under the address
 * sanitizer, whose shadow the walk of every page would take minutes over,
 * the scan is held to the lower bounds only. */
#define WAYS_SPARSE (64ULL << 30)
#define WAYS_FILE_PAGES 8
#define WAYS_HOLES 1000 /* pages written one in two */

static void test_family_ways(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long zero = 0, kib = (unsigned long long)page / 1024;
	size_t sparse_len = (size_t)WAYS_SPARSE, file_len = WAYS_FILE_PAGES * (size_t)page;
	struct family_mem mem[2];
	volatile char *sparse, *file;
	int go[2], done[2], ret, fd, i, k;
	char *buf, c = 0;
	pid_t child[2];

	(void)state;
	ret = procfs_zero_pfn(procfd, &zero);
	if (ret == -EPERM)
		skip();
	assert_int_equal(ret, 0);
	sparse = mmap(NULL, sparse_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sparse == MAP_FAILED)
		skip();
	/* nothing present yet: the scan's way asks PAGEMAP_SCAN at once */
	if (procfs_read_family_way(procfd, getpid(), zero, PROCFS_FAMILY_SCAN, &mem[0]) == -EOPNOTSUPP) {
		munmap((void *)sparse, sparse_len);
		skip();
	}
	buf = mmap(NULL, FAM_PAGES * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	memset(buf, 1, FAM_PAGES * (size_t)page);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	file = mmap(NULL, file_len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	assert_true(file != MAP_FAILED);
	close(fd);
	for (i = 0; i < WAYS_FILE_PAGES; i++)
		c += file[(size_t)i * (size_t)page];
	file[0] = 1;
	file[2 * page] = 1;
	for (i = 0; i < 4; i++)
		sparse[(size_t)i * (sparse_len / 4) + (size_t)page * 3] = 1;
	for (i = 0; i < 16; i++)
		c += sparse[(2ULL << 30) + (size_t)i * (size_t)page];
	sparse[sparse_len - 1] = 1;
	for (i = 0; i < WAYS_HOLES; i++)
		sparse[(3ULL << 30) + 2 * (size_t)i * (size_t)page] = 1;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	for (k = 0; k < 2; k++) {
		child[k] = fork();
		assert_true(child[k] >= 0);
		if (child[k] > 0)
			continue;
		close(go[1]); /* the test's end gone, it reads the end of file */
		close(done[0]);
		for (i = 0; k == 0 && i < FAM_WRITES; i++)
			buf[i * page] = 2;
		for (i = 0; k == 0 && i < 16; i++)
			c += sparse[(5ULL << 30) + (size_t)i * (size_t)page];
		if (k == 0) {
			sparse[(7ULL << 30)] = 2;
			file[page] = 2;
		}
		if (write(done[1], &c, 1) != 1)
			_exit(1);
		(void)read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	for (k = 0; k < 2; k++)
		assert_int_equal(read(done[0], &c, 1), 1);
	for (k = 0; k < 2; k++)
		family_same_ways(child[k], zero, &mem[k]);
	close(go[1]);
	close(done[0]);
	for (k = 0; k < 2; k++) {
		assert_int_equal(waitpid(child[k], &ret, 0), child[k]);
		assert_true(WIFEXITED(ret) && WEXITSTATUS(ret) == 0);
	}
	/* what each child wrote or inherited, at the least */
	assert_true(mem[0].anon_kib >= (FAM_PAGES + WAYS_HOLES + 5 + 1 + 2 + 1) * kib);
	assert_true(mem[0].shared_kib >= (FAM_PAGES - FAM_WRITES + WAYS_HOLES + 5) * kib);
	assert_true(mem[1].anon_kib >= (FAM_PAGES + WAYS_HOLES + 5 + 2) * kib);
	assert_true(mem[1].shared_kib >= (FAM_PAGES + WAYS_HOLES + 5 + 2) * kib);
	munmap(buf, FAM_PAGES * (size_t)page);
	munmap((void *)sparse, sparse_len);
	munmap((void *)file, file_len);
}

/* Let the child take its next step and wait until it has. */
static void family_step(int go, int done)
{
	char c = 0;

	assert_int_equal(write(go, &c, 1), 1);
	assert_int_equal(read(done, &c, 1), 1);
}

static void test_family_live(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long zero = 0, kib = (unsigned long long)page / 1024;
	struct family_mem first, read_only, written, self;
	int go[2], done[2], ret, i;
	volatile char *fresh;
	char *buf, c = 0;
	pid_t child;

	(void)state;
	ret = procfs_zero_pfn(procfd, &zero);
	if (ret == -EPERM)
		skip();
	assert_int_equal(ret, 0);
	buf = mmap(NULL, FAM_PAGES * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	memset(buf, 1, FAM_PAGES * (size_t)page);
	fresh = mmap(NULL, FAM_FRESH * (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(fresh != MAP_FAILED);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(go[1]); /* the test's end gone, it reads the end of file */
		close(done[0]);
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < FAM_FRESH; i++)
			c += fresh[i * page];
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < FAM_WRITES; i++)
			buf[i * page] = 2;
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(done[0], &c, 1), 1);
	assert_int_equal(procfs_read_family(procfd, child, zero, &first), 0);
	family_step(go[1], done[0]);
	assert_int_equal(procfs_read_family(procfd, child, zero, &read_only), 0);
	family_step(go[1], done[0]);
	assert_int_equal(procfs_read_family(procfd, child, zero, &written), 0);
	assert_int_equal(procfs_read_family(procfd, getpid(), zero, &self), 0);
	assert_int_equal(write(go[1], &c, 1), 1);
	assert_int_equal(waitpid(child, &ret, 0), child);
	assert_true(WIFEXITED(ret) && WEXITSTATUS(ret) == 0);
	assert_true(first.shared_kib >= FAM_PAGES * kib);
	assert_true(first.shared_kib <= first.anon_kib);
	/* pages only read share nothing more (the zero page is no family's) */
	assert_true(read_only.shared_kib <= first.shared_kib + FAM_SLACK * kib);
	assert_true(first.shared_kib <= read_only.shared_kib + FAM_SLACK * kib);
	assert_true(read_only.shared_kib - written.shared_kib >= FAM_WRITES * kib);
	assert_true(read_only.shared_kib - written.shared_kib <= (FAM_WRITES + FAM_SLACK) * kib);
	assert_true(written.anon_kib >= read_only.anon_kib);
	assert_true(written.anon_kib <= read_only.anon_kib + FAM_SLACK * kib);
	assert_true(self.shared_kib <= self.anon_kib);
	assert_int_equal(procfs_read_family(procfd, INT_MAX, zero, &self), -ENOENT);
	munmap(buf, FAM_PAGES * (size_t)page);
	munmap((void *)fresh, FAM_FRESH * (size_t)page);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

/* The cached system constants. */
static void test_constants(void **state)
{
	(void)state;
	assert_int_equal(procfs_clock_ticks(), sysconf(_SC_CLK_TCK));
	assert_int_equal(procfs_clock_ticks(), sysconf(_SC_CLK_TCK));
	assert_int_equal(procfs_page_kib(), sysconf(_SC_PAGESIZE) / 1024);
	assert_int_equal(procfs_page_kib(), sysconf(_SC_PAGESIZE) / 1024);
}

/* Open /proc once for the live tests. */
static int setup(void **state)
{
	(void)state;
	procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return procfd < 0 ? -1 : 0;
}

/* Close /proc. */
static int teardown(void **state)
{
	(void)state;
	close(procfd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_live),
		cmocka_unit_test(test_family_too_big),
		cmocka_unit_test(test_family_ways),
		cmocka_unit_test(test_stat_cat),
		cmocka_unit_test(test_stat_multithread),
		cmocka_unit_test(test_stat_thread),
		cmocka_unit_test(test_stat_kernel_threads),
		cmocka_unit_test(test_stat_zombie),
		cmocka_unit_test(test_stat_traced),
		cmocka_unit_test(test_stat_hostile_names),
		cmocka_unit_test(test_stat_long_comm),
		cmocka_unit_test(test_stat_max_values),
		cmocka_unit_test(test_stat_malformed),
		cmocka_unit_test(test_stat_cut_after_rss),
		cmocka_unit_test(test_stat_every_truncation),
		cmocka_unit_test(test_status_tgid),
		cmocka_unit_test(test_cmdline_tidy),
		cmocka_unit_test(test_smaps_captured),
		cmocka_unit_test(test_smaps_hostile),
		cmocka_unit_test(test_status_pte),
		cmocka_unit_test(test_smaps_every_truncation),
		cmocka_unit_test(test_meminfo_available),
		cmocka_unit_test(test_psi_parse),
		cmocka_unit_test(test_timens_parse),
		cmocka_unit_test(test_status_nspid),
		cmocka_unit_test(test_cgroup_parse),
		cmocka_unit_test(test_live_self_stat),
		cmocka_unit_test(test_live_self_cmdline),
		cmocka_unit_test(test_live_missing),
		cmocka_unit_test(test_live_zombie),
		cmocka_unit_test(test_live_thread),
		cmocka_unit_test(test_live_smaps),
		cmocka_unit_test(test_live_for_each_pid),
		cmocka_unit_test_setup_teardown(test_fake_pid_names,
		    fake_proc_setup, tmp_proc_teardown),
		cmocka_unit_test_setup_teardown(test_fake_cmdline, tmp_proc_setup, tmp_proc_teardown),
		cmocka_unit_test_setup_teardown(test_fake_bounded_reads,
		    fake_proc_setup, tmp_proc_teardown),
		cmocka_unit_test_setup_teardown(test_fake_memcg,
		    tmp_proc_setup, tmp_proc_teardown),
		cmocka_unit_test(test_maps_hostile),
		cmocka_unit_test(test_maps_edges),
		cmocka_unit_test(test_maps_errors_and_stop),
		cmocka_unit_test_setup_teardown(test_maps_long_line,
		    tmp_proc_setup, tmp_proc_teardown),
		cmocka_unit_test_setup_teardown(test_maps_longest_path,
		    tmp_proc_setup, tmp_proc_teardown),
		cmocka_unit_test_setup_teardown(test_maps_many_objects,
		    tmp_proc_setup, tmp_proc_teardown),
		cmocka_unit_test(test_maps_self),
		cmocka_unit_test(test_constants),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
