/* Readers of /proc/PID files: bounded reads, the stat and status
 * parsers, the walk of /proc's pids. The memory readers are in
 * procfs_mem.c, the maps walker in procfs_maps.c. */
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

/* Fields of a stat line, numbered as in proc(5), that are skipped. */
#define STAT_SKIP_PGRP_TO_TPGID 4     /* fields 5..8 */
#define STAT_SKIP_MINFLT_TO_CMAJFLT 4 /* fields 10..13 */
#define STAT_SKIP_CUTIME_TO_NICE 4    /* fields 16..19 */
#define STAT_SKIP_ITREALVALUE 1       /* field 21 */

static atomic_long clock_ticks;
static atomic_long page_kib;

/* Parse a decimal with an optional '-' at the cursor, as parse_ull. */
static int parse_ll(struct cursor *c, long long *out)
{
	unsigned long long v;
	bool neg = false;
	struct cursor t = *c;

	if (t.p < t.end && *t.p == '-') {
		neg = true;
		t.p++;
	}
	if (parse_ull(&t, &v) < 0)
		return -EINVAL;
	if (v > (unsigned long long)LLONG_MAX + neg)
		return -EINVAL;
	if (neg)
		*out = v ? -(long long)(v - 1) - 1 : 0;
	else
		*out = (long long)v;
	*c = t;
	return 0;
}

/* Check that a field just parsed is followed by a separator inside the
 * buffer, so that a field cut short by the end is never taken as whole. */
static int field_end(const struct cursor *c)
{
	if (c->p >= c->end || (*c->p != ' ' && *c->p != '\n'))
		return -EINVAL;
	return 0;
}

/* Move past the spaces that must come before the next field. */
static int field_start(struct cursor *c)
{
	if (c->p >= c->end || *c->p != ' ')
		return -EINVAL;
	while (c->p < c->end && *c->p == ' ')
		c->p++;
	return 0;
}

/* Parse the next space-separated unsigned field. */
static int field_ull(struct cursor *c, unsigned long long *out)
{
	if (field_start(c) < 0 || parse_ull(c, out) < 0)
		return -EINVAL;
	return field_end(c);
}

/* Parse the next space-separated signed field. */
static int field_ll(struct cursor *c, long long *out)
{
	if (field_start(c) < 0 || parse_ll(c, out) < 0)
		return -EINVAL;
	return field_end(c);
}

/* Parse the next signed field, which must lie in [min, INT_MAX]. */
static int field_int(struct cursor *c, int min, int *out)
{
	long long v;

	if (field_ll(c, &v) < 0 || v < min || v > INT_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* Skip n signed numeric fields, checking each. */
static int field_skip(struct cursor *c, int n)
{
	long long v;

	while (n-- > 0) {
		if (field_ll(c, &v) < 0)
			return -EINVAL;
	}
	return 0;
}

/* Take the comm that starts at lparen: it runs to the last ')' of the
 * buffer, since the name itself may hold ')', spaces and newlines. Leaves
 * the cursor just after that ')'. */
static int stat_comm(struct cursor *c, const char *lparen,
    struct proc_stat *st)
{
	const char *rparen;
	size_t n;

	rparen = memrchr(lparen + 1, ')', (size_t)(c->end - lparen - 1));
	if (!rparen)
		return -EINVAL;
	n = (size_t)(rparen - lparen - 1);
	if (n > PROCFS_COMM_MAX - 1)
		n = PROCFS_COMM_MAX - 1;
	memcpy(st->comm, lparen + 1, n);
	st->comm[n] = '\0';
	c->p = rparen + 1;
	return 0;
}

/* Parse "PID (COMM) S" at the start of a stat line, leaving the cursor just
 * after the state letter. */
static int stat_head(struct cursor *c, struct proc_stat *st)
{
	long long pid;
	char s;

	if (parse_ll(c, &pid) < 0 || pid < 1 || pid > INT_MAX)
		return -EINVAL;
	if (c->end - c->p < 2 || c->p[0] != ' ' || c->p[1] != '(')
		return -EINVAL;
	if (stat_comm(c, c->p + 1, st) < 0)
		return -EINVAL;
	if (c->end - c->p < 2 || c->p[0] != ' ')
		return -EINVAL;
	s = c->p[1];
	if (!((s >= 'A' && s <= 'Z') || (s >= 'a' && s <= 'z')))
		return -EINVAL;
	st->pid = (int)pid;
	st->state = s;
	c->p += 2;
	return 0;
}

/* Parse the numeric fields 4 (ppid) to 24 (rss) of a stat line. */
static int stat_fields(struct cursor *c, struct proc_stat *st)
{
	if (field_int(c, 0, &st->ppid) < 0 ||
	    field_skip(c, STAT_SKIP_PGRP_TO_TPGID) < 0 ||
	    field_ull(c, &st->flags) < 0 ||
	    field_skip(c, STAT_SKIP_MINFLT_TO_CMAJFLT) < 0 ||
	    field_ull(c, &st->utime) < 0 ||
	    field_ull(c, &st->stime) < 0 ||
	    field_skip(c, STAT_SKIP_CUTIME_TO_NICE) < 0 ||
	    field_int(c, 0, &st->num_threads) < 0 ||
	    field_skip(c, STAT_SKIP_ITREALVALUE) < 0 ||
	    field_ull(c, &st->start_time) < 0 ||
	    field_ull(c, &st->vsize) < 0 ||
	    field_ll(c, &st->rss) < 0)
		return -EINVAL;
	return 0;
}

/* Parse the text of a stat file; see procfs.h. */
int procfs_parse_stat(const char *buf, size_t len, struct proc_stat *out)
{
	struct cursor c = { buf, buf + len };
	struct proc_stat st;

	memset(&st, 0, sizeof(st));
	if (stat_head(&c, &st) < 0 || stat_fields(&c, &st) < 0)
		return -EINVAL;
	*out = st;
	return 0;
}

/* Parse the value of a "Tgid:" line, the cursor just past the colon. */
static int status_tgid_value(struct cursor *c)
{
	unsigned long long v;

	while (c->p < c->end && (*c->p == '\t' || *c->p == ' '))
		c->p++;
	if (parse_ull(c, &v) < 0 || v < 1 || v > INT_MAX)
		return -EINVAL;
	if (c->p >= c->end || *c->p != '\n')
		return -EINVAL;
	return (int)v;
}

/* Move c just past key at the start of a line of a status file; -EINVAL
 * when there is no such line. The kernel escapes newlines in the name on
 * the first line, so a name cannot forge a line. */
static int status_find(struct cursor *c, const char *key)
{
	size_t klen = strlen(key);
	const char *nl;

	while (c->p < c->end) {
		if ((size_t)(c->end - c->p) >= klen && memcmp(c->p, key, klen) == 0) {
			c->p += klen;
			return 0;
		}
		nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
		if (!nl)
			break;
		c->p = nl + 1;
	}
	return -EINVAL;
}

/* Find the "Tgid:" line of a status file; see procfs.h. */
int procfs_parse_status_tgid(const char *buf, size_t len)
{
	struct cursor c = { buf, buf + len };

	if (status_find(&c, "Tgid:"))
		return -EINVAL;
	return status_tgid_value(&c);
}

/* The last pid of the "NSpid:" line of a status file; see procfs.h. */
int procfs_parse_status_nspid(const char *buf, size_t len)
{
	struct cursor c = { buf, buf + len };
	unsigned long long v = 0;
	int n = 0;

	if (status_find(&c, "NSpid:"))
		return -ENOENT;
	for (;;) {
		while (c.p < c.end && (*c.p == '\t' || *c.p == ' '))
			c.p++;
		if (c.p >= c.end || *c.p == '\n')
			break;
		if (parse_ull(&c, &v) < 0 || v < 1 || v > INT_MAX)
			return -EINVAL;
		n++;
	}
	if (!n || c.p >= c.end)
		return -EINVAL;
	return (int)v;
}

/* Make one line of the raw bytes of a cmdline file; see procfs.h. */
size_t procfs_tidy_cmdline(char *buf, size_t len)
{
	size_t i;

	while (len > 0 && buf[len - 1] == '\0')
		len--;
	for (i = 0; i < len; i++) {
		if (buf[i] == '\0')
			buf[i] = ' ';
	}
	buf[len] = '\0';
	return len;
}

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

/* The boot time offset in the text of timens_offsets; see procfs.h. */
long long procfs_parse_timens_boottime(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	long long secs, nsecs;
	char line[128];
	size_t n;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		n = (size_t)(nl - p) < sizeof(line) - 1 ? (size_t)(nl - p) : sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		if (sscanf(line, "boottime %lld %lld", &secs, &nsecs) == 2 ||
		    sscanf(line, "7 %lld %lld", &secs, &nsecs) == 2) /* CLOCK_BOOTTIME's id */
			return secs * 1000000000LL + nsecs;
	}
	return 0;
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
