/* Unit tests: the objects pane (a frame and a process in, lines out): the
 * heaviest (type, write) rows with pages and share, totals by write kind,
 * what each kind shown means; hostile type names made safe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "objpane.h"
#include "procs.h"
#include "runtime.h"

/* A Ruby worker that copied 1000 pages, 800 of them read: 500 flags writes
 * on strings, 300 outside the heap pages (and, given a type name, 10
 * refcount writes on a type of that name); o NULL: --objects off. */
static struct frame *sample(struct objects *o, const char *type_name)
{
	struct frame_status st = { .time = 1, .interval = 1, .objects = o };
	struct model *m = model__new();
	struct frame *f;

	add(m, 101, 100, 11, "worker", 1000);
	if (o) {
		objects__set(o, &(struct objects_key){ .pid = 101, .start = 11, .runtime = OBJ_RT_RUBY31,
						      .type = 5, .write = OBJ_W_FLAGS },
			     500);
		objects__set(o, &(struct objects_key){ .pid = 101, .start = 11, .runtime = OBJ_RT_RUBY31,
						      .type = OBJ_RBT_NONE, .write = OBJ_W_OUTSIDE },
			     300);
		if (type_name) {
			objects__set(o, &(struct objects_key){ .pid = 101, .start = 11, .runtime = OBJ_RT_PY311,
							      .type = 0x1000, .write = OBJ_W_REFCNT },
				     10);
			objects__name(o, 101, 11, 0x1000, type_name);
		}
		objects__set_status(o, 8, 0.5, 0);
	}
	f = frame__build(m, &st, NULL, NULL);
	model__free(m);
	assert_non_null(f);
	return f;
}

/* The lines of the pane of the frame's only process, as text. */
static size_t pane(const struct frame *f, struct line *out)
{
	return objpane_build(f, &f->procs[0], 120, false, out, OBJPANE_LINES);
}

/* Whether one of the n lines is exactly s. */
static bool has_line(const struct line *l, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i].len == strlen(s) && !memcmp(l[i].text, s, l[i].len))
			return true;
	return false;
}

/* A process none of whose copies was read yet says so in its title. */
static void test_nothing_read(void **state)
{
	struct objects *o = objects__new();
	struct frame_status st = { .time = 1, .interval = 1, .objects = o };
	struct model *m = model__new();
	struct line *out = calloc(OBJPANE_LINES, sizeof(*out));
	struct frame *f;
	size_t n;

	(void)state;
	assert_non_null(out);
	objects__set_status(o, 4, 0.5, 0);
	add(m, 101, 100, 11, "worker", 1000);
	f = frame__build(m, &st, NULL, NULL);
	model__free(m);
	assert_non_null(f);
	n = pane(f, out);
	assert_true(has_line(out, n, "copies by object: pid 101 worker: no copy read yet (1 in 4 read, 0.5 us each)"));
	frame__free(f);
	objects__free(o);
	free(out);
}

/* Exact lines: title, rows heaviest first with their share, the totals. */
static void test_lines(void **state)
{
	struct objects *o = objects__new();
	struct frame *f = sample(o, NULL);
	struct line *out = calloc(OBJPANE_LINES, sizeof(*out));
	size_t n;

	(void)state;
	assert_non_null(out);
	n = pane(f, out);
	assert_true(has_line(out, n, "copies by object: pid 101 worker, ruby-3.1: 800 of its 1000 copies by object "
				     "(1 in 8 read, 0.5 us each)"));
	assert_true(has_line(out, n, "  T_STRING                                 flags           500   62%"));
	assert_true(has_line(out, n, "  (outside heap pages)                     outside         300   38%"));
	assert_true(has_line(out, n, "  by write:  outside 300 (38%)  flags 500 (62%)"));
	assert_true(has_line(out, n, "  flags    Ruby's flags word: age and cached bits; nakayoshi_fork, Process.warmup"));
	frame__free(f);
	objects__free(o);
	free(out);
}

/* Without --objects the pane says how to get it, in one line. */
static void test_off(void **state)
{
	struct frame *f = sample(NULL, NULL);
	struct line *out = calloc(OBJPANE_LINES, sizeof(*out));

	(void)state;
	assert_non_null(out);
	assert_int_equal(pane(f, out), 1);
	assert_true(has_line(out, 1, "copies by object: not read (start cowtop with --objects)"));
	frame__free(f);
	free(out);
}

/* A type name read from the process is the process's text: no escape
 * sequence reaches the terminal. */
static void test_hostile_name(void **state)
{
	struct objects *o = objects__new();
	struct frame *f;
	struct line *out = calloc(OBJPANE_LINES, sizeof(*out));
	size_t n, i;

	(void)state;
	assert_non_null(out);
	f = sample(o, "evil\033[2J\nname");
	n = pane(f, out);
	for (i = 0; i < n; i++) {
		assert_null(memchr(out[i].text, '\033', out[i].len));
		assert_null(memchr(out[i].text, '\n', out[i].len));
	}
	frame__free(f);
	objects__free(o);
	free(out);
}

/* A Ruby object's class beside its type: named once read, "(class
 * unknown)" until then, "(no class)" for a hidden object, "(singleton
 * class)" for any singleton class; classes shown alike make one row; only
 * the types whose class is read carry one. */
static void test_class(void **state)
{
	struct frame_status st = { .time = 1, .interval = 1 };
	const struct objects_key widget = { .pid = 101, .start = 11, .runtime = OBJ_RT_RUBY31,
					    .type = 0x01, .klass = 0x7f0000001000, .klass_serial = 805,
					    .write = OBJ_W_SLOT };
	struct objects_key k = widget;
	struct line *out = calloc(OBJPANE_LINES, sizeof(*out));
	struct objects *o = objects__new();
	struct model *m = model__new();
	struct frame *f;
	size_t n;

	(void)state;
	assert_non_null(out);
	add(m, 101, 100, 11, "worker", 1000);
	assert_int_equal(objects__set(o, &widget, 300), OBJECTS_NEED_CLASS);
	k.write = OBJ_W_FLAGS; /* another write kind of the same class */
	assert_int_equal(objects__set(o, &k, 200), OBJECTS_NEED_CLASS);
	k = widget;
	k.klass_serial = 806; /* another class at the same address: apart */
	assert_int_equal(objects__set(o, &k, 100), OBJECTS_NEED_CLASS);
	k = widget;
	k.klass = 0x7f0000002000; /* another class never named: one row with the first */
	assert_int_equal(objects__set(o, &k, 10), OBJECTS_NEED_CLASS);
	k = widget;
	k.klass = OBJ_RB_SINGLETON, k.klass_serial = 0; /* any singleton class */
	assert_int_equal(objects__set(o, &k, 5), 0);
	k = widget;
	k.type = 0x0c, k.klass = 0; /* T_DATA hidden from Ruby code */
	assert_int_equal(objects__set(o, &k, 50), 0);
	k = widget;
	k.type = 0x05; /* T_STRING: no class read */
	assert_int_equal(objects__set(o, &k, 40), 0);
	objects__name_class(o, 101, 11, widget.klass, widget.klass_serial, "Cowtest::Widget");
	assert_string_equal(objects__class_of(o, 101, 11, widget.klass, widget.klass_serial),
			    "Cowtest::Widget");
	assert_null(objects__class_of(o, 101, 11, widget.klass, 806));
	objects__set_status(o, 1, 0.5, 0);
	st.objects = o;
	f = frame__build(m, &st, NULL, NULL);
	assert_non_null(f);
	n = pane(f, out);
	assert_true(has_line(out, n, "  T_OBJECT Cowtest::Widget                 slot            300   43%"));
	assert_true(has_line(out, n, "  T_OBJECT Cowtest::Widget                 flags           200   28%"));
	assert_true(has_line(out, n, "  T_OBJECT (class unknown)                 slot            110   16%"));
	assert_true(has_line(out, n, "  T_DATA (no class)                        slot             50    7%"));
	assert_true(has_line(out, n, "  T_STRING                                 slot             40    6%"));
	assert_true(has_line(out, n, "  T_OBJECT (singleton class)               slot              5    1%"));
	assert_int_equal(f->objects->procs[0].ntop, 6);
	frame__free(f);
	model__free(m);
	objects__free(o);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_read),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_hostile_name),
		cmocka_unit_test(test_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
