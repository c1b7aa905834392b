/* Unit tests: command-line parsing, good and bad. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "options.h"

#define ARGV_MAX 32

/* Parse a NULL-terminated argument list; returns options_parse's result.
 * The caller owns argv (ARGV_MAX slots): o->command points into it, so it
 * must live as long as o, not die with this frame. */
static int parse(struct options *o, char **argv, char *err, const char *first, ...)
{
	int argc = 0;
	va_list ap;
	const char *s;

	argv[argc++] = (char *)"cowtop";
	va_start(ap, first);
	for (s = first; s && argc < ARGV_MAX - 1; s = va_arg(ap, const char *))
		argv[argc++] = (char *)s;
	va_end(ap);
	argv[argc] = NULL;
	return options_parse(argc, argv, o, err, 256);
}

static void test_defaults(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, argv, err, NULL), 0);
	assert_true(o.delay == 1.0);
	assert_int_equal(o.sort, SORT_COW_RATE);
	assert_int_equal(o.format, FORMAT_TEXT);
	assert_int_equal(o.npids, 0);
	assert_null(o.command);
	assert_true(o.smaps_budget == 1.0);
	assert_false(o.regions);
}

/* --regions takes no value; a value after it is a misplaced argument. */
static void test_regions(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, argv, err, "-b", "--regions", NULL), 0);
	assert_true(o.regions);
	assert_int_equal(parse(&o, argv, err, "--regions=yes", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--regions", "heap", NULL), -EINVAL);
	assert_non_null(strstr(err, "'heap'"));
}

/* The smaps budget: a percentage of one CPU, fractions allowed, 0 off. */
static void test_smaps_budget(void **state)
{
	static const char *const good[] = { "0", "0.25", "1", "37.5", "100", "5." };
	static const double want[] = { 0, 0.25, 1, 37.5, 100, 5 };
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(*good); i++) {
		assert_int_equal(parse(&o, argv, err, "--smaps-budget", good[i], NULL), 0);
		assert_true(o.smaps_budget == want[i]);
	}
}

static void test_full_line(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, argv, err, "-b", "-d", "0.25", "-n", "3", "-f", "json", "-s", "rss",
			       "-p", "12", "--pid", "34", NULL), 0);
	assert_true(o.batch);
	assert_true(o.delay == 0.25);
	assert_int_equal(o.iterations, 3);
	assert_int_equal(o.format, FORMAT_JSON);
	assert_int_equal(o.sort, SORT_RSS);
	assert_int_equal(o.npids, 2);
	assert_int_equal(o.pids[1], 34);
}

static void test_command_after_dashes(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, argv, err, "-b", "--", "sh", "-c", "exit 3", NULL), 0);
	assert_non_null(o.command);
	assert_string_equal(o.command[0], "sh");
	assert_string_equal(o.command[1], "-c");
	assert_int_not_equal(parse(&o, argv, err, "-b", "--", NULL), 0);
	assert_non_null(strstr(err, "no command"));
	assert_int_not_equal(parse(&o, argv, err, "sh", NULL), 0);
}

static void test_bad_values(void **state)
{
	static const char *const bad[][2] = {
		{ "-d", "0" }, { "-d", "-1" }, { "-d", "abc" }, { "-d", "0.05" }, { "-d", "nan" },
		{ "-d", "inf" }, { "-d", "0x10" }, { "-d", " 1" }, { "-d", "1e3" }, { "-d", "+1" }, { "-n", " 2" }, { "-n", "0" }, { "-n", "-3" }, { "-n", "x" }, { "-p", "0" },
		{ "-p", "-5" }, { "-p", "12abc" }, { "-p", "99999999999" }, { "-f", "xml" },
		{ "-s", "size" }, { "--track-first-clone", "x" }, { "--smaps-budget", "-1" },
		{ "--smaps-budget", "100.5" }, { "--smaps-budget", "abc" }, { "--smaps-budget", "nan" },
		{ "--smaps-budget", "inf" }, { "--smaps-budget", "1%" }, { "--smaps-budget", "" },
	};
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err[0] = '\0';
		assert_int_not_equal(parse(&o, argv, err, bad[i][0], bad[i][1], NULL), 0);
		assert_non_null(strstr(err, bad[i][1])); /* the message names the bad value */
		assert_null(strchr(err, '\n'));
	}
}

static void test_unknown_and_missing(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_not_equal(parse(&o, argv, err, "--bogus", NULL), 0);
	assert_non_null(strstr(err, "--bogus"));
	assert_int_not_equal(parse(&o, argv, err, "-x", NULL), 0);
	assert_non_null(strstr(err, "-x"));
	assert_int_not_equal(parse(&o, argv, err, "-d", NULL), 0);
	assert_non_null(strstr(err, "needs a value"));
}

static void test_targets_exclusive(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_not_equal(parse(&o, argv, err, "-p", "1", "--demo", NULL), 0);
	assert_int_not_equal(parse(&o, argv, err, "-p", "1", "--", "true", NULL), 0);
	assert_int_equal(parse(&o, argv, err, "--track-first-clone", "77", NULL), 0);
	assert_int_equal(o.first_clone_of, 77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_full_line),
		cmocka_unit_test(test_smaps_budget),
		cmocka_unit_test(test_command_after_dashes),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_unknown_and_missing),
		cmocka_unit_test(test_targets_exclusive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
