// SPDX-License-Identifier: GPL-2.0
/* cowtop's kernel side: counts copy-on-write copies per watched process in
 * maps and follows watched processes across fork, exec and exit.
 *
 * Detection ("fault+alloc" mechanism): a write fault on a present page
 * (error_code & 3 == 3) is remembered in a per-CPU slot; the next movable page
 * allocation by the same thread while it is still inside that fault is the new
 * page of a copy. A flagged fault that ends without an allocation was resolved
 * by reusing the page. Every fault clears the slot, so a flag never outlives
 * the fault that set it. Faults of processes nobody watches are never
 * flagged, so their allocations return at the first test.
 *
 * A write to a page NOT present is flagged too, and counted as a copy only
 * when its allocation is movable, not zeroed (__GFP_ZERO) and the address is
 * in a private file mapping: the kernel then copies the page-cache page into
 * a new private page (do_cow_fault), sharing lost just the same (a child
 * writing a page of a private file mapping its parent had only read, ld.so
 * relocating a library). Anonymous first touches allocate zeroed pages (or
 * land outside file mappings) and stay uncounted, as before: neither a zero
 * fill nor a copy. A not-present write that allocates nothing is no reuse.
 *
 * Regions: each copy is classified by the VMA holding the faulting address
 * (heap, stack, anon, file dev:ino), looked up with bpf_find_vma from the
 * allocation hook and cached per CPU while the address space's mmap lock
 * sequence says no VMA changed; counts pend per CPU like acc (cowtop.h).
 *
 * One object, one skeleton: this file holds what user space sets before
 * load and the maps every part uses; the parts, one job each, are included
 * at the end in the order they call each other. */
#include "core.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "cowtop.h"

#define COWTOP_MAX_CPUS 512

char LICENSE[] SEC("license") = "GPL";

/* Set by user space between open and load. */
const volatile bool watch_all = false;     /* count every process */
const volatile __u32 first_clone_of = 0;   /* --track-first-clone PID */
const volatile __u32 gfp_movable = 0x08;   /* __GFP_MOVABLE of this kernel */
const volatile __u32 gfp_zero = 0x100;     /* __GFP_ZERO of this kernel */
const volatile __u64 user_addr_end = 0x00007ffffffff000ULL;
const volatile bool usdt_enabled = false;  /* -u given: count copies per phase */
const volatile bool regions_enabled = true; /* split copies by memory region */
const volatile __u32 nr_cpus = 1;          /* possible CPUs, for flushes at exit */
const volatile __u32 mm_anonpages = 1;     /* MM_ANONPAGES of this kernel (an anonymous enum) */
const volatile __u64 ns_per_tick = 10000000; /* user space's start times are in clock ticks */
const volatile __u32 fault_end = COWTOP_FAULT_END_FLAG; /* enum cowtop_fault_end */
/* --cgroup: watch the processes of one cgroup subtree. cgroup_id is its
 * directory's id (0: no such target), cgroup_level its depth below the
 * hierarchy's root, cgroup_subsys the v1 controller whose hierarchy holds it
 * (its id, e.g. memory_cgrp_id), or -1 for cgroup v2. */
const volatile __u64 cgroup_id = 0;
const volatile __u32 cgroup_level = 0;
const volatile __s32 cgroup_subsys = -1;

/* Set after every add to the region map, or to the phase map, and cleared
 * by user space before it reads that map: a map nothing was added to since
 * is not read again (a read walks every bucket, empty ones included). */
__u32 regions_dirty = 0, phases_dirty = 0;

/* Say *flag after a map write: a load, and a store only when user space
 * has cleared it, so a busy path does not keep taking the line. */
static __always_inline void set_dirty(__u32 *flag)
{
	if (!*flag)
		*flag = 1;
}

/* --sample-budget: the nanoseconds of each window the stack captures, and
 * (apart) the object reads, may spend; 0 no limit (allow.h). Writable
 * (.bss), set by user space with the budget. */
__u64 sample_allow_ns = 0;

#include "allow.h"      /* the kernel's hold on the samplers' CPU budget */
#include "shared.bpf.h" /* the process map, mm_counter() */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COWTOP_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* The write fault in progress on this CPU, and pending copies (cowtop.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cowtop_slot);
} slots SEC(".maps");

#include "objects.bpf.h"  /* the object sampler (--objects) */
#include "watch.bpf.h"    /* the watch set, the process map's entries, their events */
#include "regions.bpf.h"  /* copies by memory region */
#include "stacks.bpf.h"   /* copies by code path */
#include "phases.bpf.h"   /* USDT probes: phases and markers */
#include "mapped.bpf.h"   /* new executable mappings, for the -u probes in them */
#include "count.bpf.h"    /* the fault and allocation hooks that count copies */
#include "cgroup.bpf.h"   /* --cgroup: moves in and out of the target */
#include "follow.bpf.h"   /* fork, exec, exit */
#include "pressure.bpf.h" /* OOM kills, reclaim stalls */
