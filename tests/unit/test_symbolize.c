/* Unit tests of the symbolizer, on a program built for it (symtarget):
 * run it, read the address of a function it prints, name that address. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "symbolize.h"

struct target {
	pid_t pid;
	int in;                  /* its stdin: closing it ends it */
	unsigned long long fn;   /* address of cowtop_known_function */
};

/* Start symtarget and read the address it prints. */
static void target_start(struct target *t)
{
	int to[2], from[2];
	char line[64] = "";
	FILE *f;

	assert_int_equal(pipe(to), 0);
	assert_int_equal(pipe(from), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(SYMTARGET, "symtarget", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	t->in = to[1];
	f = fdopen(from[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	t->fn = strtoull(line, NULL, 16);
	assert_true(t->fn != 0);
}

/* End symtarget. */
static void target_stop(struct target *t)
{
	int status;

	close(t->in);
	assert_int_equal(waitpid(t->pid, &status, 0), t->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The address of a function, and a return address just past a call in it,
 * are named "function (object)"; an address in nothing mapped is not. */
static void test_names(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct target t;
	char buf[256];

	(void)state;
	assert_non_null(s);
	target_start(&t);
	assert_true(symbolizer__has(s, t.pid));
	assert_int_equal(symbolizer__frame(s, t.pid, t.fn, false, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "cowtop_known_function (symtarget)");
	assert_int_equal(symbolizer__frame(s, t.pid, t.fn + 1, true, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "cowtop_known_function (symtarget)");
	assert_int_equal(symbolizer__frame(s, t.pid, 0x1000, false, buf, sizeof(buf)), -ENOENT);
	assert_string_equal(buf, "0x1000 (?)");
	/* A session forgotten is opened again on demand. */
	symbolizer__forget(s, t.pid);
	assert_int_equal(symbolizer__frame(s, t.pid, t.fn, false, buf, sizeof(buf)), 0);
	target_stop(&t);
	symbolizer__free(s);
}

/* The load address of symtarget in its process (its mapping at offset 0). */
static unsigned long long target_base(const struct target *t)
{
	unsigned long long lo = 0, off;
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)t->pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (!lo && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char *slash = strrchr(line, '/');

		if (slash && strcmp(slash, "/symtarget\n") == 0 &&
		    sscanf(line, "%llx-%*x %*s %llx", &a, &off) == 2 && off == 0)
			lo = a;
	}
	fclose(f);
	assert_true(lo != 0);
	return lo;
}

/* An address in an object but in no symbol (its ELF header) is named by
 * its address in the object's own terms: 0x0 for the first byte. */
static void test_unnamed_in_object(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct target t;
	char buf[256];

	(void)state;
	assert_non_null(s);
	target_start(&t);
	assert_int_equal(symbolizer__frame(s, t.pid, target_base(&t), false, buf, sizeof(buf)),
			 -ENOENT);
	assert_string_equal(buf, "0x0 (symtarget)");
	target_stop(&t);
	symbolizer__free(s);
}

/* A process that is gone cannot be read: no session, "0xADDR (?)". */
static void test_gone(void **state)
{
	struct symbolizer *s = symbolizer__new();
	struct target t;
	char buf[64];

	(void)state;
	target_start(&t);
	target_stop(&t);
	assert_false(symbolizer__has(s, t.pid));
	assert_int_equal(symbolizer__frame(s, t.pid, t.fn, false, buf, sizeof(buf)), -ENOENT);
	assert_true(strstr(buf, "(?)") != NULL);
	symbolizer__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_unnamed_in_object),
		cmocka_unit_test(test_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
