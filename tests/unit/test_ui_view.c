/* Unit tests: what the keys do to the view (selection, focus, follow,
 * sorting, filter), without a terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "screen.h"
#include "view.h"

/* master(100) with workers 101 (busy), 102, 103 (idle); 102 forked 104. */
static struct model *sample(void)
{
	static const struct { int pid, ppid; const char *comm; double rate; } procs[] = {
		{ 100, 1, "master", 1 }, { 101, 100, "busy", 500 }, { 102, 100, "mid", 50 },
		{ 103, 100, "idle", 0 }, { 104, 102, "grandkid", 5 },
	};
	struct model *m = model__new();
	size_t i;

	for (i = 0; i < sizeof(procs) / sizeof(*procs); i++) {
		struct proc *p = model__add(m, procs[i].pid, 1000 + i);

		p->ppid = procs[i].ppid;
		p->state = 'S';
		snprintf(p->comm, sizeof(p->comm), "%s", procs[i].comm);
		p->cow_rate = procs[i].rate;
	}
	return m;
}

/* The pids shown, as "100 101 ...". */
static const char *shown(const struct view *v)
{
	static char buf[256];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < v->n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d", i ? " " : "", v->rows[i].p->pid);
	return buf;
}

/* Show a new frame of m, as a tick does. */
static int refresh(struct view *v, struct model *m)
{
	struct frame *f = frame__build(m, NULL, NULL, NULL);
	int e;

	assert_non_null(f);
	e = view__set_frame(v, f);
	frame__free(f);
	return e;
}

/* A view of sample() in the default order. */
static struct model *open_view(struct view *v)
{
	struct model *m = sample();

	view__init(v, &(struct view_opts){ .sort = FIELD_COW_RATE, .tree = true }, false);
	assert_int_equal(refresh(v, m), 0);
	return m;
}

static void test_tree_sorted_by_rate(void **state)
{
	struct view v;
	struct model *m = open_view(&v);

	(void)state;
	assert_string_equal(shown(&v), "100 101 102 104 103");
	view__tree_toggle(&v);
	assert_string_equal(shown(&v), "101 102 104 100 103");
	view__sort(&v, FIELD_PID);
	assert_string_equal(shown(&v), "100 101 102 103 104");
	view__reverse(&v);
	assert_string_equal(shown(&v), "104 103 102 101 100");
	view__sort_cycle(&v, 1); /* PID -> CoW/s, natural order again */
	assert_int_equal(v.vo.sort, FIELD_COW_RATE);
	assert_false(v.vo.reverse);
	view__sort_cycle(&v, -2); /* CoW/s -> PID -> COMMAND (wraps) */
	assert_int_equal(v.vo.sort, FIELD_COMM);
	view__free(&v);
	model__free(m);
}

/* A frame whose rows were laid out with the view's options (a recording
 * asked for them) gives the view its rows without a sort of its own, the
 * same rows a view laying out by itself gets; other options sort again. */
static void test_frame_rows_taken(void **state)
{
	struct view_opts vo = { .sort = FIELD_COW_RATE, .tree = true };
	struct view_opts bare = { .sort = FIELD_COW_RATE, .tree = true, .no_rows = true };
	struct model *m = sample();
	struct frame *laid = frame__build(m, NULL, &vo, NULL), *none = frame__build(m, NULL, &bare, NULL);
	struct view v, w;

	(void)state;
	assert_non_null(laid);
	assert_non_null(none);
	view__init(&v, &vo, false);
	view__init(&w, &vo, false);
	assert_int_equal(view__set_frame(&v, laid), 0);
	assert_int_equal(view__set_frame(&w, none), 0);
	assert_int_equal(v.sorts, 0);
	assert_int_equal(w.sorts, 1);
	assert_string_equal(shown(&v), "100 101 102 104 103");
	assert_string_equal(shown(&w), "100 101 102 104 103");
	assert_ptr_equal(v.rows[1].p, &laid->procs[1]);
	assert_int_equal(v.rows[3].depth, 2);
	view__reverse(&v);
	assert_int_equal(v.sorts, 1);
	assert_string_equal(shown(&v), "100 103 102 104 101");
	view__reverse(&v); /* back to the frame's options */
	assert_int_equal(v.sorts, 1);
	view__focus_in(&v); /* a focus the frame did not lay out */
	assert_int_equal(v.sorts, 2);
	view__free(&v);
	view__free(&w);
	frame__free(laid);
	frame__free(none);
	model__free(m);
}

static void test_selection_clamped(void **state)
{
	struct view v;
	struct model *m = open_view(&v);

	(void)state;
	view__move(&v, -5);
	assert_int_equal(v.sel, 0);
	view__move(&v, 100);
	assert_int_equal(v.sel, 4);
	view__scroll(&v, 2);
	assert_int_equal(v.top, 3);
	view__move(&v, -4);
	view__scroll(&v, 2);
	assert_int_equal(v.top, 0);
	view__set_filter(&v, "idle");
	view__settle(&v);
	assert_string_equal(shown(&v), "100 103");
	view__move(&v, 10);
	assert_int_equal(v.sel, 1);
	view__set_filter(&v, "zzz");
	view__settle(&v);
	assert_int_equal(v.n, 0);
	assert_null(view__selected(&v));
	view__move(&v, 1); /* on an empty view: nothing breaks */
	assert_int_equal(view__focus_in(&v), 0);
	assert_false(view__follow_toggle(&v));
	view__free(&v);
	model__free(m);
}

/* F3: the selection jumps to the next row whose name has the text (any
 * case), from the selection on, round past the end; all rows stay; no
 * match leaves the selection. */
static void test_search_jumps(void **state)
{
	struct view v;
	struct model *m = open_view(&v); /* 100 master, 101 busy, 102 mid, 104 grandkid, 103 idle */

	(void)state;
	assert_true(view__search(&v, "I", false)); /* "mId" from the selection (master has none) */
	assert_int_equal(view__selected(&v)->pid, 102);
	assert_true(view__search(&v, "i", false)); /* the selection itself matches: it stays */
	assert_int_equal(view__selected(&v)->pid, 102);
	assert_true(view__search(&v, "i", true)); /* next: grandkid */
	assert_int_equal(view__selected(&v)->pid, 104);
	assert_true(view__search(&v, "i", true)); /* idle */
	assert_int_equal(view__selected(&v)->pid, 103);
	assert_true(view__search(&v, "i", true)); /* round: mid again */
	assert_int_equal(view__selected(&v)->pid, 102);
	assert_false(view__search(&v, "zzz", true));
	assert_int_equal(view__selected(&v)->pid, 102);
	assert_false(view__search(&v, "", true));
	assert_int_equal(v.n, 5); /* a search filters nothing */
	view__free(&v);
	model__free(m);
}

/* A filter typed or pasted key by key is laid out once, when settled. */
static void test_filter_settles_once(void **state)
{
	static const char typed[] = "idle";
	struct view v;
	struct model *m = open_view(&v);
	unsigned long before = v.layouts;
	char buf[sizeof(typed)];
	size_t i, k;

	(void)state;
	for (k = 0; k < 100; k++)
		for (i = 1; i <= strlen(typed); i++) {
			snprintf(buf, i + 1, "%s", typed);
			view__set_filter(&v, buf);
		}
	assert_int_equal(v.layouts, before);
	view__settle(&v);
	assert_int_equal(v.layouts, before + 1);
	assert_string_equal(shown(&v), "100 103");
	view__settle(&v); /* nothing changed: no layout */
	assert_int_equal(v.layouts, before + 1);
	view__free(&v);
	model__free(m);
}

static void test_focus_and_back(void **state)
{
	struct view v;
	struct model *m = open_view(&v);

	(void)state;
	view__move(&v, 2); /* 102 */
	assert_int_equal(view__focus_in(&v), 102);
	assert_string_equal(shown(&v), "102 104");
	assert_int_equal(v.sel, 0);
	assert_non_null(strstr(v.note, "focus on PID 102"));
	view__move(&v, 1);
	assert_int_equal(view__focus_in(&v), 104); /* nested */
	assert_string_equal(shown(&v), "104");
	assert_int_equal(view__focus_out(&v), 104);
	assert_string_equal(shown(&v), "102 104");
	assert_int_equal(view__selected(&v)->pid, 104); /* back where we were */
	assert_int_equal(view__focus_out(&v), 102);
	assert_string_equal(shown(&v), "100 101 102 104 103");
	assert_int_equal(view__selected(&v)->pid, 102);
	assert_int_equal(view__focus_out(&v), 0);
	view__free(&v);
	model__free(m);
}

static void test_focus_left_when_gone(void **state)
{
	struct view v;
	struct model *m = open_view(&v);

	(void)state;
	view__move(&v, 1);
	assert_int_equal(view__focus_in(&v), 101);
	model__mark_exited(model__find(m, 101, 0), 1.0);
	refresh(&v, m);
	assert_string_equal(shown(&v), "101"); /* exited, still shown */
	model__remove_exited(m, 2.0);
	refresh(&v, m);
	assert_int_equal(v.vo.focus_pid, 0);
	assert_string_equal(shown(&v), "100 102 104 103");
	assert_non_null(strstr(v.note, "PID 101 has gone"));
	view__free(&v);
	model__free(m);
}

static void test_follow_keeps_selection(void **state)
{
	struct view v;
	struct model *m = open_view(&v);

	(void)state;
	view__move(&v, 1); /* 101, the busiest */
	assert_true(view__follow_toggle(&v));
	model__find(m, 101, 0)->cow_rate = 0; /* it calms down: moves to the bottom */
	refresh(&v, m);
	assert_string_equal(shown(&v), "100 102 104 101 103");
	assert_int_equal(view__selected(&v)->pid, 101);
	view__sort(&v, FIELD_COMM); /* and again */
	assert_int_equal(view__selected(&v)->pid, 101);
	view__move(&v, -1); /* moving by hand stops following */
	assert_false(v.follow);
	view__free(&v);
	model__free(m);
}

/* Without follow too, the selection stays on its process when the rows
 * re-sort under it: a pane (regions, sites) and Enter act on the process
 * the selection was put on, not on whatever row took its place. */
static void test_selection_stays_on_its_process(void **state)
{
	struct view v;
	struct model *m = open_view(&v);

	(void)state;
	view__move(&v, 1); /* 101 */
	model__find(m, 101, 0)->cow_rate = 0; /* it calms down: moves to the bottom */
	refresh(&v, m);
	assert_false(v.follow);
	assert_string_equal(shown(&v), "100 102 104 101 103");
	assert_int_equal(view__selected(&v)->pid, 101);
	assert_int_equal(v.sel, 3);
	view__sort(&v, FIELD_COMM); /* and again */
	assert_int_equal(view__selected(&v)->pid, 101);
	view__sort(&v, FIELD_COW_RATE);
	model__find(m, 101, 0)->cow_rate = 900; /* busy again: first among its siblings */
	refresh(&v, m);
	assert_string_equal(shown(&v), "100 101 102 104 103");
	assert_int_equal(view__selected(&v)->pid, 101);
	view__tree_toggle(&v);
	view__sort(&v, FIELD_COW_RATE);
	assert_int_equal(view__selected(&v)->pid, 101);
	assert_int_equal(view__focus_in(&v), 101); /* Enter: the process selected */
	view__free(&v);
	model__free(m);
}

/* A pid reused is another process: the selection and the focus are on a
 * pid and a start time. The new process with the old pid gets neither;
 * once the old one has gone, the focus is left and the selection stays on
 * its row number. */
static void test_pid_reused_is_another_process(void **state)
{
	struct view v;
	struct model *m = open_view(&v);
	struct proc *p;

	(void)state;
	view__move(&v, 3); /* 104, under 102 */
	assert_int_equal(view__selected(&v)->pid, 104);
	assert_int_equal(view__focus_in(&v), 104);
	model__mark_exited(model__find(m, 104, 1004), 1.0);
	p = model__add(m, 104, 5000); /* the pid again, a new process, busier */
	p->ppid = 102;
	p->state = 'R';
	snprintf(p->comm, sizeof(p->comm), "reused");
	p->cow_rate = 1000;
	refresh(&v, m);
	assert_string_equal(shown(&v), "104"); /* the exited one, still shown alone */
	assert_int_equal(view__selected(&v)->start_time, 1004);
	view__focus_out(&v);
	assert_int_equal(view__selected(&v)->pid, 104);
	assert_int_equal(view__selected(&v)->start_time, 1004);
	assert_int_equal(view__focus_in(&v), 104);
	model__remove_exited(m, 2.0);
	refresh(&v, m);
	assert_int_equal(v.vo.focus_pid, 0); /* its process has gone */
	assert_non_null(strstr(v.note, "PID 104 has gone"));
	view__free(&v);
	model__free(m);
}

static void test_follow_stops_when_gone(void **state)
{
	struct view v;
	struct model *m = open_view(&v);

	(void)state;
	view__move(&v, 4); /* 103 */
	assert_true(view__follow_toggle(&v));
	model__mark_exited(model__find(m, 103, 0), 1.0);
	model__remove_exited(m, 2.0);
	refresh(&v, m);
	assert_false(v.follow);
	assert_non_null(strstr(v.note, "follow stopped"));
	assert_int_equal(v.sel, 3); /* clamped to the shorter view */
	view__free(&v);
	model__free(m);
}

static void test_rows_outlive_the_model(void **state)
{
	struct view v;
	struct model *m = open_view(&v);
	size_t i;

	(void)state;
	/* paused: the view is not rebuilt while the model forgets processes */
	for (i = 0; i < 5; i++)
		model__mark_exited(model__at(m, i), 1.0);
	model__remove_exited(m, 2.0);
	model__free(m);
	assert_string_equal(shown(&v), "100 101 102 104 103");
	assert_string_equal(v.rows[1].p->comm, "busy");
	view__free(&v);
}

/* The view lays its rows out over the frame it holds, without copies, and
 * lets go of it for the next. */
static void test_rows_point_into_the_frame(void **state)
{
	struct view v;
	struct model *m = open_view(&v);
	struct frame *f = v.f, *g;
	size_t i;

	(void)state;
	assert_int_equal(f->refs, 1);
	for (i = 0; i < v.n; i++)
		assert_true(v.rows[i].p >= f->procs && v.rows[i].p < f->procs + f->nprocs);
	g = frame__build(m, NULL, NULL, NULL);
	frame__hold(f);
	view__set_frame(&v, g);
	assert_int_equal(f->refs, 1); /* the view let go of it */
	assert_int_equal(g->refs, 2);
	assert_ptr_equal(v.f, g);
	frame__free(f);
	frame__free(g);
	view__free(&v);
	assert_null(v.f);
	model__free(m);
}

/* sample() with readings: the master at 90, busy at 95, mid at 99 (1 MiB
 * USS each), 104 exited; shown as a frame of time 100, sorted by pid. */
static struct model *open_read(struct view *v)
{
	static const struct frame_status st = { .time = 100.0 };
	struct smaps s = { .pss = 2048, .private_dirty = 1024 };
	struct model *m = sample();
	struct frame *f;

	model__set_smaps(model__find(m, 100, 0), &s, 90.0);
	model__set_smaps(model__find(m, 101, 0), &s, 95.0);
	model__set_smaps(model__find(m, 102, 0), &s, 99.0);
	model__mark_exited(model__find(m, 104, 0), 1.0);
	model__set_mem_available(m, 10240);
	view__init(v, &(struct view_opts){ .sort = FIELD_PID, .tree = true }, false);
	f = frame__build(m, &st, NULL, NULL);
	assert_non_null(f);
	assert_int_equal(view__set_frame(v, f), 0);
	frame__free(f);
	return m;
}

/* What to read first: the selection, then the live rows shown. */
static void test_visible_pids(void **state)
{
	struct view v;
	struct model *m = open_read(&v);
	int pids[8];

	(void)state;
	assert_string_equal(shown(&v), "100 101 102 104 103");
	view__move(&v, 3); /* 104, exited: not worth reading */
	view__scroll(&v, 2);
	assert_int_equal(view__visible(&v, 2, pids, 8), 1);
	assert_int_equal(pids[0], 102);
	view__move(&v, 1); /* 103 */
	view__scroll(&v, 3);
	assert_int_equal(v.top, 2);
	assert_int_equal(view__visible(&v, 3, pids, 8), 2);
	assert_int_equal(pids[0], 103);
	assert_int_equal(pids[1], 102);
	assert_int_equal(view__visible(&v, 3, pids, 1), 1);
	view__free(&v);
	model__free(m);
}

/* The oldest reading among live rows, -1 when none has one. */
static void test_oldest_reading(void **state)
{
	struct view v;
	struct model *m = open_read(&v);

	(void)state;
	assert_true(view__oldest_reading(&v, 0, 5) == 10.0);
	assert_true(view__oldest_reading(&v, 1, 2) == 5.0);
	assert_true(view__oldest_reading(&v, 3, 2) == -1); /* 104 exited, 103 unread */
	assert_true(view__oldest_reading(&v, 4, 100) == -1);
	view__free(&v);
	model__free(m);
}

/* The metric key switches the history between CoW/s and shared%. */
static void test_metric_cycle(void **state)
{
	struct view v;
	struct model *m = open_view(&v);

	(void)state;
	assert_int_equal(v.metric, METRIC_COW_RATE);
	view__metric_cycle(&v);
	assert_int_equal(v.metric, METRIC_SHARED);
	assert_non_null(strstr(v.note, "SHR%"));
	view__metric_cycle(&v);
	assert_int_equal(v.metric, METRIC_COW_RATE);
	view__free(&v);
	model__free(m);
}

/* The group line: the selection's watched root, or the focused subtree. */
static void test_group_line(void **state)
{
	struct line *l = malloc(sizeof(*l));
	struct frame *f;
	struct view v;
	struct model *m = open_read(&v);

	(void)state;
	assert_true(screen_has_group(&v));
	view__move(&v, 2); /* mid: its root is the master */
	screen_group_line(&v, false, l);
	/* 103 unread: a mean of two of three workers is not settled */
	assert_string_equal(l->text, "group 100 master: 3 workers  footprint 6.0M  USS mean 1.0M max 1.0M"
				     "  headroom settling  oldest reading 10.0s  1 unread");
	view__focus_in(&v); /* mid and its exited child */
	screen_group_line(&v, false, l);
	assert_string_equal(l->text, "group 102 mid: no workers");
	view__focus_out(&v);
	view__move(&v, -2);
	view__focus_in(&v);
	screen_group_line(&v, false, l);
	assert_non_null(strstr(l->text, "group 100 master: 3 workers"));
	view__free(&v);
	/* every worker read, none older than 10 s, none copied since: shown */
	model__set_smaps(model__find(m, 103, 0), &(struct smaps){ .pss = 2048, .private_dirty = 1024 }, 99.0);
	view__init(&v, &(struct view_opts){ .sort = FIELD_PID, .tree = true }, false);
	f = frame__build(m, &(struct frame_status){ .time = 100.0 }, NULL, NULL);
	assert_non_null(f);
	assert_int_equal(view__set_frame(&v, f), 0);
	frame__free(f);
	view__move(&v, 2);
	screen_group_line(&v, false, l);
	assert_non_null(strstr(l->text, "  headroom +10 workers  oldest reading 10.0s"));
	view__free(&v);
	model__free(m);
	free(l);
}

/* The group line ends with the root's respawns, once it has any, and its
 * cgroup's memory pressure when known. */
static void test_group_line_respawns(void **state)
{
	static const struct frame_status st = { .time = 100.0 };
	struct memcg cg = { .psi_known = true, .psi = { 4.5, 1.0 } };
	struct line *l = malloc(sizeof(*l));
	struct model *m = sample();
	struct proc *master = model__find(m, 100, 0);
	struct frame *f;
	struct view v;

	(void)state;
	master->forked = 40;
	master->reaped = 37;
	model__set_memcg(master, &cg);
	view__init(&v, &(struct view_opts){ .sort = FIELD_PID, .tree = true }, false);
	f = frame__build(m, &st, NULL, NULL);
	assert_non_null(f);
	assert_int_equal(view__set_frame(&v, f), 0);
	frame__free(f);
	screen_group_line(&v, false, l);
	assert_non_null(strstr(l->text, "  respawns 40 forked 37 exited  cgroup pressure some 4.5%"));
	view__free(&v);
	model__free(m);
	free(l);
}

/* The phase line names the selected process the same way with or without
 * copies: "pid N COMMAND: ...". */
static void test_phase_line_names(void **state)
{
	struct line *l = malloc(sizeof(*l));
	struct model *m = sample();
	struct view v;
	struct proc *busy = model__find(m, 101, 0);

	(void)state;
	assert_int_equal(model__add_phase(m, "app:work"), 1);
	busy->counts.cow = 10;
	busy->split[SPLIT_PHASE].v[1] = 10;
	view__init(&v, &(struct view_opts){ .sort = FIELD_PID, .tree = false }, false);
	assert_int_equal(refresh(&v, m), 0);
	screen_phase_line(&v, false, l); /* 100, the master: no copies */
	assert_string_equal(l->text, "phases pid 100 master: no copies yet");
	view__move(&v, 1);
	screen_phase_line(&v, false, l);
	assert_string_equal(l->text, "phases pid 101 busy: app:work 100%");
	view__free(&v);
	model__free(m);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_sorted_by_rate),
		cmocka_unit_test(test_frame_rows_taken),
		cmocka_unit_test(test_selection_clamped),
		cmocka_unit_test(test_search_jumps),
		cmocka_unit_test(test_filter_settles_once),
		cmocka_unit_test(test_focus_and_back),
		cmocka_unit_test(test_focus_left_when_gone),
		cmocka_unit_test(test_follow_keeps_selection),
		cmocka_unit_test(test_selection_stays_on_its_process),
		cmocka_unit_test(test_pid_reused_is_another_process),
		cmocka_unit_test(test_follow_stops_when_gone),
		cmocka_unit_test(test_rows_outlive_the_model),
		cmocka_unit_test(test_rows_point_into_the_frame),
		cmocka_unit_test(test_visible_pids),
		cmocka_unit_test(test_oldest_reading),
		cmocka_unit_test(test_metric_cycle),
		cmocka_unit_test(test_group_line),
		cmocka_unit_test(test_group_line_respawns),
		cmocka_unit_test(test_phase_line_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
