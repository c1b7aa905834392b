/* Unit tests: kept /proc/PID/stat files, on this machine's /proc with
 * children forked here. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <dirent.h>
#include "statfds.h"

#define KIDS 300

/* A child that waits to be killed. */
static pid_t idle_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	assert_true(pid > 0);
	return pid;
}

/* Files this process has open now (/proc/self/fd, less the directory
 * read); what statfds keeps is the difference from a count before. */
static int open_files(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = -1; /* the directory's own */

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 2; /* . and .. */
}

static void end_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A kept file reads the same process again; once it is reaped the read
 * fails with ESRCH and the file is closed. */
static void test_gone_process(void **state)
{
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY);
	struct statfds *s = statfds__new(procfd, 16);
	struct proc_stat st;
	pid_t kid = idle_child();
	int base = open_files();

	(void)state;
	assert_non_null(s);
	assert_int_equal(statfds__read(s, kid, &st), 0);
	assert_int_equal(st.pid, kid);
	assert_int_equal(open_files() - base, 1);
	assert_int_equal(statfds__read(s, kid, &st), 0); /* again, through the kept file */
	assert_int_equal(st.ppid, getpid());
	end_child(kid);
	assert_int_equal(statfds__read(s, kid, &st), -ESRCH);
	assert_int_equal(open_files() - base, 0);
	statfds__free(s);
	close(procfd);
}

/* Many processes: the table grows, drops and reuses slots, and never keeps
 * more files than allowed; the ones past the limit are still read. */
static void test_many_and_limit(void **state)
{
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY);
	struct statfds *s = statfds__new(procfd, KIDS / 2);
	pid_t kids[KIDS];
	struct proc_stat st;
	int i, round, base = open_files();

	(void)state;
	for (i = 0; i < KIDS; i++)
		kids[i] = idle_child();
	for (round = 0; round < 3; round++) {
		for (i = 0; i < KIDS; i++) {
			assert_int_equal(statfds__read(s, kids[i], &st), 0);
			assert_int_equal(st.pid, kids[i]);
		}
		assert_int_equal(open_files() - base, KIDS / 2);
		for (i = 0; i < KIDS; i += 3)
			statfds__drop(s, kids[i]);
	}
	for (i = 0; i < KIDS; i++)
		end_child(kids[i]);
	for (i = 0; i < KIDS; i++)
		assert_int_not_equal(statfds__read(s, kids[i], &st), 0);
	statfds__free(s);
	close(procfd);
}

/* A directory that is not procfs (test fixtures): nothing is kept, so a
 * removed file reads as gone. */
static void test_not_procfs(void **state)
{
	char dir[] = "/tmp/statfds-XXXXXX";
	struct statfds *s;
	struct proc_stat st;
	char line[4096];
	int dfd, fd, self, base;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(mkdirat(dfd, "42", 0700), 0);
	self = open("/proc/self/stat", O_RDONLY);
	n = read(self, line, sizeof(line));
	close(self);
	assert_true(n > 0);
	fd = openat(dfd, "42/stat", O_WRONLY | O_CREAT, 0600);
	assert_true(write(fd, line, (size_t)n) == n);
	close(fd);
	s = statfds__new(dfd, 16);
	base = open_files();
	assert_int_equal(statfds__read(s, 42, &st), 0);
	assert_int_equal(open_files() - base, 0);
	assert_int_equal(unlinkat(dfd, "42/stat", 0), 0);
	assert_int_not_equal(statfds__read(s, 42, &st), 0);
	unlinkat(dfd, "42", AT_REMOVEDIR);
	statfds__free(s);
	close(dfd);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gone_process),
		cmocka_unit_test(test_many_and_limit),
		cmocka_unit_test(test_not_procfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
