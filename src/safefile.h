/* Writing a file cowtop makes, whole or not at all, never through a
 * symlink, a FIFO or a device. */
#ifndef COWTOP_SAFEFILE_H
#define COWTOP_SAFEFILE_H

#include <stddef.h>

/* Write data[0..len) to path as a new 0600 file replacing any regular file
 * there. Returns 0, or -errno with the reason in err (no partial file and no
 * temporary file left behind). */
int safefile_write(const char *path, const char *data, size_t len, char *err, size_t errlen);

/* Open path to append to it (a recording): created 0600 when absent,
 * refused when it is anything but a regular file (a symlink, a FIFO, a
 * device...). Returns the fd (O_APPEND, close-on-exec) or -errno with the
 * reason in err. */
int safefile_open_append(const char *path, char *err, size_t errlen);

/* Write buf[0..len) to fd whole, or cut a regular file back to where the
 * write began (a full disk leaves no half line). 0 or -errno (-ENOSPC for a
 * write that makes no progress). */
int safefile_write_whole(int fd, const char *buf, size_t len);

#endif
