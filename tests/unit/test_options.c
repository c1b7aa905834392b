/* Unit tests: command-line parsing, good and bad. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
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
	assert_int_equal(o.sort, FIELD_COW_RATE);
	assert_int_equal(o.format, FORMAT_TEXT);
	assert_int_equal(o.npids, 0);
	assert_null(o.command);
	assert_true(o.smaps_budget == 1.0);
	assert_false(o.regions);
}

/* A number refused says why: negative, too large (an exponent too), too
 * small; one written with an exponent but in range, hex, inf or a plus
 * sign is no plain decimal. */
static void test_number_words(void **state)
{
	static const struct {
		const char *opt, *arg, *err;
	} cases[] = {
		{ "-d", "-1", "invalid delay '-1': negative (seconds, 0.1 to 86400)" },
		{ "-n", "-3", "invalid iteration count '-3': negative (1 to 9223372036854775807)" },
		{ "-d", "1e9", "invalid delay '1e9': too large (seconds, 0.1 to 86400)" },
		{ "-d", "1e999", "invalid delay '1e999': too large (seconds, 0.1 to 86400)" },
		{ "-n", "1e30", "invalid iteration count '1e30': too large (1 to 9223372036854775807)" },
		{ "-d", "1e-9", "invalid delay '1e-9': too small (seconds, 0.1 to 86400)" },
		{ "-p", "-5", "invalid PID '-5': negative" },
		{ "-d", "1e3", "invalid delay '1e3': not a decimal number (seconds, 0.1 to 86400)" },
		{ "-d", "-inf", "invalid delay '-inf': not a decimal number (seconds, 0.1 to 86400)" },
		{ "-d", "0x10", "invalid delay '0x10': not a decimal number (seconds, 0.1 to 86400)" },
		{ "-p", "+5", "invalid PID '+5': not a decimal number" },
	};
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		assert_int_equal(parse(&o, argv, err, cases[i].opt, cases[i].arg, "-b", NULL), -EINVAL);
		assert_string_equal(err, cases[i].err);
	}
}

/* -w/--record, --record-max-mib, -r/--replay, --diff A B, --reverse. */
static void test_record_replay_diff(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, argv, err, "-w", "x.rec", "--record-max-mib", "5", "-p", "1", NULL), 0);
	assert_string_equal(o.record, "x.rec");
	assert_true(o.record_max_mib == 5);
	assert_int_equal(parse(&o, argv, err, "--record=y.rec", NULL), 0);
	assert_string_equal(o.record, "y.rec");
	assert_int_equal(parse(&o, argv, err, "-r", "x.rec", NULL), 0);
	assert_string_equal(o.replay, "x.rec");
	assert_false(o.reverse);
	assert_int_equal(parse(&o, argv, err, "--reverse", NULL), 0);
	assert_true(o.reverse);
	assert_int_equal(parse(&o, argv, err, "--diff", "a.rec", "b.rec", "-f", "json", NULL), 0);
	assert_string_equal(o.diff[0], "a.rec");
	assert_string_equal(o.diff[1], "b.rec");
	assert_int_equal(o.format, FORMAT_JSON);
	assert_int_equal(parse(&o, argv, err, "--diff", "a.rec", NULL), -EINVAL);
	assert_string_equal(err, "--diff needs two recordings: --diff A B");
	assert_int_equal(parse(&o, argv, err, "--record-max-mib", "0", "-w", "x", NULL), -EINVAL);
	assert_string_equal(err, "invalid record size '0' (MiB, at least 0.01)");
	assert_int_equal(parse(&o, argv, err, "--record-max-mib", "0.5", "-w", "x", NULL), 0);
	assert_true(o.record_max_mib == 0.5);
	assert_int_equal(parse(&o, argv, err, "--record-max-mib", "5", NULL), -EINVAL);
	assert_string_equal(err, "--record-max-mib needs --record FILE");
	assert_int_equal(parse(&o, argv, err, "-w", "", NULL), -EINVAL);
	assert_string_equal(err, "--record needs a file name");
	assert_int_equal(parse(&o, argv, err, "-r", "x.rec", "-p", "1", NULL), -EINVAL);
	assert_string_equal(err, "--replay and --diff read recordings: no targets, no --record, "
			    "--listen or --exporter, not both");
	assert_int_equal(parse(&o, argv, err, "-r", "x.rec", "-w", "y.rec", NULL), -EINVAL);
	/* A replay's frames are not the machine's now: no metrics server. */
	assert_int_equal(parse(&o, argv, err, "-r", "x.rec", "--listen", "9100", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "-r", "x.rec", "--exporter", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--diff", "a", "b", "--exporter", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "-r", "x.rec", "--diff", "a", "b", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "-r", NULL), -EINVAL);
	assert_string_equal(err, "option '-r' needs a value");
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
	assert_false(o.no_regions);
	assert_int_equal(parse(&o, argv, err, "--no-regions", NULL), 0);
	assert_true(o.no_regions);
	assert_int_equal(parse(&o, argv, err, "-b", "--regions", "--no-regions", NULL), -EINVAL);
	assert_non_null(strstr(err, "exclude each other"));
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

/* The sampling budget: a percentage of one CPU, 1 by default, 0 no limit;
 * in batch output only with a sampler that follows it. */
static void test_sample_budget(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, argv, err, NULL), 0);
	assert_true(o.sample_budget == 1.0);
	assert_int_equal(parse(&o, argv, err, "--stacks", "--sample-budget", "0.25", NULL), 0);
	assert_true(o.sample_budget == 0.25);
	assert_int_equal(options_check_mode(&o, false, err, sizeof(err)), 0);
	assert_int_equal(parse(&o, argv, err, "--sample-budget", "0", NULL), 0);
	assert_true(o.sample_budget == 0);
	assert_int_equal(options_check_mode(&o, true, err, sizeof(err)), 0); /* key c */
	assert_int_equal(options_check_mode(&o, false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--sample-budget needs --stacks or --objects"));
}

/* --folded-objects FILE implies --objects (so --objects-sample and
 * --sample-budget apply); a file name is needed. */
static void test_folded_objects(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, argv, err, "--folded-objects", "o.folded", "--objects-sample", "1",
			       "--sample-budget", "0", NULL), 0);
	assert_true(o.objects);
	assert_false(o.stacks);
	assert_string_equal(o.folded_objects, "o.folded");
	assert_int_equal(options_check_mode(&o, false, err, sizeof(err)), 0);
	assert_int_equal(parse(&o, argv, err, "--folded-objects", "", NULL), -EINVAL);
	assert_non_null(strstr(err, "--folded-objects needs a file name"));
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
	assert_int_equal(o.sort, FIELD_RSS);
	assert_int_equal(o.npids, 2);
	assert_int_equal(o.pids[1], 34);
}

/* -p takes a comma-separated list as top and htop do, and repeats. */
static void test_pid_lists(void **state)
{
	static const char *const bad[] = { "1,", ",1", "1,,2", "1,x", "1,0", "," };
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];
	size_t i;

	(void)state;
	assert_int_equal(parse(&o, argv, err, "-p", "1,2,3", "-p", "40", NULL), 0);
	assert_int_equal(o.npids, 4);
	assert_int_equal(o.pids[0], 1);
	assert_int_equal(o.pids[2], 3);
	assert_int_equal(o.pids[3], 40);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err[0] = '\0';
		assert_int_not_equal(parse(&o, argv, err, "-p", bad[i], NULL), 0);
		assert_non_null(strstr(err, bad[i]));
	}
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
		{ "--sample-budget", "-1" }, { "--sample-budget", "101" }, { "--sample-budget", "x" },
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

/* --cgroup and --unit: a target of their own; an empty path, or a unit
 * name with a slash, is a usage error. */
static void test_cgroup_and_unit(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, argv, err, "--cgroup", "app/web", NULL), 0);
	assert_string_equal(o.cgroup, "app/web");
	assert_null(o.unit);
	assert_int_equal(parse(&o, argv, err, "--unit", "nginx.service", NULL), 0);
	assert_string_equal(o.unit, "nginx.service");
	assert_int_equal(parse(&o, argv, err, "--cgroup", "", NULL), -EINVAL);
	assert_non_null(strstr(err, "empty cgroup path"));
	assert_int_equal(parse(&o, argv, err, "--unit", "a/b", NULL), -EINVAL);
	assert_non_null(strstr(err, "unit name"));
	assert_int_equal(parse(&o, argv, err, "--cgroup", "x", "-p", "1", NULL), -EINVAL);
	assert_non_null(strstr(err, "exclude each other"));
	assert_int_equal(parse(&o, argv, err, "--cgroup", "x", "--unit", "y", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--unit", "y", "--", "true", NULL), -EINVAL);
}

/* --listen: [ADDR:]PORT, IPv6 in brackets; anything else is a usage error. */
static void test_listen(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, argv, err, NULL), 0);
	assert_null(o.listen);
	assert_false(o.exporter);
	assert_int_equal(parse(&o, argv, err, "--listen", "9100", NULL), 0);
	assert_string_equal(o.listen_addr, "127.0.0.1");
	assert_int_equal(o.listen_port, 9100);
	assert_int_equal(parse(&o, argv, err, "--listen", "0.0.0.0:80", NULL), 0);
	assert_string_equal(o.listen_addr, "0.0.0.0");
	assert_int_equal(o.listen_port, 80);
	assert_int_equal(parse(&o, argv, err, "--listen", "[::1]:9729", NULL), 0);
	assert_string_equal(o.listen_addr, "::1");
	assert_int_equal(o.listen_port, 9729);
	assert_int_equal(parse(&o, argv, err, "--listen", "0", NULL), -EINVAL);
	assert_non_null(strstr(err, "invalid listen address '0'"));
	assert_int_equal(parse(&o, argv, err, "--listen", "65536", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--listen", "localhost:80", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--listen", "::1:80", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--listen", ":80", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--listen", "1.2.3.4:", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--listen", "[1.2.3.4]:80", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--listen", "1.2.3.4:80x", NULL), -EINVAL);
}

/* --exporter alone listens on the default port; --metrics-by and --label
 * are checked and need an exporter. */
static void test_exporter(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, argv, err, "--exporter", NULL), 0);
	assert_true(o.exporter);
	assert_false(o.metrics_by_pid);
	assert_string_equal(o.listen_addr, "127.0.0.1");
	assert_int_equal(o.listen_port, OPT_EXPORTER_PORT);
	assert_int_equal(parse(&o, argv, err, "--exporter", "--listen", "[::]:9000", NULL), 0);
	assert_int_equal(o.listen_port, 9000);
	assert_int_equal(parse(&o, argv, err, "--exporter", "--metrics-by", "pid",
			       "--label", "group=web", NULL), 0);
	assert_true(o.metrics_by_pid);
	assert_string_equal(o.label_group, "web");
	assert_int_equal(parse(&o, argv, err, "--exporter", "--metrics-by", "comm", NULL), -EINVAL);
	assert_non_null(strstr(err, "'comm'"));
	assert_int_equal(parse(&o, argv, err, "--exporter", "--label", "role=x", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--exporter", "--label", "group=", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--exporter", "--label", "group=a\nb", NULL), -EINVAL);
	assert_int_equal(parse(&o, argv, err, "--metrics-by", "pid", NULL), -EINVAL);
	assert_non_null(strstr(err, "need --listen"));
}

/* Whether text has name after a space or an opening parenthesis, followed by after. */
static bool has_word(const char *text, const char *name, const char *after)
{
	char w[80];

	snprintf(w, sizeof(w), " %s%s", name, after);
	if (strstr(text, w))
		return true;
	snprintf(w, sizeof(w), "(%s%s", name, after);
	return strstr(text, w) != NULL;
}

/* --help lists every sort key of the field table, the default first, and
 * a bad -s names the same keys: both come from the table. */
static void test_help_sort_keys(void **state)
{
	struct options o;
	char *argv[ARGV_MAX];
	char err[256], *text = NULL, *line, *end, keys[512] = "";
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int k, listed = 0;

	(void)state;
	assert_non_null(f);
	options_usage(f);
	assert_int_equal(fclose(f), 0);
	line = strstr(text, "  -s, --sort KEY");
	assert_non_null(line);
	/* the key line and its continuation lines (indented past the options) */
	for (end = strchr(line, '\n'); end && strncmp(end + 1, "                            ", 28) == 0;)
		end = strchr(end + 1, '\n');
	assert_non_null(end);
	snprintf(keys, sizeof(keys), "%.*s", (int)(end - line + 1), line);
	assert_non_null(strstr(keys, "KEY            cow-rate (default), "));
	for (k = 0; k < FIELD_N; k++) {
		const char *name = sort_key_name((enum field_id)k);
		enum field_id back;

		if (sort_key_parse(name, &back) || back != (enum field_id)k)
			continue; /* not a sort key */
		listed++;
		assert_true(has_word(keys, name, " (default),") || has_word(keys, name, ",") ||
			    has_word(keys, name, "\n"));
		assert_int_equal(parse(&o, argv, err, "-s", "nope", NULL), -EINVAL);
		assert_true(has_word(err, name, ",") || has_word(err, name, ")"));
	}
	assert_true(listed >= 10);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_full_line),
		cmocka_unit_test(test_pid_lists),
		cmocka_unit_test(test_smaps_budget),
		cmocka_unit_test(test_sample_budget),
		cmocka_unit_test(test_folded_objects),
		cmocka_unit_test(test_command_after_dashes),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_number_words),
		cmocka_unit_test(test_unknown_and_missing),
		cmocka_unit_test(test_targets_exclusive),
		cmocka_unit_test(test_cgroup_and_unit),
		cmocka_unit_test(test_listen),
		cmocka_unit_test(test_exporter),
		cmocka_unit_test(test_record_replay_diff),
		cmocka_unit_test(test_help_sort_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
