/* Snapshot files: refuse anything but a regular file (or no file), write a
 * 0600 temporary next to it, fsync, rename; leave nothing behind on error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "regions.h"
#include "row.h"
#include "screen.h"
#include "snapshot.h"

#define TMP_TRIES 64

/* Write one line of text with its trailing blanks trimmed. */
static void put_trimmed(FILE *f, const struct line *l)
{
	size_t n = l->len;

	while (n > 0 && l->text[n - 1] == ' ')
		n--;
	fwrite(l->text, 1, n, f);
	fputc('\n', f);
}

/* Whether p made copies inside any phase. */
static bool in_phases(const struct proc *p)
{
	int i;

	for (i = 1; i < SPLIT_SLOTS; i++)
		if (p->split[SPLIT_PHASE].v[i])
			return true;
	return false;
}

/* The phase split of every row that made copies inside a phase, after a
 * blank line and a title; nothing when none did. */
static void snapshot_phases(const struct view *v, struct line *scratch, FILE *f)
{
	bool titled = false;
	size_t k;

	for (k = 0; k < v->n; k++) {
		if (!in_phases(v->rows[k].p))
			continue;
		line_clear(scratch);
		if (!row_phases(v->rows[k].p, v->f, v->utf8, true, scratch))
			continue;
		if (!titled)
			fputs("\ncopies per phase: share of each process's copies (and their number)\n", f);
		titled = true;
		put_trimmed(f, scratch);
	}
}

/* The regions pane of the selected process, after a blank line. */
static int snapshot_regions(const struct view *v, int cols, FILE *f)
{
	const struct proc *p = view__selected(v);
	struct line *pane;
	size_t n, i;

	if (!v->f || !p)
		return 0;
	pane = calloc(REGIONS_LINES, sizeof(*pane));
	if (!pane)
		return -ENOMEM;
	n = regions_build(v->f, p, cols, v->utf8, pane, REGIONS_LINES);
	fputc('\n', f);
	for (i = 0; i < n; i++)
		put_trimmed(f, &pane[i]);
	free(pane);
	return 0;
}

/* Every group of the frame, after a blank line and a title. */
static void snapshot_groups(const struct view *v, struct line *scratch, FILE *f)
{
	size_t k;

	if (!v->f || !v->f->ngroups)
		return;
	fputs("\ngroups: each watched root with its workers\n", f);
	for (k = 0; k < v->f->ngroups; k++) {
		line_clear(scratch);
		screen_group_text(v->f, &v->f->groups[k], v->utf8, scratch);
		put_trimmed(f, scratch);
	}
}

/* The header, its oldest reading taken over every row, and the group line. */
static void snapshot_header(const struct view *v, const struct header_info *hi,
			    struct line *scratch, FILE *f)
{
	struct header_info h = *hi;
	struct line hdr[HEADER_LINES];
	int i;

	h.smaps_age = view__oldest_reading(v, 0, v->n);
	h.smaps_read = h.smaps_age >= 0;
	header_build(&h, hdr);
	for (i = 0; i < HEADER_LINES; i++)
		put_trimmed(f, &hdr[i]);
	if (screen_has_group(v)) {
		screen_group_line(v, v->utf8, scratch);
		put_trimmed(f, scratch);
	}
}

/* The view as plain text, cols wide: header, group line, titles, every row
 * (not only those on screen), the phase split, every group, the regions
 * pane of the selected process; no footer. A malloc'd string of *len bytes,
 * NULL when out of memory. */
char *snapshot_text(const struct view *v, const struct header_info *hi, int cols, size_t *len)
{
	struct line scratch;
	struct row_layout rl;
	char *buf = NULL;
	size_t k;
	int e;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	snapshot_header(v, hi, &scratch, f);
	row_layout_init(&rl, cols, v->utf8);
	row_layout_scale(&rl, v->metric, v->rows, v->n);
	row_titles(&rl, v->vo.sort, v->vo.reverse, &scratch);
	put_trimmed(f, &scratch);
	for (k = 0; k < v->n; k++) {
		row_format(&v->rows[k], &rl, &scratch);
		put_trimmed(f, &scratch);
	}
	snapshot_phases(v, &scratch, f);
	snapshot_groups(v, &scratch, f);
	e = snapshot_regions(v, cols, f);
	if (fclose(f) || e) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* "./cowtop-YYYYmmdd-HHMMSS.txt" for local time now; returns its length. */
size_t snapshot_default_path(time_t now, char *buf, size_t cap)
{
	struct tm tm;

	if (cap == 0)
		return 0;
	localtime_r(&now, &tm);
	return strftime(buf, cap, "./cowtop-%Y%m%d-%H%M%S.txt", &tm);
}

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

/* 0 when path is absent or a regular file; else -errno and the reason. */
static int check_target(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		return fail(err, errlen, NULL, errno);
	}
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, kind_of(st.st_mode), S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
	return 0;
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
			return -EIO;
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

/* Write data[0..len) to path as a new 0600 file replacing any regular file
 * there. Returns 0, or -errno with the reason in err (no partial file and no
 * temporary file left behind). */
int snapshot_write(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	int fd, e;

	if (!path || !*path)
		return fail(err, errlen, "no file name", EINVAL);
	e = check_target(path, err, errlen);
	if (e)
		return e;
	fd = create_temp(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fail(err, errlen, NULL, -fd);
	e = fill_temp(fd, data, len);
	if (!e)
		e = check_target(path, err, errlen); /* it may have changed meanwhile */
	else
		fail(err, errlen, NULL, -e);
	if (!e && rename(tmp, path))
		e = fail(err, errlen, NULL, errno);
	if (e) {
		unlink(tmp);
		return e;
	}
	sync_dir(path);
	return 0;
}
