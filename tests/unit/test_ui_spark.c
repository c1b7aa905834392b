/* Unit tests: sparklines (both glyph sets), their scale and padding, and
 * the marks of USDT probe hits. */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "glyphs.h"
#include "spark.h"
#include "text.h"

#define N(a) (sizeof(a) / sizeof(*(a)))

static void test_levels(void **state)
{
	(void)state;
	assert_int_equal(spark_level(0, 10, 8), 0);
	assert_int_equal(spark_level(-3, 10, 8), 0);
	assert_int_equal(spark_level(NAN, 10, 8), 0);
	assert_int_equal(spark_level(0.001, 10, 8), 1); /* any copy shows */
	assert_int_equal(spark_level(10, 10, 8), 7);
	assert_int_equal(spark_level(1e9, 10, 8), 7);   /* above the scale: full */
	assert_int_equal(spark_level(5, 0, 8), 7);      /* no scale: full */
	assert_int_equal(spark_level(5, 10, 8), 4);     /* 3.5 levels, rounded up */
}

static void test_utf8_ramp(void **state)
{
	double v[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	char buf[64];
	size_t n;

	(void)state;
	n = spark_render(v, NULL, N(v), 7, true, buf, sizeof(buf));
	assert_string_equal(buf, "▁▂▃▄▅▆▇█");
	assert_int_equal(n, strlen("▁▂▃▄▅▆▇█"));
}

static void test_ascii_ramp(void **state)
{
	double v[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	char buf[64];

	(void)state;
	assert_int_equal(spark_render(v, NULL, N(v), 9, false, buf, sizeof(buf)), 10);
	assert_string_equal(buf, "_.:-=+*#%@");
}

static void test_all_zero_is_a_baseline(void **state)
{
	double v[6] = { 0 };
	char buf[64];

	(void)state;
	spark_render(v, NULL, N(v), 0, true, buf, sizeof(buf));
	assert_string_equal(buf, "▁▁▁▁▁▁");
	spark_render(v, NULL, N(v), 0, false, buf, sizeof(buf));
	assert_string_equal(buf, "______");
	spark_render(v, NULL, N(v), 100, false, buf, sizeof(buf));
	assert_string_equal(buf, "______");
}

static void test_small_values_rise(void **state)
{
	double v[] = { 0, 0.5, 1000 };
	char buf[64];

	(void)state;
	spark_render(v, NULL, N(v), 1000, false, buf, sizeof(buf));
	assert_string_equal(buf, "_.@");
	spark_render(v, NULL, N(v), 1000, true, buf, sizeof(buf));
	assert_string_equal(buf, "▁▂█");
}

static void test_never_splits_a_glyph(void **state)
{
	double v[] = { 7, 7, 7 };
	char buf[8];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(spark_render(v, NULL, N(v), 7, true, buf, 7), 6); /* 2 glyphs + NUL */
	assert_string_equal(buf, "██");
	assert_int_equal(spark_render(v, NULL, N(v), 7, true, buf, 3), 0);
	assert_string_equal(buf, "");
	assert_int_equal(spark_render(v, NULL, N(v), 7, false, buf, 3), 2);
	assert_string_equal(buf, "@@");
	buf[0] = 'x';
	assert_int_equal(spark_render(v, NULL, N(v), 7, false, buf, 0), 0);
	assert_int_equal(buf[0], 'x');
}

static void test_series_right_aligned(void **state)
{
	struct series_store st;
	struct series s;
	char buf[128];

	(void)state;
	series__init_store(&s, &st);
	series__push_marked(&s, 0, 0);
	series__push_marked(&s, 5, 0);
	series__push_marked(&s, 10, 0);
	assert_int_equal(spark_series(&s, 6, spark_scale(&s, 6), false, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "   _+@"); /* 5 of 10 is 4.5 of 9 steps: up to 5 */
	spark_series(&s, 2, spark_scale(&s, 2), false, buf, sizeof(buf));
	assert_string_equal(buf, "+@"); /* only the newest fit */
	memset(&s, 0, sizeof(s));
	spark_series(&s, 4, 0, true, buf, sizeof(buf));
	assert_string_equal(buf, "    ");
}

/* A negative value is unknown (shared% before the first reading): blank,
 * not the zero baseline; a probe mark still shows. */
static void test_unknown_is_blank(void **state)
{
	static const double v[] = { -1, 0, -1, 100 };
	static const unsigned char mk[] = { 0, 0, 1, 0 };
	char buf[64];

	(void)state;
	spark_render(v, NULL, 4, 100, false, buf, sizeof(buf));
	assert_string_equal(buf, " _ @");
	spark_render(v, mk, 4, 100, true, buf, sizeof(buf));
	assert_string_equal(buf, " \u2581\u25c7\u2588");
}

/* A frame's copy of a series: the newest n values, oldest first, into
 * storage of its own, also over the series itself; none without storage. */
static void test_series_copy_tail(void **state)
{
	struct series_store st;
	struct series s, t;
	float v[4];
	unsigned char mk[4];
	int i;

	(void)state;
	series__init_store(&s, &st);
	for (i = 0; i < SERIES_CAP + 3; i++) /* wrapped: 3 .. SERIES_CAP + 2 */
		series__push_marked(&s, i, (unsigned char)(i == SERIES_CAP + 1));
	series__copy_tail(&t, &s, v, mk, 4);
	assert_int_equal(series__len(&t), 4);
	assert_true(series__get(&t, 0) == SERIES_CAP - 1);
	assert_true(series__get(&t, 3) == SERIES_CAP + 2);
	assert_int_equal(series__mark(&t, 2), 1);
	series__push_marked(&t, 99, 0); /* a ring of 4 */
	assert_int_equal(series__len(&t), 4);
	assert_true(series__get(&t, 0) == SERIES_CAP);
	assert_true(series__get(&t, 3) == 99);
	assert_true(series__get(&s, SERIES_CAP - 1) == SERIES_CAP + 2); /* the source is untouched */
	series__copy_tail(&s, &s, v, mk, 4); /* a copy over itself */
	assert_int_equal(series__len(&s), 4);
	assert_true(series__get(&s, 3) == SERIES_CAP + 2);
	/* one value repeated, unmarked: a run in the series itself, no storage */
	series__init_store(&s, &st);
	for (i = 0; i < 10; i++)
		series__push_marked(&s, 7, 0);
	assert_int_equal(series__tail_room(&s, 4), 0);
	assert_int_equal(series__tail_room(&s, 0), 0);
	series__copy_tail(&t, &s, v, mk, 6);
	assert_int_equal(series__len(&t), 6);
	for (i = 0; i < 6; i++)
		assert_true(series__get(&t, (size_t)i) == 7 && series__mark(&t, (size_t)i) == 0);
	assert_true(series__max_last(&t, 3) == 7);
	series__set_last(&s, 7, 2); /* a marker makes it a full copy */
	assert_int_equal(series__tail_room(&s, 4), 4);
	series__push_marked(&s, 8, 0);
	assert_int_equal(series__tail_room(&s, 4), 4);
	series__copy_tail(&t, &s, NULL, NULL, 0);
	assert_int_equal(series__len(&t), 0);
	series__push_marked(&t, 1, 0); /* no storage: nothing kept, no crash */
	assert_int_equal(series__len(&t), 0);
	assert_true(series__max_last(&t, 10) == 0.0);
}

/* Check s against the values and marks it was given (ref, the oldest
 * first, n of them), and a copy of each tail of it against them too. */
static void check_series(const struct series *s, const float *ref, const unsigned char *rmk, size_t n)
{
	float v[SERIES_CAP];
	unsigned char mk[SERIES_CAP];
	struct series t;
	double max;
	size_t i, k;

	assert_int_equal(series__len(s), n);
	for (i = 0; i < n; i++) {
		assert_true(series__get(s, i) == ref[i]);
		assert_int_equal(series__mark(s, i), rmk[i]);
	}
	for (k = 0; k <= n; k += 7) {
		for (i = n - k, max = 0; i < n; i++)
			max = ref[i] > max ? ref[i] : max;
		assert_true(series__max_last(s, k) == max);
		series__copy_tail(&t, s, v, mk, k);
		assert_int_equal(series__len(&t), k);
		for (i = 0; i < k; i++) {
			assert_true(series__get(&t, i) == ref[n - k + i]);
			assert_int_equal(series__mark(&t, i), rmk[n - k + i]);
		}
	}
}

/* A run of one value (an idle process's rate) is kept in the series, not
 * written into its storage until it ends: whatever the pushes, markers and
 * replacements, the series reads as every value given, and so do copies
 * of its tails. */
static void test_series_runs_read_as_given(void **state)
{
	static const float vals[] = { 0, 0, 0, 0, 5, 5, -1, 0 };
	float ref[SERIES_CAP + 1];
	unsigned char rmk[SERIES_CAP + 1], mark;
	struct series_store st;
	struct series s;
	unsigned seed = 12345;
	size_t n = 0, step;
	float f;

	(void)state;
	memset(&st, 0xa5, sizeof(st)); /* storage never written reads as garbage */
	series__init_store(&s, &st);
	for (step = 0; step < 20 * SERIES_CAP; step++) {
		seed = seed * 1103515245u + 12345u;
		f = vals[(seed >> 16) % N(vals)];
		mark = (seed >> 8) % 13 == 0 ? (unsigned char)(1 + (seed >> 4) % 3) : 0;
		if (step > 0 && (seed >> 20) % 5 == 0) { /* a merged tick: the newest replaced */
			series__set_last(&s, f, mark);
			ref[n - 1] = f;
			rmk[n - 1] = mark;
		} else {
			series__push_marked(&s, f, mark);
			if (n == SERIES_CAP) {
				memmove(ref, ref + 1, (n - 1) * sizeof(*ref));
				memmove(rmk, rmk + 1, (n - 1) * sizeof(*rmk));
				n--;
			}
			ref[n] = f;
			rmk[n++] = mark;
		}
		check_series(&s, ref, rmk, n);
	}
}

static void test_series_wraps_and_scales(void **state)
{
	struct series_store st;
	struct series s;
	char buf[SERIES_CAP * 4 + 1];
	int i;

	(void)state;
	series__init_store(&s, &st);
	for (i = 0; i < SERIES_CAP + 10; i++)
		series__push_marked(&s, i == 3 ? 1000 : 0, 0); /* the peak has scrolled out */
	assert_true(spark_scale(&s, SERIES_CAP) == 0);
	assert_int_equal(spark_series(&s, SERIES_CAP, 0, true, buf, sizeof(buf)), SERIES_CAP * 3);
	assert_null(strchr(buf, ' '));
	for (i = 0; i < SERIES_CAP; i++)
		assert_memory_equal(buf + 3 * i, "▁", 3);
	series__push_marked(&s, 3, 0);
	assert_true(spark_scale(&s, 10) == 3);
}

static void test_marks_replace_glyphs(void **state)
{
	double v[] = { 0, 7, 7, 0, 3 };
	unsigned char mk[] = { 0, 1, 0, 3, 2 };
	char buf[64];

	(void)state;
	assert_int_equal(spark_render(v, mk, N(v), 7, false, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "_!@|!"); /* '!': copies in the interval, '|': none */
	spark_render(v, mk, N(v), 7, true, buf, sizeof(buf));
	assert_string_equal(buf, "▁◆█◇◆");
	spark_render(v, NULL, N(v), 7, true, buf, sizeof(buf));
	assert_string_equal(buf, "▁██▁▄"); /* no marks: the plain sparkline */
}

static void test_marks_never_split(void **state)
{
	double v[] = { 1, 1, 1 };
	unsigned char mk[] = { 1, 1, 1 };
	char buf[8];

	(void)state;
	assert_int_equal(spark_render(v, mk, N(v), 1, true, buf, 8), 6); /* 2 marks + NUL */
	assert_string_equal(buf, "◆◆");
	assert_int_equal(spark_render(v, mk, N(v), 1, false, buf, 3), 2);
	assert_string_equal(buf, "!!");
}

static void test_series_marks_follow_values(void **state)
{
	struct series_store st;
	struct series s;
	char buf[128];
	int i;

	(void)state;
	series__init_store(&s, &st);
	series__push_marked(&s, 10, 0);
	series__push_marked(&s, 0, 1);
	series__push_marked(&s, 10, 5);
	series__push_marked(&s, 0, 0);
	spark_series(&s, 6, 10, false, buf, sizeof(buf));
	assert_string_equal(buf, "  @|!_");
	spark_series(&s, 6, 10, true, buf, sizeof(buf));
	assert_string_equal(buf, "  █◇◆▁");
	spark_series(&s, 2, 10, false, buf, sizeof(buf));
	assert_string_equal(buf, "!_"); /* the marks scroll with their values */
	for (i = 0; i < SERIES_CAP; i++)
		series__push_marked(&s, 1, 0);
	spark_series(&s, 8, 1, false, buf, sizeof(buf));
	assert_string_equal(buf, "@@@@@@@@"); /* old marks scrolled out */
}

static void test_glyphs_one_column(void **state)
{
	const struct glyphs *g;
	int set, i;

	(void)state;
	if (!setlocale(LC_CTYPE, "C.UTF-8") && !setlocale(LC_CTYPE, "en_US.UTF-8"))
		skip();
	for (set = 0; set < 2; set++) {
		g = glyphs_pick(set);
		assert_true(g->nspark >= 8);
		for (i = 0; i < g->nspark; i++) {
			assert_int_equal(text_width(g->spark[i]), 1);
			assert_true(set || (unsigned char)g->spark[i][0] < 0x80);
		}
		assert_int_equal(text_width(g->sort_down), 1);
		assert_int_equal(text_width(g->mark), 1);
		assert_int_equal(text_width(g->mark_idle), 1);
		assert_true(set || ((unsigned char)g->mark[0] < 0x80 &&
				    (unsigned char)g->mark_idle[0] < 0x80));
		assert_string_not_equal(g->mark, g->mark_idle);
		for (i = 0; i < g->nspark; i++) { /* a mark never looks like a level */
			assert_string_not_equal(g->spark[i], g->mark);
			assert_string_not_equal(g->spark[i], g->mark_idle);
		}
	}
	setlocale(LC_CTYPE, "C");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_utf8_ramp),
		cmocka_unit_test(test_ascii_ramp),
		cmocka_unit_test(test_all_zero_is_a_baseline),
		cmocka_unit_test(test_small_values_rise),
		cmocka_unit_test(test_never_splits_a_glyph),
		cmocka_unit_test(test_series_right_aligned),
		cmocka_unit_test(test_series_copy_tail),
		cmocka_unit_test(test_series_wraps_and_scales),
		cmocka_unit_test(test_series_runs_read_as_given),
		cmocka_unit_test(test_unknown_is_blank),
		cmocka_unit_test(test_marks_replace_glyphs),
		cmocka_unit_test(test_marks_never_split),
		cmocka_unit_test(test_series_marks_follow_values),
		cmocka_unit_test(test_glyphs_one_column),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
