/* Unit tests of the launch gate: the child runs only once the gate opens,
 * and a gate closed unopened (cowtop died or failed before watching) makes
 * it exit 127 without running anything. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "launch.h"

/* The child's "command": leave a mark in a file, then exit 0. */
static int mark_and_exit(void *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd >= 0)
		close(fd);
	_exit(0);
}

/* The child's "command" that fails like a missing executable. */
static int fail_enoent(void *arg)
{
	(void)arg;
	return ENOENT;
}

static char *mark_path(void)
{
	char *p = strdup("/tmp/cowtop-launch-XXXXXX");
	int fd;

	assert_non_null(p);
	fd = mkstemp(p);
	assert_true(fd >= 0);
	close(fd);
	unlink(p);
	return p;
}

static int wait_status(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_release_runs_the_command(void **state)
{
	struct launch l = { 0 };
	char *mark = mark_path();

	(void)state;
	assert_int_equal(launch__start(&l, mark_and_exit, mark), 0);
	/* nothing runs before the gate opens */
	usleep(50 * 1000);
	assert_int_equal(access(mark, F_OK), -1);
	assert_int_equal(launch__release(&l), 0);
	assert_int_equal(wait_status(l.pid), 0);
	assert_int_equal(access(mark, F_OK), 0);
	launch__free(&l);
	unlink(mark);
	free(mark);
}

static void test_closed_gate_runs_nothing(void **state)
{
	struct launch l = { 0 };
	char *mark = mark_path();

	(void)state;
	assert_int_equal(launch__start(&l, mark_and_exit, mark), 0);
	launch__free(&l);
	assert_int_equal(wait_status(l.pid), 127);
	assert_int_equal(access(mark, F_OK), -1);
	free(mark);
}

static void test_failed_exec_reports_errno(void **state)
{
	struct launch l = { 0 };

	(void)state;
	assert_int_equal(launch__start(&l, fail_enoent, NULL), 0);
	assert_int_equal(launch__release(&l), ENOENT);
	assert_int_equal(wait_status(l.pid), 127);
	launch__free(&l);
}

static void test_exec_of_missing_command(void **state)
{
	static char missing[] = "/nonexistent/cowtop-no-such-command";
	char *argv[] = { missing, NULL };
	struct launch l = { 0 };

	(void)state;
	assert_int_equal(launch__start(&l, launch_exec_argv, argv), 0);
	assert_int_equal(launch__release(&l), ENOENT);
	assert_int_equal(wait_status(l.pid), 127);
	launch__free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_runs_the_command),
		cmocka_unit_test(test_closed_gate_runs_nothing),
		cmocka_unit_test(test_failed_exec_reports_errno),
		cmocka_unit_test(test_exec_of_missing_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
