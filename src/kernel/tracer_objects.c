/* The object sampler's maps (--objects): the runtime layout of each
 * process, and pages copied per (process, type, write kind). */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tracer.h"
#include "tracer_int.h"

/* Read the object of 1 copy in every (0: none), live. */
void tracer__set_objects(struct tracer *t, unsigned every)
{
	__atomic_store_n(&t->skel->bss->objects_every, every, __ATOMIC_RELAXED);
}

/* 0 when the sampler is off, else N of 1 copy in N. */
unsigned tracer__objects(const struct tracer *t)
{
	return __atomic_load_n(&t->skel->bss->objects_every, __ATOMIC_RELAXED);
}

/* Tell the kernel side pid's runtime layout. */
int tracer__set_runtime(struct tracer *t, int pid, int runtime, unsigned long long type_type)
{
	struct cowtop_rt rt = { .kind = (__u32)runtime, .type_type = type_type };
	__u32 key = (__u32)pid;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.obj_rt), &key, &rt, BPF_ANY))
		return -errno;
	return 0;
}

/* The runtime of the layout the kernel side holds for pid, or -1. */
int tracer__runtime(struct tracer *t, int pid)
{
	struct cowtop_rt rt;
	__u32 key = (__u32)pid;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.obj_rt), &key, &rt))
		return -1;
	return (int)rt.kind;
}

/* Call fn for every (process, type, write kind) counter. */
int tracer__for_each_object(struct tracer *t, tracer_obj_fn fn, void *ctx)
{
	int fd = bpf_map__fd(t->skel->maps.obj_pages);
	struct cowtop_obj_key key, next;
	void *prev = NULL;
	__u64 pages;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &pages))
			continue; /* deleted meanwhile */
		fn(&(struct tracer_obj){ .pid = (int)key.tgid, .start = key.start,
					 .runtime = key.runtime, .write = key.write,
					 .type = key.type, .klass = key.klass,
					 .klass_serial = key.klass_serial, .pages = pages }, ctx);
	}
	return errno == ENOENT ? 0 : -errno;
}

/* Drop every counter of (pid, start). */
void tracer__forget_objects(struct tracer *t, int pid, unsigned long long start)
{
	int fd = bpf_map__fd(t->skel->maps.obj_pages);
	struct cowtop_obj_key key, next;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (next.tgid == (__u32)pid && next.start == start) {
			bpf_map_delete_elem(fd, &next);
			continue; /* from the same position: the next key moved up */
		}
		key = next;
		prev = &key;
	}
}

/* The sampler's counters, summed over CPUs. */
void tracer__object_stats(struct tracer *t, struct tracer_obj_stats *out)
{
	int fd = bpf_map__fd(t->skel->maps.obj_stats), ncpus = t->ncpus > 0 ? t->ncpus : 1;
	unsigned long long sum[COWTOP_OBJ_STAT_MAX] = { 0 };
	__u64 v[ncpus];
	__u32 k;
	int c;

	for (k = 0; k < COWTOP_OBJ_STAT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (c = 0; c < ncpus; c++)
			sum[k] += v[c];
	}
	out->taken = sum[COWTOP_OBJ_TAKEN];
	out->failed = sum[COWTOP_OBJ_FAILED];
	out->ns = sum[COWTOP_OBJ_NS];
	out->skipped = sum[COWTOP_OBJ_SKIPPED];
	out->reads = sum[COWTOP_OBJ_READS];
	out->faults = sum[COWTOP_OBJ_FAULTS];
}
