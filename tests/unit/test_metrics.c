/* Unit tests: the exporter's metrics (series placement, folding of exited
 * processes, bounds, both text formats). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "metrics.h"
#include "procs.h"
#include "runtime.h"

/* Feed the frame of m now, with the copies by object o and the stack
 * table s (NULL: --objects, --stacks off), to mt. */
static void feed_parts(struct metrics *mt, struct model *m, const struct objects *o, struct stacks *s)
{
	struct frame_status st = { .time = 1700000000.0, .interval = 1, .mechanism = "test", .objects = o,
				   .stacks = s };
	struct frame *f = frame__build(m, &st, NULL, NULL);

	assert_non_null(f);
	assert_int_equal(metrics__update(mt, f), 0);
	frame__free(f); /* mt holds it */
}

/* Feed the frame of m now, with the copies by object o (NULL: --objects
 * off), to mt. */
static void feed_objects(struct metrics *mt, struct model *m, const struct objects *o)
{
	feed_parts(mt, m, o, NULL);
}

/* Feed the frame of m now to mt (--objects off). */
static void feed(struct metrics *mt, struct model *m)
{
	feed_objects(mt, m, NULL);
}

/* What most tests start from: metrics with the default options (or by pid)
 * and an empty model. */
struct fx {
	struct metrics *mt;
	struct model *m;
};

/* Make the fixture with metrics made from opts. */
static int fx_make(void **state, const struct metrics_opts *opts)
{
	struct fx *x = calloc(1, sizeof(*x));

	if (!x)
		return -1;
	x->mt = metrics__new(opts);
	x->m = model__new();
	*state = x;
	return x->mt && x->m ? 0 : -1;
}

/* cmocka set-up: metrics with the default options. */
static int fx_setup(void **state)
{
	return fx_make(state, &(struct metrics_opts){ .version = "1" });
}

/* cmocka set-up: metrics with a series per process (--metrics-by pid). */
static int fx_setup_by_pid(void **state)
{
	return fx_make(state, &(struct metrics_opts){ .by_pid = true, .version = "1" });
}

/* cmocka tear-down: free what fx_make made. */
static int fx_teardown(void **state)
{
	struct fx *x = *state;

	if (x) {
		model__free(x->m);
		metrics__free(x->mt);
		free(x);
	}
	return 0;
}

/* The text of mt's last frame, malloc'd. */
static char *text(const struct metrics *mt, enum metrics_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(metrics__render(mt, fmt, f), 0);
	fclose(f);
	return buf;
}

/* The value of the sample whose name and labels are exactly series; -1 if
 * it is not there. */
static long long sample(const char *s, const char *series)
{
	size_t n = strlen(series);
	const char *p;

	for (p = s; (p = strstr(p, series)); p += n)
		if ((p == s || p[-1] == '\n') && p[n] == ' ')
			return atoll(p + n + 1);
	return -1;
}

/* The group and role series in a scrape: each has one cowtop_processes
 * sample. */
static size_t nseries(const char *s)
{
	size_t n = 0;
	const char *p;

	for (p = s; (p = strstr(p, "\ncowtop_processes{")); p++)
		n++;
	return n;
}

/* Set p's counts. */
static void counts(struct proc *p, unsigned long long cow, unsigned long long zero, unsigned long long reuse)
{
	struct cow_counts c = { .cow = cow, .zero_fill = zero, .reuse = reuse };

	model__set_counts(p, &c);
}

#define COW(g, r) "cowtop_cow_pages_total{group=\"" g "\",role=\"" r "\"}"

/* The counts of workers that exit and leave the model stay in their
 * group's counters: they never go down. */
static void test_exited_are_folded(void **state)
{
	struct fx *x = *state;
	struct proc *c1, *c2;
	char *s;
	int i;

	add(x->m, 100, 1, 10, "master", 5);
	c1 = add(x->m, 101, 100, 11, "worker", 1000);
	c2 = add(x->m, 102, 100, 12, "worker", 2000);
	add(x->m, 103, 102, 13, "helper", 7);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, COW("master", "parent")), 5);
	assert_int_equal(sample(s, COW("master", "child")), 3000);
	assert_int_equal(sample(s, COW("master", "grandchild")), 7);
	assert_int_equal(sample(s, "cowtop_processes{group=\"master\",role=\"child\"}"), 2);
	free(s);
	/* c1 copies more, exits and is forgotten; a new worker takes its place */
	counts(c1, 1500, 0, 0);
	model__mark_exited(c1, 1.0);
	feed(x->mt, x->m);
	model__remove_exited(x->m, 2.0);
	add(x->m, 104, 100, 14, "worker", 10);
	counts(c2, 2100, 0, 0);
	for (i = 0; i < 2; i++)
		feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, COW("master", "child")), 1500 + 2100 + 10);
	assert_int_equal(sample(s, "cowtop_processes{group=\"master\",role=\"child\"}"), 2);
	assert_int_equal(nseries(s), 3);
	free(s);
}

/* A process keeps the group and role it was first seen in, even when its
 * parent goes and it becomes a root of its own: else its counts would move
 * to another series and the first one would go down. */
static void test_placement_is_sticky(void **state)
{
	struct fx *x = *state;
	struct proc *root;
	char *s;

	root = add(x->m, 200, 1, 20, "unicorn", 3);
	add(x->m, 201, 200, 21, "unicorn", 400);
	feed(x->mt, x->m);
	model__mark_exited(root, 1.0);
	feed(x->mt, x->m);
	model__remove_exited(x->m, 2.0);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, COW("unicorn", "child")), 400);
	assert_int_equal(sample(s, COW("unicorn", "parent")), 3);
	assert_int_equal(sample(s, "cowtop_processes{group=\"unicorn\",role=\"parent\"}"), 0);
	assert_int_equal(nseries(s), 2);
	free(s);
}

/* However many roots come and go, the series stay within the bound; the
 * groups past it share the "(other)" group. */
static void test_series_bounded(void **state)
{
	struct fx *x = *state;
	char name[32];
	char *s;
	int i;

	for (i = 0; i < 3 * METRICS_GROUPS_MAX; i++) {
		snprintf(name, sizeof(name), "svc%d", i);
		add(x->m, 1000 + 2 * i, 1, (unsigned long long)i + 1, name, 1);
		add(x->m, 1001 + 2 * i, 1000 + 2 * i, (unsigned long long)i + 1, name, 2);
		feed(x->mt, x->m);
	}
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_true(nseries(s) <= (METRICS_GROUPS_MAX + 1) * METRICS_ROLES);
	assert_true(nseries(s) >= METRICS_GROUPS_MAX);
	assert_int_equal(sample(s, COW("(other)", "child")), 2 * (2 * METRICS_GROUPS_MAX));
	assert_int_equal(sample(s, COW("svc0", "child")), 2);
	free(s);
}

/* Hostile names are made printable and escaped; --label group=NAME names
 * every group. */
static void test_names_escaped_and_label(void **state)
{
	struct metrics *mt = metrics__new(&(struct metrics_opts){ .version = "1\"x" });
	struct metrics *named = metrics__new(&(struct metrics_opts){ .group = "web", .version = "1" });
	struct model *m = model__new();
	char *s;

	(void)state;
	add(m, 300, 1, 30, "a\"b\\c\n\xff", 9);
	add(m, 301, 300, 31, "w", 1);
	feed(mt, m);
	feed(named, m);
	s = text(mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, COW("a\\\"b\\\\c??", "parent")), 9);
	assert_non_null(strstr(s, "cowtop_build_info{version=\"1\\\"x\",mechanism=\"test\",fallbacks=\"\"} 1\n"));
	assert_null(strchr(s, '\xff'));
	free(s);
	s = text(named, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, COW("web", "parent")), 9);
	assert_int_equal(sample(s, COW("web", "child")), 1);
	free(s);
	model__free(m);
	metrics__free(mt);
	metrics__free(named);
}

/* The two formats: counters' metadata, units, the closing # EOF. */
static void test_formats(void **state)
{
	struct fx *x = *state;
	char *s;

	assert_int_equal(metrics_format_of(NULL), METRICS_PROMETHEUS);
	assert_int_equal(metrics_format_of("text/plain;version=0.0.4"), METRICS_PROMETHEUS);
	assert_int_equal(metrics_format_of("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"),
			 METRICS_OPENMETRICS);
	s = NULL;
	assert_int_equal(metrics__render(x->mt, METRICS_PROMETHEUS, stdout), -ENODATA);
	add(x->m, 400, 1, 40, "m", 1);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_non_null(strstr(s, "# TYPE cowtop_cow_pages_total counter\n"));
	assert_non_null(strstr(s, "# TYPE cowtop_build_info gauge\n"));
	assert_null(strstr(s, "# UNIT"));
	assert_null(strstr(s, "# EOF"));
	assert_null(strstr(s, "cowtop_bpf_run_seconds")); /* not counted: said by its absence */
	free(s);
	s = text(x->mt, METRICS_OPENMETRICS);
	assert_non_null(strstr(s, "# TYPE cowtop_cow_pages counter\n# UNIT cowtop_cow_pages pages\n"));
	assert_non_null(strstr(s, "# TYPE cowtop_build info\n"));
	assert_non_null(strstr(s, "\ncowtop_cow_pages_total{group=\"m\",role=\"parent\"} 1\n"));
	assert_string_equal(s + strlen(s) - 6, "# EOF\n");
	free(s);
}

/* --metrics-by pid: a series per live process, none for the exited. */
static void test_by_pid(void **state)
{
	struct fx *x = *state;
	struct metrics *plain = metrics__new(&(struct metrics_opts){ .version = "1" });
	struct proc *gone;
	char *s;

	add(x->m, 500, 1, 50, "m", 1);
	add(x->m, 501, 500, 51, "w", 20);
	gone = add(x->m, 502, 500, 52, "w", 30);
	model__mark_exited(gone, 1.0);
	model__set_smaps(model__find(x->m, 501, 0), &(struct smaps){ .pss = 8, .pte = 12 }, 1.0);
	feed(x->mt, x->m);
	feed(plain, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, "cowtop_process_cow_pages_total{group=\"m\",role=\"child\",pid=\"501\",comm=\"w\"}"), 20);
	/* the page tables, from the field table: bytes, only once read */
	assert_int_equal(sample(s, "cowtop_process_pte_bytes{group=\"m\",role=\"child\",pid=\"501\",comm=\"w\"}"),
			 12 * 1024);
	assert_null(strstr(s, "cowtop_process_pte_bytes{group=\"m\",role=\"parent\""));
	assert_int_equal(sample(s, "cowtop_pte_bytes{group=\"m\",role=\"child\"}"), 12 * 1024);
	assert_null(strstr(s, "cowtop_pte_bytes{group=\"m\",role=\"parent\"}")); /* none read */
	assert_non_null(strstr(s, "# TYPE cowtop_pte_bytes gauge\n"));
	assert_null(strstr(s, "pid=\"502\""));
	assert_int_equal(sample(s, COW("m", "child")), 50);
	free(s);
	s = text(plain, METRICS_PROMETHEUS);
	assert_null(strstr(s, "cowtop_process_"));
	free(s);
	metrics__free(plain);
}

#define SER(f, g, r) f "{group=\"" g "\",role=\"" r "\"}"

/* Sharing since fork: the two terms of SHR% summed over the members that
 * have both (a reading, a fork seen), per group and role and per process;
 * the age of the oldest reading. */
static void test_sharing_since_fork(void **state)
{
	struct fx *x = *state;
	struct proc *w1, *w2, *found;
	char *s;

	add(x->m, 600, 1, 60, "m", 0);
	w1 = add(x->m, 601, 600, 61, "w", 0);
	w2 = add(x->m, 602, 600, 62, "w", 0);
	found = add(x->m, 603, 600, 63, "w", 0);
	model__set_inherited(w1, 1000);
	model__set_inherited(w2, 1000);
	/* 500 of 1000 still shared; w2's anonymous memory grew past what it
	 * inherited: all of it counts as shared, no more */
	model__set_smaps(w1, &(struct smaps){ .anon = 800, .private_dirty = 300 }, 1699999990.0);
	model__set_smaps(w2, &(struct smaps){ .anon = 2000 }, 1699999995.0);
	/* found running: no inheritance known, so in neither term */
	model__set_smaps(found, &(struct smaps){ .anon = 5000 }, 1699999999.0);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, SER("cowtop_inherited_bytes", "m", "child")), 2000 * 1024);
	assert_int_equal(sample(s, SER("cowtop_inherited_shared_bytes", "m", "child")), 1500 * 1024);
	assert_int_equal(sample(s, SER("cowtop_memory_reading_age_seconds", "m", "child")), 10);
	assert_null(strstr(s, SER("cowtop_inherited_bytes", "m", "parent")));
	assert_null(strstr(s, SER("cowtop_memory_reading_age_seconds", "m", "parent")));
	assert_int_equal(sample(s, "cowtop_process_inherited_shared_bytes{group=\"m\",role=\"child\",pid=\"601\",comm=\"w\"}"),
			 500 * 1024);
	assert_null(strstr(s, "cowtop_process_inherited_bytes{group=\"m\",role=\"child\",pid=\"603\""));
	/* no pagemap reading yet: no family figure (not 0) */
	assert_null(strstr(s, "cowtop_family_anon_bytes{"));
	free(s);
	/* FAM%'s terms: the members with a pagemap reading (found running
	 * too: no fork needed); one whose reading failed is in neither */
	model__set_family(w1, &(struct family_mem){ .anon_kib = 800, .shared_kib = 600 }, 1699999990.0);
	model__set_family(found, &(struct family_mem){ .anon_kib = 5000, .shared_kib = 4000 }, 1699999999.0);
	model__family_unknown(w2, FAMILY_NO_PFN);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, SER("cowtop_family_anon_bytes", "m", "child")), 5800 * 1024);
	assert_int_equal(sample(s, SER("cowtop_family_shared_bytes", "m", "child")), 4600 * 1024);
	assert_null(strstr(s, SER("cowtop_family_anon_bytes", "m", "parent")));
	free(s);
}

#define EXITS(r, c) "cowtop_exits_total{group=\"m\",role=\"" r "\",cause=\"" c "\"}"
#define REGION(c) "cowtop_cow_region_pages_total{group=\"m\",role=\"child\",region=\"" c "\"}"

/* Exits by cause, forks, reclaim stalls and copies by region are counters:
 * a member's counts stay in its series after it leaves the frames, and
 * every label value is served (0 rather than absent). */
static void test_exits_forks_regions(void **state)
{
	struct fx *x = *state;
	struct proc *root, *ok, *killed, *failed, *live;
	char *s;

	root = add(x->m, 700, 1, 70, "m", 0);
	ok = add(x->m, 701, 700, 71, "w", 30);
	killed = add(x->m, 702, 700, 72, "w", 0);
	failed = add(x->m, 703, 700, 73, "w", 0);
	live = add(x->m, 704, 700, 74, "w", 0);
	root->forked = 4;
	model__set_reclaim(live, 2, 0.5);
	model__set_split(ok, SPLIT_REGION, SPLIT_REGION_HEAP, 10);
	model__set_split(ok, SPLIT_REGION, SPLIT_REGION_FILES, 7);
	model__set_split(ok, SPLIT_REGION, SPLIT_REGION_FILES + 1, 3);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, EXITS("child", "oom")), 0);
	assert_int_equal(sample(s, EXITS("child", "exit_zero")), 0);
	free(s);
	model__set_exit(ok, 0, false);
	model__mark_exited(ok, 1.0);
	model__set_exit(killed, 9, true);
	model__mark_exited(killed, 1.0);
	model__set_exit(failed, 3 << 8, false);
	model__mark_exited(failed, 1.0);
	feed(x->mt, x->m);
	model__remove_exited(x->m, 2.0);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, EXITS("child", "exit_zero")), 1);
	assert_int_equal(sample(s, EXITS("child", "oom")), 1);
	assert_int_equal(sample(s, EXITS("child", "signal")), 0);
	assert_int_equal(sample(s, EXITS("child", "exit_nonzero")), 1);
	assert_int_equal(sample(s, EXITS("parent", "unknown")), 0);
	assert_int_equal(sample(s, SER("cowtop_forks_total", "m", "parent")), 4);
	assert_int_equal(sample(s, SER("cowtop_reclaim_stalls_total", "m", "child")), 2);
	assert_non_null(strstr(s, SER("cowtop_reclaim_stall_seconds_total", "m", "child") " 0.500000\n"));
	assert_int_equal(sample(s, REGION("heap")), 10);
	assert_int_equal(sample(s, REGION("file")), 10);
	assert_int_equal(sample(s, REGION("other")), -1); /* not classified yet: not a counter */
	assert_int_equal(sample(s, REGION("stack")), 0);
	free(s);
}

/* The cause an exit is first counted under stays its cause: the kernel's
 * word coming a frame late moves no count down. And the copies the kernel
 * side has not classified by region yet are in no region: when they are,
 * the regions only grow. */
static void test_counters_never_decrease(void **state)
{
	struct fx *x = *state;
	struct proc *w;
	char *s;

	add(x->m, 900, 1, 90, "m", 0);
	w = add(x->m, 901, 900, 91, "w", 40);
	model__mark_exited(w, 1.0);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, EXITS("child", "unknown")), 1);
	assert_int_equal(sample(s, REGION("heap")), 0);
	free(s);
	model__set_exit(w, 9, false);
	model__set_split(w, SPLIT_REGION, SPLIT_REGION_HEAP, 30);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, EXITS("child", "unknown")), 1);
	assert_int_equal(sample(s, EXITS("child", "signal")), 0);
	assert_int_equal(sample(s, REGION("heap")), 30);
	free(s);
	model__remove_exited(x->m, 2.0);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, EXITS("child", "unknown")), 1);
	assert_int_equal(sample(s, EXITS("child", "signal")), 0);
	assert_int_equal(sample(s, REGION("heap")), 30);
	free(s);
}

/* Headroom: MemAvailable over the mean USS of the workers with a reading
 * (the parent's USS is not a worker's); absent until that mean is settled:
 * every live worker read (or 8), readings at most 10 s old, no worker read
 * that copied more than 1% of its USS since. */
static void test_headroom(void **state)
{
	struct fx *x = *state;
	struct proc *root, *w1, *w2;
	char *s;

	model__set_mem_available(x->m, 1000000);
	root = add(x->m, 800, 1, 80, "m", 0);
	w1 = add(x->m, 801, 800, 81, "w", 0);
	w2 = add(x->m, 802, 801, 82, "w", 0);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, "cowtop_memory_available_bytes"), 1000000LL * 1024);
	assert_null(strstr(s, "cowtop_headroom_workers{"));
	free(s);
	model__set_smaps(root, &(struct smaps){ .private_dirty = 90000 }, 1699999999.0);
	model__set_smaps(w1, &(struct smaps){ .private_dirty = 1000 }, 1699999999.0);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_null(strstr(s, "cowtop_headroom_workers{")); /* one worker of two read */
	free(s);
	model__set_smaps(w2, &(struct smaps){ .private_clean = 1000, .private_dirty = 2000 }, 1699999999.0);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, "cowtop_headroom_workers{group=\"m\"}"), 500);
	free(s);
	counts(w1, 3, 0, 0); /* 12 KiB copied since its reading: over 1% of 1000 KiB */
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_null(strstr(s, "cowtop_headroom_workers{"));
	free(s);
	model__set_smaps(w1, &(struct smaps){ .private_dirty = 1000 }, 1699999989.0); /* 11 s old */
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_null(strstr(s, "cowtop_headroom_workers{"));
	free(s);
}

#define OBJ(w) \
	"cowtop_cow_object_pages_total{group=\"master\",role=\"child\",runtime=\"ruby-3.1\",write=\"" w "\"}"

/* --objects: copies by runtime and kind of write per group and role, the
 * counts of workers gone kept; only the kinds with copies; no family
 * without --objects. */
static void test_objects(void **state)
{
	struct fx *x = *state;
	struct objects *o = objects__new();
	struct proc *c1;
	char *s;

	add(x->m, 100, 1, 10, "master", 5);
	c1 = add(x->m, 101, 100, 11, "worker", 400);
	add(x->m, 102, 100, 12, "worker", 200);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_null(strstr(s, "cowtop_cow_object_pages"));
	free(s);
	objects__set(o, &(struct objects_key){ .pid = 101, .start = 11, .runtime = OBJ_RT_RUBY31,
					      .type = 5, .write = OBJ_W_FLAGS },
		     300);
	objects__set(o, &(struct objects_key){ .pid = 101, .start = 11, .runtime = OBJ_RT_RUBY31,
					      .type = OBJ_RBT_NONE, .write = OBJ_W_OUTSIDE },
		     100);
	objects__set(o, &(struct objects_key){ .pid = 102, .start = 12, .runtime = OBJ_RT_RUBY31,
					      .type = 7, .write = OBJ_W_FLAGS },
		     200);
	feed_objects(x->mt, x->m, o);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, OBJ("flags")), 500);
	assert_int_equal(sample(s, OBJ("outside")), 100);
	assert_int_equal(sample(s, OBJ("slot")), -1);
	assert_non_null(strstr(s, "# TYPE cowtop_cow_object_pages_total counter\n"));
	free(s);
	/* the first worker exits and is forgotten: its copies stay counted */
	model__mark_exited(c1, 1.0);
	feed_objects(x->mt, x->m, o);
	model__remove_exited(x->m, 2.0);
	objects__set(o, &(struct objects_key){ .pid = 102, .start = 12, .runtime = OBJ_RT_RUBY31,
					      .type = 7, .write = OBJ_W_FLAGS },
		     250);
	feed_objects(x->mt, x->m, o);
	feed_objects(x->mt, x->m, o);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_int_equal(sample(s, OBJ("flags")), 300 + 250);
	assert_int_equal(sample(s, OBJ("outside")), 100);
	free(s);
	objects__free(o);
}

/* --stacks: the captures lost by reason, every reason served; the stack
 * ids in use and the map's limit once known; no family before stacks are
 * first turned on. */
static void test_stacks(void **state)
{
	struct fx *x = *state;
	struct stacks *st = stacks__new();
	struct stacks_capture c = { .failed = 9, .collided = 9, .ids = 0 };
	char *s;

	assert_non_null(st);
	add(x->m, 100, 1, 10, "master", 5);
	feed(x->mt, x->m);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_null(strstr(s, "cowtop_stack"));
	free(s);
	stacks__set_status(st, 1, 2.0, &c);
	feed_parts(x->mt, x->m, NULL, st);
	s = text(x->mt, METRICS_PROMETHEUS);
	assert_non_null(strstr(s, "# TYPE cowtop_stack_capture_failures_total counter\n"));
	assert_int_equal(sample(s, "cowtop_stack_capture_failures_total{reason=\"collision\"}"), 9);
	assert_int_equal(sample(s, "cowtop_stack_capture_failures_total{reason=\"walk\"}"), 0);
	assert_int_equal(sample(s, "cowtop_stack_capture_failures_total{reason=\"uncounted\"}"), 0);
	assert_null(strstr(s, "cowtop_stack_ids")); /* not known */
	free(s);
	c = (struct stacks_capture){ .failed = 16, .collided = 10, .unwalked = 4, .uncounted = 2,
				     .ids_used = 30, .ids = 8192 };
	stacks__set_status(st, 0, 2.0, &c); /* turned off: still served */
	feed_parts(x->mt, x->m, NULL, st);
	s = text(x->mt, METRICS_OPENMETRICS);
	assert_int_equal(sample(s, "cowtop_stack_capture_failures_total{reason=\"collision\"}"), 10);
	assert_int_equal(sample(s, "cowtop_stack_capture_failures_total{reason=\"walk\"}"), 4);
	assert_int_equal(sample(s, "cowtop_stack_capture_failures_total{reason=\"uncounted\"}"), 2);
	assert_int_equal(sample(s, "cowtop_stack_ids"), 30);
	assert_int_equal(sample(s, "cowtop_stack_ids_limit"), 8192);
	assert_non_null(strstr(s, "# TYPE cowtop_stack_ids gauge\n"));
	free(s);
	stacks__free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exited_are_folded, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_placement_is_sticky, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_series_bounded, fx_setup, fx_teardown),
		cmocka_unit_test(test_names_escaped_and_label),
		cmocka_unit_test_setup_teardown(test_formats, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_by_pid, fx_setup_by_pid, fx_teardown),
		cmocka_unit_test_setup_teardown(test_sharing_since_fork, fx_setup_by_pid, fx_teardown),
		cmocka_unit_test_setup_teardown(test_exits_forks_regions, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_headroom, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_counters_never_decrease, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_objects, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stacks, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
