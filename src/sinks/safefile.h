/* Writing a file cowtop makes, whole or not at all, never through a
 * symlink, a FIFO or a device, and never over a file cowtop did not
 * create. */
#ifndef COWTOP_SAFEFILE_H
#define COWTOP_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The reasons of the refusals, as err says them. */
#define SAFEFILE_EXISTS "it exists: cowtop writes only new files, never over another"
#define SAFEFILE_NOT_OURS "it exists and is not a recording: cowtop appends only to its own"

/* Which file a run wrote (device and inode; ino 0: none yet), so that it
 * may write that one again. */
struct safefile_id {
	dev_t dev;
	ino_t ino;
};

/* Write data[0..len) to path as a new 0600 file: path must be free, or
 * hold the file *own names (this run's own, which is then replaced; own
 * may be NULL). Returns 0, or -errno with the reason in err (no partial
 * file and no temporary file left behind). */
int safefile_write(const char *path, const char *data, size_t len, struct safefile_id *own,
		   char *err, size_t errlen);

/* Whether path could be written as a new file now (before a run that
 * writes it at its end). 0, or -errno with the reason in err. */
int safefile_check_new(const char *path, char *err, size_t errlen);

/* Create path as a new 0600 file to write to, for someone else's output (a
 * launched command's): never over an existing file, never through a
 * symlink (O_EXCL, O_NOFOLLOW). Returns the fd (close-on-exec) or -errno
 * with the reason in err. */
int safefile_open_new(const char *path, char *err, size_t errlen);

/* Whether path is a regular file, not a symlink, starting with magic. */
bool safefile_starts_with(const char *path, const char *magic);

/* Open path to append to it: created 0600 when absent; an existing regular
 * file only when it starts with magic (a recording's header); refused when
 * it is anything but a regular file (a symlink, a FIFO, a device...).
 * Returns the fd (O_APPEND, close-on-exec) or -errno with the reason in err. */
int safefile_open_append(const char *path, const char *magic, char *err, size_t errlen);

/* Write buf[0..len) to fd whole, or cut a regular file back to where the
 * write began (a full disk leaves no half line). 0 or -errno (-ENOSPC for a
 * write that makes no progress). */
int safefile_write_whole(int fd, const char *buf, size_t len);

#endif
