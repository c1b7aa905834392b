/* Unit tests: the settings file of the full-screen view (F2's columns):
 * its path from the environment, parsing good and hostile text (one
 * warning, never a crash), writing whole, 0600, never through or over a
 * symlink nor over a file cowtop did not write. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "settings.h"
#include "fields.h"
#include "row.h"
#include "tmpdir.h"

static char dir[4096], path[4200], warn[1024];

static int setup(void **state)
{
	(void)state;
	if (tmpdir_make(dir, sizeof(dir), "cowtop-config"))
		return -1;
	snprintf(path, sizeof(path), "%s/cowtop/cowtoprc", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(dir);
}

/* Write text to file p as it is. */
static void put(const char *p, const char *text, size_t n)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
}

/* The text of file p (at most cap - 1 bytes). */
static const char *get(const char *p, char *buf, size_t cap)
{
	FILE *f = fopen(p, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* XDG_CONFIG_HOME when absolute, else HOME's .config; neither: none. */
static void test_path(void **state)
{
	char p[256];

	(void)state;
	setenv("XDG_CONFIG_HOME", "/x/conf", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(config_path(p, sizeof(p)), 0);
	assert_string_equal(p, "/x/conf/cowtop/cowtoprc");
	setenv("XDG_CONFIG_HOME", "relative", 1); /* the spec: ignored */
	assert_int_equal(config_path(p, sizeof(p)), 0);
	assert_string_equal(p, "/home/u/.config/cowtop/cowtoprc");
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(config_path(p, sizeof(p)), 0);
	assert_string_equal(p, "/home/u/.config/cowtop/cowtoprc");
	unsetenv("HOME");
	assert_int_equal(config_path(p, sizeof(p)), -ENOENT);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(config_path(p, 10), -ENAMETOOLONG);
}

/* Titles in any case, spaces or commas; comments and blank lines. */
static void test_parse_good(void **state)
{
	static const char text[] = "# cowtop configuration\n\n  # a comment\n"
				   "hidden_columns = vsz, PTE  shr%\r\n";
	struct config c = { 0 };

	(void)state;
	config_parse(text, strlen(text), &c, warn, sizeof(warn));
	assert_string_equal(warn, "");
	assert_true(c.hidden == (ROW_HIDE(FIELD_VSZ) | ROW_HIDE(FIELD_PTE) | ROW_HIDE(FIELD_SHARED)));
}

/* Each kind of bad line: the first one said, the good lines still read. */
static void test_parse_bad(void **state)
{
	static const struct {
		const char *text;
		size_t len;
		const char *warn;
	} cases[] = {
		{ "hidden_columns=VSZ FOO\n", 0, "line 1: no column 'FOO' (ignored)" },
		{ "x\nhidden_columns=PID VSZ\n", 0, "line 1: no '=' (NAME=VALUE): ignored" },
		{ "hidden_columns=PID VSZ\n", 0, "line 1: PID cannot be hidden (ignored)" },
		{ "colour=red\nhidden_columns=VSZ\n", 0, "line 1: unknown setting 'colour' (ignored)" },
		{ "hidden_columns=VSZ\n\x1b[2J=1\n", 0, "line 2: not a setting (too long, or not text): ignored" },
		{ "hidden_columns=VSZ\nhid\0den=x\n", 30, "line 2: not a setting (too long, or not text): ignored" },
	};
	struct config c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		c.hidden = 0;
		config_parse(cases[i].text, cases[i].len ? cases[i].len : strlen(cases[i].text), &c, warn,
			     sizeof(warn));
		assert_string_equal(warn, cases[i].warn);
		if (i != 0 && i != 3) /* a good column on the same or a later line is taken */
			assert_true(c.hidden & ROW_HIDE(FIELD_VSZ));
		assert_false(c.hidden & ROW_HIDE(FIELD_PID));
	}
}

/* Written, read back; the file is 0600 with the magic first line. */
static void test_save_load(void **state)
{
	struct config c = { .hidden = ROW_HIDE(FIELD_VSZ) | ROW_HIDE(FIELD_RSS) }, back = { 0 };
	char err[512], text[1024];
	struct stat st;

	(void)state;
	assert_int_equal(config_save(path, &c, err, sizeof(err)), 0); /* makes cowtop/ */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_string_equal(get(path, text, sizeof(text)),
			    CONFIG_MAGIC " (F2 in cowtop's full-screen view writes it)\nhidden_columns=RSS VSZ\n");
	config_load(path, &back, warn, sizeof(warn));
	assert_string_equal(warn, "");
	assert_true(back.hidden == c.hidden);
	/* its own file is replaced */
	c.hidden = 0;
	assert_int_equal(config_save(path, &c, err, sizeof(err)), 0);
	config_load(path, &back, warn, sizeof(warn));
	assert_true(back.hidden == 0);
}

/* A missing file: nothing said; a directory, a huge file: one warning. */
static void test_load_hostile(void **state)
{
	struct config c = { 0 };
	char *big;

	(void)state;
	config_load(path, &c, warn, sizeof(warn));
	assert_string_equal(warn, "");
	snprintf(path, sizeof(path), "%s/cowtoprc", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	config_load(path, &c, warn, sizeof(warn));
	assert_non_null(strstr(warn, "not a regular file (ignored)"));
	assert_int_equal(rmdir(path), 0);
	big = calloc(1, CONFIG_MAX + 2);
	assert_non_null(big);
	memset(big, '#', CONFIG_MAX + 1);
	put(path, big, CONFIG_MAX + 1);
	free(big);
	config_load(path, &c, warn, sizeof(warn));
	assert_non_null(strstr(warn, "larger than 64 KiB (ignored)"));
	put(path, "\xff\xfe\x00\x01garbage", 11);
	config_load(path, &c, warn, sizeof(warn));
	assert_non_null(strstr(warn, "line 1: not a setting"));
	assert_true(c.hidden == 0);
}

/* Never through or over a symlink, never over a file cowtop did not write;
 * the file refused is as it was, and no temporary file is left. */
static void test_save_refuses(void **state)
{
	struct config c = { .hidden = ROW_HIDE(FIELD_VSZ) };
	char err[512], target[4300], text[256], sub[4300];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/cowtoprc", dir);
	snprintf(target, sizeof(target), "%s/victim", dir);
	put(target, "precious\n", 9);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(config_save(path, &c, err, sizeof(err)), -ELOOP);
	assert_string_equal(err, "it is a symlink: cowtop writes neither through nor over one");
	assert_string_equal(get(target, text, sizeof(text)), "precious\n");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(unlink(path), 0);
	put(path, "hidden_columns=PTE\n", 19); /* a file of the user's own making */
	assert_int_equal(config_save(path, &c, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "cowtop did not write it"));
	assert_string_equal(get(path, text, sizeof(text)), "hidden_columns=PTE\n");
	/* the directory a symlink: refused too */
	snprintf(sub, sizeof(sub), "%s/linkdir", dir);
	assert_int_equal(symlink(dir, sub), 0);
	snprintf(path, sizeof(path), "%s/linkdir/cowtoprc2", dir);
	assert_true(config_save(path, &c, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "linkdir: not a directory (a symlink?)"));
	snprintf(sub, sizeof(sub), "%s/cowtoprc2", dir);
	assert_int_equal(access(sub, F_OK), -1);
	snprintf(sub, sizeof(sub), "%s/.cowtoprc.%ld", dir, (long)getpid());
	assert_int_equal(access(sub, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test_setup_teardown(test_save_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_refuses, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
