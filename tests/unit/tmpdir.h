/* Temporary directories for the unit tests that write files. */
#ifndef COWTOP_TEST_TMPDIR_H
#define COWTOP_TEST_TMPDIR_H

#include <stddef.h>

/* Make a new, empty directory $TMPDIR/PREFIX.XXXXXX (/tmp when TMPDIR is
 * unset) and put its path in path (capacity cap). Returns 0 or -1. */
int tmpdir_make(char *path, size_t cap, const char *prefix);

/* Remove the directory at path and everything in it. Returns 0 or -1. */
int tmpdir_remove(const char *path);

#endif
