/* An open-addressing index over an array kept by its owner. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "itab.h"

/* splitmix64's finalizer: every input bit reaches every output bit. */
uint64_t itab_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Both halves of the key mixed: pids are dense, start times close. */
uint64_t itab_pid_hash(int pid, unsigned long long start)
{
	return itab_mix((uint64_t)(unsigned)pid ^ itab_mix(start + 1));
}

/* Put element i, of hash h, in the first empty slot of its probe in v. */
static void place(int *v, size_t cap, uint64_t h, int i)
{
	size_t k;

	for (k = h & (cap - 1); v[k] >= 0; k = (k + 1) & (cap - 1))
		;
	v[k] = i;
}

/* Place every element of t in the empty slots v (cap of them). */
static void place_all(const struct itab *t, int *v, size_t cap, itab_hash_fn hash, const void *ctx)
{
	size_t i;

	memset(v, 0xff, cap * sizeof(*v));
	for (i = 0; i < t->cap; i++)
		if (t->slot[i] >= 0)
			place(v, cap, hash(ctx, t->slot[i]), t->slot[i]);
}

/* Grow to the next power of two that keeps the table at most half full. */
int itab__reserve(struct itab *t, size_t extra, itab_hash_fn hash, const void *ctx)
{
	size_t cap;
	int *v;

	if ((t->n + extra) * 2 <= t->cap)
		return 0;
	for (cap = t->cap ? t->cap * 2 : 64; (t->n + extra) * 2 > cap; cap *= 2)
		;
	v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	place_all(t, v, cap, hash, ctx);
	free(t->slot);
	t->slot = v;
	t->cap = cap;
	return 0;
}

/* Fill an empty slot found by a probe. */
void itab__put(struct itab *t, size_t k, int i)
{
	t->slot[k] = i;
	t->n++;
}

/* Follow h's probe to the slot holding i. */
size_t itab__slot_of(const struct itab *t, uint64_t h, int i)
{
	size_t k;

	for (k = itab__home(t, h); t->slot[k] != i; k = itab__next(t, k))
		;
	return k;
}

/* Renumber an element the owner moved in its array. */
void itab__move(struct itab *t, uint64_t h, int from, int to)
{
	t->slot[itab__slot_of(t, h, from)] = to;
}

/* Take slot k out, moving later entries of its run back so that each
 * stays reachable from its home slot with no empty slot in between (no
 * tombstones: a run of hours adding and removing keeps probes short). */
void itab__del(struct itab *t, size_t k, itab_hash_fn hash, const void *ctx)
{
	size_t mask = t->cap - 1, j, home;

	for (j = (k + 1) & mask; t->slot[j] >= 0; j = (j + 1) & mask) {
		home = hash(ctx, t->slot[j]) & mask;
		/* the entry at j stays when its home lies cyclically in (k, j] */
		if (k <= j ? (home > k && home <= j) : (home > k || home <= j))
			continue;
		t->slot[k] = t->slot[j];
		k = j;
	}
	t->slot[k] = -1;
	t->n--;
}

/* Index the owner's first n elements anew in v. */
void itab__rebuild(struct itab *t, int *v, size_t n, itab_hash_fn hash, const void *ctx)
{
	size_t i;

	memset(v, 0xff, t->cap * sizeof(*v));
	free(t->slot);
	t->slot = v;
	t->n = n;
	for (i = 0; i < n; i++)
		place(v, t->cap, hash(ctx, (int)i), (int)i);
}

/* Empty every slot. */
void itab__clear(struct itab *t)
{
	if (t->cap)
		memset(t->slot, 0xff, t->cap * sizeof(*t->slot));
	t->n = 0;
}

/* Free the slots. */
void itab__free(struct itab *t)
{
	free(t->slot);
	*t = (struct itab){ 0 };
}
