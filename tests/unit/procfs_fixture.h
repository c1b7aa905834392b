/* Test helper: what the unit tests of the /proc readers share -- the
 * captured files of $FIXTURES_DIR/proc, the live /proc opened once, and a
 * temporary directory made to stand for /proc. */
#ifndef COWTOP_TESTS_PROCFS_FIXTURE_H
#define COWTOP_TESTS_PROCFS_FIXTURE_H

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>

/* The live /proc, open between procfd_setup and procfd_teardown. */
extern int procfd;

/* The temporary /proc of tmp_proc_setup, until tmp_proc_teardown. */
extern char fake_dir[PATH_MAX];

/* The directory of the fixtures: $FIXTURES_DIR, else the one built in. */
const char *fixtures_dir(void);

/* Load the fixture proc/NAME into a heap buffer of exactly its size (one
 * byte for an empty file), so that a parser reading past len trips the
 * sanitizers; its size in *len. Fails the test when it cannot. */
char *fixture(const char *name, size_t *len);

/* Run the parser fn (a procfs_parse_* function) on a fixture, into out;
 * the parser's result. */
#define PARSE_FIXTURE(fn, name, out) __extension__ ({ \
	size_t len_; \
	char *buf_ = fixture(name, &len_); \
	int ret_ = fn(buf_, len_, out); \
	free(buf_); \
	ret_; \
})

/* Write n bytes to dirfd/path, creating it. Returns 0 or -1. */
int write_file(int dirfd, const char *path, const char *buf, size_t n);

/* Group setup and teardown: open /proc into procfd, close it. */
int procfd_setup(void **state);
int procfd_teardown(void **state);

/* Test setup: make an empty temporary directory to stand for /proc (its
 * path in fake_dir); its fd is the test state. The teardown removes it and
 * all in it. */
int tmp_proc_setup(void **state);
int tmp_proc_teardown(void **state);

#endif
