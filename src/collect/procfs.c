/* Readers of /proc/PID files: bounded reads of stat, status and cmdline,
 * the walk of /proc's pids. Their parsers are in procfs_parse.c, the
 * memory readers in procfs_mem.c, the maps walker in procfs_maps.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "procfs.h"
#include "procfs_int.h"

/* Read buffers. A stat line is about 52 numbers and a comm of at most 64
 * bytes; Tgid is the fourth line of status, after an escaped comm. */
#define STAT_BUF 4096
#define STATUS_BUF 4096
#define PATH_BUF 32

static atomic_long clock_ticks;
static atomic_long page_kib;

/* Build "PID/name" in path. Returns 0, or -EINVAL for a pid that cannot be
 * a process. */
static int pid_path(char *path, size_t cap, int pid, const char *name)
{
	int n;

	if (pid <= 0)
		return -EINVAL;
	n = snprintf(path, cap, "%d/%s", pid, name);
	if (n < 0 || (size_t)n >= cap)
		return -EINVAL;
	return 0;
}

/* Open /proc/PID/name for reading. Returns the fd or -errno. */
int procfs_pid_open(int procfd, int pid, const char *name)
{
	char path[PATH_BUF];
	int fd, err;

	err = pid_path(path, sizeof(path), pid, name);
	if (err < 0)
		return err;
	fd = openat(procfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

/* Read up to cap bytes of the file at path relative to dirfd, whatever its
 * size. Returns the bytes read or -errno. */
ssize_t procfs_read_file_at(int dirfd, const char *path, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;
	int fd, err = 0;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	while (n < cap) {
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return err < 0 ? err : (ssize_t)n;
}

/* Read up to cap bytes of /proc/PID/name, whatever its size. Returns the
 * bytes read or -errno. */
ssize_t procfs_read_pid_file(int procfd, int pid, const char *name,
    char *buf, size_t cap)
{
	char path[PATH_BUF];
	int err;

	err = pid_path(path, sizeof(path), pid, name);
	if (err < 0)
		return err;
	return procfs_read_file_at(procfd, path, buf, cap);
}

/* Read and parse the stat file at path (relative to procfd). */
static int read_stat_at(int procfd, const char *path, struct proc_stat *out)
{
	char buf[STAT_BUF];
	ssize_t n = procfs_read_file_at(procfd, path, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return procfs_parse_stat(buf, (size_t)n, out);
}

/* Read up to cap bytes of /proc/PID/name in one read: for a file whose
 * read fills the buffer whatever it takes (cmdline: the kernel copies the
 * arguments until cap or their end), a short read is the end, and a
 * second read to see 0 would cost a system call for nothing. */
static ssize_t read_once(int procfd, int pid, const char *name, char *buf, size_t cap)
{
	char path[PATH_BUF];
	ssize_t r;
	int fd, err = pid_path(path, sizeof(path), pid, name);

	if (err < 0)
		return err;
	fd = openat(procfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	do
		r = read(fd, buf, cap);
	while (r < 0 && errno == EINTR);
	err = r < 0 ? -errno : 0;
	close(fd);
	return err < 0 ? err : r;
}

/* Read /proc/PID/cmdline as one line; see procfs.h. Only cap - 1 bytes
 * are asked for: the kernel copies them out of the process's memory, so
 * a long command line costs no more than a short one. */
ssize_t procfs_read_cmdline(int procfd, int pid, char *buf, size_t cap)
{
	ssize_t n;

	if (cap == 0)
		return -EINVAL;
	n = read_once(procfd, pid, "cmdline", buf, cap - 1);
	if (n < 0) {
		buf[0] = '\0';
		return n;
	}
	return (ssize_t)procfs_tidy_cmdline(buf, (size_t)n);
}

static int entry_pid(const char *name);

/* The main thread of pid has exited while other threads run: its stat says
 * Z with no memory (the figures go through the leader's mm, gone). Take the
 * state and the memory figures from a live thread. */
static void from_live_thread(int procfd, int pid, struct proc_stat *out)
{
	char path[PATH_BUF + 32];
	struct proc_stat t;
	struct dirent *de;
	DIR *dir;
	int fd, tid;

	snprintf(path, sizeof(path), "%d/task", pid);
	fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		tid = entry_pid(de->d_name);
		if (tid <= 0 || tid == pid)
			continue;
		snprintf(path, sizeof(path), "%d/task/%d/stat", pid, tid);
		if (read_stat_at(procfd, path, &t) || t.state == 'Z' || t.state == 'X')
			continue;
		out->state = t.state;
		out->vsize = t.vsize;
		out->rss = t.rss;
		break;
	}
	closedir(dir);
}

/* Read and parse /proc/PID/stat; see procfs.h. */
int procfs_read_stat(int procfd, int pid, struct proc_stat *out)
{
	char path[PATH_BUF];
	int err = pid_path(path, sizeof(path), pid, "stat");

	if (err < 0)
		return err;
	err = read_stat_at(procfd, path, out);
	if (!err && out->state == 'Z' && out->num_threads > 1)
		from_live_thread(procfd, pid, out);
	return err;
}

/* Read the tgid of a pid from /proc/PID/status; see procfs.h. */
int procfs_read_tgid(int procfd, int pid)
{
	char buf[STATUS_BUF];
	ssize_t n;

	n = procfs_read_pid_file(procfd, pid, "status", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return procfs_parse_status_tgid(buf, (size_t)n);
}

/* Whether pid is in the PID namespace of procfd's /proc itself (its
 * ns/pid link reads the same as self's): then its pid there is pid. A link
 * is much cheaper to read than status, which the kernel formats whole. */
static bool same_pidns(int procfd, int pid, struct procfs_pidns *self)
{
	char path[PATH_BUF], theirs[64];
	ssize_t b;

	if (!self->len) {
		self->len = readlinkat(procfd, "self/ns/pid", self->link, sizeof(self->link));
		if (self->len <= 0)
			self->len = -1;
	}
	snprintf(path, sizeof(path), "%d/ns/pid", pid);
	b = readlinkat(procfd, path, theirs, sizeof(theirs));
	return self->len > 0 && self->len == b && memcmp(self->link, theirs, (size_t)b) == 0;
}

/* Read the pid of pid in its own namespace; see procfs.h. */
int procfs_read_nspid(int procfd, int pid, struct procfs_pidns *self)
{
	char buf[STATUS_BUF];
	ssize_t n;

	if (same_pidns(procfd, pid, self))
		return pid;
	n = procfs_read_pid_file(procfd, pid, "status", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return procfs_parse_status_nspid(buf, (size_t)n);
}

/* The pid a /proc entry name stands for, or -1 when it is not a pid: only
 * canonical decimals (no sign, no leading zero) that fit an int. */
static int entry_pid(const char *name)
{
	struct cursor c = { name, name + strlen(name) };
	unsigned long long v;

	if (name[0] == '0' || parse_ull(&c, &v) < 0 || c.p != c.end)
		return -1;
	if (v > INT_MAX)
		return -1;
	return (int)v;
}

/* Call fn for every process in /proc; see procfs.h. */
int procfs_for_each_pid(int procfd, int (*fn)(int pid, void *arg), void *arg)
{
	struct dirent *de;
	DIR *dir;
	int fd, pid, ret = 0;

	/* A new open file description: the caller's fd offset is untouched. */
	fd = openat(procfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		ret = -errno;
		close(fd);
		return ret;
	}
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			ret = errno ? -errno : 0;
			break;
		}
		pid = entry_pid(de->d_name);
		if (pid <= 0)
			continue;
		ret = fn(pid, arg);
		if (ret != 0)
			break;
	}
	closedir(dir);
	return ret;
}

/* Clock ticks per second, cached; see procfs.h. */
long procfs_clock_ticks(void)
{
	long v = atomic_load_explicit(&clock_ticks, memory_order_relaxed);

	if (v > 0)
		return v;
	v = sysconf(_SC_CLK_TCK);
	if (v <= 0)
		v = 100;
	atomic_store_explicit(&clock_ticks, v, memory_order_relaxed);
	return v;
}

/* Page size in KiB, cached; see procfs.h. */
long procfs_page_kib(void)
{
	long v = atomic_load_explicit(&page_kib, memory_order_relaxed);

	if (v > 0)
		return v;
	v = sysconf(_SC_PAGESIZE) / 1024;
	if (v <= 0)
		v = 4;
	atomic_store_explicit(&page_kib, v, memory_order_relaxed);
	return v;
}

/* The boot time offset of cowtop's time namespace; see procfs.h. */
long long procfs_timens_boottime_ns(void)
{
	char buf[256];
	ssize_t n = procfs_read_file_at(AT_FDCWD, "/proc/self/timens_offsets", buf, sizeof(buf));

	return n > 0 ? procfs_parse_timens_boottime(buf, (size_t)n) : 0;
}

/* The inode of the initial PID namespace (the kernel's PROC_PID_INIT_INO,
 * fixed since 3.8). */
#define PIDNS_INIT_INO 0xEFFFFFFCU

/* Whether cowtop runs in the initial PID namespace; see procfs.h. */
bool procfs_pidns_is_initial(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return true;
	return st.st_ino == PIDNS_INIT_INO;
}
