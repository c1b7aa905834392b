/* Unit tests of the /proc readers of processes: stat, Tgid, cmdline and
 * the walk over pids, on the live /proc (this process, a thread, a child, a
 * zombie) and on directories made to look like it (pid-like names, oversized
 * files). Fixtures live in $FIXTURES_DIR/proc, else under FIXTURES_DIR. */
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
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "procfs_fixture.h"
#include "procfs.h"

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

/* ---- a directory made to look like /proc ---- */

static const char *const fake_names[] = {
	"12", "99", "2147483647", "012", "0", "-5", "+7", "7x", "abc",
	"2147483648", "4294967308", "99999999999999999999", "self",
};

#define FAKE_PAD (256u << 10)       /* bytes of padding in fake 12/stat */

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

/* Make the fake /proc. */
static int fake_proc_setup(void **state)
{
	if (tmp_proc_setup(state) < 0)
		return -1;
	return fake_fill((int)(intptr_t)*state);
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
	assert_non_null(strstr(buf, "test_procfs_live"));
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
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_self_stat),
		cmocka_unit_test(test_live_self_cmdline),
		cmocka_unit_test(test_live_missing),
		cmocka_unit_test(test_live_zombie),
		cmocka_unit_test(test_live_thread),
		cmocka_unit_test(test_live_for_each_pid),
		cmocka_unit_test_setup_teardown(test_fake_pid_names, fake_proc_setup, tmp_proc_teardown),
		cmocka_unit_test_setup_teardown(test_fake_cmdline, tmp_proc_setup, tmp_proc_teardown),
		cmocka_unit_test_setup_teardown(test_fake_bounded_reads, fake_proc_setup, tmp_proc_teardown),
		cmocka_unit_test(test_constants),
	};
	return cmocka_run_group_tests(tests, procfd_setup, procfd_teardown);
}
