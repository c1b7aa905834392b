/* Writing a file cowtop makes (snapshots, folded stacks, recordings):
 * cowtop never writes over a file it did not create. A new file is written
 * whole to a 0600 temporary next to it, fsynced, then linked in under its
 * name only if that name is still free (renameat2 RENAME_NOREPLACE, or
 * link() where the file system lacks it): never through a symlink, never
 * over a file that appeared meanwhile, never half written, nothing left
 * behind on error. A recording is appended to only when it is one. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include "safefile.h"

#define TMP_TRIES 64

/* Say why path cannot be written, and return -e. */
static int fail(char *err, size_t errlen, const char *why, int e)
{
	snprintf(err, errlen, "%s", why ? why : strerror(e));
	return -e;
}

/* What a non-regular file is, in words. */
static const char *kind_of(mode_t m)
{
	if (S_ISLNK(m))
		return "is a symbolic link";
	if (S_ISDIR(m))
		return "is a directory";
	if (S_ISFIFO(m))
		return "is a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "is a device";
	if (S_ISSOCK(m))
		return "is a socket";
	return "is not a regular file";
}

/* 0 when path is absent or a regular file (its identity in *st, st_ino 0
 * when absent); else -errno and the reason. */
static int check_target(const char *path, struct stat *st, char *err, size_t errlen)
{
	if (lstat(path, st)) {
		st->st_ino = 0;
		if (errno == ENOENT)
			return 0;
		return fail(err, errlen, NULL, errno);
	}
	if (!S_ISREG(st->st_mode))
		return fail(err, errlen, kind_of(st->st_mode), S_ISDIR(st->st_mode) ? EISDIR : EINVAL);
	return 0;
}

/* Whether st is the file own names (one this run wrote). */
static bool is_own(const struct stat *st, const struct safefile_id *own)
{
	return own && own->ino && st->st_ino == own->ino && st->st_dev == own->dev;
}

/* 0 when path is free, or holds the file own names; else -errno and the
 * reason: a file cowtop did not create is never written over. */
static int check_new(const char *path, const struct safefile_id *own, char *err, size_t errlen)
{
	struct stat st;
	int e = check_target(path, &st, err, errlen);

	if (e || !st.st_ino || is_own(&st, own))
		return e;
	return fail(err, errlen, SAFEFILE_EXISTS, EEXIST);
}

/* Create the temporary file "<dir>/.<base>.<pid>.<n>" exclusively, mode 0600.
 * Its name goes to tmp. Returns the fd or -errno. */
static int create_temp(const char *path, char *tmp, size_t cap)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	const char *base = slash ? slash + 1 : path;
	struct timespec ts;
	int i, fd, n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (i = 0; i < TMP_TRIES; i++) {
		n = snprintf(tmp, cap, "%.*s.%s.%ld.%lx", dirlen, path, base, (long)getpid(),
			     (unsigned long)(ts.tv_nsec + i));
		if (n < 0 || (size_t)n >= cap)
			return -ENAMETOOLONG;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Write all of data to fd. */
static int write_all(int fd, const char *data, size_t len)
{
	ssize_t w;

	while (len > 0) {
		w = write(fd, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -ENOSPC; /* no progress: a full device */
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Fill the open temporary file and close it; -errno on any failure. */
static int fill_temp(int fd, const char *data, size_t len)
{
	int e = 0;

	if (fchmod(fd, 0600))
		e = -errno;
	if (!e)
		e = write_all(fd, data, len);
	if (!e && fsync(fd))
		e = -errno;
	if (close(fd) && !e)
		e = -errno;
	return e;
}

/* Flush the rename to disk; a failure here loses nothing already written. */
static void sync_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) ? (int)(slash - path) : 1, path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Put the written temporary file under path: under a free name only, or
 * over own's file when path still holds it. 0 or -errno. */
static int link_in(const char *tmp, const char *path, const struct safefile_id *own)
{
	struct stat st;

	if (own && own->ino && lstat(path, &st) == 0 && S_ISREG(st.st_mode) && is_own(&st, own))
		return rename(tmp, path) ? -errno : 0;
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (link(tmp, path)) /* a file system without RENAME_NOREPLACE */
		return -errno;
	unlink(tmp);
	return 0;
}

/* Remember in own which file is at path now (0 when unknown). */
static void remember(const char *path, struct safefile_id *own)
{
	struct stat st;

	if (!own)
		return;
	own->ino = lstat(path, &st) == 0 ? st.st_ino : 0;
	own->dev = own->ino ? st.st_dev : 0;
}

/* Write data[0..len) to path as a new 0600 file. path must be free, or
 * hold the file own names (written by this run: it is replaced, and own
 * then names the new one; own may be NULL). Returns 0, or -errno with the
 * reason in err (no partial file and no temporary file left behind). */
int safefile_write(const char *path, const char *data, size_t len, struct safefile_id *own,
		   char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	int fd, e;

	if (!path || !*path)
		return fail(err, errlen, "no file name", EINVAL);
	e = check_new(path, own, err, errlen);
	if (e)
		return e;
	fd = create_temp(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fail(err, errlen, NULL, -fd);
	e = fill_temp(fd, data, len);
	if (e)
		fail(err, errlen, NULL, -e);
	else
		e = check_new(path, own, err, errlen); /* it may have changed meanwhile */
	if (!e) {
		e = link_in(tmp, path, own);
		if (e)
			fail(err, errlen, e == -EEXIST ? SAFEFILE_EXISTS : NULL, -e);
	}
	if (e) {
		unlink(tmp);
		return e;
	}
	remember(path, own);
	sync_dir(path);
	return 0;
}

/* Whether path could be written as a new file now: it is free, and a
 * temporary file can be created (and is removed) next to it. 0, or -errno
 * with the reason in err. */
int safefile_check_new(const char *path, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	int fd, e;

	if (!path || !*path)
		return fail(err, errlen, "no file name", EINVAL);
	e = check_new(path, NULL, err, errlen);
	if (e)
		return e;
	fd = create_temp(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fail(err, errlen, NULL, -fd);
	close(fd);
	unlink(tmp);
	return 0;
}

/* Create a new file to write to; see safefile.h. */
int safefile_open_new(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	if (!path || !*path)
		return fail(err, errlen, "no file name", EINVAL);
	e = check_target(path, &st, err, errlen);
	if (e)
		return e;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST)
		return fail(err, errlen, lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ?
			    "is a symbolic link" : SAFEFILE_EXISTS, EEXIST);
	if (fd < 0)
		return fail(err, errlen, NULL, errno);
	return fd;
}

/* Whether the open regular file fd starts with magic (read at offset 0). */
static bool starts_with(int fd, const char *magic)
{
	char buf[64];
	size_t n = strlen(magic);
	ssize_t r;

	if (n > sizeof(buf))
		return false;
	r = pread(fd, buf, n, 0);
	return r == (ssize_t)n && memcmp(buf, magic, n) == 0;
}

/* Whether path is a regular file (not a symlink) that starts with magic. */
bool safefile_starts_with(const char *path, const char *magic)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	bool yes;

	if (fd < 0)
		return false;
	yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && starts_with(fd, magic);
	close(fd);
	return yes;
}

/* Open path to append to it: never through a symlink (O_NOFOLLOW), never
 * blocking on a FIFO (O_NONBLOCK until it is known to be a regular file),
 * created 0600 (O_EXCL: only a new file is created); a file that was there
 * is appended to only when it starts with magic. Returns the fd or -errno
 * with the reason in err. */
int safefile_open_append(const char *path, const char *magic, char *err, size_t errlen)
{
	struct stat st;
	int fd, e, flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	bool existed;

	if (!path || !*path)
		return fail(err, errlen, "no file name", EINVAL);
	e = check_target(path, &st, err, errlen);
	if (e)
		return e;
	fd = open(path, flags | O_CREAT | O_EXCL, 0600);
	existed = fd < 0 && errno == EEXIST;
	if (existed) /* there already: open it to read what it is */
		fd = open(path, (flags & ~O_WRONLY) | O_RDWR);
	if (fd < 0)
		return fail(err, errlen, errno == ELOOP ? "is a symbolic link" : NULL, errno);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		e = fstat(fd, &st) ? fail(err, errlen, NULL, errno) : fail(err, errlen, kind_of(st.st_mode), EINVAL);
		close(fd);
		return e;
	}
	if (existed && !starts_with(fd, magic)) {
		close(fd);
		return fail(err, errlen, SAFEFILE_NOT_OURS, EEXIST);
	}
	if (fcntl(fd, F_SETFL, O_APPEND)) { /* writes block again, as on any disk file */
		e = fail(err, errlen, NULL, errno);
		close(fd);
		return e;
	}
	return fd;
}

/* Where the next write lands in fd, when fd is a regular file; -1 else. */
static off_t write_position(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || fl < 0)
		return -1;
	return fl & O_APPEND ? st.st_size : lseek(fd, 0, SEEK_CUR);
}

/* Write buf whole, or cut a regular file back to where it began: a
 * reader never sees half a line. 0 or -errno. */
int safefile_write_whole(int fd, const char *buf, size_t len)
{
	off_t at = write_position(fd);
	int e = write_all(fd, buf, len);

	if (e && at >= 0 && ftruncate(fd, at) == 0)
		lseek(fd, at, SEEK_SET); /* harmless with O_APPEND */
	return e;
}

