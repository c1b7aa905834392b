/* The walker of /proc/PID/maps: every executable file a process maps,
 * each once, read through a fixed buffer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "objset.h"
#include "procfs.h"
#include "procfs_int.h"

/* Room for the longest maps line, its newline and a NUL. */
#define MAPS_BUF (PROCFS_MAPS_LINE_MAX + 2)
#define DELETED_SUFFIX " (deleted)"

/* Lines of a maps file, read through a fixed buffer. */
struct maps_reader {
	int fd;
	bool eof;
	bool skipping; /* inside a line too long for the buffer */
	size_t start, len;
	char buf[MAPS_BUF];
};

/* One executable file mapping, as a maps line describes it. */
struct maps_entry {
	unsigned long long dev, inode;
	unsigned long long start, end;
	const char *path;
};

/* Read more of the maps file, after what is left of the current line. A
 * line that fills the whole buffer is dropped and the rest of it skipped. */
static int maps_fill(struct maps_reader *r)
{
	ssize_t n;

	memmove(r->buf, r->buf + r->start, r->len - r->start);
	r->len -= r->start;
	r->start = 0;
	if (r->len == sizeof(r->buf) - 1) {
		r->len = 0;
		r->skipping = true;
	}
	do
		n = read(r->fd, r->buf + r->len, sizeof(r->buf) - 1 - r->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		r->eof = true;
	r->len += (size_t)n;
	return 0;
}

/* The next line of the maps file, NUL-terminated in place. Returns 1, 0 at
 * the end, or -errno. */
static int maps_next(struct maps_reader *r, char **line)
{
	char *nl;
	int err;

	for (;;) {
		nl = memchr(r->buf + r->start, '\n', r->len - r->start);
		if (nl) {
			*nl = '\0';
			*line = r->buf + r->start;
			r->start = (size_t)(nl + 1 - r->buf);
			if (!r->skipping)
				return 1;
			r->skipping = false;
			continue;
		}
		if (r->eof) {
			if (r->start == r->len || r->skipping)
				return 0;
			r->buf[r->len] = '\0';
			*line = r->buf + r->start;
			r->start = r->len;
			return 1;
		}
		err = maps_fill(r);
		if (err < 0)
			return err;
	}
}

/* Whether a path names a file that is still there: maps appends
 * " (deleted)" to files unlinked since they were mapped. */
static bool path_deleted(const char *path)
{
	size_t n = strlen(path), k = sizeof(DELETED_SUFFIX) - 1;

	return n >= k && strcmp(path + n - k, DELETED_SUFFIX) == 0;
}

/* Parse a maps line "START-END PERMS OFFSET MAJ:MIN INODE   PATH". Returns
 * 0 for an executable mapping of a file that is still there, else -EINVAL. */
static int maps_parse(char *line, struct maps_entry *e)
{
	unsigned long long inode;
	unsigned major, minor;
	char perms[5];
	int n = -1;

	if (sscanf(line, "%llx-%llx %4s %*x %x:%x %llu%n", &e->start, &e->end, perms,
	    &major, &minor, &inode, &n) != 6 || n < 0)
		return -EINVAL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	if (!strchr(perms, 'x') || inode == 0 || line[0] != '/' ||
	    path_deleted(line))
		return -EINVAL;
	e->dev = (unsigned long long)major << 32 | minor;
	e->inode = inode;
	e->path = line;
	return 0;
}

/* Call fn for every executable file pid maps, with where it can be
 * opened; see procfs.h. */
int procfs_for_each_object_at(int procfd, int pid,
    int (*fn)(const char *path, const char *at, void *arg), void *arg)
{
	struct objset *seen = objset__new();
	int ret;

	if (!seen)
		return -ENOMEM;
	ret = procfs_for_each_new_object_at(procfd, pid, seen, fn, arg);
	objset__free(seen);
	return ret;
}

/* Call fn for each file-backed object pid maps that seen does not hold yet;
 * see procfs.h. */
int procfs_for_each_new_object_at(int procfd, int pid, struct objset *seen,
    int (*fn)(const char *path, const char *at, void *arg), void *arg)
{
	char at[96];
	struct maps_reader *r;
	struct maps_entry e;
	char *line;
	int ret;

	r = calloc(1, sizeof(*r));
	ret = r ? procfs_pid_open(procfd, pid, "maps") : -ENOMEM;
	if (ret < 0)
		goto out;
	r->fd = ret;
	while ((ret = maps_next(r, &line)) > 0) {
		if (maps_parse(line, &e) < 0 || objset__has(seen, e.dev, e.inode))
			continue;
		(void)objset__add(seen, e.dev, e.inode); /* full: may report twice */
		snprintf(at, sizeof(at), "%d/map_files/%llx-%llx", pid, e.start, e.end);
		ret = fn(e.path, at, arg);
		if (ret != 0)
			break;
	}
	close(r->fd);
out:
	free(r);
	return ret;
}
