/* The kernel's copies per region, read for the collector: the region map
 * and the counts still pending in the per-CPU slots, merged under one key
 * each; the counters of forgotten processes deleted once read; the names of
 * the files copied in. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tracer_int.h"

/* One region counter as read, pending per-CPU counts added. */
struct region_count {
	struct cowtop_region_key key; /* first: compared as the whole entry's key */
	__u64 pages;
};

/* Region counters read at a walk. */
struct regions {
	struct region_count *v;
	size_t n, cap;
};

/* Append one counter; -ENOMEM when it does not fit. */
static int regions_push(struct regions *r, const struct cowtop_region_key *k, __u64 pages)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct region_count *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n].key = *k;
	r->v[r->n++].pages = pages;
	return 0;
}

/* Order forgotten processes by pid, then start time. */
static int cmp_gone(const void *x, const void *y)
{
	const struct tracer_gone *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

/* Order region counters by every field of their key. */
static int cmp_region(const void *x, const void *y)
{
	const struct cowtop_region_key *a = x, *b = y;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return (a->ino > b->ino) - (a->ino < b->ino);
}

/* Read the region map; keys of queued (forgotten) processes go to *gone too. */
static int read_regions(struct tracer *t, struct regions *r, struct regions *gone)
{
	struct dump d;
	size_t i;
	int e = dump__read(bpf_map__fd(t->skel->maps.region_cow), sizeof(struct cowtop_region_key),
			 sizeof(__u64), &d);

	for (i = 0; !e && i < d.n; i++) {
		const struct cowtop_region_key *key = &((const struct cowtop_region_key *)d.keys)[i];
		struct tracer_gone who = { key->tgid, key->start };

		e = regions_push(r, key, ((const __u64 *)d.vals)[i]);
		if (!e && t->ndrop && bsearch(&who, t->drop, t->ndrop, sizeof(*t->drop), cmp_gone))
			e = regions_push(gone, key, 0);
	}
	dump__free(&d);
	return e;
}

/* Whether the pending region count of a slot belongs to the process the
 * map counts under its tgid now (not to an exited one of a reused pid),
 * and still pends: at its exit the kernel put every pending count of the
 * process into the map, leaving other CPUs' slots as they were. */
static bool pending_is_current(struct tracer *t, const struct cowtop_slot *s)
{
	struct cowtop_proc p;
	__u32 key = s->rkey.tgid;

	return bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.procs), &key, &p) == 0 &&
	       !p.exited && ticks_of(t, p.start_ns) == ticks_of(t, s->rstart);
}

/* Add the region counts pending in the slots, read after the map (a flush
 * in between makes a frame short, never counts twice). The slots are read
 * twice: a CPU whose pending key was changing, or changed between the
 * reads, is left out rather than its count put under the wrong key. */
static int add_pending_regions(struct tracer *t, struct regions *r)
{
	int ncpus = t->ncpus > 0 ? t->ncpus : 1, fd = bpf_map__fd(t->skel->maps.slots), c, e = 0;
	struct cowtop_slot *a = calloc(ncpus, sizeof(*a)), *b = calloc(ncpus, sizeof(*b));
	size_t sorted = r->n;
	__u32 zero = 0;

	if (!a || !b || bpf_map_lookup_elem(fd, &zero, a) || bpf_map_lookup_elem(fd, &zero, b)) {
		free(t->region_slots); /* pending counts left out: the next call reads again */
		t->region_slots = NULL;
		e = -ENOMEM; /* the caller takes the counts as incomplete */
		goto out;
	}
	if (r->n > 1)
		qsort(r->v, r->n, sizeof(*r->v), cmp_region);
	for (c = 0; c < ncpus && !e; c++) {
		struct region_count *hit;

		if (!a[c].rcount || (a[c].rgen & 1) || a[c].rgen != b[c].rgen ||
		    !pending_is_current(t, &a[c]))
			continue;
		hit = sorted ? bsearch(&a[c].rkey, r->v, sorted, sizeof(*r->v), cmp_region) : NULL;
		if (hit)
			hit->pages += a[c].rcount;
		else
			e = regions_push(r, &a[c].rkey, a[c].rcount);
	}
	if (!e) { /* what the next call compares with (a CPU left out differs) */
		free(t->region_slots);
		t->region_slots = a;
		a = NULL;
	}
out:
	free(a);
	free(b);
	return e;
}

/* Whether the region counts pending in the slots are those the last read
 * added (a flush from a slot to the map sets regions_dirty). */
static bool pending_regions_same(struct tracer *t)
{
	int ncpus = t->ncpus > 0 ? t->ncpus : 1, c;
	struct cowtop_slot now[ncpus];
	__u32 zero = 0;

	if (!t->region_slots ||
	    bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.slots), &zero, now))
		return false;
	for (c = 0; c < ncpus; c++) {
		const struct cowtop_slot *x = &now[c], *y = &t->region_slots[c];

		if (x->rgen != y->rgen || x->rcount != y->rcount || x->rstart != y->rstart ||
		    memcmp(&x->rkey, &y->rkey, sizeof(x->rkey)))
			return false;
	}
	return true;
}

/* A region kind of the kernel's in cowtop's own type. */
static enum region_kind kind_of(__u32 k)
{
	switch (k) {
	case COWTOP_REGION_HEAP: return REGION_HEAP;
	case COWTOP_REGION_STACK: return REGION_STACK;
	case COWTOP_REGION_ANON: return REGION_ANON;
	case COWTOP_REGION_FILE: return REGION_FILE;
	default: return REGION_OTHER;
	}
}

/* Delete the keys of r from region map fd: in one system call where the
 * kernel can (exited processes leave several counters each, and a busy
 * machine has exits every tick), key by key where not. */
static void delete_keys(int fd, const struct regions *r)
{
	struct cowtop_region_key *keys;
	__u32 count = (__u32)r->n;
	size_t i;

	if (!r->n)
		return;
	keys = malloc(r->n * sizeof(*keys));
	if (keys) {
		for (i = 0; i < r->n; i++)
			keys[i] = r->v[i].key;
		/* ENOENT stops a batch: a key gone meanwhile leaves the rest */
		if (bpf_map_delete_batch(fd, keys, &count, NULL) == 0) {
			free(keys);
			return;
		}
		free(keys);
	}
	for (i = 0; i < r->n; i++)
		bpf_map_delete_elem(fd, &r->v[i].key);
}

/* Call fn for every (process, region) counter, pending copies included,
 * then drop the counters of the pids forgotten since the last walk. */
int tracer__for_each_region(struct tracer *t, bool changed_only, tracer_region_fn fn, void *ctx)
{
	int fd = bpf_map__fd(t->skel->maps.region_cow), e;
	struct regions r = { 0 }, gone = { 0 };
	/* Cleared before the map is read: an add during the read sets it
	 * again, and the next call reads the map again. */
	bool dirty = __atomic_exchange_n(&t->skel->bss->regions_dirty, 0, __ATOMIC_SEQ_CST);
	size_t i;

	if (changed_only && !dirty && !t->ndrop && t->regions_read && pending_regions_same(t))
		return 0;
	t->regions_read = false;
	if (t->ndrop > 1) /* qsort wants an array, even an empty one */
		qsort(t->drop, t->ndrop, sizeof(*t->drop), cmp_gone);
	e = read_regions(t, &r, &gone);
	if (!e)
		e = add_pending_regions(t, &r);
	for (i = 0; i < r.n; i++) {
		const struct cowtop_region_key *k = &r.v[i].key;
		/* The kernel's dev_t: major << 20 | minor. */
		struct tracer_region tr = {
			.pid = (int)k->tgid, .start = k->start, .kind = kind_of(k->kind),
			.dev = k->kind == COWTOP_REGION_FILE ? makedev(k->dev >> 20, k->dev & 0xfffff) : 0,
			.ino = k->kind == COWTOP_REGION_FILE ? k->ino : 0, .pages = r.v[i].pages,
		};

		fn(&tr, ctx);
	}
	delete_keys(fd, &gone);
	if (!e) {
		t->ndrop = 0; /* else a pid's counters may have been missed: try again */
		t->regions_read = true;
	}
	free(r.v);
	free(gone.v);
	return e;
}

int tracer__file_name(struct tracer *t, unsigned long long dev, unsigned long long ino, char *buf,
		      size_t len)
{
	/* The kernel's dev_t: major << 20 | minor. */
	struct cowtop_file_key key = { .dev = ((__u64)major(dev) << 20) | minor(dev), .ino = ino };
	struct cowtop_file_name v;

	if (!len)
		return -EINVAL;
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.file_names), &key, &v))
		return -errno;
	v.name[sizeof(v.name) - 1] = '\0';
	snprintf(buf, len, "%s", v.name);
	return 0;
}
