/* An open-addressing index (linear probing) over an array kept by its
 * owner: the slots hold the elements' places in that array. The owner says
 * what an element's hash is and when two keys are equal; the index only
 * finds, places and takes out places. Pure. */
#ifndef COWTOP_ITAB_H
#define COWTOP_ITAB_H

#include <stddef.h>
#include <stdint.h>

struct itab {
	int *slot;     /* element places, -1 empty; cap slots, a power of two */
	size_t cap, n; /* room and elements held: n <= cap / 2 */
};

/* The hash of element i of the owner's array (ctx: the owner). */
typedef uint64_t (*itab_hash_fn)(const void *ctx, int i);

/* A 64-bit mix (splitmix64's finalizer). */
uint64_t itab_mix(uint64_t x);
/* The hash of a process key (pid, start time). */
uint64_t itab_pid_hash(int pid, unsigned long long start);

/* The slots that may hold an element of hash h, in order:
 *   for (k = itab__home(t, h); t->slot[k] >= 0; k = itab__next(t, k))
 * ends on the empty slot where such an element would go. Needs room
 * (cap > 0): itab__reserve first, or test cap. */
static inline size_t itab__home(const struct itab *t, uint64_t h)
{
	return (size_t)h & (t->cap - 1);
}

static inline size_t itab__next(const struct itab *t, size_t k)
{
	return (k + 1) & (t->cap - 1);
}

/* Make room for extra more elements, rehashing into a larger table:
 * 0 or -ENOMEM (t unchanged). Slots found before are stale after. */
int itab__reserve(struct itab *t, size_t extra, itab_hash_fn hash, const void *ctx);
/* Put element i in empty slot k (the end of its probe, after a reserve). */
void itab__put(struct itab *t, size_t k, int i);
/* The slot holding element i, of hash h; i must be held. */
size_t itab__slot_of(const struct itab *t, uint64_t h, int i);
/* Element from, of hash h, moved to place to in the owner's array. */
void itab__move(struct itab *t, uint64_t h, int from, int to);
/* Take slot k out; every other element stays findable. The owner's array
 * must still hold every element indexed (the one taken out too). */
void itab__del(struct itab *t, size_t k, itab_hash_fn hash, const void *ctx);
/* Index elements 0..n-1 anew in slots v (t->cap of them, taken over: this
 * cannot fail once they are had). */
void itab__rebuild(struct itab *t, int *v, size_t n, itab_hash_fn hash, const void *ctx);
/* Take every element out, keeping the room (for indexing the owner's
 * elements anew with itab__put after it moved them). */
void itab__clear(struct itab *t);
/* Free the slots; t is then empty, and can be used again. */
void itab__free(struct itab *t);

#endif
