/* Readers of the kernel's maps: the process counters, pending per-CPU
 * copies, the per-phase and per-stack counters, and the loss and capture
 * statistics, handed out in cowtop's own types (the region counters are
 * in tracer_regions.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tracer_int.h"

/* Copies of pid still pending in the per-CPU slots (read after the map, so a
 * flush in between can only make a frame short, never count twice). */
static __u64 pending(const struct cowtop_slot *slots, int ncpus, __u32 pid)
{
	__u64 n = 0;
	int c;

	for (c = 0; c < ncpus; c++)
		if (COWTOP_ACC_TGID(slots[c].acc) == pid)
			n += COWTOP_ACC_COUNT(slots[c].acc);
	return n;
}

/* Order pids. */
static int cmp_u32(const void *x, const void *y)
{
	__u32 a = *(const __u32 *)x, b = *(const __u32 *)y;

	return (a > b) - (a < b);
}

/* Make room for more entries in d: at least twice as many. */
static int dump_grow(struct dump *d)
{
	size_t cap = d->cap ? d->cap * 2 : 256;
	void *k = realloc(d->keys, cap * d->ksz), *v;

	if (!k)
		return -ENOMEM;
	d->keys = k;
	v = realloc(d->vals, cap * d->vsz);
	if (!v)
		return -ENOMEM;
	d->vals = v;
	d->cap = cap;
	return 0;
}

/* Read the map key by key: two system calls an entry. */
static int dump_by_key(int fd, struct dump *d)
{
	char key[64], next[64];
	void *prev = NULL;

	d->n = 0;
	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, d->ksz);
		prev = key;
		if (d->n == d->cap && dump_grow(d))
			return -ENOMEM;
		if (bpf_map_lookup_elem(fd, key, (char *)d->vals + d->n * d->vsz) == 0)
			memcpy((char *)d->keys + d->n++ * d->ksz, key, d->ksz);
	}
	return errno == ENOENT ? 0 : -errno;
}

/* Read every entry of hash map fd (keys of ksz bytes, values of vsz) into
 * d, which the caller frees (dump__free): in batches, one system call for
 * as many entries as fit, where the kernel can; key by key where not.
 * 0 or -errno. */
int dump__read(int fd, size_t ksz, size_t vsz, struct dump *d)
{
	__u64 in[8], out[8]; /* a hash map's batch position: a bucket index */
	bool first = true;
	int e;

	*d = (struct dump){ .ksz = ksz, .vsz = vsz };
	if (ksz > 64 || dump_grow(d))
		return -ENOMEM;
	for (;;) {
		__u32 count = d->cap - d->n;

		e = bpf_map_lookup_batch(fd, first ? NULL : in, out, (char *)d->keys + d->n * ksz,
					 (char *)d->vals + d->n * vsz, &count, NULL);
		if (e && errno == ENOSPC && count == 0) { /* a bucket larger than the room left */
			if (dump_grow(d))
				return -ENOMEM;
			continue;
		}
		if (e && errno != ENOENT)
			return first && (errno == EINVAL || errno == ENOTSUP || errno == ENOSYS) ?
			       dump_by_key(fd, d) : -errno;
		d->n += count;
		if (e) /* ENOENT: that was the last batch */
			return 0;
		memcpy(in, out, sizeof(in));
		first = false;
		if (d->n == d->cap && dump_grow(d))
			return -ENOMEM;
	}
}

/* Let go of what dump__read read. */
void dump__free(struct dump *d)
{
	free(d->keys);
	free(d->vals);
}

/* Take the pids whose entries changed since the last call, clearing their
 * bits (all of them: a whole read follows when there are too many): up to
 * max into *out (to free). Their number, or -E2BIG past max, -ENOMEM. */
static long take_changed(struct tracer *t, __u32 **out, size_t max)
{
	__u64 *bits = t->skel->bss->changed_bits, x;
	size_t w, n = 0, cap = 0;
	bool over = false;
	__u32 *v = NULL, *nv;

	for (w = 0; w < COWTOP_WATCH_WORDS; w++) {
		if (!__atomic_load_n(&bits[w], __ATOMIC_RELAXED))
			continue;
		x = __atomic_exchange_n(&bits[w], 0, __ATOMIC_SEQ_CST);
		for (; x && !over; x &= x - 1) {
			if (n == max) {
				over = true;
				break;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[n++] = (__u32)(w * 64 + (size_t)__builtin_ctzll(x));
		}
	}
	if (over) {
		free(v);
		return -E2BIG;
	}
	*out = v;
	return (long)n;
}

/* The entries of pids, and of the processes pending in slots, into d (to
 * free, dump__free); a pid with no entry any more is left out. */
static int dump_pids(struct tracer *t, const __u32 *pids, size_t n,
		     const struct cowtop_slot *slots, int ncpus, struct dump *d)
{
	int fd = bpf_map__fd(t->skel->maps.procs), c;
	size_t i;
	__u32 pid;

	*d = (struct dump){ .ksz = sizeof(__u32), .vsz = sizeof(struct cowtop_proc) };
	for (i = 0; i < n + (size_t)ncpus; i++) {
		if (i < n) {
			pid = pids[i];
		} else {
			c = (int)(i - n);
			pid = COWTOP_ACC_TGID(slots[c].acc);
			if (!COWTOP_ACC_COUNT(slots[c].acc) ||
			    (n && bsearch(&pid, pids, n, sizeof(*pids), cmp_u32)))
				continue; /* nothing pending, or read already */
		}
		if (d->n == d->cap && dump_grow(d))
			return -ENOMEM;
		if (bpf_map_lookup_elem(fd, &pid, (char *)d->vals + d->n * d->vsz) == 0)
			((__u32 *)d->keys)[d->n++] = pid;
	}
	return 0;
}

/* The per-CPU slots of pending copies into slots; false when unread. */
static bool read_slots(struct tracer *t, struct cowtop_slot *slots)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.slots), &zero, slots) == 0;
}

/* Read the entries: every one, or (changed_only) those whose bits say
 * they changed and those with copies pending in a slot (slots: the
 * caller's buffer for ncpus, read here first), unless there are so many
 * that reading every one costs less. */
static int dump_procs(struct tracer *t, bool changed_only, struct cowtop_slot *slots, int ncpus,
		      struct dump *d)
{
	size_t most = t->nentries / 4 > 64 ? t->nentries / 4 : 64;
	__u32 *pids = NULL;
	long n = take_changed(t, &pids, changed_only ? most : 0);
	int e;

	if (changed_only && n >= 0) {
		if (!read_slots(t, slots))
			memset(slots, 0, ncpus * sizeof(*slots));
		e = dump_pids(t, pids, (size_t)n, slots, ncpus, d);
		free(pids);
		return e;
	}
	free(pids);
	if (n == -ENOMEM)
		return (int)n;
	e = dump__read(bpf_map__fd(t->skel->maps.procs), sizeof(__u32), sizeof(struct cowtop_proc), d);
	if (!e)
		t->nentries = d->n;
	return e;
}

/* Call fn for every process with counters in the kernel (changed_only:
 * for those whose counters changed since the last call), pending copies
 * included. The slots are read after the map: a flush in between can make
 * one frame short, never count a copy twice. A flush sets the process's
 * changed bit after adding to its counters, and the bits are cleared
 * before the counters are read, so a change is never missed: at worst
 * read twice. */
int tracer__for_each(struct tracer *t, bool changed_only, tracer_proc_fn fn, void *ctx)
{
	int ncpus = t->ncpus > 0 ? t->ncpus : 1;
	struct cowtop_slot *slots = calloc(ncpus, sizeof(*slots));
	struct dump d = { 0 };
	bool have_slots;
	size_t i;
	int e;

	if (!slots)
		return -ENOMEM;
	e = dump_procs(t, changed_only, slots, ncpus, &d);
	/* Again, after the entries: the pending copies to add to them. */
	have_slots = !e && d.n > 0 && read_slots(t, slots);
	for (i = 0; !e && i < d.n; i++) {
		__u32 pid = ((const __u32 *)d.keys)[i];
		const struct cowtop_proc *v = &((const struct cowtop_proc *)d.vals)[i];
		struct tracer_proc p = {
			.pid = (int)pid, .ppid = (int)v->ppid,
			.start = ticks_of(t, v->start_ns), .exited = v->exited,
			.counts = counts_of(&v->counts),
			.inherited_kib = kib_of(t, v->inherited),
			.exit_status = v->exit_code,
			.oom = v->flags & COWTOP_PROC_OOM,
			.left = v->flags & COWTOP_PROC_LEFT,
			.reclaims = v->reclaims, .reclaim_s = v->reclaim_ns / 1e9,
		};

		if (have_slots && !p.exited)
			p.counts.cow += pending(slots, ncpus, pid);
		fn(&p, ctx);
	}
	dump__free(&d);
	free(slots);
	return e;
}

_Static_assert((int)COWTOP_STAT_RINGBUF_LOST == (int)LOST_RINGBUF &&
	       (int)COWTOP_STAT_MAP_FULL == (int)LOST_MAP_FULL &&
	       (int)COWTOP_STAT_PHASE_FULL == (int)LOST_PHASE_FULL &&
	       (int)COWTOP_STAT_REGION_FULL == (int)LOST_REGION_FULL &&
	       (int)COWTOP_STAT_MAX == (int)LOST_KINDS, "the kernel's loss kinds are cowtop's");

/* Records and processes lost since start, summed, and by kind. */
unsigned long long tracer__lost(struct tracer *t, unsigned long long by_kind[LOST_KINDS])
{
	int fd = bpf_map__fd(t->skel->maps.stats);
	__u64 total = 0, v[t->ncpus > 0 ? t->ncpus : 1];
	__u32 k;
	int c;

	for (k = 0; k < COWTOP_STAT_MAX; k++) {
		__u64 kind = 0;

		if (bpf_map_lookup_elem(fd, &k, v) == 0)
			for (c = 0; c < t->ncpus; c++)
				kind += v[c];
		if (k == COWTOP_STAT_MAP_FULL) /* those found in /proc, refused by user space */
			kind += t->refused;
		if (by_kind)
			by_kind[k] = kind;
		total += kind;
	}
	return total;
}

/* Run time of the loaded programs as the kernel counts it. Without
 * kernel.bpf_stats_enabled no program has a run counted: no data. */
int tracer__bpf_run_seconds(struct tracer *t, double *seconds)
{
	unsigned long long ns = 0, runs = 0;
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, t->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		ns += info.run_time_ns;
		runs += info.run_cnt;
	}
	*seconds = ns / 1e9;
	return runs ? 0 : -ENODATA;
}

/* Call fn for every (process, phase) copy counter held in the kernel. */
int tracer__for_each_phase(struct tracer *t, bool changed_only, tracer_split_fn fn, void *ctx)
{
	/* Cleared before the read, as for the region map. */
	bool dirty = __atomic_exchange_n(&t->skel->bss->phases_dirty, 0, __ATOMIC_SEQ_CST);
	struct dump d;
	size_t i;
	int e;

	if (changed_only && !dirty && t->phases_read)
		return 0;
	e = dump__read(bpf_map__fd(t->skel->maps.phase_cow), sizeof(struct cowtop_phase_key),
		     sizeof(__u64), &d);
	t->phases_read = !e;

	for (i = 0; !e && i < d.n; i++) {
		const struct cowtop_phase_key *k = &((const struct cowtop_phase_key *)d.keys)[i];

		fn((int)k->tgid, k->start, (int)k->phase, ((const __u64 *)d.vals)[i], ctx);
	}
	dump__free(&d);
	return e;
}

/* The per-phase copy counters of pid's process that started at start
 * (zeros where none). */
void tracer__phases_of(struct tracer *t, int pid, unsigned long long start,
		       unsigned long long out[PHASE_MAX])
{
	struct cowtop_phase_key k = { .tgid = pid, .start = start };
	int fd = bpf_map__fd(t->skel->maps.phase_cow);

	memset(out, 0, COWTOP_PHASE_MAX * sizeof(*out));
	if (!t->skel->rodata->usdt_enabled)
		return;
	for (k.phase = 1; k.phase < COWTOP_PHASE_MAX; k.phase++)
		if (bpf_map_lookup_elem(fd, &k, &out[k.phase]))
			out[k.phase] = 0;
}

/* Call fn for every (process, stack) page counter held in the kernel. */
int tracer__for_each_stack(struct tracer *t, tracer_stack_fn fn, void *ctx)
{
	struct dump d;
	size_t i;
	int e = dump__read(bpf_map__fd(t->skel->maps.stack_pages), sizeof(struct cowtop_stack_key),
			 sizeof(__u64), &d);

	for (i = 0; !e && i < d.n; i++) {
		const struct cowtop_stack_key *k = &((const struct cowtop_stack_key *)d.keys)[i];

		fn((int)k->tgid, k->stack_id, ((const __u64 *)d.vals)[i], ctx);
	}
	dump__free(&d);
	return e;
}

/* The user addresses of a captured stack, innermost first. */
int tracer__stack_ips(struct tracer *t, unsigned stack_id, unsigned long long *ips, int max)
{
	__u64 v[COWTOP_STACK_DEPTH];
	__u32 key = stack_id;
	int i;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stack_map), &key, v))
		return 0;
	for (i = 0; i < COWTOP_STACK_DEPTH && i < max && v[i]; i++)
		ips[i] = v[i];
	return i;
}

/* The capture counters, summed over CPUs. */
void tracer__stack_stats(struct tracer *t, struct tracer_stack_stats *out)
{
	int fd = bpf_map__fd(t->skel->maps.stack_stats), ncpus = t->ncpus > 0 ? t->ncpus : 1;
	unsigned long long sum[COWTOP_STACK_STAT_MAX] = { 0 };
	__u64 v[ncpus];
	__u32 k;
	int c;

	for (k = 0; k < COWTOP_STACK_STAT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (c = 0; c < ncpus; c++)
			sum[k] += v[c];
	}
	out->taken = sum[COWTOP_STACK_TAKEN];
	out->collided = sum[COWTOP_STACK_COLLIDED];
	out->unwalked = sum[COWTOP_STACK_UNWALKED];
	out->uncounted = sum[COWTOP_STACK_UNCOUNTED];
	out->failed = out->collided + out->unwalked + out->uncounted;
	out->ns = sum[COWTOP_STACK_NS];
	out->skipped = sum[COWTOP_STACK_SKIPPED];
	out->copies = sum[COWTOP_STACK_COPIES];
}

/* Drop the page counter of (pid, stack id), once read for the last time. */
void tracer__forget_stack(struct tracer *t, int pid, unsigned stack_id)
{
	struct cowtop_stack_key key = { .tgid = pid, .stack_id = stack_id };

	bpf_map_delete_elem(bpf_map__fd(t->skel->maps.stack_pages), &key);
}

/* Call fn for every stack id the kernel's stack map holds; fn must not
 * drop one (a walk from an id gone starts over). 0 or -errno. */
int tracer__for_each_stack_id(struct tracer *t, void (*fn)(unsigned id, void *ctx), void *ctx)
{
	int fd = bpf_map__fd(t->skel->maps.stack_map), e;
	__u32 key, next;

	for (e = bpf_map_get_next_key(fd, NULL, &next); !e; e = bpf_map_get_next_key(fd, &key, &next)) {
		fn(next, ctx);
		key = next;
	}
	return e == -ENOENT ? 0 : e;
}

/* How many stack ids there can be: ids are below this (the kernel's buckets,
 * its entries rounded up to a power of two). */
unsigned tracer__stack_ids(const struct tracer *t)
{
	unsigned n = bpf_map__max_entries(t->skel->maps.stack_map), p = 1;

	while (p < n && p < (1u << 31))
		p <<= 1;
	return p;
}

/* Free the captured stack id, no counter referring to it any more: a new
 * stack can take its place. */
void tracer__drop_stack(struct tracer *t, unsigned stack_id)
{
	__u32 key = stack_id;

	bpf_map_delete_elem(bpf_map__fd(t->skel->maps.stack_map), &key);
}
