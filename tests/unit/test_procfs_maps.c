/* Unit tests of the maps walk (procfs_for_each_object_at) on maps files:
 * captured and hostile ones in $FIXTURES_DIR/maps (else under FIXTURES_DIR),
 * generated ones in a directory made to look like /proc, and our own. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "procfs_fixture.h"
#include "objset.h"
#include "procfs.h"

/* ---- procfs_for_each_object_at ---- */

#define MAX_OBJECTS 2048

struct objects {
	char *path[MAX_OBJECTS];
	int n;
	int stop_after;
};

/* Object callback: keep a copy of the path; stop when asked to. */
static int collect_object(const char *path, const char *at, void *arg)
{
	struct objects *o = arg;

	(void)at;
	if (o->n < MAX_OBJECTS) {
		o->path[o->n] = strdup(path);
		assert_non_null(o->path[o->n]);
	}
	o->n++;
	return o->stop_after && o->n == o->stop_after ? 7 : 0;
}

/* Free the paths of a collection. */
static void objects_free(struct objects *o)
{
	int i;

	for (i = 0; i < o->n && i < MAX_OBJECTS; i++)
		free(o->path[i]);
	free(o);
}

/* The objects pid maps, read through the directory dir. */
static struct objects *objects_of(const char *dir, int pid, int *ret)
{
	struct objects *o = calloc(1, sizeof(*o));
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_non_null(o);
	assert_true(fd >= 0);
	*ret = procfs_for_each_object_at(fd, pid, collect_object, o);
	close(fd);
	return o;
}

/* The directory holding the captured maps files, as a /proc tree. */
static const char *fixture_maps(char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/maps", fixtures_dir());
	return buf;
}

/* The hostile capture: only executable files still there, once each,
 * paths whole. */
static void test_maps_hostile(void **state)
{
	static const char *const want[] = {
		"/usr/bin/python3.11",
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/opt/my app/lib/with  two spaces.so",
		"/mnt/other/libc.so.6",
		"/usr/lib/jit\\012evil.so",
	};
	char dir[PATH_MAX];
	struct objects *o;
	size_t i;
	int ret;

	(void)state;
	o = objects_of(fixture_maps(dir, sizeof(dir)), 1, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(o->n, (int)(sizeof(want) / sizeof(want[0])));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(o->path[i], want[i]);
	objects_free(o);
}

/* No newline at the end; an empty file; nothing executable. */
static void test_maps_edges(void **state)
{
	char dir[PATH_MAX];
	struct objects *o;
	int ret;

	(void)state;
	fixture_maps(dir, sizeof(dir));
	o = objects_of(dir, 2, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(o->n, 1);
	assert_string_equal(o->path[0], "/usr/lib/x86_64-linux-gnu/libc.so.6");
	objects_free(o);
	o = objects_of(dir, 3, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(o->n, 0);
	objects_free(o);
	o = objects_of(dir, 4, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(o->n, 1);
	assert_string_equal(o->path[0], "/bin/static");
	objects_free(o);
}

/* A process that is not there, a pid that cannot be, and fn stopping. */
static void test_maps_errors_and_stop(void **state)
{
	char dir[PATH_MAX];
	struct objects *o;
	int ret, fd;

	(void)state;
	fixture_maps(dir, sizeof(dir));
	o = objects_of(dir, 99, &ret);
	assert_int_equal(ret, -ENOENT);
	objects_free(o);
	o = objects_of(dir, 0, &ret);
	assert_int_equal(ret, -EINVAL);
	objects_free(o);
	o = objects_of(dir, -1, &ret);
	assert_int_equal(ret, -EINVAL);
	objects_free(o);
	o = calloc(1, sizeof(*o));
	assert_non_null(o);
	o->stop_after = 2;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(procfs_for_each_object_at(fd, 1, collect_object, o), 7);
	close(fd);
	assert_int_equal(o->n, 2);
	objects_free(o);
}

/* Write a maps file for a made-up pid in the temporary /proc. */
static FILE *maps_create(int pid)
{
	char path[PATH_MAX];
	FILE *f;
	int n;

	n = snprintf(path, sizeof(path), "%s/%d", fake_dir, pid);
	assert_true(n > 0 && (size_t)n + sizeof("/maps") <= sizeof(path));
	mkdir(path, 0755);
	strcat(path, "/maps");
	f = fopen(path, "w");
	assert_non_null(f);
	return f;
}

/* Write a maps line of exactly len bytes (newline excluded) for an
 * executable file with the given inode, padding its path with 'x', and
 * with tail as the last bytes of the path. */
static void maps_line(FILE *f, size_t len, int inode, const char *tail)
{
	int n = fprintf(f, "1000-2000 r-xp 00000000 08:01 %d /", inode);
	size_t i, k = strlen(tail);

	assert_true(n > 0 && (size_t)n + k <= len);
	for (i = (size_t)n + k; i < len; i++)
		fputc('x', f);
	fputs(tail, f);
}

/* A line longer than PROCFS_MAPS_LINE_MAX, however long, is skipped whole,
 * even when what follows the bytes that fill the buffer reads as a maps
 * line of its own; lines before and after it are kept, and a line of
 * exactly PROCFS_MAPS_LINE_MAX bytes too. */
static void test_maps_long_line(void **state)
{
	static const char forged[] = "3000-4000 r-xp 00000000 08:01 66 /forged";
	const size_t max = PROCFS_MAPS_LINE_MAX;
	struct objects *o;
	size_t len;
	int ret, k;
	FILE *f;

	(void)state;
	for (k = 0; k < 4; k++) {
		len = k == 0 ? max + 1 + strlen(forged) : k == 1 ? max + 1 :
		    k == 2 ? 3 * max : 100000;
		f = maps_create(10 + k);
		maps_line(f, len, 1, forged);
		fprintf(f, "\n1000-2000 r-xp 00000000 08:01 2 /second\n");
		maps_line(f, max, 3, "/third");
		fputc('\n', f);
		maps_line(f, len, 4, forged); /* last, no newline */
		fclose(f);
		o = objects_of(fake_dir, 10 + k, &ret);
		assert_int_equal(ret, 0);
		if (o->n != 2)
			fail_msg("line of %zu bytes: %d objects, first %s", len, o->n, o->path[0]);
		assert_string_equal(o->path[0], "/second");
		assert_int_equal(strlen(o->path[1]), max - strlen("1000-2000 r-xp 00000000 08:01 3 "));
		objects_free(o);
	}
}

/* A path of PATH_MAX - 1 bytes, the longest there is, still fits. */
static void test_maps_longest_path(void **state)
{
	char *path = malloc(PATH_MAX);
	struct objects *o;
	int ret;
	FILE *f;

	(void)state;
	assert_non_null(path);
	memset(path, 'y', PATH_MAX - 1);
	path[0] = '/';
	path[PATH_MAX - 1] = '\0';
	f = maps_create(20);
	fprintf(f, "7ffd00100000-7ffd00102000 r-xp 00000000 fd:01 123456789012"
	    "                       %s (deleted)\n", path);
	fprintf(f, "7ffd00100000-7ffd00102000 r-xp 00000000 fd:01 123456789012"
	    "                       %s\n", path);
	fclose(f);
	o = objects_of(fake_dir, 20, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(o->n, 1);
	assert_string_equal(o->path[0], path);
	objects_free(o);
	free(path);
}

/* More distinct files than are remembered: each is still reported, and
 * memory stays bounded (a file past the limit may come twice). */
static void test_maps_many_objects(void **state)
{
	const int files = OBJSET_MAX + 100;
	char want[64];
	struct objects *o;
	int ret, i, j;
	FILE *f;

	(void)state;
	f = maps_create(30);
	for (i = 0; i < files; i++) {
		for (j = 0; j < 2; j++)
			fprintf(f, "%x000-%x000 r-xp 00000000 08:01 %d /lib/l%d.so\n",
			    2 * i + j + 1, 2 * i + j + 2, i + 1, i);
	}
	fclose(f);
	o = objects_of(fake_dir, 30, &ret);
	assert_int_equal(ret, 0);
	assert_true(o->n >= files && o->n <= 2 * files);
	for (i = 0; i < OBJSET_MAX; i++) {
		snprintf(want, sizeof(want), "/lib/l%d.so", i);
		assert_string_equal(o->path[i], want);
	}
	assert_string_equal(o->path[o->n - 1], "/lib/l1123.so");
	objects_free(o);
}

/* Whether a path ends in the basename of a libc. */
static bool is_libc(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libc-", 5) == 0;
}

/* Our own maps: this program and libc are there, once each, and nothing
 * that is not a file. */
static void test_maps_self(void **state)
{
	char exe[PATH_MAX];
	struct objects *o;
	bool self = false, libc = false;
	ssize_t n;
	int ret, i, j;

	(void)state;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	o = objects_of("/proc", getpid(), &ret);
	assert_int_equal(ret, 0);
	for (i = 0; i < o->n; i++) {
		assert_int_equal(o->path[i][0], '/');
		assert_null(strstr(o->path[i], "(deleted)"));
		for (j = 0; j < i; j++)
			assert_string_not_equal(o->path[i], o->path[j]);
		self = self || strcmp(o->path[i], exe) == 0;
		libc = libc || is_libc(o->path[i]);
	}
	assert_true(self);
	assert_true(libc);
	objects_free(o);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_hostile),
		cmocka_unit_test(test_maps_edges),
		cmocka_unit_test(test_maps_errors_and_stop),
		cmocka_unit_test_setup_teardown(test_maps_long_line, tmp_proc_setup, tmp_proc_teardown),
		cmocka_unit_test_setup_teardown(test_maps_longest_path, tmp_proc_setup, tmp_proc_teardown),
		cmocka_unit_test_setup_teardown(test_maps_many_objects, tmp_proc_setup, tmp_proc_teardown),
		cmocka_unit_test(test_maps_self),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
