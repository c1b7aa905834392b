/* Writing a snapshot of the view to a file, safely: a private temporary file
 * in the same directory, renamed over the name only once complete. */
#ifndef COWTOP_UI_SNAPSHOT_H
#define COWTOP_UI_SNAPSHOT_H

#include <stddef.h>
#include <time.h>

int snapshot__write(const char *path, const char *data, size_t len, char *err, size_t errlen);
size_t snapshot__default_path(time_t now, char *buf, size_t cap);

#endif
