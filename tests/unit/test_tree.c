/* Unit tests: the process tree as rows (parents, order, focus, flat), the
 * tree-line bits and prefixes. Processes are plain arrays: no model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tree.h"

/* Set procs[i] to (pid, ppid, start) named comm with rate copies a second. */
static void put(struct proc *procs, size_t i, int pid, int ppid, unsigned long long start, double rate)
{
	memset(&procs[i], 0, sizeof(procs[i]));
	procs[i].pid = pid;
	procs[i].ppid = ppid;
	procs[i].start_time = start;
	procs[i].cow_rate = rate;
	snprintf(procs[i].comm, sizeof(procs[i].comm), "p%d", pid);
}

/* A process of a test: pid, parent, copy rate. */
struct spec {
	int pid, ppid;
	double rate;
};

/* Put n processes from spec, the i-th started at tick i + 1. */
static void put_all(struct proc *procs, const struct spec *spec, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put(procs, i, spec[i].pid, spec[i].ppid, i + 1, spec[i].rate);
}

/* Rows of procs as "pid:depth ..." */
static const char *shape(const struct proc *procs, size_t n, const struct view_opts *o)
{
	static char buf[1024];
	struct row rows[16];
	size_t len = 0;
	long k, i;

	assert_true(n <= 16);
	k = tree_layout(procs, n, o, rows);
	assert_true(k >= 0);
	buf[0] = '\0';
	for (i = 0; i < k; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d:%d", i ? " " : "",
					rows[i].p->pid, rows[i].depth);
	return buf;
}

/* A reused pid: each child goes under the process its parent pid named
 * when it was born, the latest one started before it. */
static void test_pid_reuse(void **state)
{
	struct proc procs[5];
	struct view_opts o = { .sort = FIELD_PID, .tree = true };

	(void)state;
	put(procs, 0, 42, 1, 100, 0);  /* the old 42 */
	put(procs, 1, 43, 42, 150, 0); /* its child */
	put(procs, 2, 42, 1, 200, 0);  /* 42 again, a new process */
	put(procs, 3, 44, 42, 250, 0); /* the new one's child */
	put(procs, 4, 45, 42, 50, 0);  /* born before any 42 we hold: a root */
	assert_string_equal(shape(procs, 5, &o), "42:0 43:1 42:0 44:1 45:0");
}

/* A chain deeper than the bits kept: rows at their depths, and the bars
 * past TREE_DEPTH_BITS drawn as blanks, never garbage. */
static void test_deep_chain(void **state)
{
	enum { N = TREE_DEPTH_BITS + 6 };
	struct proc *procs = calloc(N + 1, sizeof(*procs));
	struct row *rows = calloc(N + 1, sizeof(*rows));
	struct view_opts o = { .sort = FIELD_PID, .tree = true };
	char prefix[4096];
	int i;

	(void)state;
	for (i = 0; i < N; i++)
		put(procs, (size_t)i, 1000 + i, 999 + i, (unsigned long long)i + 1, 0);
	put(procs, N, 1002, 1001, 3, 0); /* a second child of depth 1: 1001 has more below */
	procs[N].pid = 5000;
	procs[N].ppid = 1001;
	assert_int_equal(tree_layout(procs, N + 1, &o, rows), N + 1);
	assert_int_equal(rows[N - 1].depth, N - 1);
	assert_true(rows[5].more >> 2 & 1);    /* the bar of depth 2 runs past the chain */
	assert_int_equal(rows[N].depth, 2);
	assert_int_equal(rows[N].p->pid, 5000);
	tree_prefix(&rows[N - 1], false, prefix, sizeof(prefix));
	assert_int_equal(strncmp(prefix, "  | ", 4), 0);
	assert_int_equal(strlen(prefix), 2 * (N - 2) + 3);
	free(rows);
	free(procs);
}

/* Focus: only the focused process and what is below it, as a tree at
 * depth 0, or flat. */
static void test_focus(void **state)
{
	static const struct spec chain[] = { { 10, 1, 0 }, { 11, 10, 1 }, { 12, 11, 5 }, { 13, 12, 9 }, { 14, 10, 7 } };
	struct proc procs[5];
	struct view_opts o = { .sort = FIELD_COW_RATE, .tree = true, .focus_pid = 11 };

	(void)state;
	put_all(procs, chain, 5);
	assert_string_equal(shape(procs, 5, &o), "11:0 12:1 13:2");
	o.tree = false;
	assert_string_equal(shape(procs, 5, &o), "13:0 12:0 11:0");
	o.focus_pid = 99; /* not held: nothing */
	assert_string_equal(shape(procs, 5, &o), "");
}

/* Flat: every process at depth 0, by the key, ties by pid, reversible. */
static void test_flat(void **state)
{
	static const struct spec four[] = { { 30, 1, 5 }, { 20, 30, 5 }, { 10, 30, 9 }, { 40, 10, 0 } };
	struct proc procs[4];
	struct view_opts o = { .sort = FIELD_COW_RATE, .tree = false };

	(void)state;
	put_all(procs, four, 4);
	assert_string_equal(shape(procs, 4, &o), "10:0 20:0 30:0 40:0");
	o.reverse = true;
	assert_string_equal(shape(procs, 4, &o), "40:0 30:0 20:0 10:0");
	o.sort = FIELD_COMM;
	o.reverse = false;
	assert_string_equal(shape(procs, 4, &o), "10:0 20:0 30:0 40:0");
	assert_int_equal(tree_layout(procs, 0, &o, NULL), 0);
}

/* The prefix in both glyph sets, and none at depth 0. */
static void test_prefix(void **state)
{
	struct row r = { .depth = 3, .last = false, .more = 1u << 1 };
	char buf[64];

	(void)state;
	tree_prefix(&r, true, buf, sizeof(buf));
	assert_string_equal(buf, "\u2502   \u251c\u2500 ");
	tree_prefix(&r, false, buf, sizeof(buf));
	assert_string_equal(buf, "|   |- ");
	r.last = true;
	tree_prefix(&r, false, buf, sizeof(buf));
	assert_string_equal(buf, "|   `- ");
	assert_int_equal(tree_prefix(&r, false, buf, 6), 4); /* cut at a whole piece */
	assert_string_equal(buf, "|   ");
	r.depth = 0;
	assert_int_equal(tree_prefix(&r, false, buf, sizeof(buf)), 0);
}

/* Rows dropped by a filter: the survivors' bits are drawn anew. */
static void test_relink(void **state)
{
	struct row r[4] = {
		{ .depth = 0, .last = true }, { .depth = 1, .last = false },
		{ .depth = 2, .last = true, .more = 1u << 1 }, { .depth = 1, .last = true },
	};
	char buf[64];

	(void)state;
	r[3] = r[2]; /* the last child of 0 is gone: 1 is last now */
	r[3].depth = 2;
	tree_relink(r, 4);
	assert_true(r[1].last);
	assert_false(r[2].last);
	tree_prefix(&r[2], false, buf, sizeof(buf));
	assert_string_equal(buf, "  |- ");
	tree_prefix(&r[3], false, buf, sizeof(buf));
	assert_string_equal(buf, "  `- ");
}

static void test_sort_key_names(void **state)
{
	enum field_id k;

	(void)state;
	assert_int_equal(sort_key_parse("vsz", &k), 0);
	assert_int_equal(k, FIELD_VSZ);
	assert_string_equal(sort_key_name(FIELD_COW_RATE), "cow-rate");
	assert_string_equal(sort_key_name(FIELD_N), "?");
}

/* Least shared first, unknown last; USS and PSS largest first, unread last. */
static void test_sort_memory(void **state)
{
	static const struct spec four[] = { { 10, 1, 0 }, { 20, 1, 0 }, { 30, 1, 0 }, { 40, 1, 0 } };
	static const unsigned long long dirty[] = { 900, 100, 500 };
	struct proc procs[4];
	struct view_opts o = { .sort = FIELD_SHARED, .tree = false };
	int i;

	(void)state;
	put_all(procs, four, 4);
	for (i = 0; i < 3; i++) { /* 10: 10% shared, 20: 90%, 30: 50%; 40 unread */
		procs[i].smaps = (struct smaps){ .anon = 1000, .private_dirty = dirty[i],
						 .pss = 100 * (unsigned long long)(i + 1), .pte = dirty[i] / 10 };
		procs[i].smaps_time = 1;
		procs[i].inherited_kib = 1000;
	}
	procs[3].inherited_kib = 1000;
	assert_string_equal(shape(procs, 4, &o), "10:0 30:0 20:0 40:0");
	o.sort = FIELD_USS;
	assert_string_equal(shape(procs, 4, &o), "10:0 30:0 20:0 40:0");
	o.sort = FIELD_PSS;
	assert_string_equal(shape(procs, 4, &o), "30:0 20:0 10:0 40:0");
	assert_int_equal(sort_key_parse("shared", &o.sort), 0);
	assert_int_equal(o.sort, FIELD_SHARED);
	assert_int_equal(sort_key_parse("uss", &o.sort), 0);
	assert_int_equal(o.sort, FIELD_USS);
	assert_string_equal(sort_key_name(FIELD_PSS), "pss");
	/* the page tables: largest first, unread last, named pte */
	assert_int_equal(sort_key_parse("pte", &o.sort), 0);
	assert_int_equal(o.sort, FIELD_PTE);
	assert_string_equal(shape(procs, 4, &o), "10:0 30:0 20:0 40:0");
	o.reverse = true;
	assert_string_equal(shape(procs, 4, &o), "40:0 20:0 30:0 10:0");
}

/* What the order of a view is, written out: the key of the field, then
 * the pid, both turned round when reversed; processes equal in both keep
 * their order in procs. */
static int spec_cmp(const struct proc *procs, long a, long b, const struct view_opts *o)
{
	const struct proc *x = &procs[a], *y = &procs[b];
	struct fval u = field_value(o->sort, NULL, x), v = field_value(o->sort, NULL, y);
	int r = 0;

	if (o->sort == FIELD_COMM)
		r = strcmp(x->comm, y->comm);
	else if (fields[o->sort].type == FIELD_REAL)
		r = (v.d > u.d) - (v.d < u.d);
	else if (fields[o->sort].type != FIELD_IDENTITY)
		r = (v.u > u.u) - (v.u < u.u);
	if (!r)
		r = (x->pid > y->pid) - (x->pid < y->pid);
	if (o->reverse)
		r = -r;
	return r ? r : (a > b) - (a < b);
}

/* Many processes, most idle (copy rate 0), pids reused, in the model's
 * order (by pid, then forks appended, then wrapped pids) or any order: a
 * flat view lists each once, in the order spec_cmp says, whatever the sort
 * key and direction; the parts of the layout that skip sorting what is in
 * order already give what a full sort gives. */
static void test_order_of_many(void **state)
{
	enum { N = 400 };
	static const enum field_id keys[] = { FIELD_COW_RATE, FIELD_COW, FIELD_COMM, FIELD_PID };
	static const double rates[] = { 0, 0, 0, 0, 0, 0, 1.5, 3, 7 };
	struct proc *procs = calloc(N, sizeof(*procs));
	struct row *rows = calloc(N, sizeof(*rows));
	unsigned seed = 7, kind, k;
	bool seen[N];
	size_t i;
	long n, j;
	int pid;

	(void)state;
	assert_non_null(procs);
	assert_non_null(rows);
	for (kind = 0; kind < 3; kind++) {
		for (i = 0; i < N; i++) {
			seed = seed * 1103515245u + 12345u;
			pid = kind == 2 ? (int)(seed >> 16) % 300 + 2 :
				  i < N / 2 ? (int)i * 3 + 2 : (int)((seed >> 16) % 900) + 2;
			put(procs, i, pid, 1, i + 1, rates[(seed >> 8) % 9]);
			procs[i].counts.cow = (seed >> 4) % 3;
			snprintf(procs[i].comm, sizeof(procs[i].comm), "w%u", (seed >> 12) % 5);
		}
		if (kind == 0) /* the model's usual order: by pid */
			for (i = N / 2; i < N; i++)
				procs[i].pid = (int)i * 3 + 2;
		for (k = 0; k < 2 * sizeof(keys) / sizeof(*keys); k++) {
			struct view_opts o = { .sort = keys[k / 2], .reverse = k % 2 };

			n = tree_layout(procs, N, &o, rows);
			assert_int_equal(n, N);
			memset(seen, 0, sizeof(seen));
			for (j = 0; j < n; j++) {
				long at = rows[j].p - procs;

				assert_false(seen[at]);
				seen[at] = true;
				if (j)
					assert_true(spec_cmp(procs, rows[j - 1].p - procs, at, &o) < 0);
			}
		}
	}
	free(procs);
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_reuse),
		cmocka_unit_test(test_deep_chain),
		cmocka_unit_test(test_focus),
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_relink),
		cmocka_unit_test(test_sort_key_names),
		cmocka_unit_test(test_sort_memory),
		cmocka_unit_test(test_order_of_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
