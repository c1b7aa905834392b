/* What the /proc readers' own files share: the parse cursor, the decimal
 * parser and the bounded reads of files under a directory fd. Included only
 * by procfs.c, procfs_parse.c, procfs_mem.c and procfs_maps.c; procfs.h is
 * the API. */
#ifndef COWTOP_PROCFS_INT_H
#define COWTOP_PROCFS_INT_H

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* Where a parser is in its buffer. */
struct cursor {
	const char *p;
	const char *end;
};

/* Parse an unsigned decimal at the cursor, without reading past its end.
 * Returns 0, or -EINVAL when there is no digit or the value overflows. */
static inline int parse_ull(struct cursor *c, unsigned long long *out)
{
	unsigned long long v = 0;
	const char *s = c->p;
	unsigned d;

	if (s >= c->end || *s < '0' || *s > '9')
		return -EINVAL;
	for (; s < c->end && *s >= '0' && *s <= '9'; s++) {
		d = (unsigned)(*s - '0');
		if (v > (ULLONG_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	c->p = s;
	*out = v;
	return 0;
}

/* Open /proc/PID/name for reading. Returns the fd or -errno. */
int procfs_pid_open(int procfd, int pid, const char *name);

/* Read up to cap bytes of the file at path relative to dirfd, whatever its
 * size. Returns the bytes read or -errno. */
ssize_t procfs_read_file_at(int dirfd, const char *path, char *buf, size_t cap);

/* Read up to cap bytes of /proc/PID/name, whatever its size. Returns the
 * bytes read or -errno. */
ssize_t procfs_read_pid_file(int procfd, int pid, const char *name, char *buf, size_t cap);

#endif
