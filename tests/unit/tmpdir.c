/* Temporary directories for the unit tests that write files. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include "tmpdir.h"

/* Make a new temporary directory; see tmpdir.h. */
int tmpdir_make(char *path, size_t cap, const char *prefix)
{
	const char *base = getenv("TMPDIR");
	int n;

	n = snprintf(path, cap, "%s/%s.XXXXXX", base && *base ? base : "/tmp", prefix);
	if (n < 0 || (size_t)n >= cap)
		return -1;
	return mkdtemp(path) ? 0 : -1;
}

/* Remove one entry of a directory being removed, its contents first. */
static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove a directory and all in it; see tmpdir.h. */
int tmpdir_remove(const char *path)
{
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
