/* What the unit tests of the /proc readers share (procfs_fixture.h). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "procfs_fixture.h"
#include "tmpdir.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

int procfd = -1;
char fake_dir[PATH_MAX];

/* The directory of the fixtures. */
const char *fixtures_dir(void)
{
	const char *dir = getenv("FIXTURES_DIR");

	return dir && *dir ? dir : FIXTURES_DIR;
}

/* Load a fixture into a heap buffer of exactly its size. */
char *fixture(const char *name, size_t *len)
{
	char path[PATH_MAX];
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/proc/%s", fixtures_dir(), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("cannot open fixture %s: %s", path, strerror(errno));
	assert_int_equal(fstat(fd, &st), 0);
	*len = (size_t)st.st_size;
	buf = malloc(*len ? *len : 1);
	assert_non_null(buf);
	n = read(fd, buf, *len);
	assert_int_equal(n, (ssize_t)*len);
	close(fd);
	return buf;
}

/* Write n bytes to dirfd/path, creating it. */
int write_file(int dirfd, const char *path, const char *buf, size_t n)
{
	ssize_t w;
	int fd;

	fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	w = write(fd, buf, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

/* Open /proc once for the live tests. */
int procfd_setup(void **state)
{
	(void)state;
	procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return procfd < 0 ? -1 : 0;
}

/* Close /proc. */
int procfd_teardown(void **state)
{
	(void)state;
	close(procfd);
	return 0;
}

/* Make an empty temporary directory to stand for /proc; its fd is the
 * test state. */
int tmp_proc_setup(void **state)
{
	int fd;

	if (tmpdir_make(fake_dir, sizeof(fake_dir), "test_procfs") < 0)
		return -1;
	fd = open(fake_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	*state = (void *)(intptr_t)fd;
	return 0;
}

/* Remove the temporary /proc and all in it. */
int tmp_proc_teardown(void **state)
{
	close((int)(intptr_t)*state);
	return tmpdir_remove(fake_dir);
}
