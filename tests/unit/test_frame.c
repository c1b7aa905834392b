/* Unit tests: frames are built once per tick, hold their own copies of what
 * they show, and count totals once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "frame.h"
#include "procs.h"

/* A master, a busy worker and an exited one, ticked over 2 s. */
static struct model *sample(void)
{
	struct model *m = model__new();

	add(m, 100, 1, 100, "master", 10);
	add(m, 101, 100, 101, "busy", 300);
	model__mark_exited(add(m, 102, 100, 102, "gone", 50), 1.0);
	model__tick(m, 2.0);
	return m;
}

static void test_totals_and_rows(void **state)
{
	static const struct frame_status st = { .time = 5.0, .interval = 2.0, .mechanism = "m", .lost = 7 };
	struct view_opts vo = { .sort = SORT_COW, .tree = false };
	struct model *m = sample();
	struct frame *f = frame__build(m, &st, &vo, NULL);

	(void)state;
	assert_non_null(f);
	assert_int_equal(f->nprocs, 3);
	assert_int_equal(f->nrows, 3);
	assert_int_equal(f->rows[0].p->pid, 101);
	assert_ptr_equal(f->rows[0].p, &f->procs[1]); /* rows point into the frame */
	assert_int_equal(f->totals.watched, 3);
	assert_int_equal(f->totals.live, 2);
	assert_int_equal(f->totals.cow, 360);
	assert_true(f->totals.rate > 179.9 && f->totals.rate < 180.1);
	assert_string_equal(f->mechanism, "m");
	assert_string_equal(f->target, "?");
	assert_int_equal(f->lost, 7);
	assert_true(f->interval == 2.0);
	frame__free(f);
	model__free(m);
}

/* Labels are copies: the frame outlives the model that named them. */
static void test_labels_are_copies(void **state)
{
	struct model *m = sample();
	struct frame *f;
	int ph;

	(void)state;
	ph = model__add_phase(m, "ruby:gc__mark");
	model__add_probe(m, "ruby:gc__mark__begin");
	model__set_split(model__find(m, 101, 0), SPLIT_PHASE, ph, 200);
	f = frame__build(m, NULL, NULL, NULL);
	assert_non_null(f);
	model__free(m);
	assert_int_equal(f->nprobes, 1);
	assert_int_equal(f->nphases, 2);
	assert_string_equal(frame_probe_label(f, 0), "ruby:gc__mark__begin");
	assert_string_equal(frame_probe_label(f, 1), "?");
	assert_string_equal(frame_phase_label(f, 0), "none");
	assert_string_equal(frame_phase_label(f, ph), "ruby:gc__mark");
	assert_int_equal(frame_split_none(&f->procs[1], SPLIT_PHASE), 100);
	assert_int_equal(frame_split_none(&f->procs[0], SPLIT_PHASE), 10);
	frame__free(f);
}

/* Each probe hit is in exactly one frame; the log carries the newest kept
 * with their processes' names. */
static void test_markers_cursor_and_log(void **state)
{
	struct model *m = sample();
	struct marker mk = { .pid = 101, .time = 1.5 };
	unsigned long long cursor = 0;
	struct frame *f;
	int i;

	(void)state;
	model__add_probe(m, "ruby:mark");
	model__add_marker(m, &mk);
	mk.pid = 102; /* exited: its name is still found */
	model__add_marker(m, &mk);
	f = frame__build(m, NULL, NULL, &cursor);
	assert_int_equal(f->nmarks, 2);
	assert_int_equal(cursor, 2);
	assert_int_equal(f->nlog, 2);
	assert_string_equal(f->log[0].comm, "busy");
	assert_string_equal(f->log[1].comm, "gone");
	frame__free(f);
	f = frame__build(m, NULL, NULL, &cursor);
	assert_int_equal(f->nmarks, 0); /* taken already */
	assert_int_equal(f->nlog, 2);   /* but still in the log */
	frame__free(f);
	for (i = 0; i < FRAME_LOG + 3; i++) {
		mk.args[0] = i;
		model__add_marker(m, &mk);
	}
	f = frame__build(m, NULL, NULL, &cursor);
	assert_int_equal(f->nmarks, FRAME_LOG + 3);
	assert_int_equal(f->nlog, FRAME_LOG);
	assert_int_equal(f->log_kept, FRAME_LOG + 5);
	assert_int_equal(f->log[FRAME_LOG - 1].mk.args[0], FRAME_LOG + 2);
	frame__free(f);
	model__free(m);
}

/* A held frame stays whole after its builder lets go and the model moves on. */
static void test_hold_and_free(void **state)
{
	struct model *m = sample();
	struct frame *f = frame__build(m, NULL, NULL, NULL), *g;

	(void)state;
	g = frame__hold(f);
	assert_ptr_equal(g, f);
	assert_int_equal(f->refs, 2);
	frame__free(f);
	model__remove_exited(m, 5.0);
	model__free(m);
	assert_int_equal(g->refs, 1);
	assert_string_equal(g->procs[2].comm, "gone");
	frame__free(g);
	frame__free(NULL);
	assert_null(frame__hold(NULL));
}

/* An empty model makes an empty frame, not a failure. */
static void test_empty(void **state)
{
	struct model *m = model__new();
	struct frame *f = frame__build(m, NULL, NULL, NULL);

	(void)state;
	assert_non_null(f);
	assert_int_equal(f->nprocs, 0);
	assert_int_equal(f->nrows, 0);
	assert_int_equal(f->totals.cow, 0);
	assert_int_equal(f->nphases, 1);
	frame__free(f);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals_and_rows),
		cmocka_unit_test(test_labels_are_copies),
		cmocka_unit_test(test_markers_cursor_and_log),
		cmocka_unit_test(test_hold_and_free),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
