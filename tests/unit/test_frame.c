/* Unit tests: frames are built once per tick, hold their own copies of what
 * they show, and count totals once. */
#include <errno.h>
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
	struct view_opts vo = { .sort = FIELD_COW, .tree = false };
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

/* A frame keeps as much of each history as its views draw (none when they
 * draw none), the newest values, in storage of its own: the model's
 * later ticks do not change it. */
static void test_history_as_drawn(void **state)
{
	struct view_opts vo = { .sort = FIELD_PID, .tree = true, .hist = 3 };
	struct model *m = sample();
	struct cow_counts c = { .cow = 300 }; /* what it has */
	struct frame *f, *none;
	struct proc *p = model__find_live(m, 101);
	int i;

	(void)state;
	for (i = 1; i <= 5; i++) { /* rates 10, 20, .. 50 a second */
		c.cow += 10 * (unsigned long long)i;
		model__set_counts(p, &c);
		model__tick(m, 1.0);
	}
	f = frame__build(m, NULL, &vo, NULL);
	none = frame__build(m, NULL, NULL, NULL);
	assert_non_null(f);
	assert_non_null(none);
	p = &f->procs[1];
	assert_int_equal(p->pid, 101);
	assert_int_equal(series__len(&p->rate), 3);
	assert_true(series__get(&p->rate, 0) == 30.0);
	assert_true(series__get(&p->rate, 2) == 50.0);
	assert_int_equal(series__len(&p->shared), 3);
	assert_int_equal(series__len(&none->procs[1].rate), 0);
	assert_int_equal(series__len(&none->procs[1].shared), 0);
	c.cow += 600;
	model__set_counts(model__find_live(m, 101), &c);
	model__tick(m, 1.0); /* 600/s in the model, not in the frame */
	assert_int_equal(series__len(&model__find_live(m, 101)->rate), 7);
	assert_true(series__get(&p->rate, 2) == 50.0);
	frame__free(f);
	frame__free(none);
	model__free(m);
}

/* Many processes, idle, busy, or busy then idle (their histories a run of
 * one value, kept without storage, or values of their own, or both): each
 * frame's copy of every history is the newest values of the model's, and
 * stays so as the model moves on, whatever the number of values kept. */
static void test_history_idle_and_busy(void **state)
{
	enum { N = 60, TICKS = 12 };
	static const int keep[] = { 1, 4, 20 };
	struct frame *f[TICKS][3];
	struct cow_counts c;
	struct proc *p, *q;
	struct model *m = model__new();
	size_t i, k, j, len, base;
	int t;

	(void)state;
	for (i = 0; i < N; i++)
		add(m, 200 + (int)i, 1, 200 + i, "w", 0);
	for (t = 0; t < TICKS; t++) {
		for (i = 0; i < N; i++) {
			p = model__at(m, i);
			c = p->counts;
			if (i % 3 == 0 || (i % 3 == 1 && t < 5)) /* busy; busy, then idle */
				c.cow += (unsigned long long)(i * t % 7);
			model__set_counts(p, &c);
		}
		model__tick(m, 1.0);
		for (k = 0; k < 3; k++) {
			struct view_opts vo = { .sort = FIELD_PID, .tree = true, .hist = keep[k],
						.no_rows = k == 1 };

			f[t][k] = frame__build(m, NULL, &vo, NULL);
			assert_non_null(f[t][k]);
			for (i = 0; i < N; i++) {
				p = model__at(m, i);
				q = &f[t][k]->procs[i];
				len = series__len(&p->rate) < (size_t)keep[k] ? series__len(&p->rate) : (size_t)keep[k];
				base = series__len(&p->rate) - len;
				assert_int_equal(series__len(&q->rate), len);
				assert_int_equal(series__len(&q->shared), len);
				/* storage of its own, or none */
				assert_true(!q->rate.v || q->rate.v != p->rate.v);
				assert_true(!q->shared.v || q->shared.v != p->shared.v);
				for (j = 0; j < len; j++) {
					assert_true(series__get(&q->rate, j) == series__get(&p->rate, base + j));
					assert_true(series__get(&q->shared, j) == series__get(&p->shared, base + j));
					assert_int_equal(series__mark(&q->rate, j), series__mark(&p->rate, base + j));
				}
			}
		}
	}
	/* the model moved on: the first frames still hold the first values */
	for (i = 0; i < N; i++) {
		assert_int_equal(series__len(&f[0][2]->procs[i].rate), 1);
		assert_true(series__get(&f[0][2]->procs[i].rate, 0) == 0.0);
		assert_int_equal(series__len(&f[5][2]->procs[i].rate), 6);
		assert_true(series__get(&f[5][2]->procs[i].rate, 4) == (i % 3 == 2 ? 0.0 : (double)(i * 4 % 7)));
	}
	for (t = 0; t < TICKS; t++)
		for (k = 0; k < 3; k++)
			frame__free(f[t][k]);
	model__free(m);
}

/* Frames built one after the other, each shown until the next (the
 * screen's way: the array of the frame before last is reused), while
 * processes are renamed, given command lines, exec'd and copy in phases:
 * each frame's copy of every process is the model's, byte for byte (the
 * name, command line and breakdowns that are not copied again when they
 * did not change included). */
static void test_procs_copied_as_they_are(void **state)
{
	enum { N = 30, TICKS = 8 };
	struct view_opts vo = { .sort = FIELD_PID, .tree = true, .no_rows = true };
	struct frame *f, *shown = NULL;
	struct model *m = model__new();
	struct cow_counts c;
	struct proc *p;
	char text[64];
	size_t i;
	int t;

	(void)state;
	for (i = 0; i < N; i++)
		add(m, 300 + (int)i, 1, 300 + i, "w", 0);
	for (t = 0; t < TICKS; t++) {
		for (i = 0; i < N; i++) {
			p = model__at(m, i);
			snprintf(text, sizeof(text), "name%d", t);
			if (i % 5 == (size_t)t % 5)
				model__set_comm(p, text, strlen(text));
			if (i % 4 == (size_t)t % 4)
				model__set_cmdline(p, text, strlen(text));
			if (i % 7 == (size_t)t % 7)
				model__forget_cmdline(p);
			c = p->counts;
			c.cow += i % 3;
			model__set_counts(p, &c);
			if (i % 6 == (size_t)t % 6)
				model__set_split(p, SPLIT_REGION, 1 + t % 3, c.cow + (unsigned)t + 1);
			if (t % 3 == 2)
				model__settle_split(p, SPLIT_PHASE);
		}
		model__tick(m, 1.0);
		f = frame__build(m, NULL, &vo, NULL);
		assert_non_null(f);
		for (i = 0; i < N; i++) {
			p = model__at(m, i);
			assert_memory_equal(f->procs[i].comm, p->comm, sizeof(p->comm));
			assert_memory_equal(f->procs[i].cmdline, p->cmdline, sizeof(p->cmdline));
			assert_memory_equal(f->procs[i].split, p->split, sizeof(p->split));
			assert_int_equal(f->procs[i].counts.cow, p->counts.cow);
			assert_int_equal(f->procs[i].pid, p->pid);
		}
		frame__free(shown);
		shown = f;
	}
	frame__free(shown);
	model__free(m);
}

/* A frame for views that lay out their own rows has none, and still its
 * groups and totals. */
static void test_no_rows(void **state)
{
	struct view_opts vo = { .sort = FIELD_PID, .tree = true, .no_rows = true };
	struct model *m = sample();
	struct frame *f = frame__build(m, NULL, &vo, NULL);

	(void)state;
	assert_non_null(f);
	assert_int_equal(f->nprocs, 3);
	assert_int_equal(f->nrows, 0);
	assert_int_equal(f->ngroups, 1);
	assert_int_equal(f->groups[0].root_pid, 100);
	assert_int_equal(f->totals.cow, 360);
	frame__free(f);
	model__free(m);
}

/* The total of copies never goes down: exited processes removed from the
 * model (after --linger, or at once in batch) keep their copies in it. */
static void test_totals_keep_forgotten(void **state)
{
	struct model *m = sample();
	struct frame *f = frame__build(m, NULL, NULL, NULL), *g;

	(void)state;
	assert_non_null(f);
	assert_int_equal(model__remove_exited(m, 1.0), 1);
	g = frame__build(m, NULL, NULL, NULL);
	assert_non_null(g);
	assert_int_equal(g->totals.watched, 2);
	assert_int_equal(g->totals.forgotten, 1);
	assert_int_equal(g->totals.cow, f->totals.cow);
	assert_int_equal(g->totals.cow, 360);
	frame__free(f);
	frame__free(g);
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
	assert_int_equal(frame_nlabels(f, SPLIT_PHASE), 2);
	assert_string_equal(frame_probe_label(f, 0), "ruby:gc__mark__begin");
	assert_string_equal(frame_probe_label(f, 1), "?");
	assert_string_equal(frame_phase_label(f, 0), PHASE_OUTSIDE);
	assert_string_equal(frame_phase_label(f, ph), "ruby:gc__mark");
	assert_int_equal(frame_split_none(&f->procs[1], SPLIT_PHASE), 100);
	assert_int_equal(frame_split_none(&f->procs[0], SPLIT_PHASE), 10);
	frame__free(f);
}

/* sample() with worker 101's 300 copies split by region: heap 120, anon
 * 100, 50 in a library's file, none in a second file; 30 left to other,
 * as two region reads settle it (the first read's copies are taken by the
 * second). */
static struct model *sample_regions(void)
{
	struct model *m = sample();
	struct proc *busy = model__find(m, 101, 0), *p;
	int lib = model__add_label(m, SPLIT_REGION, "file:libregiondata.so");
	int unused = model__add_label(m, SPLIT_REGION, "file:unused.so");
	size_t i;

	assert_int_equal(lib, 4);
	assert_int_equal(unused, 5);
	model__set_split(busy, SPLIT_REGION, 1, 120);
	model__set_split(busy, SPLIT_REGION, 3, 100);
	model__set_split(busy, SPLIT_REGION, lib, 50);
	for (i = 0; (p = model__at(m, i)); i++) {
		model__settle_regions(p, 0);
		model__settle_regions(p, 0);
	}
	return m;
}

/* The labels of every breakdown kind are copied, each in its own table. */
static void test_region_labels(void **state)
{
	struct model *m = sample_regions();
	struct frame *f = frame__build(m, NULL, NULL, NULL);

	(void)state;
	assert_non_null(f);
	model__free(m);
	assert_int_equal(frame_nlabels(f, SPLIT_REGION), 6);
	assert_int_equal(frame_nlabels(f, SPLIT_PHASE), 1);
	assert_string_equal(frame_label(f, SPLIT_REGION, 0), "other");
	assert_string_equal(frame_label(f, SPLIT_REGION, 1), "heap");
	assert_string_equal(frame_label(f, SPLIT_REGION, 2), "stack");
	assert_string_equal(frame_label(f, SPLIT_REGION, 3), "anon");
	assert_string_equal(frame_label(f, SPLIT_REGION, 4), "file:libregiondata.so");
	assert_string_equal(frame_label(f, SPLIT_REGION, 6), "?");
	assert_string_equal(frame_label(f, SPLIT_REGION, -1), "?");
	assert_string_equal(frame_label(f, SPLIT_KINDS, 0), "?");
	assert_string_equal(frame_label(f, SPLIT_PHASE, 0), PHASE_OUTSIDE);
	assert_int_equal(frame_nlabels(f, SPLIT_KINDS), 0);
	assert_int_equal(frame_split_none(&f->procs[1], SPLIT_REGION), 30);
	frame__free(f);
}

/* A later frame shows "other" as the region reads raised it: a settled
 * "other" is a change of the process's breakdowns like any other. */
static void test_region_other_raised(void **state)
{
	struct model *m = sample_regions();
	struct proc *busy = model__find(m, 101, 0);
	struct frame *f = frame__build(m, NULL, NULL, NULL), *g;

	(void)state;
	assert_non_null(f);
	assert_int_equal(frame_split_none(&f->procs[1], SPLIT_REGION), 30);
	frame__free(f); /* its arrays are the next frame's, copies kept where unchanged */
	busy->counts.cow += 20; /* 20 copies in no region, counted by one read */
	model__settle_regions(busy, 0);
	model__settle_regions(busy, 0);
	g = frame__build(m, NULL, NULL, NULL);
	assert_non_null(g);
	assert_int_equal(frame_split_none(&g->procs[1], SPLIT_REGION), 50);
	frame__free(g);
	model__free(m);
}

/* Parts in the views' order: heap, stack, anon always, files with copies,
 * other last; they add up to the process's copies. */
static void test_split_parts(void **state)
{
	static const char *const want[] = { "heap", "stack", "anon", "file:libregiondata.so", "other" };
	static const unsigned long long pages[] = { 120, 0, 100, 50, 30 };
	struct split_part part[SPLIT_SLOTS];
	struct model *m = sample_regions();
	struct frame *f = frame__build(m, NULL, NULL, NULL);
	unsigned long long sum = 0;
	int n, i;

	(void)state;
	n = frame_split_parts(f, &f->procs[1], SPLIT_REGION, false, part);
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++) {
		assert_string_equal(part[i].label, want[i]);
		assert_int_equal(part[i].pages, pages[i]);
		sum += part[i].pages;
	}
	assert_int_equal(sum, f->procs[1].counts.cow);
	n = frame_split_parts(f, &f->procs[1], SPLIT_REGION, true, part);
	assert_int_equal(n, 6);
	assert_string_equal(part[4].label, "file:unused.so");
	assert_string_equal(part[5].label, "other");
	n = frame_split_parts(f, &f->procs[0], SPLIT_REGION, false, part); /* no split: all other */
	assert_int_equal(n, 4);
	assert_int_equal(part[3].pages, 10);
	n = frame_split_parts(f, &f->procs[0], SPLIT_PHASE, false, part); /* no phases: only none */
	assert_int_equal(n, 1);
	assert_string_equal(part[0].label, PHASE_OUTSIDE);
	assert_int_equal(part[0].pages, 10);
	frame__free(f);
	model__free(m);
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

/* A frame's process array is used again by the next frame built once its
 * frame is freed, never while it is held; a much larger one is not kept
 * for a much smaller model. */
static void test_procs_reused(void **state)
{
	struct model *m = sample(), *big = model__new();
	struct frame *f, *g, *h;
	const struct proc *was;
	void *other;
	size_t cap;
	int i;

	(void)state;
	f = frame__build(m, NULL, NULL, NULL);
	was = f->procs;
	cap = f->procs_cap;
	frame__free(f);
	other = malloc(cap * sizeof(struct proc)); /* would take the array, were it freed */
	assert_non_null(other);
	g = frame__build(m, NULL, NULL, NULL);
	assert_ptr_equal(g->procs, was);
	free(other);
	frame__hold(g);
	frame__free(g);
	h = frame__build(m, NULL, NULL, NULL);
	assert_ptr_not_equal(h->procs, g->procs);
	assert_int_equal(h->nprocs, 3);
	assert_string_equal(h->procs[1].comm, "busy");
	assert_string_equal(g->procs[1].comm, "busy");
	frame__free(g);
	frame__free(h);

	for (i = 0; i < 300; i++)
		add(big, 1000 + i, 1, 1000 + i, "idle", 0);
	model__tick(big, 1.0);
	f = frame__build(big, NULL, NULL, NULL);
	assert_true(f->procs_cap >= 300);
	frame__free(f);
	f = frame__build(m, NULL, NULL, NULL);
	assert_true(f->procs_cap < 300);
	assert_string_equal(f->procs[2].comm, "gone");
	frame__free(f);
	frame__free_spare();
	model__free(big);
	model__free(m);
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
	assert_int_equal(frame_nlabels(f, SPLIT_PHASE), 1);
	frame__free(f);
	model__free(m);
}

/* Give p a smaps reading of pss and uss KiB (all private dirty) at when. */
static void reading(struct proc *p, unsigned long long pss, unsigned long long uss, double when)
{
	struct smaps s = { .pss = pss, .private_dirty = uss, .anon = uss };

	model__set_smaps(p, &s, when);
}

/* A master with three live workers (one unread, one a grandchild) and one
 * exited; a process alone; a parent whose only child has exited. */
static struct model *prefork(void)
{
	struct model *m = model__new();
	struct memcg cg = { .limit_kib = 5000, .usage_kib = 3500 };
	struct proc *master = add(m, 100, 1, 100, "master", 10);

	model__set_mem(master, 'S', 3000, 9000);
	model__set_memcg(master, &cg);
	reading(master, 1000, 100, 95.0);
	reading(add(m, 101, 100, 101, "w1", 20), 600, 300, 98.0);
	reading(add(m, 102, 100, 102, "w2", 30), 700, 500, 99.0);
	add(m, 103, 100, 103, "unread", 40);
	reading(add(m, 105, 101, 105, "grandchild", 50), 200, 100, 99.5);
	reading(add(m, 104, 100, 104, "gone", 60), 9999, 9999, 99.0);
	model__mark_exited(model__find(m, 104, 0), 1.0);
	add(m, 200, 1, 200, "alone", 0);
	add(m, 300, 1, 300, "widow", 0);
	model__mark_exited(add(m, 301, 300, 301, "dead", 0), 1.0);
	model__set_mem_available(m, 10000);
	model__tick(m, 1.0);
	return m;
}

/* Footprint, USS mean and max over the workers read, headroom in
 * MemAvailable and in the cgroup, unread members and the oldest reading. */
static void test_groups(void **state)
{
	static const struct frame_status st = { .time = 100.0 };
	struct model *m = prefork();
	struct frame *f = frame__build(m, &st, NULL, NULL);
	const struct frame_group *g;

	(void)state;
	assert_non_null(f);
	assert_int_equal(f->mem_available_kib, 10000);
	assert_int_equal(f->ngroups, 1); /* alone and widow have no live worker */
	g = &f->groups[0];
	assert_int_equal(g->root_pid, 100);
	assert_int_equal(g->root_start, 100);
	assert_int_equal(g->workers, 4);
	assert_int_equal(g->workers_read, 3);
	assert_int_equal(g->unread, 1);
	assert_int_equal(g->pss_kib, 1000 + 600 + 700 + 200);
	assert_int_equal(g->uss_kib, 100 + 300 + 500 + 100);
	assert_int_equal(g->root_rss_kib, 3000);
	assert_int_equal(g->worker_uss_mean_kib, 300);
	assert_int_equal(g->worker_uss_max_kib, 500);
	assert_int_equal(g->cow, 10 + 20 + 30 + 40 + 50 + 60); /* the exited one's too */
	assert_true(g->rate > 209.9 && g->rate < 210.1);
	assert_int_equal(g->headroom, 33);       /* floor(10000 / 300) */
	assert_int_equal(g->headroom_cgroup, 5); /* floor((5000 - 3500) / 300) */
	assert_true(g->smaps_age == 5.0);        /* the master's, read at 95 */
	frame__free(f);
	model__free(m);
}

/* The settled rule (frame.h, FRAME_SETTLE_*): every live worker read (or
 * FRAME_SETTLE_SAMPLE of them), no worker reading older than
 * FRAME_SETTLE_AGE, and no worker read that copied more than 1% of its USS
 * since; headroom is still computed, the views then say "settling". */
static void test_headroom_settles(void **state)
{
	struct frame_status st = { .time = 100.0 };
	struct model *m = prefork();
	struct proc *w1 = model__find(m, 101, 0);
	struct frame *f = frame__build(m, &st, NULL, NULL);
	struct frame_group g;
	int i;

	(void)state;
	assert_false(f->groups[0].settled); /* worker 103 unread: a mean of 3 of 4 */
	assert_int_equal(f->groups[0].headroom, 33);
	frame__free(f);
	reading(model__find(m, 103, 0), 400, 300, 99.0);
	f = frame__build(m, &st, NULL, NULL);
	assert_true(f->groups[0].settled);
	assert_true(f->groups[0].worker_age == 2.0); /* w1, read at 98 */
	frame__free(f);
	st.time = 98.0 + FRAME_SETTLE_AGE + 0.5; /* w1's reading too old */
	f = frame__build(m, &st, NULL, NULL);
	assert_false(f->groups[0].settled);
	frame__free(f);
	st.time = 98.0 + FRAME_SETTLE_AGE; /* just old enough */
	f = frame__build(m, &st, NULL, NULL);
	assert_true(f->groups[0].settled);
	frame__free(f);
	/* w1 (USS 300 KiB) copies one page, 4 KiB, after its reading: more than 1% */
	model__set_counts(w1, &(struct cow_counts){ .cow = 21 });
	f = frame__build(m, &st, NULL, NULL);
	assert_false(f->groups[0].settled);
	assert_int_equal(f->groups[0].copying, 1);
	frame__free(f);
	reading(w1, 600, 1000, 99.0); /* read again: settled, 1 page is < 1% of 1000 KiB... */
	model__set_counts(w1, &(struct cow_counts){ .cow = 23 }); /* ...2 pages, 8 KiB, are not */
	f = frame__build(m, &st, NULL, NULL);
	assert_true(f->groups[0].settled);
	frame__free(f);
	model__free(m);
	/* a sample of FRAME_SETTLE_SAMPLE workers is enough without the rest */
	g = (struct frame_group){ .workers = 100, .workers_read = FRAME_SETTLE_SAMPLE, .worker_age = 1 };
	assert_true(frame_group_settled(&g));
	g.workers_read--;
	assert_false(frame_group_settled(&g));
	for (i = 1; i <= 3; i++) {
		g = (struct frame_group){ .workers = (size_t)i, .workers_read = (size_t)i, .worker_age = 0 };
		assert_true(frame_group_settled(&g));
	}
	g.workers_read = 0;
	assert_false(frame_group_settled(&g));
}

/* Headroom is unknown without MemAvailable or a worker read, absent
 * without a cgroup limit, and 0 when the cgroup is over its limit. */
static void test_headroom_unknown_and_full(void **state)
{
	static const struct frame_status st = { .time = 100.0 };
	struct model *m = prefork();
	struct memcg over = { .limit_kib = 5000, .usage_kib = 6000 }, none = { 0 };
	struct proc *master = model__find(m, 100, 0);
	struct frame *f;

	(void)state;
	model__set_mem_available(m, 0);
	model__set_memcg(master, &over);
	f = frame__build(m, &st, NULL, NULL);
	assert_int_equal(f->groups[0].headroom, -1);
	assert_int_equal(f->groups[0].headroom_cgroup, 0);
	frame__free(f);
	model__set_memcg(master, &none);
	model__set_mem_available(m, 10000);
	f = frame__build(m, &st, NULL, NULL);
	assert_int_equal(f->groups[0].headroom, 33);
	assert_int_equal(f->groups[0].headroom_cgroup, -1);
	frame__free(f);
	model__free(m);

	m = model__new(); /* workers never read: nothing to divide by */
	add(m, 10, 1, 10, "master", 0);
	add(m, 11, 10, 11, "worker", 0);
	model__set_mem_available(m, 10000);
	f = frame__build(m, &st, NULL, NULL);
	assert_int_equal(f->ngroups, 1);
	assert_int_equal(f->groups[0].workers_read, 0);
	assert_int_equal(f->groups[0].unread, 2);
	assert_int_equal(f->groups[0].headroom, -1);
	assert_true(f->groups[0].smaps_age == -1);
	frame__free(f);
	model__free(m);
}

/* The group of a focused subtree, and of the root above a selection. */
static void test_group_of(void **state)
{
	static const struct frame_status st = { .time = 100.0 };
	struct model *m = prefork();
	struct frame *f = frame__build(m, &st, NULL, NULL);
	struct frame_group g;
	size_t i;

	(void)state;
	assert_int_equal(frame_group_of(f, 101, NULL, &g), 0);
	assert_int_equal(g.root_pid, 101);
	assert_int_equal(g.workers, 1);
	assert_int_equal(g.pss_kib, 800);
	assert_true(g.smaps_age == 2.0); /* w1, read at 98 */
	for (i = 0; i < f->nprocs && f->procs[i].pid != 105; i++)
		;
	assert_int_equal(frame_group_of(f, 0, &f->procs[i], &g), 0);
	assert_int_equal(g.root_pid, 100);
	assert_int_equal(g.workers, 4);
	for (i = 0; i < f->nprocs && f->procs[i].pid != 200; i++)
		;
	assert_int_equal(frame_group_of(f, 0, &f->procs[i], &g), 0);
	assert_int_equal(g.root_pid, 200);
	assert_int_equal(g.workers, 0);
	assert_int_equal(frame_group_of(f, 999, NULL, &g), -ENOENT);
	assert_true(frame_smaps_age(f, &f->procs[0]) == 5.0);
	assert_true(frame_smaps_age(f, &f->procs[3]) == -1);
	frame__free(f);
	model__free(m);
}

/* Two groups are the same, figure by figure. */
static void same_group(const struct frame_group *a, const struct frame_group *b)
{
	assert_int_equal(a->root_pid, b->root_pid);
	assert_int_equal(a->root_start, b->root_start);
	assert_int_equal(a->workers, b->workers);
	assert_int_equal(a->workers_read, b->workers_read);
	assert_int_equal(a->unread, b->unread);
	assert_int_equal(a->pss_kib, b->pss_kib);
	assert_int_equal(a->uss_kib, b->uss_kib);
	assert_int_equal(a->root_rss_kib, b->root_rss_kib);
	assert_int_equal(a->root_mem_known, b->root_mem_known);
	assert_int_equal(a->worker_uss_mean_kib, b->worker_uss_mean_kib);
	assert_int_equal(a->worker_uss_max_kib, b->worker_uss_max_kib);
	assert_int_equal(a->cow, b->cow);
	assert_true(a->rate == b->rate);
	assert_int_equal(a->headroom, b->headroom);
	assert_int_equal(a->headroom_cgroup, b->headroom_cgroup);
	assert_int_equal(a->memcg.limit_kib, b->memcg.limit_kib);
	assert_int_equal(a->memcg.usage_kib, b->memcg.usage_kib);
	assert_true(a->smaps_age == b->smaps_age);
	assert_int_equal(a->forked, b->forked);
	assert_int_equal(a->reaped, b->reaped);
}

/* Frame f, built without groups, knows whether it has some (grouped), and
 * frame__groups sums them as a frame built with them has them (once). */
static void check_groups_on_demand(struct model *m, bool grouped)
{
	static const struct frame_status st = { .time = 100.0 };
	struct view_opts vo = { .sort = FIELD_COW, .no_rows = true, .no_groups = true };
	struct frame *f = frame__build(m, &st, &vo, NULL);
	struct frame *all = frame__build(m, &st, NULL, NULL);
	struct frame_group *g;
	size_t i;

	assert_non_null(f);
	assert_non_null(all);
	assert_null(f->groups);
	assert_int_equal(f->ngroups, 0);
	assert_int_equal(f->grouped, grouped);
	assert_int_equal(all->grouped, grouped);
	assert_int_equal(all->ngroups > 0, grouped);
	assert_int_equal(frame__groups(f), 0);
	assert_non_null(f->groups);
	assert_int_equal(f->ngroups, all->ngroups);
	for (i = 0; i < f->ngroups; i++)
		same_group(&f->groups[i], &all->groups[i]);
	g = f->groups;
	assert_int_equal(frame__groups(f), 0); /* summed once */
	assert_ptr_equal(f->groups, g);
	assert_int_equal(f->grouped, grouped);
	frame__free(f);
	frame__free(all);
}

/* Frames for views that sum no groups have none until asked: the screen
 * asks only when a snapshot is written. */
static void test_groups_on_demand(void **state)
{
	struct model *m = prefork();

	(void)state;
	check_groups_on_demand(m, true);
	model__free(m);

	m = model__new(); /* no root with a live worker */
	add(m, 200, 1, 200, "alone", 0);
	add(m, 300, 1, 300, "widow", 0);
	model__mark_exited(add(m, 301, 300, 301, "dead", 0), 1.0);
	check_groups_on_demand(m, false);

	/* pid 40 reused: the live 40 started after 50, so 50's parent is
	 * the exited 40 (a group with 50 its worker); with that one gone,
	 * 50 is a root of its own and no group is left. */
	model__mark_exited(add(m, 40, 1, 10, "parent", 0), 1.0);
	add(m, 50, 40, 20, "child", 0);
	add(m, 40, 1, 30, "newer", 0);
	check_groups_on_demand(m, true);
	assert_int_equal(model__remove_exited(m, 2.0), 2); /* the old 40, and 301 */
	check_groups_on_demand(m, false);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals_and_rows),
		cmocka_unit_test(test_totals_keep_forgotten),
		cmocka_unit_test(test_history_as_drawn),
		cmocka_unit_test(test_history_idle_and_busy),
		cmocka_unit_test(test_procs_copied_as_they_are),
		cmocka_unit_test(test_no_rows),
		cmocka_unit_test(test_labels_are_copies),
		cmocka_unit_test(test_markers_cursor_and_log),
		cmocka_unit_test(test_hold_and_free),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_headroom_unknown_and_full),
		cmocka_unit_test(test_headroom_settles),
		cmocka_unit_test(test_group_of),
		cmocka_unit_test(test_groups_on_demand),
		cmocka_unit_test(test_region_labels),
		cmocka_unit_test(test_region_other_raised),
		cmocka_unit_test(test_split_parts),
		cmocka_unit_test(test_procs_reused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
