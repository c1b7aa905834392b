/* Unit tests of the stack table (aggregation, top stacks, copy sites) and
 * the folded writers (stacks, and copies by object). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "folded.h"
#include "objects.h"
#include "runtime.h"
#include "stacks.h"

/* Count stack id of (pid, 7) at pages, giving it frames if it wants some. */
static void put(struct stacks *s, int pid, unsigned id, unsigned long long pages,
		const char *inner, const char *outer)
{
	const char *frames[2] = { inner, outer };
	int r = stacks__set(s, pid, 7, "app", id, pages);

	assert_true(r == 0 || r == 1);
	if (r == 1)
		assert_int_equal(stacks__set_frames(s, pid, 7, id, frames, outer ? 2 : 1), 0);
}

/* Counts keep the largest value read (the kernel's counters only grow);
 * a stack wants frames once; processes are kept apart. */
static void test_set(void **state)
{
	struct stacks *s = stacks__new();
	const char *f[1] = { "f (a)" };
	struct stacks_snap *sn;
	const struct stacks_proc *p;

	(void)state;
	assert_int_equal(stacks__set(s, 10, 7, "app", 3, 5), 1);
	assert_int_equal(stacks__set(s, 10, 7, "app", 3, 9), 1);
	assert_int_equal(stacks__set_frames(s, 10, 7, 3, f, 1), 0);
	assert_int_equal(stacks__set(s, 10, 7, "app", 3, 4), 0);
	assert_int_equal(stacks__set(s, 11, 7, "app", 3, 2), 1);
	assert_int_equal(stacks__set_frames(s, 99, 7, 3, f, 1), -ENOENT);
	sn = stacks__snap(s);
	assert_non_null(sn);
	p = stacks_snap__of(sn, 10, 7);
	assert_non_null(p);
	assert_int_equal(p->pages, 9);
	assert_int_equal(p->ntop, 1);
	assert_string_equal(p->top[0].frames[0], "f (a)");
	assert_int_equal(stacks_snap__of(sn, 11, 7)->pages, 2);
	assert_null(stacks_snap__of(sn, 10, 8));
	stacks_snap__free(sn);
	stacks__free(s);
}

/* Top stacks by pages, ties by stack id, at most STACKS_TOP; sites sum the
 * stacks that end in the same function and point at the heaviest one. */
static void test_top_and_sites(void **state)
{
	struct stacks *s = stacks__new();
	struct stacks_snap *sn;
	const struct stacks_proc *p;
	unsigned id;

	(void)state;
	put(s, 5, 1, 10, "write_heap (app)", "main (app)");
	put(s, 5, 2, 30, "write_heap (app)", "other (app)");
	put(s, 5, 3, 25, "write_mmap (app)", "main (app)");
	put(s, 5, 4, 25, "memcpy (libc.so.6)", NULL);
	for (id = 100; id < 130; id++)
		put(s, 5, id, 1, "tiny (app)", NULL);
	sn = stacks__snap(s);
	assert_non_null(sn);
	p = stacks_snap__of(sn, 5, 7);
	assert_non_null(p);
	assert_int_equal(p->pages, 10 + 30 + 25 + 25 + 30);
	assert_int_equal(p->ntop, STACKS_TOP);
	assert_int_equal(p->top[0].pages, 30);
	assert_int_equal(p->top[1].pages, 25);
	assert_string_equal(p->top[1].frames[0], "write_mmap (app)"); /* id 3 before 4 */
	assert_string_equal(p->top[2].frames[0], "memcpy (libc.so.6)");
	assert_int_equal(p->top[3].pages, 10);
	assert_int_equal(p->nsites, 4);
	assert_string_equal(p->sites[0].name, "write_heap (app)");
	assert_int_equal(p->sites[0].pages, 40);
	assert_int_equal(p->sites[0].heaviest, 0);
	assert_string_equal(p->sites[1].name, "tiny (app)");
	assert_int_equal(p->sites[1].pages, 30);
	assert_string_equal(p->sites[2].name, "memcpy (libc.so.6)"); /* 25, by name */
	assert_string_equal(p->sites[3].name, "write_mmap (app)");
	assert_int_equal(p->sites[3].heaviest, 1);
	stacks_snap__free(sn);
	stacks__free(s);
}

/* Many processes and stacks: the index grows and finds every one. */
static void test_many(void **state)
{
	struct stacks *s = stacks__new();
	struct stacks_snap *sn;
	unsigned long long sum = 0;
	int pid;
	unsigned id;
	size_t i;

	(void)state;
	for (pid = 1; pid <= 50; pid++)
		for (id = 0; id < 100; id++)
			put(s, pid, id, id + 1, "f (a)", NULL);
	for (pid = 1; pid <= 50; pid++)
		for (id = 0; id < 100; id++)
			assert_int_equal(stacks__set(s, pid, 7, "app", id, id), 0);
	sn = stacks__snap(s);
	assert_non_null(sn);
	assert_int_equal(sn->nprocs, 50);
	for (i = 0; i < sn->nprocs; i++)
		sum += sn->procs[i].pages;
	assert_int_equal(sum, 50ULL * 5050);
	assert_int_equal(sn->procs[0].nsites, 1);
	stacks_snap__free(sn);
	stacks__free(s);
}

/* Folded lines: comm first, outermost frame next, the count last; ';' and
 * control bytes in names cannot break a line; zero counts are left out;
 * the counts add up to the stacks' pages. */
static void test_folded(void **state)
{
	struct stacks *s = stacks__new();
	const char *evil[2] = { "a;b\n(x)", "main (app)" };
	char *text, *line, *save;
	size_t len;
	unsigned long long sum = 0;
	int lines = 0;

	(void)state;
	put(s, 5, 1, 10, "write_heap (app)", "main (app)");
	put(s, 5, 2, 0, "never (app)", NULL);
	assert_int_equal(stacks__set(s, 6, 7, "ev;il", 9, 3), 1);
	assert_int_equal(stacks__set_frames(s, 6, 7, 9, evil, 2), 0);
	assert_int_equal(stacks__set(s, 8, 7, "bare", 1, 4), 1); /* never symbolized */
	text = folded_text(s, &len);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	assert_string_equal(text,
			    "app;main (app);write_heap (app) 10\n"
			    "ev:il;main (app);a:b?(x) 3\n"
			    "bare;[unknown] 4\n");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sum += strtoull(strrchr(line, ' ') + 1, NULL, 10);
		lines++;
	}
	assert_int_equal(lines, 3);
	assert_int_equal(sum, 17);
	free(text);
	stacks__free(s);
}

/* keep() of test_fold: processes with an even pid stay. */
static bool keep_even(int pid, unsigned long long start, void *ctx)
{
	(void)start;
	++*(int *)ctx;
	return pid % 2 == 0;
}

/* Folding: the processes let go leave the snapshot, their copies stay in
 * the folded output, merged by (comm, frames) however many processes had
 * them; the kept ones are untouched and still found; a second fold of
 * the same stack adds up. */
static void test_fold(void **state)
{
	struct stacks *s = stacks__new();
	struct stacks_snap *sn;
	char *text;
	size_t len;
	int pid, calls = 0;

	(void)state;
	for (pid = 1; pid <= 200; pid++) {
		put(s, pid, 1, 10, "write_heap (app)", "main (app)");
		put(s, pid, 2, 1, "write_mmap (app)", NULL);
	}
	assert_int_equal(stacks__fold(s, keep_even, &calls), 100);
	assert_int_equal(calls, 200);
	sn = stacks__snap(s);
	assert_non_null(sn);
	assert_int_equal(sn->nprocs, 100);
	assert_null(stacks_snap__of(sn, 3, 7));
	assert_non_null(stacks_snap__of(sn, 4, 7));
	assert_int_equal(stacks_snap__of(sn, 4, 7)->pages, 11);
	stacks_snap__free(sn);
	/* a kept process is still found: no new record, no frames wanted */
	assert_int_equal(stacks__set(s, 4, 7, "app", 1, 12), 0);
	put(s, 201, 1, 5, "write_heap (app)", "main (app)");
	assert_int_equal(stacks__fold(s, keep_even, &calls), 1);
	text = folded_text(s, &len);
	assert_non_null(text);
	assert_non_null(strstr(text, "app;main (app);write_heap (app) 1005\n"));
	assert_non_null(strstr(text, "app;write_mmap (app) 100\n"));
	assert_non_null(strstr(text, "app;main (app);write_heap (app) 12\n"));
	free(text);
	assert_int_equal(stacks__fold(s, keep_even, &calls), 0);
	stacks__free(s);

	/* without totals kept, the processes let go leave nothing behind */
	s = stacks__new();
	stacks__keep_gone(s, false);
	put(s, 3, 1, 10, "write_heap (app)", "main (app)");
	put(s, 4, 1, 12, "write_heap (app)", "main (app)");
	assert_int_equal(stacks__fold(s, keep_even, &calls), 1);
	text = folded_text(s, &len);
	assert_non_null(text);
	assert_string_equal(text, "app;main (app);write_heap (app) 12\n");
	free(text);
	stacks__free(s);
}

/* keep() of the tests below: nobody stays. */
static bool keep_none(int pid, unsigned long long start, void *ctx)
{
	(void)pid;
	(void)start;
	(void)ctx;
	return false;
}

/* Count stack 1 of pid with one frame named "0x<pid> (?)", as the
 * kernel's walk of a garbage frame gives. */
static void put_garbage(struct stacks *s, int pid, const char *outer)
{
	char name[32];

	snprintf(name, sizeof(name), "0x%x (?)", pid);
	put(s, pid, 1, 1, name, outer);
}

/* A long run forgets what it no longer counts: once the processes are
 * gone, their distinct frames leave the table (totals not kept), or only
 * one copy of each frame and comm folded stays (totals kept). */
static void test_names_let_go(void **state)
{
	struct stacks *s = stacks__new();
	int pid, round, calls = 0;

	(void)state;
	stacks__keep_gone(s, false);
	for (round = 0; round < 3; round++) {
		for (pid = 1; pid <= 500; pid++)
			put_garbage(s, round * 1000 + pid, "main (app)");
		assert_int_equal(stacks__names(s), 501);
		assert_int_equal(stacks__fold(s, keep_none, NULL), 500);
		assert_int_equal(stacks__names(s), 0);
	}
	/* a stack named again lets go of its old names */
	put(s, 1, 1, 1, "old (app)", NULL);
	assert_int_equal(stacks__set_frames(s, 1, 7, 1, (const char *[]){ "new (app)" }, 1), 0);
	assert_int_equal(stacks__names(s), 1);
	stacks__free(s);

	s = stacks__new(); /* totals kept: each folded stack keeps its names */
	for (pid = 1; pid <= 200; pid++)
		put(s, pid, 1, 1, pid % 2 ? "odd (app)" : "even (app)", "main (app)");
	assert_int_equal(stacks__fold(s, keep_even, &calls), 100);
	assert_int_equal(stacks__names(s), 4); /* odd, even, main, comm "app" */
	assert_int_equal(stacks__fold(s, keep_none, NULL), 100);
	assert_int_equal(stacks__names(s), 4);
	stacks__free(s);
}

/* The index of names finds every name still held after others left it,
 * in any order (a lookup that missed would make a second copy). */
static void test_names_index(void **state)
{
	struct stacks *s = stacks__new();
	int pid, k, calls = 0;

	(void)state;
	stacks__keep_gone(s, false);
	for (pid = 1; pid <= 3000; pid++)
		put_garbage(s, pid, NULL);
	assert_int_equal(stacks__names(s), 3000);
	/* let go of the odd pids, then count every pid again under new ids */
	assert_int_equal(stacks__fold(s, keep_even, &calls), 1500);
	assert_int_equal(stacks__names(s), 1500);
	for (k = 0; k < 3000; k++) {
		char name[32];
		const char *v[1] = { name };

		pid = (k * 7919) % 3000 + 1; /* every pid once, shuffled */
		snprintf(name, sizeof(name), "0x%x (?)", pid);
		assert_int_equal(stacks__set(s, pid, 8, "app", 2, 1), 1);
		assert_int_equal(stacks__set_frames(s, pid, 8, 2, v, 1), 0);
	}
	assert_int_equal(stacks__names(s), 3000);
	assert_int_equal(stacks__fold(s, keep_none, NULL), 4500); /* the even of start 7, all of start 8 */
	assert_int_equal(stacks__names(s), 0);
	stacks__free(s);
}

/* A snapshot reads its strings after the processes it shows were let go
 * and after the table itself was freed; the names go with it. */
static void test_snap_holds(void **state)
{
	struct stacks *s = stacks__new();
	struct stacks_snap *sn;
	const struct stacks_proc *sp;
	int pid;

	(void)state;
	stacks__keep_gone(s, false);
	for (pid = 1; pid <= 30; pid++) /* more stacks than the top: sites too */
		put(s, 5, (unsigned)pid, (unsigned)pid, pid == 1 ? "deep (app)" : "site (app)",
		    pid == 2 ? "rare (app)" : "main (app)");
	put_garbage(s, 6, "main (app)");
	sn = stacks__snap(s);
	assert_non_null(sn);
	assert_int_equal(stacks__fold(s, keep_none, NULL), 2);
	assert_true(stacks__names(s) > 0); /* held by the snapshot */
	sp = stacks_snap__of(sn, 6, 7);
	assert_non_null(sp);
	assert_string_equal(sp->top[0].frames[0], "0x6 (?)");
	assert_string_equal(sp->top[0].frames[1], "main (app)");
	stacks__free(s);
	sp = stacks_snap__of(sn, 5, 7);
	assert_non_null(sp);
	assert_int_equal(sp->ntop, STACKS_TOP);
	assert_int_equal(sp->nsites, 2);
	assert_string_equal(sp->sites[0].name, "site (app)");
	assert_string_equal(sp->sites[1].name, "deep (app)"); /* its stack: not in the top */
	assert_int_equal(sp->sites[1].heaviest, -1);
	assert_string_equal(sp->top[0].frames[0], "site (app)");
	stacks_snap__free(sn); /* frees the table: leaks show under the sanitizers */
}

/* keep() of test_folded_objects: only pid 2 stays. */
static bool keep_two(int pid, unsigned long long start, void *ctx)
{
	(void)start;
	(void)ctx;
	return pid == 2;
}

/* objects__set of one row, its key given field by field. */
static int set_row(struct objects *o, int pid, unsigned long long start, const char *comm, int runtime,
		   unsigned long long type, int write, unsigned long long pages)
{
	return objects__set(o, &(struct objects_key){ .pid = pid, .start = start, .runtime = runtime,
						      .type = type, .write = write, .comm = comm },
			    pages);
}

/* Folded copies by object: one line per (comm, runtime, type, write kind),
 * the write kind bracketed as the leaf; the rows of processes pruned stay
 * only when the whole run is kept, merged by name however many processes
 * had them; an unnamed type and an unknown comm are said; ';' and control
 * bytes cannot break a line; no line for 0 pages. */
static void test_folded_objects(void **state)
{
	struct objects *o = objects__new();
	size_t len;
	char *text;

	(void)state;
	objects__keep_gone(o, true);
	assert_int_equal(set_row(o, 1, 10, "py", OBJ_RT_PY311, 0x1000, OBJ_W_REFCNT, 30), 1);
	objects__name(o, 1, 10, 0x1000, "str");
	assert_int_equal(set_row(o, 3, 30, "py", OBJ_RT_PY311, 0x1000, OBJ_W_REFCNT, 12), 1);
	objects__name(o, 3, 30, 0x1000, "str");
	assert_int_equal(set_row(o, 3, 30, "py", OBJ_RT_PY311, 0x2000, OBJ_W_GC, 5), 1);
	assert_int_equal(set_row(o, 2, 20, "w;k\n", OBJ_RT_RUBY31, 5, OBJ_W_FLAGS, 7), 0);
	assert_int_equal(set_row(o, 2, 20, NULL, OBJ_RT_RUBY31, 7, OBJ_W_SLOT, 0), 0);
	assert_int_equal(set_row(o, 4, 40, NULL, OBJ_RT_PY311, OBJ_PYT_BLOCK, OBJ_W_PAYLOAD, 2), 0);
	objects__prune(o, keep_two, NULL);
	text = folded_objects_text(o, &len);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	assert_string_equal(text,
			    "py;cpython-3.11;str;[refcount] 42\n"
			    "py;cpython-3.11;(unnamed);[gc_header] 5\n"
			    "[unknown];cpython-3.11;(block without object);[payload] 2\n"
			    "w:k?;ruby-3.1;T_STRING;[flags] 7\n");
	free(text);
	objects__free(o);

	/* A Ruby object's class follows its type; one not named is said. */
	o = objects__new();
	assert_int_equal(objects__set(o, &(struct objects_key){ .pid = 5, .start = 50, .runtime = OBJ_RT_RUBY31,
								.type = 1, .klass = 0x7f00, .klass_serial = 9,
								.write = OBJ_W_SLOT, .comm = "rb" },
				      6),
			 OBJECTS_NEED_CLASS);
	objects__name_class(o, 5, 50, 0x7f00, 9, "Cowtest::Widget");
	assert_int_equal(objects__set(o, &(struct objects_key){ .pid = 5, .start = 50, .runtime = OBJ_RT_RUBY31,
								.type = 1, .klass = 0x8f00, .klass_serial = 3,
								.write = OBJ_W_SLOT, .comm = "rb" },
				      2),
			 OBJECTS_NEED_CLASS);
	text = folded_objects_text(o, &len);
	assert_non_null(text);
	assert_string_equal(text, "rb;ruby-3.1;T_OBJECT Cowtest::Widget;[slot] 6\n"
				  "rb;ruby-3.1;T_OBJECT (class unknown);[slot] 2\n");
	free(text);
	objects__free(o);

	/* Without the whole run, the pruned processes' rows are dropped. */
	o = objects__new();
	assert_int_equal(set_row(o, 1, 10, "py", OBJ_RT_PY311, OBJ_PYT_BLOCK, OBJ_W_PAYLOAD, 3), 0);
	assert_int_equal(set_row(o, 2, 20, "rb", OBJ_RT_RUBY31, 5, OBJ_W_FLAGS, 4), 0);
	objects__prune(o, keep_two, NULL);
	text = folded_objects_text(o, &len);
	assert_non_null(text);
	assert_string_equal(text, "rb;ruby-3.1;T_STRING;[flags] 4\n");
	free(text);
	objects__free(o);
}

#define IX_PROCS 60 /* processes of test_objects_index */
#define IX_TYPES 3  /* types (CPython) or classes (Ruby) of each */

/* test_objects_index's row j of process pid, write w, at pages. */
static int ix_set(struct objects *o, int pid, int j, int w, unsigned long long pages)
{
	struct objects_key k = { .pid = pid, .start = 100ULL * (unsigned)pid, .write = w };

	if (pid % 2) {
		k.runtime = OBJ_RT_PY311;
		k.type = 0x1000 + (unsigned)j;
	} else {
		k.runtime = OBJ_RT_RUBY31;
		k.type = 1; /* T_OBJECT, of class j */
		k.klass = 0x7000 + (unsigned)j;
		k.klass_serial = (unsigned)j + 1;
	}
	return objects__set(o, &k, pages);
}

/* The pruning order of test_objects_index: after round r, the processes
 * that keep_ix() let go in rounds 0..r are gone. */
static bool ix_kept(int pid, int round)
{
	return !((round >= 0 && pid % 3 == 0) || (round >= 1 && pid % 4 == 1) ||
		 (round >= 2 && pid < 20));
}

static bool keep_ix(int pid, unsigned long long start, void *ctx)
{
	(void)start;
	return ix_kept(pid, *(int *)ctx);
}

/* objects__each: count the rows and add up their pages. */
static void count_row(const char *comm, const char *runtime, const char *type, int write,
		      unsigned long long pages, void *ctx)
{
	unsigned long long *c = ctx;

	(void)comm;
	(void)runtime;
	(void)type;
	(void)write;
	c[0]++;
	c[1] += pages;
}

/* Rows stay found through prunes that compact the table in several orders:
 * each remaining row is updated in place (no row twice), named rows keep
 * their names, a new write kind of a named type or class takes its name
 * from the rows before it, and a pruned process's names are gone. */
static void test_objects_index(void **state)
{
	struct objects *o = objects__new();
	unsigned long long c[2];
	struct objects_snap *sn;
	char name[32];
	int pid, j, round, kept;

	(void)state;
	for (pid = 1; pid <= IX_PROCS; pid++)
		for (j = 0; j < IX_TYPES; j++) {
			int need = pid % 2 ? OBJECTS_NEED_TYPE : OBJECTS_NEED_CLASS;

			assert_int_equal(ix_set(o, pid, j, OBJ_W_REFCNT, 1), need);
			assert_int_equal(ix_set(o, pid, j, OBJ_W_GC, 1), need);
			snprintf(name, sizeof(name), "n%d.%d", pid, j);
			if (pid % 2)
				objects__name(o, pid, 100ULL * (unsigned)pid, 0x1000 + (unsigned)j, name);
			else
				objects__name_class(o, pid, 100ULL * (unsigned)pid, 0x7000 + (unsigned)j,
						    (unsigned)j + 1, name);
			/* both rows named, the second through the list */
			assert_int_equal(ix_set(o, pid, j, OBJ_W_GC, 1), 0);
			assert_int_equal(ix_set(o, pid, j, OBJ_W_REFCNT, 1), 0);
		}
	for (round = 0; round < 3; round++) {
		objects__prune(o, keep_ix, &round);
		kept = 0;
		for (pid = 1; pid <= IX_PROCS; pid++) {
			const char *n, *cn;

			n = objects__name_of(o, pid, 100ULL * (unsigned)pid, 0x1000);
			cn = objects__class_of(o, pid, 100ULL * (unsigned)pid, 0x7000, 1);
			if (!ix_kept(pid, round)) {
				assert_null(n);
				assert_null(cn);
				continue;
			}
			kept++;
			snprintf(name, sizeof(name), "n%d.0", pid);
			assert_string_equal(pid % 2 ? n : cn, name);
			for (j = 0; j < IX_TYPES; j++) {
				assert_int_equal(ix_set(o, pid, j, OBJ_W_REFCNT, 2 + (unsigned)round), 0);
				assert_int_equal(ix_set(o, pid, j, OBJ_W_GC, 2 + (unsigned)round), 0);
				/* a new row each round: its name from its list */
				assert_int_equal(ix_set(o, pid, j, OBJ_W_HEADER + round, 1), 0);
			}
		}
		memset(c, 0, sizeof(c));
		objects__each(o, count_row, c);
		assert_int_equal(c[0], (unsigned long long)kept * IX_TYPES * (3 + (unsigned)round));
		assert_int_equal(c[1], (unsigned long long)kept * IX_TYPES *
					       (2 * (2 + (unsigned)round) + 1 + (unsigned)round));
		sn = objects__snap(o);
		assert_non_null(sn);
		assert_int_equal(sn->nprocs, kept);
		for (j = 0; j < kept; j++)
			assert_int_equal(sn->procs[j].ntop, IX_TYPES * (3 + (unsigned)round));
		objects_snap__free(sn);
	}
	objects__free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_top_and_sites),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_names_let_go),
		cmocka_unit_test(test_names_index),
		cmocka_unit_test(test_snap_holds),
		cmocka_unit_test(test_folded_objects),
		cmocka_unit_test(test_objects_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
