/* Unit tests: batch frames (JSON lines and text tables). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "output.h"

/* Render a frame of m's rows with fn into a malloc'd string. */
static char *render(struct model *m, void (*fn)(FILE *, const struct frame *))
{
	struct view_opts o = { .sort = SORT_PID, .tree = true };
	struct frame fr = { .time = 1700000000.5, .interval = 1.0, .mechanism = "test", .lost = 3 };
	struct row *rows;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(model__rows(m, &o, &rows, &fr.nrows), 0);
	fr.rows = rows;
	fn(f, &fr);
	fclose(f);
	return buf;
}

/* A model with a parent, a hostile-named child and an exited grandchild. */
static struct model *sample(void)
{
	struct model *m = model__new();
	struct proc *p = model__add(m, 100, 50), *c = model__add(m, 101, 51), *g = model__add(m, 102, 52);
	struct cowtop_counts cc = { .cow = 42, .reuse = 1, .zero_fill = 2 };

	p->ppid = 1;
	p->state = 'S';
	strcpy(p->comm, "master");
	c->ppid = 100;
	c->state = 'R';
	strcpy(c->comm, "\x1b[2J\x9b\"q\\\n\xff");
	model__set_counts(c, &cc);
	g->ppid = 101;
	strcpy(g->comm, "gone");
	model__mark_exited(g, 1.0);
	return m;
}

static void test_json_one_line_escaped(void **state)
{
	struct model *m = sample();
	char *s = render(m, output_json);

	(void)state;
	assert_non_null(strstr(s, "\"lost\":3"));
	assert_non_null(strstr(s, "\"mechanism\":\"test\""));
	assert_non_null(strstr(s, "\"comm\":\"\\u001b[2J\\ufffd\\\"q\\\\\\u000a\\ufffd\""));
	assert_non_null(strstr(s, "\"pid\":101,\"ppid\":100"));
	assert_non_null(strstr(s, "\"depth\":2,\"state\":\"exited\""));
	assert_non_null(strstr(s, "\"cow_pages\":42"));
	assert_null(strchr(s, '\x1b'));
	assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1); /* exactly one line */
	free(s);
	model__free(m);
}

static void test_text_tree_and_sanitized(void **state)
{
	struct model *m = sample();
	char *s = render(m, output_text);

	(void)state;
	assert_null(strchr(s, '\x1b'));
	assert_null(strchr(s, '\xff'));
	assert_non_null(strstr(s, "`- \\e[2J\\x9b\"q\\\\n\\xff") ? strstr(s, "`- ") : NULL);
	assert_non_null(strstr(s, "   `- gone"));
	assert_non_null(strstr(s, "exited"));
	assert_non_null(strstr(s, "lost 3"));
	free(s);
	model__free(m);
}

static void test_tree_prefix_utf8(void **state)
{
	struct row r = { .depth = 3, .last = false, .more = 1u << 1 };
	char buf[64];

	(void)state;
	output_tree_prefix(&r, true, buf, sizeof(buf));
	assert_string_equal(buf, "\u2502   \u251c\u2500 ");
	output_tree_prefix(&r, false, buf, sizeof(buf));
	assert_string_equal(buf, "|   |- ");
	r.depth = 0;
	assert_int_equal(output_tree_prefix(&r, false, buf, sizeof(buf)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_one_line_escaped),
		cmocka_unit_test(test_text_tree_and_sanitized),
		cmocka_unit_test(test_tree_prefix_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
