/* Writing a file cowtop makes, whole or not at all, never through a
 * symlink, a FIFO or a device. */
#ifndef COWTOP_SAFEFILE_H
#define COWTOP_SAFEFILE_H

#include <stddef.h>

/* Write data[0..len) to path as a new 0600 file replacing any regular file
 * there. Returns 0, or -errno with the reason in err (no partial file and no
 * temporary file left behind). */
int safefile_write(const char *path, const char *data, size_t len, char *err, size_t errlen);

#endif
