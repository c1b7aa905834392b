/* Unit tests of the open-addressing index: process keys (pid, start) kept
 * in an array the way the object feed keeps them (a removed entry's place
 * taken by the last), every key present findable and every key removed
 * not, whatever the order of removal; with real hashes, and with hashes
 * made to collide in runs that wrap past the end of the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "itab.h"

#define MAXKEYS 6000

struct key {
	int pid;
	unsigned long long start;
};

/* The owner: its keys, their index, and whether hashes are forced. */
struct owner {
	struct key v[MAXKEYS];
	size_t n;
	struct itab t;
	unsigned clash; /* 0: real hashes; else this many homes, the last slots and the first */
};

/* The hash of key k for owner o. */
static uint64_t key_hash(const struct owner *o, const struct key *k)
{
	if (!o->clash)
		return itab_pid_hash(k->pid, k->start);
	/* homes 61, 62, 63, then 0, 1 of 64 slots: runs that wrap to slot 0 */
	return 61 + (uint64_t)k->pid % o->clash;
}

/* The hash of element i (ctx: the owner). */
static uint64_t at(const void *ctx, int i)
{
	const struct owner *o = ctx;

	return key_hash(o, &o->v[i]);
}

/* The place of (pid, start) in o's array, or -1. */
static int find(const struct owner *o, int pid, unsigned long long start)
{
	const struct key k = { pid, start };
	size_t s;

	if (!o->t.cap)
		return -1;
	for (s = itab__home(&o->t, key_hash(o, &k)); o->t.slot[s] >= 0; s = itab__next(&o->t, s))
		if (o->v[o->t.slot[s]].pid == pid && o->v[o->t.slot[s]].start == start)
			return o->t.slot[s];
	return -1;
}

/* Add (pid, start) to o, as the object feed does. */
static void add(struct owner *o, int pid, unsigned long long start)
{
	const struct key k = { pid, start };
	size_t s;

	assert_true(o->n < MAXKEYS);
	assert_int_equal(itab__reserve(&o->t, 1, at, o), 0);
	for (s = itab__home(&o->t, key_hash(o, &k)); o->t.slot[s] >= 0; s = itab__next(&o->t, s))
		assert_false(o->v[o->t.slot[s]].pid == pid && o->v[o->t.slot[s]].start == start);
	o->v[o->n] = k;
	itab__put(&o->t, s, (int)o->n++);
}

/* Remove the key at place i: its slot goes, the last key takes its place. */
static void del(struct owner *o, size_t i)
{
	size_t last = o->n - 1;

	itab__del(&o->t, itab__slot_of(&o->t, at(o, (int)i), (int)i), at, o);
	if (i < last) {
		itab__move(&o->t, at(o, (int)last), (int)last, (int)i);
		o->v[i] = o->v[last];
	}
	o->n = last;
}

/* Every key of o found at its place, the index holding them and no more. */
static void check_all(const struct owner *o)
{
	size_t i, held = 0;

	for (i = 0; i < o->n; i++)
		assert_int_equal(find(o, o->v[i].pid, o->v[i].start), (int)i);
	for (i = 0; i < o->t.cap; i++)
		held += o->t.slot[i] >= 0;
	assert_int_equal(held, o->n);
	assert_int_equal(o->t.n, o->n);
	assert_true(o->t.n * 2 <= o->t.cap);
}

/* A number from a fixed sequence (so a failure replays). */
static unsigned next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* A fresh owner with n keys: pids reused with other start times, and
 * pids far apart. */
static struct owner *fill(size_t n, unsigned clash)
{
	struct owner *o = calloc(1, sizeof(*o));
	size_t i;

	assert_non_null(o);
	o->clash = clash;
	for (i = 0; i < n; i++)
		add(o, (int)(i % 7 ? 100 + i : 100 + i / 7), 1000ULL * i + 17);
	check_all(o);
	return o;
}

/* Remove every key of o in the order the places seq gives (taken modulo
 * the keys left), checking after each removal that every key left is
 * found and the one removed is not. */
static void drain(struct owner *o, unsigned seed, bool from_front)
{
	while (o->n) {
		size_t i = from_front ? 0 : next_rand(&seed) % o->n;
		struct key gone = o->v[i];

		del(o, i);
		assert_int_equal(find(o, gone.pid, gone.start), -1);
		check_all(o);
	}
	assert_int_equal(o->t.n, 0);
}

/* Keys added are found, keys never added are not; a pid with another
 * start time is another key. */
static void test_find(void **state)
{
	struct owner *o = fill(3000, 0);

	(void)state;
	assert_int_equal(find(o, 100, 17), 0);
	assert_int_equal(find(o, 100, 18), -1);
	assert_int_equal(find(o, 99, 17), -1);
	assert_int_equal(find(o, 1 << 30, 0), -1);
	itab__free(&o->t);
	free(o);
}

/* Removal in a random order, from the front (each removal moves the last
 * key), and of one key in two then re-adding them: all stay findable. */
static void test_remove_any_order(void **state)
{
	struct owner *o;
	unsigned seed;
	size_t i, n;

	(void)state;
	for (seed = 1; seed <= 3; seed++) {
		o = fill(1500, 0);
		drain(o, seed, false);
		itab__free(&o->t);
		free(o);
	}
	o = fill(1500, 0);
	drain(o, 0, true);
	itab__free(&o->t);
	free(o);
	o = fill(2000, 0);
	for (i = 0; i < o->n; i++)
		del(o, i); /* the last key comes to i, and stays */
	check_all(o);
	n = o->n;
	for (i = 0; i < n; i++)
		add(o, 200000 + (int)i, 5);
	check_all(o);
	drain(o, 7, false);
	itab__free(&o->t);
	free(o);
}

/* Keys whose homes are the last slots of the table: their runs wrap past
 * its end. Whichever key goes, those behind it in the run stay findable
 * (a removal that only emptied its slot would cut the run). */
static void test_remove_wrapping_runs(void **state)
{
	struct owner *o;
	unsigned seed, clash;

	(void)state;
	for (clash = 1; clash <= 5; clash++)
		for (seed = 1; seed <= 20; seed++) {
			o = fill(30, clash); /* 64 slots: the runs stay this size */
			assert_int_equal(o->t.cap, 64);
			drain(o, seed, false);
			itab__free(&o->t);
			free(o);
		}
}

/* The table grows by powers of two, staying at most half full, and every
 * key is found after each growth; a rebuild indexes the array anew. */
static void test_grow_rebuild(void **state)
{
	struct owner *o = fill(MAXKEYS - 1, 0);
	int *v;

	(void)state;
	assert_int_equal(o->t.cap, 16384);
	o->n /= 2; /* the owner kept the first half */
	v = malloc(o->t.cap * sizeof(*v));
	assert_non_null(v);
	itab__rebuild(&o->t, v, o->n, at, o);
	check_all(o);
	assert_int_equal(find(o, o->v[o->n].pid, o->v[o->n].start), -1);
	assert_int_equal(itab__reserve(&o->t, 10000, at, o), 0);
	assert_int_equal(o->t.cap, 32768);
	check_all(o);
	itab__free(&o->t);
	assert_int_equal(o->t.cap, 0);
	free(o);
}

/* A clear empties every slot and keeps the room: the owner compacts its
 * array and indexes what it kept anew with itab__put, no allocation. */
static void test_clear(void **state)
{
	struct owner *o = fill(3000, 0);
	size_t i, k = 0, cap = o->t.cap, s;

	(void)state;
	for (i = 0; i < o->n; i++)
		if (i % 3 == 1)
			o->v[k++] = o->v[i];
	o->n = k;
	itab__clear(&o->t);
	assert_int_equal(o->t.n, 0);
	assert_int_equal(o->t.cap, cap);
	for (i = 0; i < o->t.cap; i++)
		assert_int_equal(o->t.slot[i], -1);
	for (i = 0; i < o->n; i++) {
		for (s = itab__home(&o->t, at(o, (int)i)); o->t.slot[s] >= 0; s = itab__next(&o->t, s))
			;
		itab__put(&o->t, s, (int)i);
	}
	check_all(o);
	assert_int_equal(find(o, 100, 17), -1); /* key 0 was not kept */
	itab__free(&o->t);
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_remove_any_order),
		cmocka_unit_test(test_remove_wrapping_runs),
		cmocka_unit_test(test_grow_rebuild),
		cmocka_unit_test(test_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
