/* Unit tests: table rows as text (layout, cells, tree lines, hostile names,
 * cutting to width), column titles, number formats and the name filter. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fmt.h"
#include "line.h"
#include "output.h"
#include "row.h"
#include "text.h"

/* master(100) -> worker(101, busy), evil(102, hostile name) -> gone(103, exited). */
static struct model *sample(void)
{
	struct model *m = model__new();
	struct proc *p = model__add(m, 100, 50), *w = model__add(m, 101, 51);
	struct proc *e = model__add(m, 102, 52), *g = model__add(m, 103, 53);
	struct cowtop_counts c = { .cow = 42 };

	p->ppid = 1;
	p->state = 'S';
	strcpy(p->comm, "master");
	w->ppid = 100;
	w->state = 'R';
	strcpy(w->comm, "worker");
	model__set_counts(w, &c);
	w->rss_kib = 1024;
	w->vsz_kib = 2048;
	e->ppid = 100;
	e->state = 'S';
	strcpy(e->comm, "\x1b]0;pwned\x07\x1b[2J\xff");
	g->ppid = 102;
	strcpy(g->comm, "gone");
	c.cow = 7;
	model__set_counts(g, &c);
	model__mark_exited(g, 1.0);
	model__tick(m, 1.0);  /* rates: worker 42/s, gone 7/s */
	w->cow_prev = 0;
	model__tick(m, 2.0);  /* worker 21/s; gone copied nothing more: 0/s */
	return m;
}

/* The rows of m in pid order (tree). */
static struct row *rows_of(struct model *m, bool tree, size_t *n)
{
	struct view_opts o = { .sort = SORT_PID, .tree = tree };
	struct row *rows;

	assert_int_equal(model__rows(m, &o, &rows, n), 0);
	return rows;
}

static void test_layout_shares_width(void **state)
{
	struct row_layout l;

	(void)state;
	row_layout_init(&l, 120, true);
	assert_int_equal(l.hist, 120 - ROW_FIXED - 1 - 32);
	row_layout_init(&l, 80, false);
	assert_int_equal(l.hist, 80 - ROW_FIXED - 1 - 20);
	row_layout_init(&l, 60, false);
	assert_int_equal(l.hist, 0); /* no room: the command keeps it */
	row_layout_init(&l, 5, false);
	assert_int_equal(l.hist, 0);
	row_layout_init(&l, 2000, false);
	assert_int_equal(l.hist, SERIES_CAP);
}

static void test_row_exact_ascii(void **state)
{
	struct model *m = sample();
	struct line *l = malloc(sizeof(*l));
	struct row_layout rl;
	size_t n;
	struct row *rows = rows_of(m, true, &n);

	(void)state;
	assert_int_equal(n, 4);
	row_layout_init(&rl, 80, false);
	rl.scale = rows_scale(rows, n, rl.hist);
	assert_true(rl.scale == 42);
	row_format(&rows[1], &rl, l);
	assert_string_equal(l->text,
		"    101 R    21.0      42   1.0M   2.0M                  @+ |- worker");
	assert_int_equal(l->base, ROLE_PLAIN);
	row_format(&rows[0], &rl, l);
	assert_string_equal(l->text,
		"    100 S     0.0       0     0K     0K                  __ master");
	model__free(m);
	free(l);
}

static void test_row_exact_utf8(void **state)
{
	struct model *m = sample();
	struct line *l = malloc(sizeof(*l));
	struct row_layout rl;
	size_t n;
	struct row *rows = rows_of(m, true, &n);

	(void)state;
	row_layout_init(&rl, 80, true);
	rl.scale = 42;
	row_format(&rows[3], &rl, l);
	assert_string_equal(l->text,
		"    103 X     0.0       7     0K     0K                  ▃▁   └─ gone");
	assert_int_equal(l->base, ROLE_DIM); /* exited: dimmed, final counts */
	model__free(m);
	free(l);
}

static void test_row_spans(void **state)
{
	struct model *m = sample();
	struct line *l = malloc(sizeof(*l));
	struct row_layout rl;
	size_t n;
	struct row *rows = rows_of(m, true, &n);
	int i, spark = -1, tree = -1;

	(void)state;
	row_layout_init(&rl, 80, false);
	rl.scale = 42;
	row_format(&rows[1], &rl, l);
	for (i = 0; i < l->nspan; i++) {
		if (l->span[i].role == ROLE_SPARK)
			spark = i;
		if (l->span[i].role == ROLE_TREE)
			tree = i;
	}
	assert_true(spark >= 0 && tree > spark);
	assert_int_equal(l->span[spark].off, ROW_FIXED);
	assert_int_equal(l->span[spark].len, rl.hist);
	assert_memory_equal(l->text + l->span[tree].off, "|- ", 3);
	model__free(m);
	free(l);
}

static void test_hostile_name_never_reaches_terminal(void **state)
{
	struct model *m = sample();
	struct line *l = malloc(sizeof(*l));
	struct row_layout rl;
	size_t n;
	struct row *rows = rows_of(m, true, &n);
	int utf8;

	(void)state;
	for (utf8 = 0; utf8 < 2; utf8++) {
		row_layout_init(&rl, 200, utf8);
		row_format(&rows[2], &rl, l);
		assert_null(strchr(l->text, '\x1b'));
		assert_null(strchr(l->text, '\x07'));
		assert_null(strchr(l->text, '\xff'));
		assert_non_null(strstr(l->text, "\\e]0;pwned\\x07\\e[2J\\xff"));
	}
	model__free(m);
	free(l);
}

static void test_cut_to_width(void **state)
{
	struct model *m = sample();
	struct line *l = malloc(sizeof(*l));
	struct row_layout rl;
	size_t n, i;
	struct row *rows = rows_of(m, true, &n);
	int w;

	(void)state;
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		skip();
	for (w = 0; w < 130; w += 7) {
		row_layout_init(&rl, w, true);
		rl.scale = 42;
		for (i = 0; i < n; i++) {
			row_format(&rows[i], &rl, l);
			assert_true(text_width(l->text) <= w);
			assert_int_equal(strlen(l->text), l->len);
		}
		row_titles(&rl, SORT_COW_RATE, false, l);
		assert_int_equal(text_width(l->text), w); /* titles span the width */
	}
	setlocale(LC_CTYPE, "C");
	model__free(m);
	free(l);
}

static void test_titles(void **state)
{
	struct line *l = malloc(sizeof(*l));
	struct row_layout rl;

	(void)state;
	row_layout_init(&rl, 100, false);
	rl.scale = 1234;
	row_titles(&rl, SORT_COW_RATE, false, l);
	assert_non_null(strstr(l->text, "    PID S  vCoW/s     COW    RSS    VSZ CoW/s history (max 1234.0/s)"));
	assert_non_null(strstr(l->text, " COMMAND"));
	assert_int_equal(l->base, ROLE_COLHDR);
	assert_int_equal(l->nspan >= 1, 1);
	row_titles(&rl, SORT_PID, false, l);
	assert_memory_equal(l->text, "   ^PID", 7); /* pid: smallest first */
	row_titles(&rl, SORT_PID, true, l);
	assert_memory_equal(l->text, "   vPID", 7);
	row_titles(&rl, SORT_COMM, false, l);
	assert_non_null(strstr(l->text, "COMMAND^"));
	row_layout_init(&rl, 70, false); /* 13 columns of history */
	rl.scale = 15000;
	row_titles(&rl, SORT_COW, false, l);
	assert_non_null(strstr(l->text, " max 15.0k/s "));
	free(l);
}

static void test_formats(void **state)
{
	char b[32];

	(void)state;
	fmt_rate(0, b, sizeof(b));
	assert_string_equal(b, "0.0");
	fmt_rate(-1, b, sizeof(b));
	assert_string_equal(b, "0.0");
	fmt_rate(9999.9, b, sizeof(b));
	assert_string_equal(b, "9999.9");
	fmt_rate(12345, b, sizeof(b));
	assert_string_equal(b, "12.3k");
	fmt_rate(999960, b, sizeof(b));
	assert_string_equal(b, "1.0M");
	fmt_count(9999999, b, sizeof(b));
	assert_string_equal(b, "9999999");
	fmt_count(12345678, b, sizeof(b));
	assert_string_equal(b, "12.3M");
	fmt_count(18446744073709551615ULL, b, sizeof(b));
	assert_true(strlen(b) <= 7);
	fmt_kib(1023, b, sizeof(b));
	assert_string_equal(b, "1023K");
	fmt_kib(1024, b, sizeof(b));
	assert_string_equal(b, "1.0M");
	fmt_kib(512 * 1024, b, sizeof(b));
	assert_string_equal(b, "512M");
	fmt_kib(3 * 1024 * 1024 / 2, b, sizeof(b));
	assert_string_equal(b, "1.5G");
	fmt_kib(18446744073709551615ULL, b, sizeof(b));
	assert_true(strlen(b) <= 6);
}

/* The pids of rows[0..n), as "100 101 ...". */
static const char *pids(const struct row *rows, size_t n)
{
	static char buf[256];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d", i ? " " : "", rows[i].p->pid);
	return buf;
}

static void test_filter_tree_keeps_ancestors(void **state)
{
	struct model *m = sample();
	char prefix[64];
	size_t n, k;
	struct row *rows = rows_of(m, true, &n);

	(void)state;
	k = rows_filter(rows, n, "GONE", false, true);
	assert_string_equal(pids(rows, k), "100 102 103");
	/* 102 was a middle child; alone now, it is drawn as the last one */
	assert_true(rows[1].last);
	output_tree_prefix(&rows[2], false, prefix, sizeof(prefix));
	assert_string_equal(prefix, "  `- ");
	rows = rows_of(m, true, &n);
	k = rows_filter(rows, n, "work", false, true);
	assert_string_equal(pids(rows, k), "100 101");
	rows = rows_of(m, true, &n);
	assert_int_equal(rows_filter(rows, n, "", false, true), n);
	assert_int_equal(rows_filter(rows, n, "nothing-matches", false, true), 0);
	model__free(m);
}

static void test_filter_flat_and_escapes(void **state)
{
	struct model *m = sample();
	size_t n, k;
	struct row *rows = rows_of(m, false, &n);

	(void)state;
	k = rows_filter(rows, n, "GONE", false, false);
	assert_string_equal(pids(rows, k), "103");
	rows = rows_of(m, false, &n);
	/* the filter sees the name as shown, escapes included */
	k = rows_filter(rows, n, "\\e]0;pwn", false, false);
	assert_string_equal(pids(rows, k), "102");
	model__free(m);
}

static void test_filter_relinks_bars(void **state)
{
	/* a(0) b(1) c(2) d(2) e(1) f(2): keep c, d, f -> a b c d e f minus nothing
	 * but drop d: c becomes last under b; b keeps its bar for e below. */
	struct proc p[6];
	struct row r[6];
	const int depth[6] = { 0, 1, 2, 2, 1, 2 };
	const char *names[6] = { "a", "b", "cx", "d", "e", "fx" };
	char prefix[64];
	int i;

	(void)state;
	memset(p, 0, sizeof(p));
	for (i = 0; i < 6; i++) {
		p[i].pid = i + 1;
		strcpy(p[i].comm, names[i]);
		r[i] = (struct row){ .p = &p[i], .depth = depth[i] };
	}
	assert_int_equal(rows_filter(r, 6, "x", false, true), 5);
	assert_string_equal(pids(r, 5), "1 2 3 5 6");
	output_tree_prefix(&r[2], false, prefix, sizeof(prefix));
	assert_string_equal(prefix, "| `- ");
	output_tree_prefix(&r[1], false, prefix, sizeof(prefix));
	assert_string_equal(prefix, "|- ");
	output_tree_prefix(&r[4], false, prefix, sizeof(prefix));
	assert_string_equal(prefix, "  `- ");
}

static void test_text_fit_wide(void **state)
{
	int w;

	(void)state;
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		skip();
	assert_int_equal(text_fit("ab\xe4\xb8\xad" "c", 6, 3, &w), 2); /* the CJK char is 2 wide */
	assert_int_equal(w, 2);
	assert_int_equal(text_fit("ab\xe4\xb8\xad" "c", 6, 4, &w), 5);
	assert_int_equal(w, 4);
	assert_int_equal(text_fit("abc", 3, 0, &w), 0);
	setlocale(LC_CTYPE, "C");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_shares_width),
		cmocka_unit_test(test_row_exact_ascii),
		cmocka_unit_test(test_row_exact_utf8),
		cmocka_unit_test(test_row_spans),
		cmocka_unit_test(test_hostile_name_never_reaches_terminal),
		cmocka_unit_test(test_cut_to_width),
		cmocka_unit_test(test_titles),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_filter_tree_keeps_ancestors),
		cmocka_unit_test(test_filter_flat_and_escapes),
		cmocka_unit_test(test_filter_relinks_bars),
		cmocka_unit_test(test_text_fit_wide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
