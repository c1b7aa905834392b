/* Kept /proc/PID/stat files: an open-addressing table from pid to fd. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>
#include "statfds.h"

#define STAT_BUF 4096
#define FD_RESERVE 256 /* files left for everything else cowtop opens */

struct slot {
	int pid; /* 0 empty, -1 deleted */
	int fd;
};

struct statfds {
	int procfd;
	size_t max_open, nopen, nused; /* used: live and deleted slots */
	size_t cap;                    /* a power of two */
	struct slot *v;
};

/* Whether fd is a directory of procfs. */
static bool on_procfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

struct statfds *statfds__new(int procfd, size_t max_open)
{
	struct statfds *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->procfd = procfd;
	/* Only procfs fails the read of a gone process: a directory of
	 * fixtures would be read through its deleted files. */
	s->max_open = on_procfs(procfd) ? max_open : 0;
	return s;
}

void statfds__free(struct statfds *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->cap; i++)
		if (s->v[i].pid > 0)
			close(s->v[i].fd);
	free(s->v);
	free(s);
}

/* The slot of pid, or NULL. */
static struct slot *find(struct statfds *s, int pid)
{
	size_t i, h;

	if (!s->cap)
		return NULL;
	h = (size_t)pid * 2654435761u;
	for (i = 0; i < s->cap; i++) {
		struct slot *e = &s->v[(h + i) & (s->cap - 1)];

		if (e->pid == pid)
			return e;
		if (e->pid == 0)
			return NULL;
	}
	return NULL;
}

/* Place pid's fd in the first free or deleted slot of its probe sequence
 * (the table has room). */
static void place(struct statfds *s, int pid, int fd)
{
	size_t h = (size_t)pid * 2654435761u, i;

	for (i = 0;; i++) {
		struct slot *e = &s->v[(h + i) & (s->cap - 1)];

		if (e->pid <= 0) {
			s->nused += e->pid == 0;
			e->pid = pid;
			e->fd = fd;
			s->nopen++;
			return;
		}
	}
}

/* Make the table at most half used with one more entry: a larger table
 * when it is mostly open files, a rehash that drops deleted slots when
 * not. 0 or -ENOMEM. */
static int make_room(struct statfds *s)
{
	struct slot *old = s->v;
	size_t oldcap = s->cap, cap = s->cap ? s->cap : 64, i;

	if ((s->nused + 1) * 2 <= s->cap)
		return 0;
	while ((s->nopen + 1) * 4 > cap)
		cap *= 2;
	s->v = calloc(cap, sizeof(*s->v));
	if (!s->v) {
		s->v = old;
		return -ENOMEM;
	}
	s->cap = cap;
	s->nused = s->nopen = 0;
	for (i = 0; i < oldcap; i++)
		if (old[i].pid > 0)
			place(s, old[i].pid, old[i].fd);
	free(old);
	return 0;
}

/* Close and forget the file of slot e. */
static void drop_slot(struct statfds *s, struct slot *e)
{
	close(e->fd);
	e->pid = -1;
	s->nopen--;
}

void statfds__drop(struct statfds *s, int pid)
{
	struct slot *e = s ? find(s, pid) : NULL;

	if (e)
		drop_slot(s, e);
}

/* Read all of fd from its start into buf: the bytes read, or -errno. */
static ssize_t read_from_start(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n < cap) {
		r = pread(fd, buf + n, cap - n, (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	return (ssize_t)n;
}

/* The kept file of pid, opened now if there is room; -1 when it is not
 * kept (then the caller reads the path once). */
static int kept_fd(struct statfds *s, int pid)
{
	struct slot *e = find(s, pid);
	char path[32];
	int fd;

	if (e)
		return e->fd;
	if (s->nopen >= s->max_open || make_room(s))
		return -1;
	snprintf(path, sizeof(path), "%d/stat", pid);
	fd = openat(s->procfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	place(s, pid, fd);
	return fd;
}

int statfds__read(struct statfds *s, int pid, struct proc_stat *out)
{
	char buf[STAT_BUF];
	ssize_t n;
	int fd;

	if (pid <= 0)
		return -EINVAL;
	fd = kept_fd(s, pid);
	if (fd < 0)
		return procfs_read_stat(s->procfd, pid, out);
	n = read_from_start(fd, buf, sizeof(buf));
	if (n <= 0) {
		statfds__drop(s, pid); /* gone (ESRCH): a new process may take the pid */
		return n < 0 ? (int)n : -ESRCH;
	}
	n = procfs_parse_stat(buf, (size_t)n, out);
	/* The main thread has exited, others run: the figures are a live
	 * thread's, which the kept file does not give (rare: read anew). */
	if (!n && out->state == 'Z' && out->num_threads > 1)
		return procfs_read_stat(s->procfd, pid, out);
	return (int)n;
}

size_t statfds_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return 1 << 20;
	return rl.rlim_cur > FD_RESERVE ? (size_t)(rl.rlim_cur - FD_RESERVE) : 0;
}
