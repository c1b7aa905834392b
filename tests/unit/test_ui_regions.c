/* Unit tests: the regions pane (a frame and a process in, lines out): a bar
 * per region with its share and count, files with copies, other last. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "procs.h"
#include "regions.h"
#include "text.h"

/* A worker that copied 1000 pages: heap 500, stack 1, anon 250, 200 in a
 * library, 49 left to other; a file with no copies; one with a long,
 * hostile name holding none either. */
static struct frame *sample(const char *file)
{
	struct model *m = model__new();
	struct proc *w = add(m, 101, 100, 101, "worker", 1000);
	int lib = model__add_label(m, SPLIT_REGION, file);
	struct frame *f;

	model__add_label(m, SPLIT_REGION, "file:unused.so");
	model__set_split(w, SPLIT_REGION, 1, 500);
	model__set_split(w, SPLIT_REGION, 2, 1);
	model__set_split(w, SPLIT_REGION, 3, 250);
	model__set_split(w, SPLIT_REGION, lib, 200);
	model__settle_regions(w, 0); /* two region reads: 49 copies in no region */
	model__settle_regions(w, 0);
	f = frame__build(m, NULL, NULL, NULL);
	model__free(m);
	assert_non_null(f);
	return f;
}

/* The pane of the frame's only process, cols wide. */
static size_t pane_of(const struct frame *f, int cols, bool utf8, struct line *out)
{
	return regions_build(f, &f->procs[0], cols, utf8, out, REGIONS_LINES);
}

/* ASCII: exact lines; the share of a tiny part reads "<1%", with a sliver. */
static void test_lines_ascii(void **state)
{
	static const char *const want[] = {
		"copies by region: pid 101 worker, 1000 copies",
		"",
		"  heap                   50%       500  ################",
		"  stack                  <1%         1  #",
		"  anon                   25%       250  ########",
		"  file:libregiondata.so  20%       200  ######",
		"  other                   5%        49  ##",
	};
	struct frame *f = sample("file:libregiondata.so");
	struct line *out = calloc(REGIONS_LINES, sizeof(*out));
	size_t n, i, len;

	(void)state;
	assert_non_null(out);
	n = pane_of(f, 72, false, out);
	assert_true(n > sizeof(want) / sizeof(*want));
	for (i = 0; i < sizeof(want) / sizeof(*want); i++) {
		len = out[i].len;
		while (len && out[i].text[len - 1] == ' ')
			len--;
		out[i].text[len] = '\0';
		assert_string_equal(out[i].text, want[i]);
	}
	for (i = 0; i < n; i++)
		assert_null(strstr(out[i].text, "unused.so")); /* no copies, no bar */
	assert_string_equal(out[7].text, "");
	assert_non_null(strstr(out[8].text, "heap: the brk area"));
	free(out);
	frame__free(f);
}

/* UTF-8: bars in eighths of a cell, never wider than the screen. */
static void test_bars_utf8(void **state)
{
	struct frame *f = sample("file:libregiondata.so");
	struct line *out = calloc(REGIONS_LINES, sizeof(*out));
	size_t n, i;

	(void)state;
	assert_non_null(out);
	n = pane_of(f, 77, true, out);
	/* 77 - 40 = 37 cells: heap 18.5 -> 18 full and a half; stack a sliver */
	assert_non_null(strstr(out[2].text, "500  \u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588"
				"\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u258c "));
	assert_non_null(strstr(out[3].text, "1  \u258f "));
	for (i = 0; i < n; i++)
		assert_true(text_width(out[i].text) <= 77);
	free(out);
	frame__free(f);
}

/* A hostile file name is made safe and cut; narrow screens lose the bars
 * first; max lines are never passed. */
static void test_hostile_and_narrow(void **state)
{
	struct frame *f = sample("file:\x1b[2J\n-a-very-long-library-name-that-goes-on.so.1");
	struct line *out = calloc(REGIONS_LINES, sizeof(*out));
	size_t n, i;

	(void)state;
	assert_non_null(out);
	n = pane_of(f, 200, false, out);
	for (i = 0; i < n; i++) {
		assert_null(strchr(out[i].text, '\x1b'));
		assert_null(strchr(out[i].text, '\n'));
	}
	/* the name cut to REGIONS_LABEL_MAX columns, the bar to 60 */
	assert_non_null(strstr(out[5].text, "  file:\\e[2J\\n-a-very-long-library  20%"));
	assert_non_null(strstr(out[2].text, "500  ##############################   "));
	assert_null(strstr(out[2].text, "###############################"));
	n = pane_of(f, 30, false, out);
	for (i = 0; i < n; i++)
		assert_true(out[i].len <= 30);
	assert_null(strchr(out[2].text, '#'));
	assert_int_equal(regions_build(f, &f->procs[0], 80, false, out, 3), 3);
	free(out);
	frame__free(f);
}

/* No process, or one without copies: the pane says so, bars empty. */
static void test_nothing_to_show(void **state)
{
	struct model *m = model__new();
	struct line *out = calloc(REGIONS_LINES, sizeof(*out));
	struct frame *f;
	size_t n;

	(void)state;
	assert_non_null(out);
	add(m, 7, 1, 7, "idle", 0);
	f = frame__build(m, NULL, NULL, NULL);
	model__free(m);
	n = regions_build(f, NULL, 80, false, out, REGIONS_LINES);
	assert_int_equal(n, 1);
	assert_string_equal(out[0].text, "copies by region: no process selected");
	n = pane_of(f, 80, false, out);
	assert_string_equal(out[0].text, "copies by region: pid 7 idle, 0 copies");
	assert_non_null(strstr(out[2].text, "heap    0%         0"));
	assert_null(strchr(out[2].text, '#'));
	assert_non_null(strstr(out[5].text, "other   0%         0"));
	free(out);
	frame__free(f);
}

/* Copies counted but not classified yet (pending in the kernel when the
 * regions were read) are in no region: the title says how many. */
static void test_not_classified(void **state)
{
	struct model *m = model__new();
	struct line *out = calloc(REGIONS_LINES, sizeof(*out));
	struct proc *w = add(m, 9, 1, 9, "worker", 65);
	struct frame *f;

	(void)state;
	assert_non_null(out);
	model__set_split(w, SPLIT_REGION, SPLIT_REGION_ANON, 1);
	f = frame__build(m, NULL, NULL, NULL);
	model__free(m);
	pane_of(f, 80, false, out);
	assert_string_equal(out[0].text, "copies by region: pid 9 worker, 1 copy (64 not classified yet)");
	assert_non_null(strstr(out[4].text, "anon  100%         1"));
	free(out);
	frame__free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_ascii),
		cmocka_unit_test(test_bars_utf8),
		cmocka_unit_test(test_hostile_and_narrow),
		cmocka_unit_test(test_nothing_to_show),
		cmocka_unit_test(test_not_classified),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
