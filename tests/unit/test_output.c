/* Unit tests: batch frames (JSON lines and text tables). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "output.h"

/* Render a frame of m covering interval seconds with fn into a malloc'd string. */
static char *render_over(struct model *m, double interval, void (*fn)(FILE *, const struct frame *))
{
	struct view_opts o = { .sort = SORT_PID, .tree = true };
	struct frame_status st = { .time = 1700000000.5, .interval = interval, .mechanism = "test", .lost = 3 };
	struct frame *fr = frame__build(m, &st, &o, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_non_null(fr);
	fn(f, fr);
	fclose(f);
	frame__free(fr);
	return buf;
}

/* Render a frame of m over one second. */
static char *render(struct model *m, void (*fn)(FILE *, const struct frame *))
{
	return render_over(m, 1.0, fn);
}

/* A model with a parent, a hostile-named child and an exited grandchild. */
static struct model *sample(void)
{
	struct model *m = model__new();
	struct proc *p = model__add(m, 100, 50), *c = model__add(m, 101, 51), *g = model__add(m, 102, 52);
	struct cow_counts cc = { .cow = 42, .reuse = 1, .zero_fill = 2 };
	static const char hostile[] = "\x1b[2J\x9b\"q\\\n\xff";

	model__set_parent(p, 1);
	model__set_mem(p, 'S', 0, 0);
	model__set_comm(p, "master", 6);
	model__set_parent(c, 100);
	model__set_mem(c, 'R', 0, 0);
	model__set_comm(c, hostile, sizeof(hostile) - 1);
	model__set_counts(c, &cc);
	model__set_parent(g, 101);
	model__set_comm(g, "gone", 4);
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

/* Batch totals: the copies of every process, in the header line. */
static void test_text_totals(void **state)
{
	struct model *m = sample();
	char *s = render(m, output_text);

	(void)state;
	assert_non_null(strstr(s, "interval 1.00s  processes 3  cow 42 pages  0.0/s  lost 3  [test]\n"));
	free(s);
	model__free(m);
}

/* A first frame a fraction of a millisecond long still says how long it
 * was: never "interval":0. */
static void test_tiny_interval_never_zero(void **state)
{
	struct model *m = sample();
	char *s = render_over(m, 0.0004, output_json);

	(void)state;
	assert_non_null(strstr(s, "\"interval\":0.0004,"));
	free(s);
	s = render_over(m, 0.0004, output_text);
	assert_non_null(strstr(s, "interval 0.0004s "));
	free(s);
	s = render_over(m, 2.5, output_json);
	assert_non_null(strstr(s, "\"interval\":2.500,"));
	free(s);
	model__free(m);
}

/* Phases and markers, with labels the frame carries. */
static void test_usdt_parts(void **state)
{
	struct model *m = sample();
	struct marker mk = { .time = 12.5, .pid = 101, .probe = 0, .nargs = 2, .args = { 7, -1 } };
	struct frame_status st = { .time = 1.0, .interval = 1.0, .mechanism = "test", .usdt = true };
	struct frame *fr;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ph = model__add_phase(m, "ruby:gc");

	(void)state;
	model__add_probe(m, "ruby:gc__begin");
	model__set_split(model__find(m, 101, 0), SPLIT_PHASE, ph, 40);
	model__add_marker(m, &mk);
	fr = frame__build(m, &st, NULL, NULL);
	model__free(m);
	f = open_memstream(&buf, &len);
	output_text(f, fr);
	output_json(f, fr);
	fclose(f);
	assert_non_null(strstr(buf, "phases 101: ruby:gc 40 none 2\n"));
	assert_non_null(strstr(buf, "marker 12.500 101 ruby:gc__begin 7 -1\n"));
	assert_non_null(strstr(buf, "\"cow_by_phase\":{\"ruby:gc\":40,\"none\":2}"));
	assert_non_null(strstr(buf, "\"markers\":[{\"time\":12.500000,\"pid\":101,\"probe\":\"ruby:gc__begin\",\"args\":[7,-1]}]"));
	free(buf);
	frame__free(fr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_one_line_escaped),
		cmocka_unit_test(test_text_tree_and_sanitized),
		cmocka_unit_test(test_text_totals),
		cmocka_unit_test(test_tiny_interval_never_zero),
		cmocka_unit_test(test_usdt_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
