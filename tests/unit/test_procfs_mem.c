/* Unit tests of the /proc readers of memory figures: smaps_rollup, VmPTE,
 * MemAvailable, pressure (PSI) and the memory cgroup, on captured and hostile
 * files, on our own process, and on directories made to look like /proc and
 * /sys/fs/cgroup. Fixtures live in $FIXTURES_DIR/proc, else under
 * FIXTURES_DIR (set at build time). */
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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "procfs_fixture.h"
#include "procfs.h"

/* ---- smaps_rollup, meminfo, cgroup ---- */

/* Captured here (kernel 6.18): a small process, and one that wrote 1 GiB. */
static void test_smaps_captured(void **state)
{
	struct smaps sm;

	(void)state;
	assert_int_equal(PARSE_FIXTURE(procfs_parse_smaps_rollup, "small.smaps_rollup", &sm), 0);
	assert_int_equal(sm.rss, 2592);
	assert_int_equal(sm.pss, 1183);
	assert_int_equal(sm.pss_anon, 1120);
	assert_int_equal(sm.pss_file, 63);
	assert_int_equal(sm.pss_shmem, 0);
	assert_int_equal(sm.shared_clean, 1460);
	assert_int_equal(sm.shared_dirty, 12);
	assert_int_equal(sm.private_clean, 0);
	assert_int_equal(sm.private_dirty, 1120);
	assert_int_equal(sm.anon, 1120);
	assert_int_equal(sm.swap, 0);
	assert_int_equal(sm.swap_pss, 0);
	assert_int_equal(PARSE_FIXTURE(procfs_parse_smaps_rollup, "1gib.smaps_rollup", &sm), 0);
	assert_int_equal(sm.rss, 1050208);
	assert_int_equal(sm.pss, 1048747);
	assert_int_equal(sm.private_dirty, 1048680);
	assert_int_equal(sm.anon, 1048680);
}

/* Before Linux 5.9 there is no Pss_Anon, Pss_File, Pss_Shmem: they read 0;
 * the largest values fit; anything missing, cut, malformed or too large is
 * refused and leaves the output alone. */
static void test_smaps_hostile(void **state)
{
	static const char *const bad[] = {
		"empty.smaps_rollup", "cut.smaps_rollup", "missing-pss.smaps_rollup",
		"garbage.smaps_rollup", "no-unit.smaps_rollup", "overflow.smaps_rollup",
		"meminfo",
	};
	struct smaps sm, canary;
	size_t i;

	(void)state;
	memset(&sm, 0x5a, sizeof(sm));
	assert_int_equal(PARSE_FIXTURE(procfs_parse_smaps_rollup, "old.smaps_rollup", &sm), 0);
	assert_int_equal(sm.pss, 1183);
	assert_int_equal(sm.pss_anon, 0);
	assert_int_equal(sm.pss_file, 0);
	assert_int_equal(sm.swap_pss, 0);
	assert_int_equal(sm.private_dirty, 1120);
	assert_int_equal(PARSE_FIXTURE(procfs_parse_smaps_rollup, "huge.smaps_rollup", &sm), 0);
	assert_true(sm.rss == ULLONG_MAX && sm.pss == ULLONG_MAX && sm.swap == ULLONG_MAX);
	assert_int_equal(sm.shared_dirty, 12);
	memset(&canary, 0x5a, sizeof(canary));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(&sm, &canary, sizeof(sm));
		if (PARSE_FIXTURE(procfs_parse_smaps_rollup, bad[i], &sm) != -EINVAL)
			fail_msg("%s was accepted", bad[i]);
		assert_memory_equal(&sm, &canary, sizeof(sm));
	}
}

/* VmPTE of status: the page tables; a kernel thread's status has none. */
static void test_status_pte(void **state)
{
	static const char status[] = "Name:\tw\nVmRSS:\t    1234 kB\nVmPTE:\t      88 kB\nVmSwap:\t0 kB\n";
	static const char kthread[] = "Name:\tkworker/0:1\nState:\tI (idle)\nThreads:\t1\n";
	unsigned long long kib = 7;

	(void)state;
	assert_int_equal(procfs_parse_status_pte(status, sizeof(status) - 1, &kib), 0);
	assert_int_equal(kib, 88);
	kib = 7;
	assert_int_equal(procfs_parse_status_pte(kthread, sizeof(kthread) - 1, &kib), -EINVAL);
	assert_int_equal(kib, 7); /* untouched */
	/* cut inside the line: not read, never a digit short */
	assert_int_equal(procfs_parse_status_pte(status, (size_t)(strstr(status, "88") + 1 - status), &kib),
			 -EINVAL);
}

/* Every prefix of a capture is refused until the last required line is
 * whole, and from there on reads as the whole file. */
static void test_smaps_every_truncation(void **state)
{
	struct smaps full, sm;
	size_t len, cut, need;
	char *buf, *copy;
	int ret;

	(void)state;
	buf = fixture("small.smaps_rollup", &len);
	memset(&full, 0, sizeof(full));
	assert_int_equal(procfs_parse_smaps_rollup(buf, len, &full), 0);
	need = (size_t)(strchr(strstr(buf, "\nAnonymous:") + 1, '\n') + 1 - buf);
	for (cut = 0; cut <= len; cut++) {
		copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, buf, cut);
		memset(&sm, 0, sizeof(sm));
		ret = procfs_parse_smaps_rollup(copy, cut, &sm);
		if (cut < need && ret != -EINVAL)
			fail_msg("cut at %zu accepted", cut);
		if (cut >= need) {
			assert_int_equal(ret, 0);
			assert_memory_equal(&sm, &full, sizeof(sm));
		}
		free(copy);
	}
	free(buf);
}

/* The avg10 figures of a PSI file; a "full" line is optional (the
 * machine-wide cpu file of older kernels had none); garbage is refused. */
static void test_psi_parse(void **state)
{
	static const char both[] = "some avg10=1.25 avg60=0.50 avg300=0.10 total=123\n"
				   "full avg10=0.75 avg60=0.00 avg300=0.00 total=45\n";
	static const char some[] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
	struct psi psi;

	(void)state;
	assert_int_equal(procfs_parse_psi(both, strlen(both), &psi), 0);
	assert_true(psi.some_avg10 == 1.25);
	assert_true(psi.full_avg10 == 0.75);
	assert_int_equal(procfs_parse_psi(some, strlen(some), &psi), 0);
	assert_true(psi.some_avg10 == 0);
	assert_true(psi.full_avg10 < 0);
	assert_int_equal(procfs_parse_psi("", 0, &psi), -EINVAL);
	assert_int_equal(procfs_parse_psi("some avg10=x\n", 13, &psi), -EINVAL);
	assert_int_equal(procfs_parse_psi("some avg10=250.0\n", 17, &psi), -EINVAL);
	assert_int_equal(procfs_parse_psi("full avg10=1.0\n", 15, &psi), -EINVAL);
}

/* MemAvailable of a captured meminfo; none before Linux 3.14. */
static void test_meminfo_available(void **state)
{
	unsigned long long kib = 7;
	size_t len;
	char *buf;

	(void)state;
	buf = fixture("meminfo", &len);
	assert_int_equal(procfs_parse_meminfo_available(buf, len, &kib), 0);
	assert_int_equal(kib, 22019184);
	free(buf);
	buf = fixture("old.meminfo", &len);
	assert_int_equal(procfs_parse_meminfo_available(buf, len, &kib), -EINVAL);
	free(buf);
	buf = fixture("garbage.meminfo", &len);
	assert_int_equal(procfs_parse_meminfo_available(buf, len, &kib), -EINVAL);
	free(buf);
	assert_int_equal(procfs_parse_meminfo_available("MemAvailable: 5 kB\n", 19, &kib), 0);
	assert_int_equal(kib, 5);
	assert_int_equal(procfs_parse_meminfo_available("MemAvailable: 5 kB", 18, &kib), -EINVAL);
	assert_int_equal(procfs_parse_meminfo_available("", 0, &kib), -EINVAL);
}

/* The memory line of v1 (alone or in a list) wins over v2's; paths that
 * could leave the hierarchy are refused. */
static void test_cgroup_parse(void **state)
{
	struct procfs_cgroup cg;

	(void)state;
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "hybrid.cgroup", &cg), 0);
	assert_true(cg.v1);
	assert_string_equal(cg.path, "/process_api/d93c2de3a4a6066275aff8549943003b");
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "v2.cgroup", &cg), 0);
	assert_false(cg.v1);
	assert_string_equal(cg.path, "/system.slice/nginx.service");
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "cpu-memory.cgroup", &cg), 0);
	assert_true(cg.v1);
	assert_string_equal(cg.path, "/docker/abc");
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "cut.cgroup", &cg), 0);
	assert_true(cg.v1);
	assert_string_equal(cg.path, "/a");
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "no-memory.cgroup", &cg), -ENOENT);
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "empty.cgroup", &cg), -ENOENT);
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "dotdot.cgroup", &cg), -EINVAL);
	assert_int_equal(PARSE_FIXTURE(procfs_parse_cgroup, "relative.cgroup", &cg), -EINVAL);
	assert_int_equal(procfs_parse_cgroup("0::/a//b\n", 9, &cg), -EINVAL);
	assert_int_equal(procfs_parse_cgroup("0::/a/.\n", 8, &cg), -EINVAL);
	assert_int_equal(procfs_parse_cgroup("0::/\n", 5, &cg), 0);
	assert_string_equal(cg.path, "/");
	assert_int_equal(procfs_parse_cgroup("1:memoryx:/a\n0::/b\n", 19, &cg), 0);
	assert_false(cg.v1);
	assert_string_equal(cg.path, "/b");
}

/* ---- the live /proc, and a made-up one with its cgroup tree ---- */

/* Our own smaps_rollup and the machine's MemAvailable read; a zombie has
 * no memory to read, a reaped process no file. */
static void test_live_smaps(void **state)
{
	unsigned long long kib = 0;
	struct smaps sm;
	pid_t pid;
	int i;

	(void)state;
	assert_int_equal(procfs_read_smaps_rollup(procfd, getpid(), &sm), 0);
	assert_true(sm.rss > 0 && sm.pss > 0 && sm.pss <= sm.rss);
	assert_true(sm.private_clean + sm.private_dirty <= sm.rss);
	assert_int_equal(procfs_read_meminfo_available(procfd, &kib), 0);
	assert_true(kib > 0);
	assert_int_equal(procfs_read_smaps_rollup(procfd, 0, &sm), -EINVAL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	for (i = 0; i < 5000 && procfs_read_smaps_rollup(procfd, pid, &sm) == 0; i++)
		usleep(1000);
	assert_int_equal(procfs_read_smaps_rollup(procfd, pid, &sm), -ESRCH);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(procfs_read_smaps_rollup(procfd, pid, &sm), -ENOENT);
}
/* Write "PATH\nCONTENT" pairs under dirfd, making the directories. */
static void write_tree(int dirfd, const char *const *files, size_t n)
{
	char path[PATH_MAX], *slash;
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		snprintf(path, sizeof(path), "%s", files[i]);
		for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			(void)mkdirat(dirfd, path, 0700);
			*slash = '/';
		}
		assert_int_equal(write_file(dirfd, path, files[i + 1], strlen(files[i + 1])), 0);
	}
}

/* Memory cgroups in a directory made to look like /proc and /sys/fs/cgroup:
 * the tightest limit on the way up counts; v1's huge limit and v2's "max"
 * are none; unreadable levels count as unlimited. */
static void test_fake_memcg(void **state)
{
	static const char *const files[] = {
		"1/cgroup", "4:memory:/a/b\n0::/\n",
		"cg/memory/a/memory.limit_in_bytes", "1073741824\n",
		"cg/memory/a/memory.usage_in_bytes", "536870912\n",
		"cg/memory/a/b/memory.limit_in_bytes", "9223372036854771712\n",
		"cg/memory/a/b/memory.usage_in_bytes", "104857600\n",
		"2/cgroup", "0::/s/t\n",
		"cg/unified/s/memory.max", "max\n",
		"cg/unified/s/memory.current", "4096000\n",
		"cg/unified/s/t/memory.max", "2097152\n",
		"cg/unified/s/t/memory.current", "1048576\n",
		"cg/unified/s/t/memory.pressure", "some avg10=3.25 avg60=1.00 avg300=0.00 total=9\n"
						  "full avg10=1.50 avg60=0.00 avg300=0.00 total=4\n",
		"cg/unified/u/memory.pressure", "garbage\n",
		"3/cgroup", "0::/\n",
		"4/cgroup", "0::/nomem/x\n",
		"cg/unified/nomem/x/cgroup.procs", "4\n",
		"5/cgroup", "0::/u\n",
		"cg/unified/u/memory.max", "max\n",
		"cg/unified/u/memory.current", "8192\n",
		"6/cgroup", "0::/bad\n",
		"cg/unified/bad/memory.max", "12x\n",
		"cg/unified/bad/memory.current", "8192\n",
		"7/cgroup", "3:cpu:/\n",
		"8/cgroup", "0::/../x\n",
	};
	static const struct {
		int pid, ret;
		unsigned long long limit, usage;
		bool psi; /* its cgroup v2's memory pressure read (only 2's is there and sane) */
	} want[] = {
		{ 1, 0, 1048576, 524288, false }, { 2, 0, 2048, 1024, true }, { 3, 0, 0, 0, false },
		{ 4, 0, 0, 0, false }, { 5, 0, 0, 8, false }, { 6, 0, 0, 0, false },
		{ 7, -ENOENT, 9, 9, false }, { 8, -EINVAL, 9, 9, false }, { 9, -ENOENT, 9, 9, false },
	};
	int fd = (int)(intptr_t)*state, cgfd;
	struct memcg cg;
	size_t i;

	write_tree(fd, files, sizeof(files) / sizeof(files[0]));
	cgfd = openat(fd, "cg", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(cgfd >= 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cg.limit_kib = cg.usage_kib = 9;
		cg.psi_known = false;
		if (procfs_read_memcg(fd, cgfd, want[i].pid, &cg) != want[i].ret)
			fail_msg("pid %d: not %d", want[i].pid, want[i].ret);
		assert_int_equal(cg.limit_kib, want[i].limit);
		assert_int_equal(cg.usage_kib, want[i].usage);
		assert_int_equal(cg.psi_known, want[i].psi);
	}
	procfs_read_memcg(fd, cgfd, 2, &cg);
	assert_true(cg.psi.some_avg10 == 3.25 && cg.psi.full_avg10 == 1.5);
	close(cgfd);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smaps_captured),
		cmocka_unit_test(test_smaps_hostile),
		cmocka_unit_test(test_status_pte),
		cmocka_unit_test(test_smaps_every_truncation),
		cmocka_unit_test(test_meminfo_available),
		cmocka_unit_test(test_psi_parse),
		cmocka_unit_test(test_cgroup_parse),
		cmocka_unit_test(test_live_smaps),
		cmocka_unit_test_setup_teardown(test_fake_memcg, tmp_proc_setup, tmp_proc_teardown),
	};
	return cmocka_run_group_tests(tests, procfd_setup, procfd_teardown);
}
