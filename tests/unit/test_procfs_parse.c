/* Unit tests of the /proc parsers on captured and hostile files: stat,
 * status (Tgid, NSpid), cmdline, the time namespace's offsets. Fixtures
 * live in $FIXTURES_DIR/proc, else under FIXTURES_DIR (set at build time). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "procfs_fixture.h"
#include "procfs.h"

/* Parse a stat fixture; returns the parser's result. */
static int parse_stat_fixture(const char *name, struct proc_stat *st)
{
	return PARSE_FIXTURE(procfs_parse_stat, name, st);
}

/* Parse a stat fixture that must be accepted. */
static void stat_ok(const char *name, struct proc_stat *st)
{
	memset(st, 0x5a, sizeof(*st));
	if (parse_stat_fixture(name, st) != 0)
		fail_msg("%s was refused", name);
}

/* ---- stat: captured files ---- */

/* A short-lived ordinary process (cat reading its own stat). */
static void test_stat_cat(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("cat.stat", &st);
	assert_int_equal(st.pid, 3744);
	assert_string_equal(st.comm, "cat");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 3741);
	assert_int_equal(st.utime, 0);
	assert_int_equal(st.stime, 0);
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.start_time, 36781);
	assert_int_equal(st.vsize, 3133440);
	assert_int_equal(st.rss, 371);
}

/* A multi-threaded process with a negative nice value among its fields. */
static void test_stat_multithread(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("multi.stat", &st);
	assert_int_equal(st.pid, 22026);
	assert_string_equal(st.comm, "worker-pool");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 22018);
	assert_int_equal(st.utime, 30);
	assert_int_equal(st.stime, 0);
	assert_int_equal(st.num_threads, 4);
	assert_int_equal(st.start_time, 96181);
	assert_int_equal(st.vsize, 27713536);
	assert_int_equal(st.rss, 274);
}

/* A thread's own stat (exit_signal -1 further on). */
static void test_stat_thread(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("thread.stat", &st);
	assert_int_equal(st.pid, 22027);
	assert_string_equal(st.comm, "pool-1");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 22018);
	assert_int_equal(st.utime, 0);
	assert_int_equal(st.num_threads, 4);
	assert_int_equal(st.start_time, 96211);
	assert_int_equal(st.rss, 306);
}

/* Kernel threads: no memory, idle state, long workqueue names, and a
 * real-time priority of -100. */
static void test_stat_kernel_threads(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("kthreadd.stat", &st);
	assert_int_equal(st.pid, 2);
	assert_string_equal(st.comm, "kthreadd");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 0);
	assert_int_equal(st.start_time, 14);
	assert_int_equal(st.vsize, 0);
	assert_int_equal(st.rss, 0);
	assert_true(st.flags & PROCFS_PF_KTHREAD);
	stat_ok("cat.stat", &st);
	assert_false(st.flags & PROCFS_PF_KTHREAD);

	stat_ok("kworker.stat", &st);
	assert_true(st.flags & PROCFS_PF_KTHREAD);
	assert_int_equal(st.pid, 12);
	assert_string_equal(st.comm, "kworker/u8:0-ipv6_addrconf");
	assert_int_equal(st.state, 'I');
	assert_int_equal(st.ppid, 2);
	assert_int_equal(st.utime, 0);
	assert_int_equal(st.stime, 11);

	stat_ok("migration.stat", &st);
	assert_int_equal(st.pid, 18);
	assert_string_equal(st.comm, "migration/0");
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.start_time, 14);
}

/* A process stopped by its tracer: a lower-case state letter. */
static void test_stat_traced(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("traced.stat", &st);
	assert_int_equal(st.pid, 18653);
	assert_string_equal(st.comm, "tr");
	assert_int_equal(st.state, 't');
	assert_int_equal(st.ppid, 18652);
	assert_int_equal(st.start_time, 83750);
	assert_int_equal(st.rss, 151);
}

/* A zombie: state Z, its memory gone. */
static void test_stat_zombie(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("zombie.stat", &st);
	assert_int_equal(st.pid, 3741);
	assert_string_equal(st.comm, "bash");
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.start_time, 36781);
	assert_int_equal(st.vsize, 0);
	assert_int_equal(st.rss, 0);
}

/* ---- stat: hostile names, captured from processes that set them ---- */

/* Names that hold ')', '(', spaces, newlines, escapes and bad UTF-8 are
 * kept byte for byte, and the fields after them still parse. */
static void test_stat_hostile_names(void **state)
{
	static const struct {
		const char *file;
		const char *comm;
		long long rss;
	} cases[] = {
		{ "paren-spoof.stat", "a) R 1 2 (b", 266 },
		{ "newline.stat", "evil\nTgid:\t1", 287 },
		{ "esc.stat", "\x1b[2J\x1b[31mred", 275 },
		{ "badutf8.stat", "\xff\xfe\xc0\xaf\xc2\x85", 280 },
		{ "lone-paren.stat", ")", 272 },
		{ "spaces.stat", " ) ( ", 275 },
	};
	struct proc_stat st;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		stat_ok(cases[i].file, &st);
		assert_string_equal(st.comm, cases[i].comm);
		assert_int_equal(st.state, 'R');
		assert_int_equal(st.ppid, 4935);
		assert_int_equal(st.num_threads, 1);
		assert_int_equal(st.vsize, 2400256);
		assert_int_equal(st.rss, cases[i].rss);
	}
}

/* A name longer than the buffer is cut to fit, the rest still parses. */
static void test_stat_long_comm(void **state)
{
	char want[PROCFS_COMM_MAX];
	struct proc_stat st;

	(void)state;
	memset(want, 'n', sizeof(want) - 1);
	want[sizeof(want) - 1] = '\0';
	stat_ok("long-comm.stat", &st);
	assert_string_equal(st.comm, want);
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.utime, 5);
	assert_int_equal(st.stime, 6);
	assert_int_equal(st.rss, 359);
}

/* The largest values that fit are accepted. */
static void test_stat_max_values(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("max-utime.stat", &st);
	assert_true(st.utime == ULLONG_MAX);
	assert_int_equal(st.stime, 7);
}

/* Malformed files are refused and leave out untouched. */
static void test_stat_malformed(void **state)
{
	static const char *const files[] = {
		"empty.stat", "trunc-pid.stat", "trunc-comm.stat",
		"trunc-state.stat", "trunc-stime.stat", "trunc-rss.stat",
		"missing-fields.stat", "overflow-utime.stat",
		"overflow-pid.stat", "overflow-threads.stat",
		"overflow-rss.stat", "negative-utime.stat",
		"garbage-field.stat", "no-rparen.stat", "no-lparen.stat",
		"bad-state.stat", "negative-ppid.stat", "negative-threads.stat",
		"zero-pid.stat", "negative-pid.stat", "garbage-rss.stat",
		"glued-state.stat", "long-state.stat",
	};
	struct proc_stat st, before;
	size_t i;

	(void)state;
	memset(&before, 0x5a, sizeof(before));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		st = before;
		if (parse_stat_fixture(files[i], &st) != -EINVAL)
			fail_msg("%s was not refused", files[i]);
		assert_memory_equal(&st, &before, sizeof(st));
	}
}

/* A file cut after rss and its separator holds every field used. */
static void test_stat_cut_after_rss(void **state)
{
	struct proc_stat st;

	(void)state;
	stat_ok("trunc-after-rss.stat", &st);
	assert_int_equal(st.ppid, 3656);
	assert_int_equal(st.start_time, 36153);
	assert_int_equal(st.vsize, 3133440);
	assert_int_equal(st.rss, 359);
}

/* Offset just past the separator that ends field 24 (rss): the 23rd space
 * after the last ')' of the file. */
static size_t stat_needed(const char *buf, size_t len)
{
	const char *rp = memrchr(buf, ')', len);
	size_t i;
	int spaces = 0;

	assert_non_null(rp);
	for (i = (size_t)(rp - buf); i < len; i++) {
		if (buf[i] == ' ' && ++spaces == 23)
			return i + 1;
	}
	fail_msg("fixture has fewer than 24 fields");
	return 0;
}

/* Every prefix of a real file: refused while a used field may be cut short,
 * identical to the whole file's parse once they are all there. */
static void test_stat_every_truncation(void **state)
{
	static const char *const files[] = {
		"cat.stat", "multi.stat", "kworker.stat", "zombie.stat",
		"paren-spoof.stat", "newline.stat", "spaces.stat",
	};
	struct proc_stat full, st;
	size_t i, len, cut, need;
	char *buf, *copy;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		buf = fixture(files[i], &len);
		memset(&full, 0, sizeof(full));
		assert_int_equal(procfs_parse_stat(buf, len, &full), 0);
		need = stat_needed(buf, len);
		for (cut = 0; cut <= len; cut++) {
			copy = malloc(cut ? cut : 1);
			assert_non_null(copy);
			memcpy(copy, buf, cut);
			memset(&st, 0, sizeof(st));
			ret = procfs_parse_stat(copy, cut, &st);
			if (cut < need && ret != -EINVAL)
				fail_msg("%s cut at %zu accepted", files[i], cut);
			if (cut >= need) {
				assert_int_equal(ret, 0);
				assert_memory_equal(&st, &full, sizeof(st));
			}
			free(copy);
		}
		free(buf);
	}
}

/* ---- status ---- */

/* Parse the Tgid of a status fixture. */
static int parse_tgid_fixture(const char *name)
{
	size_t len;
	char *buf = fixture(name, &len);
	int ret = procfs_parse_status_tgid(buf, len);

	free(buf);
	return ret;
}

/* Tgid of a thread, a kernel thread and a zombie; a name that spells a Tgid
 * line does not count; malformed files are refused. */
static void test_status_tgid(void **state)
{
	(void)state;
	assert_int_equal(parse_tgid_fixture("thread.status"), 22026);
	assert_int_equal(parse_tgid_fixture("kthreadd.status"), 2);
	assert_int_equal(parse_tgid_fixture("zombie.status"), 3741);
	assert_int_equal(parse_tgid_fixture("newline.status"), 4945);
	assert_int_equal(parse_tgid_fixture("empty.status"), -EINVAL);
	assert_int_equal(parse_tgid_fixture("no-tgid.status"), -EINVAL);
	assert_int_equal(parse_tgid_fixture("bad-tgid.status"), -EINVAL);
	assert_int_equal(parse_tgid_fixture("trunc-tgid.status"), -EINVAL);
	assert_int_equal(parse_tgid_fixture("overflow-tgid.status"), -EINVAL);
	assert_int_equal(parse_tgid_fixture("zero-tgid.status"), -EINVAL);
}

/* ---- cmdline ---- */

/* Tidy a cmdline fixture and compare with want. */
static void check_tidy(const char *name, const char *want)
{
	size_t len, n;
	char *raw = fixture(name, &len);
	char *buf = malloc(len + 1);

	assert_non_null(buf);
	memcpy(buf, raw, len);
	n = procfs_tidy_cmdline(buf, len);
	assert_int_equal(n, strlen(want));
	assert_string_equal(buf, want);
	free(buf);
	free(raw);
}

/* NULs become spaces, trailing ones go, inner empty arguments stay. */
static void test_cmdline_tidy(void **state)
{
	(void)state;
	check_tidy("cat.cmdline", "cat /proc/self/cmdline");
	check_tidy("args.cmdline", "sh -c echo a  b  x");
	check_tidy("padded.cmdline", "nginx: worker process");
	check_tidy("nuls.cmdline", "");
	check_tidy("zombie.cmdline", "");
}

/* ---- namespaces: NSpid, the time namespace's offsets ---- */

/* The pid inside a process's own namespace: the last of NSpid. */
static void test_status_nspid(void **state)
{
	static const char nested[] = "Name:\tsh\nTgid:\t4242\nNSpid:\t4242\t17\t1\nPPid:\t1\n";
	static const char flat[] = "Name:\tsh\nNSpid:\t4242\n";
	static const char none[] = "Name:\tsh\nTgid:\t4242\n";
	static const char cut[] = "Name:\tsh\nNSpid:\t4242\t1";
	static const char bad[] = "NSpid:\t4242\tx\n";
	static const char forged[] = "Name:\tNSpid: 5\\nNSpid:\t7\nNSpid:\t9\n";

	(void)state;
	assert_int_equal(procfs_parse_status_nspid(nested, strlen(nested)), 1);
	assert_int_equal(procfs_parse_status_nspid(flat, strlen(flat)), 4242);
	assert_int_equal(procfs_parse_status_nspid(none, strlen(none)), -ENOENT);
	assert_int_equal(procfs_parse_status_nspid(cut, strlen(cut)), -EINVAL);
	assert_int_equal(procfs_parse_status_nspid(bad, strlen(bad)), -EINVAL);
	assert_int_equal(procfs_parse_status_nspid(forged, strlen(forged)), 9);
}

/* The boot time offset of a time namespace, by name or by clock id. */
static void test_timens_parse(void **state)
{
	static const char named[] = "monotonic 0 0\nboottime 100000 5\n";
	static const char ids[] = "1 7 0\n7 -20 0\n";

	(void)state;
	assert_true(procfs_parse_timens_boottime(named, strlen(named)) == 100000000000005LL);
	assert_true(procfs_parse_timens_boottime(ids, strlen(ids)) == -20000000000LL);
	assert_true(procfs_parse_timens_boottime("", 0) == 0);
	assert_true(procfs_parse_timens_boottime("monotonic 5 0\n", 14) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_cat),
		cmocka_unit_test(test_stat_multithread),
		cmocka_unit_test(test_stat_thread),
		cmocka_unit_test(test_stat_kernel_threads),
		cmocka_unit_test(test_stat_zombie),
		cmocka_unit_test(test_stat_traced),
		cmocka_unit_test(test_stat_hostile_names),
		cmocka_unit_test(test_stat_long_comm),
		cmocka_unit_test(test_stat_max_values),
		cmocka_unit_test(test_stat_malformed),
		cmocka_unit_test(test_stat_cut_after_rss),
		cmocka_unit_test(test_stat_every_truncation),
		cmocka_unit_test(test_status_tgid),
		cmocka_unit_test(test_cmdline_tidy),
		cmocka_unit_test(test_timens_parse),
		cmocka_unit_test(test_status_nspid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
