/* Unit tests: the process table, its rates and probe hits, and the tree
 * laid out over its processes. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "frame.h"
#include "model.h"
#include "procs.h"
#include "tree.h"

/* The rows of m's processes (copied into *procs, to free with the rows). */
static size_t rows_of(struct model *m, const struct view_opts *o, struct proc **procs, struct row **rows)
{
	size_t n = model__count(m), i;
	long k;

	*procs = calloc(n + 1, sizeof(**procs));
	*rows = calloc(n + 1, sizeof(**rows));
	assert_non_null(*procs);
	assert_non_null(*rows);
	for (i = 0; i < n; i++)
		(*procs)[i] = *model__at(m, i);
	k = tree_layout(*procs, n, o, *rows);
	assert_true(k >= 0);
	return (size_t)k;
}

/* Rows of m as a string of pids at their depths: "10:0 11:1 ...". */
static void layout(struct model *m, const struct view_opts *o, char *buf, size_t cap)
{
	struct proc *procs;
	struct row *rows;
	size_t n = rows_of(m, o, &procs, &rows), i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		len += snprintf(buf + len, cap - len, "%s%d:%d", i ? " " : "", rows[i].p->pid, rows[i].depth);
	free(rows);
	free(procs);
}

static void test_tree_sorted_by_rate(void **state)
{
	struct model *m = model__new();
	struct view_opts o = { .sort = FIELD_COW_RATE, .tree = true };
	char buf[256];

	(void)state;
	add(m, 10, 1, 100, "master", 0);
	add(m, 11, 10, 101, "w1", 100);
	add(m, 12, 10, 101, "w2", 300);
	add(m, 13, 12, 102, "g", 50);
	model__tick(m, 1.0);
	layout(m, &o, buf, sizeof(buf));
	assert_string_equal(buf, "10:0 12:1 13:2 11:1");
	o.reverse = true;
	layout(m, &o, buf, sizeof(buf));
	assert_string_equal(buf, "10:0 11:1 12:1 13:2");
	model__free(m);
}

static void test_flat_and_focus(void **state)
{
	struct model *m = model__new();
	struct view_opts o = { .sort = FIELD_PID, .tree = false };
	char buf[256];

	(void)state;
	add(m, 10, 1, 100, "master", 0);
	add(m, 11, 10, 101, "w1", 0);
	add(m, 12, 10, 101, "w2", 0);
	add(m, 13, 12, 102, "g", 0);
	add(m, 20, 1, 90, "other", 0);
	layout(m, &o, buf, sizeof(buf));
	assert_string_equal(buf, "10:0 11:0 12:0 13:0 20:0");
	o.tree = true;
	o.focus_pid = 12;
	layout(m, &o, buf, sizeof(buf));
	assert_string_equal(buf, "12:0 13:1");
	model__free(m);
}

static void test_rates_and_history(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	struct cow_counts c = { .cow = 500 };

	(void)state;
	model__tick(m, 1.0);
	model__set_counts(p, &c);
	model__tick(m, 0.5);
	assert_true(p->cow_rate > 999.9 && p->cow_rate < 1000.1);
	assert_int_equal(series__len(&p->rate), 2);
	assert_true(series__get(&p->rate, 1) > 999.9);
	/* An older, smaller reading never moves the counters back (no negative rate). */
	c.cow = 10;
	model__set_counts(p, &c);
	assert_int_equal(p->counts.cow, 500);
	model__tick(m, 1.0);
	assert_true(p->cow_rate == 0.0);
	model__free(m);
}

static void test_pid_reuse_keeps_processes_apart(void **state)
{
	struct model *m = model__new();
	struct proc *old = add(m, 42, 1, 100, "old", 7);
	struct proc *young, *kid;
	char buf[256];
	struct view_opts o = { .sort = FIELD_PID, .tree = true };

	(void)state;
	model__mark_exited(old, 1.0);
	young = add(m, 42, 1, 200, "new", 0);
	assert_ptr_not_equal(old, young);
	assert_ptr_equal(model__find(m, 42, 100), old);
	assert_ptr_equal(model__find_live(m, 42), young);
	/* A child born after the reuse belongs to the new process. */
	kid = add(m, 43, 42, 201, "kid", 0);
	(void)kid;
	layout(m, &o, buf, sizeof(buf));
	assert_string_equal(buf, "42:0 42:0 43:1");
	assert_int_equal(model__remove_exited(m, 2.0), 1);
	assert_null(model__find(m, 42, 100));
	assert_int_equal(model__count(m), 2);
	model__free(m);
}

static void test_base_subtracted(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 9, 1, 5, "cmd", 0);
	struct cow_counts base = { .cow = 4, .reuse = 2 }, now = { .cow = 14, .reuse = 3 };

	(void)state;
	model__set_base(p, &base);
	model__set_counts(p, &now);
	assert_int_equal(p->counts.cow, 10);
	assert_int_equal(p->counts.reuse, 1);
	model__free(m);
}

static void test_many_processes_and_deep_chain(void **state)
{
	struct model *m = model__new();
	struct view_opts o = { .sort = FIELD_PID, .tree = true };
	struct proc *procs;
	struct row *rows;
	size_t n;
	int i;

	(void)state;
	/* A fork chain 5000 deep: no recursion limit, every row at its depth. */
	for (i = 1; i <= 5000; i++)
		add(m, 1000 + i, 1000 + i - 1, (unsigned long long)i, "c", 0);
	n = rows_of(m, &o, &procs, &rows);
	assert_int_equal(n, 5000);
	assert_int_equal(rows[4999].depth, 4999);
	assert_int_equal(model__live(m), 5000);
	free(rows);
	free(procs);
	model__free(m);
}

static void test_tree_line_bits(void **state)
{
	struct model *m = model__new();
	struct view_opts o = { .sort = FIELD_PID, .tree = true };
	struct proc *procs;
	struct row *rows;
	size_t n;

	(void)state;
	add(m, 10, 1, 1, "r", 0);
	add(m, 11, 10, 2, "a", 0);
	add(m, 12, 11, 3, "a1", 0);
	add(m, 13, 10, 2, "b", 0);
	n = rows_of(m, &o, &procs, &rows);
	assert_int_equal(n, 4);
	assert_false(rows[1].last);          /* 11 has a sibling below (13) */
	assert_true(rows[2].last);           /* 12 is an only child */
	assert_true(rows[2].more >> 1 & 1);  /* its ancestor at depth 1 (11) has more below */
	assert_true(rows[3].last);
	free(rows);
	free(procs);
	model__free(m);
}

static void test_sort_key_names(void **state)
{
	enum field_id k;

	(void)state;
	assert_int_equal(sort_key_parse("cow-rate", &k), 0);
	assert_int_equal(k, FIELD_COW_RATE);
	assert_int_equal(sort_key_parse("comm", &k), 0);
	assert_int_equal(k, FIELD_COMM);
	assert_int_not_equal(sort_key_parse("bogus", &k), 0);
	assert_string_equal(sort_key_name(FIELD_RSS), "rss");
}

/* Log n probe hits of pid, the k-th at time t0 + k * step. */
static void add_marks(struct model *m, int pid, int n, double t0, double step)
{
	struct marker mk = { .pid = pid };
	int k;

	for (k = 0; k < n; k++) {
		mk.time = t0 + k * step;
		mk.args[0] = k;
		model__add_marker(m, &mk);
	}
}

/* Every probe hit goes in exactly one frame, by order of arrival: one read
 * after a frame, though stamped before it, is in the next frame. */
static void test_markers_each_in_one_frame(void **state)
{
	static const struct marker *out[MARK_LOG];
	struct model *m = model__new();
	unsigned long long cursor = 0;

	(void)state;
	assert_int_equal(model__markers_take(m, &cursor, out, MARK_LOG), 0);
	add_marks(m, 10, 3, 100.0, 0.1);
	assert_int_equal(model__markers_take(m, &cursor, out, MARK_LOG), 3);
	assert_true(out[0]->time == 100.0 && out[2]->args[0] == 2);
	assert_int_equal(model__markers_take(m, &cursor, out, MARK_LOG), 0);
	/* stamped before the hits already taken */
	add_marks(m, 11, 2, 99.0, 0.1);
	assert_int_equal(model__markers_take(m, &cursor, out, MARK_LOG), 2);
	assert_int_equal(out[0]->pid, 11);
	assert_int_equal(out[1]->args[0], 1);
	/* more than the log keeps between two frames: the newest MARK_LOG */
	add_marks(m, 12, MARK_LOG + 5, 200.0, 0.001);
	assert_int_equal(model__markers_take(m, &cursor, out, MARK_LOG), MARK_LOG);
	assert_int_equal(out[0]->args[0], 5);
	assert_int_equal(out[MARK_LOG - 1]->args[0], MARK_LOG + 4);
	assert_int_equal(model__markers_take(m, &cursor, out, MARK_LOG), 0);
	/* a smaller max: the rest come next time */
	add_marks(m, 13, 4, 300.0, 0.1);
	assert_int_equal(model__markers_take(m, &cursor, out, 3), 3);
	assert_int_equal(model__markers_take(m, &cursor, out, 3), 1);
	assert_int_equal(out[0]->args[0], 3);
	model__free(m);
}

/* A process read from /proc while exiting has ppid 0 there: it stays under
 * the parent it was forked by; a real reparenting moves it. */
static void test_ppid_kept_while_exiting(void **state)
{
	struct model *m = model__new();
	struct proc *p = model__add(m, 200, 5);

	(void)state;
	assert_int_equal(p->ppid, 0);
	model__set_ppid(p, 100);
	assert_int_equal(p->ppid, 100);
	model__set_ppid(p, 0);
	assert_int_equal(p->ppid, 100);
	model__set_ppid(p, 1);
	assert_int_equal(p->ppid, 1);
	model__free(m);
}

/* A command that ends just after a regular frame: the final interval is a
 * fraction of a millisecond. Its rate is over both intervals, it replaces
 * the last history point, and the frame covers both. */
static void test_vanishing_interval_merged(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0), *late;
	struct cow_counts c = { .cow = 100 };
	struct marker mk = { .pid = 5, .probe = 2 };

	(void)state;
	model__set_counts(p, &c);
	assert_true(model__tick(m, 1.0) == 1.0);
	assert_true(p->cow_rate > 99.9 && p->cow_rate < 100.1);
	c.cow = 116;
	model__set_counts(p, &c);
	model__add_marker(m, &mk);
	late = add(m, 6, 5, 8, "y", 4); /* born in the short interval */
	assert_true(model__tick(m, 0.0004) > 1.0003);
	assert_true(p->cow_rate > 115.9 && p->cow_rate < 116.0); /* not 40000/s */
	assert_int_equal(series__len(&p->rate), 1);
	assert_true(series__get(&p->rate, 0) > 115.9);
	assert_int_equal(series__mark(&p->rate, 0), 3); /* the probe hit is kept */
	assert_int_equal(series__len(&late->rate), 1);
	assert_true(late->cow_rate > 3.9 && late->cow_rate < 4.0);
	/* a regular interval after it starts afresh */
	c.cow = 216;
	model__set_counts(p, &c);
	assert_true(model__tick(m, 1.0) == 1.0);
	assert_true(p->cow_rate > 99.9 && p->cow_rate < 100.1);
	assert_int_equal(series__len(&p->rate), 2);
	/* a quarter of the last one or more is an interval of its own */
	assert_true(model__tick(m, 0.25) == 0.25);
	assert_int_equal(series__len(&p->rate), 3);
	model__free(m);
}

/* Without a period the first interval has none to compare with: it stands,
 * however short. */
static void test_first_interval_stands(void **state)
{
	struct model *m = model__new();

	(void)state;
	add(m, 5, 1, 7, "x", 0);
	assert_true(model__tick(m, 0.0001) == 0.0001);
	assert_int_equal(series__len(&model__at(m, 0)->rate), 1);
	model__free(m);
}

/* A command that ends 1 ms after cowtop started: its only frame is rated
 * over a whole period (90/s), not over 1 ms (18000/s). */
static void test_first_short_interval_over_period(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	struct cow_counts c = { .cow = 18 };

	(void)state;
	model__set_period(m, 0.2);
	model__set_counts(p, &c);
	assert_true(model__tick(m, 0.001) == 0.2);
	assert_true(p->cow_rate > 89.9 && p->cow_rate < 90.1);
	assert_int_equal(series__len(&p->rate), 1);
	model__free(m);
}

/* With a period, no interval is rated over less than MODEL_MERGE_RATIO of
 * it, whatever came before: a final frame after a short one (0.1 s after a
 * 0.3 s one, period 1 s) is merged too, and 0 s intervals never stand. */
static void test_no_interval_under_quarter_period(void **state)
{
	static const double dts[] = { 0.001, 1.0, 0.3, 0.1, 0.0, 0.0004, 0.25, 0.2499 };
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	struct cow_counts c = { .cow = 0 };
	size_t i;

	(void)state;
	model__set_period(m, 1.0);
	for (i = 0; i < sizeof(dts) / sizeof(*dts); i++) {
		double span;

		c.cow += 16;
		model__set_counts(p, &c);
		span = model__tick(m, dts[i]);
		assert_true(span >= MODEL_MERGE_RATIO * 1.0);
		assert_true(p->cow_rate <= 16 * (i + 1) / span + 1e-9);
	}
	/* 0.001 -> 1 (period); 1; 0.3; 0.1 merged -> 0.4; 0 -> 0.4;
	 * 0.0004 -> 0.4004; 0.25 alone; 0.2499 merged -> 0.4999 */
	assert_true(model__tick(m, 1.0) == 1.0);
	assert_int_equal(series__len(&p->rate), 5);
	model__free(m);
}

/* Breakdown slots only grow; slot 0 and unknown kinds are refused. */
static void test_split_keeps_max(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 10);

	(void)state;
	model__set_split(p, SPLIT_PHASE, 1, 6);
	model__set_split(p, SPLIT_PHASE, 1, 4);
	model__set_split(p, SPLIT_PHASE, 0, 9);
	model__set_split(p, SPLIT_PHASE, SPLIT_SLOTS, 9);
	model__set_split(p, SPLIT_KINDS, 1, 9);
	assert_int_equal(p->split[SPLIT_PHASE].v[1], 6);
	assert_int_equal(p->split[SPLIT_PHASE].v[0], 0);
	model__free(m);
}

/* A breakdown read a flush ahead of the count raises the count: the parts
 * never add up to more than the whole; a count read later still behind it
 * is not taken, one that caught up is. */
static void test_split_raises_count(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 10);
	struct cow_counts raw = { .cow = 12, .zero_fill = 1 };

	(void)state;
	model__set_split(p, SPLIT_PHASE, 1, 8);
	assert_int_equal(p->counts.cow, 10);
	model__set_split(p, SPLIT_PHASE, 2, 5);
	assert_int_equal(p->counts.cow, 13);
	assert_int_equal(frame_split_none(p, SPLIT_PHASE), 0);
	model__set_split(p, SPLIT_REGION, SPLIT_REGION_HEAP, 2);
	assert_int_equal(p->counts.cow, 13);
	model__set_counts(p, &raw);
	assert_int_equal(p->counts.cow, 13);
	raw.cow = 20;
	model__set_counts(p, &raw);
	assert_int_equal(p->counts.cow, 20);
	assert_int_equal(frame_split_none(p, SPLIT_PHASE), 7);
	/* region "other" is settled from the copies of the read before */
	assert_int_equal(frame_split_none(p, SPLIT_REGION), 0);
	model__settle_regions(p, 0);
	assert_int_equal(frame_split_none(p, SPLIT_REGION), 0);
	model__settle_regions(p, 0);
	assert_int_equal(frame_split_none(p, SPLIT_REGION), 18);
	model__free(m);
}

/* Each kind has its own labels: regions start with their fixed slots,
 * phases with "outside"; a label registered twice keeps its slot; phases stop
 * at PHASE_MAX, regions at SPLIT_SLOTS; the phase wrappers are the phase
 * kind. */
static void test_labels_per_kind(void **state)
{
	struct model *m = model__new();
	char label[32];
	int i, slot;

	(void)state;
	assert_int_equal(model__nlabels(m, SPLIT_PHASE), 1);
	assert_string_equal(model__label(m, SPLIT_PHASE, 0), PHASE_OUTSIDE);
	assert_int_equal(model__nlabels(m, SPLIT_REGION), SPLIT_REGION_FILES);
	assert_string_equal(model__label(m, SPLIT_REGION, 0), "other");
	assert_string_equal(model__label(m, SPLIT_REGION, SPLIT_REGION_HEAP), "heap");
	assert_string_equal(model__label(m, SPLIT_REGION, SPLIT_REGION_STACK), "stack");
	assert_string_equal(model__label(m, SPLIT_REGION, SPLIT_REGION_ANON), "anon");
	assert_string_equal(model__label(m, SPLIT_REGION, SPLIT_REGION_FILES), "?");
	assert_string_equal(model__label(m, SPLIT_KINDS, 0), "?");
	assert_int_equal(model__add_label(m, SPLIT_REGION, "file:libc.so.6"), SPLIT_REGION_FILES);
	assert_int_equal(model__add_label(m, SPLIT_REGION, "file:libc.so.6"), SPLIT_REGION_FILES);
	assert_int_equal(model__add_label(m, SPLIT_REGION, "heap"), SPLIT_REGION_HEAP);
	assert_int_equal(model__add_phase(m, "ruby:gc"), 1);
	assert_string_equal(model__label(m, SPLIT_PHASE, 1), "ruby:gc");
	assert_int_equal(model__nlabels(m, SPLIT_PHASE), 2);
	for (i = 0; (slot = model__add_phase(m, (snprintf(label, sizeof(label), "p:%d", i), label))) > 0; i++)
		;
	assert_int_equal(slot, -ENOSPC);
	assert_int_equal(model__nlabels(m, SPLIT_PHASE), PHASE_MAX);
	for (i = 0; (slot = model__add_label(m, SPLIT_REGION, (snprintf(label, sizeof(label), "file:%d", i), label))) > 0; i++)
		;
	assert_int_equal(slot, -ENOSPC);
	assert_int_equal(model__nlabels(m, SPLIT_REGION), SPLIT_SLOTS);
	assert_int_equal(model__add_label(m, SPLIT_KINDS, "x"), -ENOSPC);
	model__free(m);
}

/* Region slots are kept apart from phase slots, up to the last one. */
static void test_split_region(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 10);

	(void)state;
	model__set_split(p, SPLIT_REGION, SPLIT_REGION_HEAP, 3);
	model__set_split(p, SPLIT_REGION, SPLIT_SLOTS - 1, 2);
	assert_int_equal(p->split[SPLIT_REGION].v[SPLIT_REGION_HEAP], 3);
	assert_int_equal(p->split[SPLIT_REGION].v[SPLIT_SLOTS - 1], 2);
	assert_int_equal(p->split[SPLIT_PHASE].v[SPLIT_REGION_HEAP], 0);
	model__free(m);
}

/* Command lines are cut to fit, never inside a UTF-8 character; an empty
 * one (a zombie's) keeps the last one read. */
static void test_set_cmdline(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	char longline[PROC_CMDLINE_MAX + 10];
	size_t i;

	(void)state;
	assert_string_equal(p->cmdline, "");
	model__set_cmdline(p, "unicorn worker[1]", 17);
	assert_string_equal(p->cmdline, "unicorn worker[1]");
	model__set_cmdline(p, "", 0);
	assert_string_equal(p->cmdline, "unicorn worker[1]");
	/* "é" is 2 bytes: a cut at an odd length falls inside one. */
	for (i = 0; i + 1 < sizeof(longline); i += 2) {
		longline[i] = (char)0xc3;
		longline[i + 1] = (char)0xa9;
	}
	model__set_cmdline(p, longline, sizeof(longline));
	assert_int_equal(strlen(p->cmdline), PROC_CMDLINE_MAX - 2);
	assert_int_equal((unsigned char)p->cmdline[PROC_CMDLINE_MAX - 3], 0xa9);
	model__set_kthread(p, true);
	assert_true(p->kthread);
	model__free(m);
}

/* Names are cut to fit and always terminated, whatever len says. */
static void test_set_comm_and_mem(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	char longname[100];

	(void)state;
	memset(longname, 'a', sizeof(longname));
	model__set_comm(p, longname, sizeof(longname));
	assert_int_equal(strlen(p->comm), PROC_COMM_MAX - 1);
	model__set_comm(p, "ruby\0junk", 9);
	assert_string_equal(p->comm, "ruby");
	model__set_comm(p, "unicorn", 3);
	assert_string_equal(p->comm, "uni");
	model__set_mem(p, 'S', 100, 200);
	assert_int_equal(p->state, 'S');
	assert_int_equal(p->rss_kib, 100);
	assert_int_equal(p->vsz_kib, 200);
	model__free(m);
}

/* A worker that inherited 1000 KiB and has copied 300 KiB of it. */
static const struct smaps worker = {
	.rss = 1200, .pss = 700, .anon = 1000, .private_clean = 20, .private_dirty = 300,
	.shared_dirty = 700,
};

/* USS is the private pages; shared% is the inherited memory still shared,
 * unknown until both a reading and the inheritance are known. */
static void test_uss_and_shared_pct(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	struct smaps s = worker;

	(void)state;
	assert_int_equal(p->inherited_kib, -1);
	assert_true(proc_shared_pct(p) == -1);
	model__set_smaps(p, &s, 100.5);
	assert_true(p->smaps_time == 100.5);
	assert_int_equal(proc_uss_kib(p), 320);
	assert_true(proc_shared_pct(p) == -1); /* found running: nothing inherited known */
	model__set_inherited(p, 1000);
	assert_true(proc_shared_pct(p) == 70.0);
	model__set_inherited(p, 500); /* anonymous memory made after fork: capped */
	assert_true(proc_shared_pct(p) == 100.0);
	s.private_dirty = 1100; /* more private than anonymous (private file pages) */
	model__set_smaps(p, &s, 101.0);
	assert_true(proc_shared_pct(p) == 0.0);
	model__set_inherited(p, 0);
	assert_true(proc_shared_pct(p) == -1);
	model__free(m);
}

/* The family figure needs no baseline at fork: known from its reading
 * alone, unknown (with a reason, never 0) without one. */
static void test_family_pct(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	struct family_mem f = { .anon_kib = 4000, .shared_kib = 1000 };

	(void)state;
	assert_true(proc_family_pct(p) == -1);
	assert_string_equal(proc_family_why(p), "not read yet");
	model__set_family(p, &f, 100.5);
	assert_true(proc_family_pct(p) == 25.0); /* inherited unknown: still known */
	assert_null(proc_family_why(p));
	model__family_unknown(p, FAMILY_NO_PFN);
	assert_true(proc_family_pct(p) == -1);
	assert_int_equal(p->family.shared_kib, 0);
	assert_non_null(strstr(proc_family_why(p), "CAP_SYS_ADMIN"));
	f = (struct family_mem){ 0 };
	model__set_family(p, &f, 101.0); /* nothing anonymous: no share of it */
	assert_true(proc_family_pct(p) == -1);
	assert_string_equal(proc_family_why(p), "no anonymous memory present");
	model__free(m);
}

/* The shared% history gets a value a tick, -1 while unknown, and follows
 * the same merge rule as the rates. */
static void test_shared_history(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	struct smaps s = worker;

	(void)state;
	model__tick(m, 1.0);
	model__set_inherited(p, 1000);
	model__set_smaps(p, &s, 2.0);
	model__tick(m, 1.0);
	s.private_dirty = 500;
	model__set_smaps(p, &s, 2.0004);
	model__tick(m, 0.0004); /* merged: replaces the last point */
	assert_int_equal(series__len(&p->shared), 2);
	assert_true(series__get(&p->shared, 0) == -1);
	assert_true(series__get(&p->shared, 1) == 50.0);
	model__tick(m, 1.0);
	assert_int_equal(series__len(&p->shared), 3);
	model__free(m);
}

/* Memory cgroup and MemAvailable are stored as given. */
static void test_memcg_and_available(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	struct memcg cg = { .limit_kib = 4096, .usage_kib = 1024 };

	(void)state;
	assert_int_equal(model__mem_available(m), 0);
	model__set_mem_available(m, 123456);
	assert_int_equal(model__mem_available(m), 123456);
	model__set_memcg(p, &cg);
	assert_int_equal(p->memcg.limit_kib, 4096);
	assert_int_equal(p->memcg.usage_kib, 1024);
	model__free(m);
}

/* How a process ended, in the words every view uses. */
static void test_exit_reasons(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	char buf[32];

	(void)state;
	assert_string_equal(proc_exit_reason(p, buf, sizeof(buf)), "");
	model__mark_exited(p, 1.0);
	assert_string_equal(proc_exit_reason(p, buf, sizeof(buf)), "?");
	model__set_exit(p, 3 << 8, false);
	assert_string_equal(proc_exit_reason(p, buf, sizeof(buf)), "exit 3");
	model__set_exit(p, 11 | 0x80, false);
	assert_string_equal(proc_exit_reason(p, buf, sizeof(buf)), "SIGSEGV (core)");
	model__set_exit(p, 9, false);
	assert_string_equal(proc_exit_reason(p, buf, sizeof(buf)), "SIGKILL");
	model__set_exit(p, 40, false);
	assert_string_equal(proc_exit_reason(p, buf, sizeof(buf)), "signal 40");
	model__set_oom(p);
	model__set_exit(p, 9, false); /* the exit never clears what the OOM killer said */
	assert_string_equal(proc_exit_reason(p, buf, sizeof(buf)), "oom-killed");
	assert_null(proc_signal_name(0));
	assert_string_equal(proc_signal_name(15), "SIGTERM");
	assert_null(proc_signal_name(64));
	model__free(m);
}

/* Kernel marker labels are found again, and are not probes. */
static void test_kernel_probes(void **state)
{
	struct model *m = model__new();
	int a, b;

	(void)state;
	assert_int_equal(model__add_probe(m, "ruby:gc__mark__begin"), 0);
	a = model__kernel_probe(m, "oom:kill");
	b = model__kernel_probe(m, "reclaim:memcg");
	assert_int_equal(a, 1);
	assert_int_equal(b, 2);
	assert_int_equal(model__kernel_probe(m, "oom:kill"), a);
	assert_int_equal(model__nprobes(m), 3);
	assert_int_equal(model__nkernel_probes(m), 2);
	assert_string_equal(model__probe_label(m, b), "reclaim:memcg");
	model__free(m);
}

/* Reclaim totals only grow: a reading of an older total is ignored. */
static void test_reclaim_keeps_max(void **state)
{
	struct model *m = model__new();
	struct proc *p = add(m, 5, 1, 7, "x", 0);
	struct psi psi = { 1.5, 0.25 };

	(void)state;
	model__set_reclaim(p, 4, 0.002);
	model__set_reclaim(p, 3, 0.001);
	assert_int_equal(p->reclaims, 4);
	assert_true(p->reclaim_s == 0.002);
	assert_true(model__psi(m).some_avg10 < 0);
	model__set_psi(m, &psi);
	assert_true(model__psi(m).full_avg10 == 0.25);
	model__free(m);
}

/* The exited processes held are known without a pass over every process
 * while none exits: each is removed once its time is due, not before, and
 * one marked exited since (in this model or another) is counted at once. */
static void test_exited_counted_and_removed(void **state)
{
	struct model *m = model__new(), *other = model__new();
	size_t i;

	(void)state;
	for (i = 0; i < 20; i++)
		add(m, 500 + (int)i, 1, 500 + i, "w", 0);
	add(other, 900, 1, 900, "x", 0);
	assert_int_equal(model__exited(m), 0);
	assert_int_equal(model__remove_exited(m, 100.0), 0);
	model__mark_exited(model__at(m, 3), 10.0);
	model__mark_exited(model__at(m, 7), 5.0);
	assert_int_equal(model__exited(m), 2);
	assert_int_equal(model__remove_exited(m, 4.0), 0); /* none due */
	assert_int_equal(model__remove_exited(m, 4.9), 0);
	assert_int_equal(model__exited(m), 2);
	model__mark_exited(model__at(other, 0), 1.0); /* another model's exit */
	assert_int_equal(model__exited(m), 2);
	assert_int_equal(model__remove_exited(m, 5.0), 1); /* pid 507 */
	assert_int_equal(model__count(m), 19);
	assert_int_equal(model__exited(m), 1);
	assert_null(model__find(m, 507, 0));
	model__mark_exited(model__find(m, 510, 0), 2.0); /* earlier than the one held */
	assert_int_equal(model__exited(m), 2);
	assert_int_equal(model__remove_exited(m, 2.0), 1); /* pid 510 */
	assert_int_equal(model__remove_exited(m, 9.9), 0);
	assert_int_equal(model__remove_exited(m, 10.0), 1); /* pid 503 */
	assert_int_equal(model__exited(m), 0);
	assert_int_equal(model__count(m), 17);
	assert_int_equal(model__forgotten(m), 3);
	model__free(m);
	model__free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_cmdline),
		cmocka_unit_test(test_tree_sorted_by_rate),
		cmocka_unit_test(test_flat_and_focus),
		cmocka_unit_test(test_rates_and_history),
		cmocka_unit_test(test_pid_reuse_keeps_processes_apart),
		cmocka_unit_test(test_base_subtracted),
		cmocka_unit_test(test_many_processes_and_deep_chain),
		cmocka_unit_test(test_tree_line_bits),
		cmocka_unit_test(test_sort_key_names),
		cmocka_unit_test(test_markers_each_in_one_frame),
		cmocka_unit_test(test_ppid_kept_while_exiting),
		cmocka_unit_test(test_vanishing_interval_merged),
		cmocka_unit_test(test_first_interval_stands),
		cmocka_unit_test(test_first_short_interval_over_period),
		cmocka_unit_test(test_no_interval_under_quarter_period),
		cmocka_unit_test(test_split_keeps_max),
		cmocka_unit_test(test_split_raises_count),
		cmocka_unit_test(test_labels_per_kind),
		cmocka_unit_test(test_split_region),
		cmocka_unit_test(test_set_comm_and_mem),
		cmocka_unit_test(test_uss_and_shared_pct),
		cmocka_unit_test(test_shared_history),
		cmocka_unit_test(test_memcg_and_available),
		cmocka_unit_test(test_exit_reasons),
		cmocka_unit_test(test_kernel_probes),
		cmocka_unit_test(test_reclaim_keeps_max),
		cmocka_unit_test(test_family_pct),
		cmocka_unit_test(test_exited_counted_and_removed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
