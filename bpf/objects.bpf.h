/* SPDX-License-Identifier: GPL-2.0 */
/* The object sampler (--objects): for 1 write fault on a present page in
 * objects_every (or fewer, while the kernel's allowance is spent: allow.h)
 * of a process running a runtime cowtop knows, the runtime
 * object the written address falls in and the part of it written; counted
 * in obj_pages by (process, type, write kind) if the fault copies.
 *
 * Read in the kernel, at the fault: the write has not happened yet, so the
 * object is read as it was before it, and a child that exits a moment later
 * has still been read (user space reading afterwards would see neither).
 * Read at the fault's entry, not at the copy's allocation: a read through
 * the user mapping sets the page's accessed bit, and the kernel, finding
 * the PTE changed when it installs the copy (pte_same), throws the copy
 * away and lets the write fault again: measured, every sampled copy then
 * cost two allocations and counted twice. At the entry the kernel has not
 * read the PTE yet. Included by cowtop.bpf.c after its maps. */
#ifndef COWTOP_OBJECTS_BPF_H
#define COWTOP_OBJECTS_BPF_H

/* Set before load: --objects given (runtimes are detected and followed). */
const volatile bool objects_enabled = false;

/* 0 off; N: read the object of 1 copy in N. Writable (.bss). */
__u32 objects_every = 0;

/* The runtime layout of each process that has one (user space detects it;
 * a child inherits its parent's at fork; exec and exit drop it). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, COWTOP_PROCS_MIN);
	__type(key, __u32);
	__type(value, struct cowtop_rt);
} obj_rt SEC(".maps");

/* Pages copied per (process, type, write kind), scaled by the sampling. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, COWTOP_OBJ_KEYS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct cowtop_obj_key);
	__type(value, __u64);
} obj_pages SEC(".maps");

/* The object read at this CPU's fault in progress, until its allocation. */
struct obj_pending {
	__u32 tid;
	__u32 valid;
	__u64 addr; /* the fault's: a read at a fault that reused its page is
		       not taken by a later one's allocation */
	__u64 weight; /* the faults the read stands for (allow.h) */
	struct cowtop_obj_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct obj_pending);
} obj_pend SEC(".maps");

/* Samples taken, failed, time spent, declined, faults stood for
 * (objects.h); the per-CPU count of faults since the last read at index
 * COWTOP_OBJ_STAT_MAX. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COWTOP_OBJ_STAT_MAX + 1);
	__type(key, __u32);
	__type(value, __u64);
} obj_stats SEC(".maps");

/* CPython 3.11 (64-bit): pymalloc's pools are 16 KiB, pool-aligned, and
 * start with struct pool_header (48 bytes, POOL_OVERHEAD); blocks of size
 * class (szidx + 1) * 16 follow. Before a GC-tracked object's PyObject
 * comes its PyGC_Head (16 bytes), and before that, for types with a
 * managed dict, two pointers (dict, values). */
#define PY311_POOL 16384
#define PY311_POOL_OVERHEAD 48
#define PY311_TP_FLAGS 168 /* offsetof(PyTypeObject, tp_flags) */
#define PY311_HAVE_GC (1ULL << 14)
#define PY311_MANAGED_DICT (1ULL << 4)

struct py311_pool {
	__u32 count, pad;
	__u64 freeblock, nextpool, prevpool;
	__u32 arenaindex, szidx, nextoffset, maxnextoffset;
};

/* Add v to the sampler's counter idx of this CPU. */
static __always_inline void obj_stat_add(__u32 idx, __u64 v)
{
	__u64 *n = bpf_map_lookup_elem(&obj_stats, &idx);

	if (n)
		*n += v;
}

/* The kernel's hold on the reads' budget (allow.h). */
struct cowtop_allow objects_allow = {};

/* The weight of this fault if it is the 1 in every (<< the kernel's shift)
 * due to be read: the faults since the last read on this CPU; else 0. */
static __always_inline __u64 obj_due(__u32 every)
{
	__u32 idx = COWTOP_OBJ_STAT_MAX;
	__u64 *n = bpf_map_lookup_elem(&obj_stats, &idx);

	return n ? allow_due(&objects_allow, n, every) : 0;
}

/* Whether the allowance lets a read due at t0 start; if it does, the
 * count of faults starts again, else it goes on to the next read due. */
static __always_inline bool obj_allowed(__u64 t0)
{
	__u32 idx = COWTOP_OBJ_STAT_MAX;
	__u64 *n;

	if (!allow_take(&objects_allow, t0, sample_allow_ns)) {
		obj_stat_add(COWTOP_OBJ_SKIPPED, 1);
		return false;
	}
	n = bpf_map_lookup_elem(&obj_stats, &idx);
	if (n)
		*n = 0;
	return true;
}

/* Charge the time since t0 to the sampler: its counter and its allowance. */
static __always_inline void obj_charge(__u64 t0)
{
	__u64 ns = bpf_ktime_get_ns() - t0;

	allow_charge(&objects_allow, ns, sample_allow_ns);
	obj_stat_add(COWTOP_OBJ_NS, ns);
}

/* Whether t is a type object (its type is type, or a metaclass whose type
 * is type); its tp_flags in *flags. */
static __always_inline bool py311_is_type(__u64 t, __u64 type_type, __u64 *flags)
{
	__u64 meta = 0, mm = 0;

	if (!t || (t & 7) || t >= user_addr_end)
		return false;
	if (bpf_probe_read_user(&meta, sizeof(meta), (void *)(t + 8)))
		return false;
	if (meta != type_type &&
	    (!meta || (meta & 7) || bpf_probe_read_user(&mm, sizeof(mm), (void *)(meta + 8)) ||
	     mm != type_type))
		return false;
	return !bpf_probe_read_user(flags, sizeof(*flags), (void *)(t + PY311_TP_FLAGS));
}

/* The pymalloc object holding addr and the part of it written, into k. A
 * pool header that does not hold together leaves the write outside. */
static __noinline int py311_classify(__u64 addr, __u64 type_type, struct cowtop_obj_key *k)
{
	__u64 pool = addr & ~(__u64)(PY311_POOL - 1), off = addr - pool;
	__u64 size, blk, boff, pre, flags = 0, w[6] = {};
	struct py311_pool h;
	int i;

	k->type = COWTOP_PYT_NONE;
	k->write = COWTOP_W_OUTSIDE;
	if (bpf_probe_read_user(&h, sizeof(h), (void *)pool) || h.szidx >= 32)
		return 0;
	size = (h.szidx + 1) * 16;
	if (h.maxnextoffset != PY311_POOL - size || h.nextoffset < PY311_POOL_OVERHEAD ||
	    h.nextoffset > PY311_POOL || (h.nextoffset - PY311_POOL_OVERHEAD) % size ||
	    h.count > (PY311_POOL - PY311_POOL_OVERHEAD) / size)
		return 0;
	if (off < PY311_POOL_OVERHEAD) {
		k->type = COWTOP_PYT_POOL;
		k->write = COWTOP_W_HEADER;
		return 0;
	}
	blk = pool + PY311_POOL_OVERHEAD + (off - PY311_POOL_OVERHEAD) / size * size;
	boff = addr - blk;
	k->type = COWTOP_PYT_BLOCK;
	k->write = COWTOP_W_PAYLOAD;
	/* 48 bytes whatever the block's size (the loop below looks only within
	 * it): a size computed here is more than 6.1's verifier can bound */
	if (bpf_probe_read_user(w, sizeof(w), (void *)blk))
		return 0;
	/* The object starts 0, 16 or 32 bytes into its block, as its type says:
	 * the candidate whose ob_type is a type with that pre-header wins. */
	for (i = 0; i < 3; i++) {
		pre = i * 16;
		if (pre + 16 > size)
			break;
		if (!py311_is_type(w[i * 2 + 1], type_type, &flags))
			continue;
		if (((flags & PY311_HAVE_GC) ? 16 : 0) + ((flags & PY311_MANAGED_DICT) ? 16 : 0) != pre)
			continue;
		k->type = w[i * 2 + 1];
		if (boff < pre)
			k->write = (flags & PY311_HAVE_GC) && boff + 16 >= pre ? COWTOP_W_GC
									       : COWTOP_W_HEADER;
		else if (boff < pre + 8)
			k->write = COWTOP_W_REFCNT;
		else if (boff < pre + 16)
			k->write = COWTOP_W_HEADER;
		else
			k->write = COWTOP_W_PAYLOAD;
		return 0;
	}
	return 0;
}

/* Ruby 3.1 (64-bit, no variable-width allocation): heap page bodies are
 * 16 KiB, 16 KiB-aligned (HEAP_PAGE_SIZE in GC::INTERNAL_CONSTANTS of
 * Debian's 3.1.2; its struct heap_page says 409 slots); their first word
 * points to the page's struct heap_page, whose start field
 * (RB31_PAGE_START) is the first slot: the first multiple of the 40-byte
 * slot size after that word. A slot starts with struct RBasic: its flags
 * word holds its builtin type in its low 5 bits, the next word is its
 * class (klass). */
#define RB31_PAGE 16384
#define RB31_SLOT 40
#define RB31_PAGE_START 32 /* offsetof(struct heap_page, start): measured on Debian's 3.1 */
#define RB31_CLASS_SERIAL 32 /* offsetof(struct RClass, class_serial): measured likewise */
#define RB31_T_CLASS 0x02
#define RB31_FL_SINGLETON (1ULL << 12) /* FL_USER0 on a class */

/* The Ruby slot holding addr and the part of it written, into k. */
static __noinline int rb31_classify(__u64 addr, struct cowtop_obj_key *k)
{
	__u64 body = addr & ~(__u64)(RB31_PAGE - 1), page = 0, start, first = 0, slot, w[2] = {};
	__u64 c[RB31_SLOT / 8]; /* the class's slot */

	k->type = COWTOP_RBT_NONE;
	k->write = COWTOP_W_OUTSIDE;
	start = body + 8;
	start += (RB31_SLOT - start % RB31_SLOT) % RB31_SLOT;
	if (addr < start || bpf_probe_read_user(&page, sizeof(page), (void *)body) || !page ||
	    (page & 7) || page >= user_addr_end ||
	    bpf_probe_read_user(&first, sizeof(first), (void *)(page + RB31_PAGE_START)) ||
	    first != start)
		return 0;
	slot = start + (addr - start) / RB31_SLOT * RB31_SLOT;
	if (slot + RB31_SLOT > body + RB31_PAGE || bpf_probe_read_user(w, sizeof(w), (void *)slot))
		return 0;
	/* w: RBasic's flags and klass (the class, read by user space) */
	k->type = w[0] & 0x1f;
	if (COWTOP_RB_KLASS_TYPES & (1U << k->type)) {
		k->klass = w[1]; /* validated by user space; 0: hidden from Ruby code */
		if (w[1] && !(w[1] & 7) && w[1] < user_addr_end &&
		    !bpf_probe_read_user(c, sizeof(c), (void *)w[1])) {
			/* one singleton class per object: all counted as one */
			if ((c[0] & 0x1f) == RB31_T_CLASS && (c[0] & RB31_FL_SINGLETON))
				k->klass = COWTOP_RB_SINGLETON;
			else
				k->klass_serial = c[RB31_CLASS_SERIAL / 8];
		}
	}
	k->write = addr - slot < 8 ? COWTOP_W_FLAGS : COWTOP_W_SLOT;
	return 0;
}

/* A write fault on a present page of tgid (current), thread tid, at addr:
 * forget what the last fault read; if tgid runs a known runtime and this
 * fault is the 1 in every, read the object now, for obj_take. */
static __noinline int obj_fault(__u32 tgid, __u32 tid, __u64 addr, __u32 every)
{
	__u32 zero32 = 0;
	struct obj_pending *pd = bpf_map_lookup_elem(&obj_pend, &zero32);
	struct cowtop_obj_key k = { .tgid = tgid };
	struct task_struct *task;
	struct cowtop_rt *rt;
	__u64 t0, w;

	if (!pd)
		return 0;
	pd->valid = 0;
	rt = bpf_map_lookup_elem(&obj_rt, &tgid);
	if (!rt || rt->kind == COWTOP_RT_NONE)
		return 0;
	w = obj_due(every);
	if (!w)
		return 0;
	t0 = bpf_ktime_get_ns();
	if (!obj_allowed(t0))
		return 0;
	obj_stat_add(COWTOP_OBJ_READS, 1);
	obj_stat_add(COWTOP_OBJ_FAULTS, w);
	k.runtime = rt->kind;
	if (rt->kind == COWTOP_RT_PY311) {
		py311_classify(addr, rt->type_type, &k);
	} else if (rt->kind == COWTOP_RT_RUBY31) {
		rb31_classify(addr, &k);
	} else {
		k.type = 0;
		k.write = COWTOP_W_UNKNOWN;
	}
	task = bpf_get_current_task_btf();
	k.start = task->group_leader->start_boottime / ns_per_tick;
	pd->key = k;
	pd->tid = tid;
	pd->addr = addr;
	pd->weight = w;
	pd->valid = 1;
	obj_charge(t0);
	return 0;
}

/* The fault of thread tid at addr copied pages: count them, scaled by the
 * faults its read stands for, under the object its fault read, if it read
 * one. */
static __noinline int obj_take(__u32 tid, __u64 addr, __u64 pages)
{
	__u32 zero32 = 0;
	struct obj_pending *pd = bpf_map_lookup_elem(&obj_pend, &zero32);
	__u64 t0, zero = 0, *n;
	struct cowtop_obj_key k;

	if (!pd || !pd->valid || pd->tid != tid || pd->addr != addr)
		return 0;
	pd->valid = 0;
	t0 = bpf_ktime_get_ns();
	k = pd->key;
	n = bpf_map_lookup_elem(&obj_pages, &k);
	if (!n) {
		bpf_map_update_elem(&obj_pages, &k, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&obj_pages, &k);
	}
	if (n) {
		__sync_fetch_and_add(n, pages * pd->weight);
		obj_stat_add(COWTOP_OBJ_TAKEN, 1);
	} else {
		obj_stat_add(COWTOP_OBJ_FAILED, 1);
	}
	obj_charge(t0);
	return 0;
}

/* A forked child runs its parent's runtime, at the same addresses. */
static __always_inline void obj_fork(__u32 ptgid, __u32 ctgid)
{
	struct cowtop_rt *rt = bpf_map_lookup_elem(&obj_rt, &ptgid);

	if (rt)
		bpf_map_update_elem(&obj_rt, &ctgid, rt, BPF_ANY);
}

/* An exec or an exit: the layout known of tgid is gone. */
static __always_inline void obj_forget(__u32 tgid)
{
	bpf_map_delete_elem(&obj_rt, &tgid);
}

#endif
