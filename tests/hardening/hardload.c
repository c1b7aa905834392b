// SPDX-License-Identifier: GPL-2.0
/*
 * hardload: small hostile workloads for cowtop's hardening tests.
 *
 *   hardload names SECONDS HEX...
 *       After the go signal, fork one child per name (printing "name PID
 *       HEX" for each); each child names itself with prctl(PR_SET_NAME)
 *       with the bytes given in hex, copies 8 shared pages and sleeps
 *       SECONDS.
 *   hardload storm SECONDS RATE [AT_LEAST]
 *       After the go signal, fork short-lived children for SECONDS (RATE a
 *       second, 0: as fast as possible), then on until AT_LEAST have been
 *       forked (a slow machine storms longer; never past 5 x SECONDS);
 *       each copies one page and exits, reaped by the kernel. Prints
 *       "forked N", "failed N" (forks that failed) and "seconds S" at the
 *       end.
 *   hardload reuse PAGES_A PAGES_B SECONDS
 *       After the go signal, fork child A (named "reuse-a", copies PAGES_A
 *       pages, lives a second), then once it has gone, fork child B (named
 *       "reuse-b", copies PAGES_B pages, lives SECONDS) on A's pid, forced
 *       through /proc/sys/kernel/ns_last_pid. Prints "a PID", "b PID".
 *   hardload bigargs empty N SECONDS | bigargs big MIB SECONDS
 *       Exec "hardload hold SECONDS" with N empty arguments more, or with
 *       MIB mebibytes of arguments more (128 KiB less one byte each).
 *   hardload hold SECONDS [ARG]...
 *       Copy 8 shared pages in a child, print "ready PID", sleep SECONDS.
 *   hardload threads SECONDS
 *       Start a second thread, print "ready PID TID", sleep SECONDS.
 *   hardload leaderexit MIB SECONDS
 *       Dirty MIB mebibytes, start a second thread, end the main thread
 *       (pthread_exit: the process lives on in the other thread, its
 *       leader a zombie); the thread prints "ready PID" and exits the
 *       process after SECONDS.
 *   hardload zombie SECONDS
 *       Fork a child that exits at once; print "ready PID CHILD" and leave
 *       the child unreaped (a zombie) for SECONDS.
 *
 * "The go signal": print "ready PID" and wait for SIGUSR1. Children die
 * with their parent.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REGION_PAGES 256
#define NAME_PAGES 8
#define ARG_CHUNK (128 * 1024 - 1) /* the kernel's limit for one argument, NUL included */
#define REUSE_TRIES 1000

static char *region;
static size_t page_size;

/* Print a message and exit 2: the test is broken, not cowtop. */
static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fputs("hardload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* A non-negative number of seconds from the command line. */
static double seconds_arg(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0 || v > 86400)
		die("bad number of seconds '%s'", s);
	return v;
}

/* A non-negative count from the command line. */
static long count_arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < 0)
		die("bad count '%s'", s);
	return v;
}

/* Sleep s seconds, whatever signals come. */
static void sleep_for(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Map and touch the pages children share with us until they write. */
static void map_region(void)
{
	size_t i;

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	region = mmap(NULL, REGION_PAGES * page_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	for (i = 0; i < REGION_PAGES; i++)
		region[i * page_size] = 1;
}

/* Write n shared pages: n copies. */
static void copy_pages(long n)
{
	long i;

	for (i = 0; i < n && i < REGION_PAGES; i++)
		region[(size_t)i * page_size] = 2;
}

/* In a child: die with the parent. */
static void follow_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
}

/* Print "ready PID" and wait for SIGUSR1. */
static void wait_go(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (sigwait(&set, &sig))
		die("sigwait failed");
}

/* Decode hex into at most cap - 1 bytes, NUL-terminated. */
static void unhex(const char *hex, char *out, size_t cap)
{
	size_t n = 0;
	unsigned v;

	if (strlen(hex) % 2)
		die("odd hex string '%s'", hex);
	for (; hex[0] && n + 1 < cap; hex += 2) {
		if (sscanf(hex, "%2x", &v) != 1 || v == 0)
			die("bad hex string");
		out[n++] = (char)v;
	}
	out[n] = '\0';
}

static int mode_names(int argc, char **argv)
{
	double secs;
	pid_t parent = getpid(), pid;
	char name[16];
	int i;

	if (argc < 4)
		die("usage: names SECONDS HEX...");
	secs = seconds_arg(argv[2]);
	map_region();
	wait_go();
	for (i = 3; i < argc; i++) {
		unhex(argv[i], name, sizeof(name));
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (pid == 0) {
			follow_parent(parent);
			prctl(PR_SET_NAME, name);
			copy_pages(NAME_PAGES);
			sleep_for(secs);
			_exit(0);
		}
		printf("name %d %s\n", (int)pid, argv[i]);
	}
	fflush(stdout);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
}

static int mode_storm(int argc, char **argv)
{
	struct timespec t0, now;
	double secs, rate, el;
	long forked = 0, failed = 0, at_least;
	pid_t pid;

	if (argc != 4 && argc != 5)
		die("usage: storm SECONDS RATE [AT_LEAST]");
	secs = seconds_arg(argv[2]);
	rate = (double)count_arg(argv[3]);
	at_least = argc == 5 ? count_arg(argv[4]) : 0;
	map_region();
	signal(SIGCHLD, SIG_IGN); /* children are reaped by the kernel */
	wait_go();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (el >= secs && (forked >= at_least || el >= 5 * secs))
			break;
		if (rate > 0 && (double)forked >= el * rate) {
			sleep_for(0.001);
			continue;
		}
		pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
		if (pid == 0) {
			region[0] = 3; /* one copy */
			_exit(0);
		}
		if (pid < 0) {
			failed++;
			sleep_for(0.001);
			continue;
		}
		forked++;
	}
	printf("forked %ld\nfailed %ld\nseconds %.1f\n", forked, failed, el);
	return 0;
}

/* Fork a child that waits for a byte on a pipe: 'y' runs fn, else it exits. */
static pid_t fork_gated(int *gate, void (*fn)(long, double), long pages, double secs)
{
	pid_t parent = getpid(), pid;
	int p[2];
	char c = 0;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		follow_parent(parent);
		close(p[1]);
		if (read(p[0], &c, 1) != 1 || c != 'y')
			_exit(0);
		fn(pages, secs);
		_exit(0);
	}
	close(p[0]);
	*gate = p[1];
	return pid;
}

static void child_a(long pages, double secs)
{
	prctl(PR_SET_NAME, "reuse-a");
	copy_pages(pages);
	sleep_for(secs);
}

static void child_b(long pages, double secs)
{
	prctl(PR_SET_NAME, "reuse-b");
	copy_pages(pages);
	sleep_for(secs);
}

/* Open the next-pid knob, locked against other users of it. */
static int open_last_pid(void)
{
	int fd = open("/proc/sys/kernel/ns_last_pid", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("ns_last_pid: %s", strerror(errno));
	if (flock(fd, LOCK_EX))
		die("flock ns_last_pid: %s", strerror(errno));
	return fd;
}

static int mode_reuse(int argc, char **argv)
{
	long pa, pb;
	double secs;
	pid_t a, b = -1;
	char buf[32];
	int gate, fd, i, n;

	if (argc != 5)
		die("usage: reuse PAGES_A PAGES_B SECONDS");
	pa = count_arg(argv[2]);
	pb = count_arg(argv[3]);
	secs = seconds_arg(argv[4]);
	map_region();
	wait_go();
	a = fork_gated(&gate, child_a, pa, 1.0);
	printf("a %d\n", (int)a);
	fflush(stdout);
	if (write(gate, "y", 1) != 1)
		die("gate: %s", strerror(errno));
	close(gate);
	if (waitpid(a, NULL, 0) != a)
		die("waitpid: %s", strerror(errno));
	fd = open_last_pid();
	for (i = 0; i < REUSE_TRIES; i++) {
		n = snprintf(buf, sizeof(buf), "%d", (int)a - 1);
		if (pwrite(fd, buf, (size_t)n, 0) != n)
			die("write ns_last_pid: %s", strerror(errno));
		b = fork_gated(&gate, child_b, pb, secs);
		if (b == a)
			break;
		close(gate); /* not ours: it exits on EOF */
		waitpid(b, NULL, 0);
	}
	flock(fd, LOCK_UN);
	close(fd);
	if (b != a)
		die("pid %d could not be reused", (int)a);
	printf("b %d\n", (int)b);
	fflush(stdout);
	if (write(gate, "y", 1) != 1)
		die("gate: %s", strerror(errno));
	close(gate);
	waitpid(b, NULL, 0);
	return 0;
}

static int mode_bigargs(int argc, char **argv)
{
	struct rlimit rl = { 256UL << 20, 256UL << 20 };
	char **av, *chunk = NULL, self[4096];
	long n, i, nargs;

	if (argc != 5)
		die("usage: bigargs empty N SECONDS | bigargs big MIB SECONDS");
	n = count_arg(argv[3]);
	if (strcmp(argv[2], "empty") == 0) {
		nargs = n;
	} else if (strcmp(argv[2], "big") == 0) {
		nargs = (n << 20) / ARG_CHUNK;
		chunk = malloc(ARG_CHUNK);
		if (!chunk)
			die("out of memory");
		memset(chunk, 'A', ARG_CHUNK - 1);
		chunk[ARG_CHUNK - 1] = '\0';
	} else {
		die("bigargs: 'empty' or 'big'");
	}
	/* exec takes arguments up to a quarter of the stack limit */
	if (setrlimit(RLIMIT_STACK, &rl))
		die("setrlimit: %s", strerror(errno));
	av = calloc((size_t)nargs + 4, sizeof(*av));
	if (!av)
		die("out of memory");
	av[0] = argv[0];
	av[1] = "hold";
	av[2] = argv[4];
	for (i = 0; i < nargs; i++)
		av[3 + i] = chunk ? chunk : "";
	/* by its own name, so that it shows as "hardload" */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		die("readlink /proc/self/exe: %s", strerror(errno));
	self[n] = '\0';
	execv(self, av);
	die("exec with %ld more arguments: %s", nargs, strerror(errno));
}

static int mode_hold(int argc, char **argv)
{
	pid_t parent = getpid(), pid;
	double secs;

	if (argc < 3)
		die("usage: hold SECONDS [ARG]...");
	secs = seconds_arg(argv[2]);
	map_region();
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		follow_parent(parent);
		copy_pages(NAME_PAGES);
		sleep_for(secs);
		_exit(0);
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sleep_for(secs);
	return 0;
}

static int tid_pipe[2];

/* The second thread: say who it is, then sleep. */
static void *thread_main(void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		_exit(2);
	sleep_for(*(double *)arg);
	return NULL;
}

static int mode_threads(int argc, char **argv)
{
	static double secs;
	pthread_t th;
	pid_t tid;

	if (argc != 3)
		die("usage: threads SECONDS");
	secs = seconds_arg(argv[2]);
	if (pipe(tid_pipe))
		die("pipe: %s", strerror(errno));
	if (pthread_create(&th, NULL, thread_main, &secs))
		die("pthread_create failed");
	if (read(tid_pipe[0], &tid, sizeof(tid)) != sizeof(tid))
		die("no thread id");
	printf("ready %d %d\n", (int)getpid(), (int)tid);
	fflush(stdout);
	pthread_join(th, NULL);
	return 0;
}

static double leader_secs;
static char *volatile leader_mem; /* kept: the compiler must not drop the writes */

/* The thread that outlives main: says ready, waits, ends the process. */
static void *leader_thread(void *arg)
{
	(void)arg;
	sleep_for(0.2); /* let main's pthread_exit happen */
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sleep_for(leader_secs);
	exit(0);
}

static int mode_leaderexit(int argc, char **argv)
{
	pthread_t th;
	size_t len;
	char *mem;

	if (argc != 4)
		die("usage: leaderexit MIB SECONDS");
	len = (size_t)atoi(argv[2]) << 20;
	leader_secs = seconds_arg(argv[3]);
	mem = malloc(len);
	if (!mem)
		die("malloc failed");
	memset(mem, 1, len);
	leader_mem = mem;
	if (pthread_create(&th, NULL, leader_thread, NULL))
		die("pthread_create failed");
	pthread_exit(NULL);
}

static int mode_zombie(int argc, char **argv)
{
	pid_t pid;

	if (argc != 3)
		die("usage: zombie SECONDS");
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	usleep(100000);
	printf("ready %d %d\n", (int)getpid(), (int)pid);
	fflush(stdout);
	sleep_for(seconds_arg(argv[2]));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		die("usage: hardload names|storm|reuse|bigargs|hold|threads|leaderexit|zombie ...");
	if (strcmp(argv[1], "names") == 0)
		return mode_names(argc, argv);
	if (strcmp(argv[1], "storm") == 0)
		return mode_storm(argc, argv);
	if (strcmp(argv[1], "reuse") == 0)
		return mode_reuse(argc, argv);
	if (strcmp(argv[1], "bigargs") == 0)
		return mode_bigargs(argc, argv);
	if (strcmp(argv[1], "hold") == 0)
		return mode_hold(argc, argv);
	if (strcmp(argv[1], "threads") == 0)
		return mode_threads(argc, argv);
	if (strcmp(argv[1], "leaderexit") == 0)
		return mode_leaderexit(argc, argv);
	if (strcmp(argv[1], "zombie") == 0)
		return mode_zombie(argc, argv);
	die("unknown mode '%s'", argv[1]);
}
