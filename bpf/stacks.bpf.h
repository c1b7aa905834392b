/* SPDX-License-Identifier: GPL-2.0 */
/* Copies by code path: the user stack of 1 copy in stacks_every (or fewer,
 * while the kernel's allowance is spent: allow.h), and the pages copied per
 * (process, stack), scaled by the sampling. Included by
 * cowtop.bpf.c after watch.bpf.h. */
#ifndef COWTOP_STACKS_BPF_H
#define COWTOP_STACKS_BPF_H

/* Copies by code path: 0 off, else capture the user stack of 1 copy in
 * stacks_every. Writable (.bss), so it is turned on and off while running. */
__u32 stacks_every = 0;

/* User stacks of sampled copies, and pages copied per (process, stack). */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, COWTOP_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, COWTOP_STACK_DEPTH * sizeof(__u64));
} stack_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4 * COWTOP_STACKS);
	__type(key, struct cowtop_stack_key);
	__type(value, __u64);
} stack_pages SEC(".maps");

/* Stack captures: taken, failed by cause, time spent, declined, copies
 * stood for (cowtop.h); and the per-CPU count of copies since the last capture, at
 * index COWTOP_STACK_STAT_MAX. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COWTOP_STACK_STAT_MAX + 1);
	__type(key, __u32);
	__type(value, __u64);
} stack_stats SEC(".maps");

/* The kernel's hold on the captures' budget (allow.h). */
struct cowtop_allow stacks_allow = {};

/* Add v to the stack counter idx of this CPU. */
static __always_inline void stack_stat_add(__u32 idx, __u64 v)
{
	__u64 *n = bpf_map_lookup_elem(&stack_stats, &idx);

	if (n)
		*n += v;
}

/* bpf_get_stackid's errors that mean the map had no room for a new stack
 * (the kernel's errno values; no libc here). */
#define STACK_EEXIST 17 /* the stack's bucket holds another stack */
#define STACK_ENOMEM 12 /* no free entry (a size not a power of two) */

/* Count pages copied by tgid under the current user stack, if the
 * allowance lets the capture start: a capture due at a weight of w copies
 * counts w times its pages, so totals estimate all copies. Declined, the
 * counter of copies goes on to the next capture, which stands for them. A
 * capture that started and failed (a collision in the map, a stack that
 * could not be walked, no room for its counter) ends its weight with it,
 * counted as failed by its cause: carried on, it would go to the next stack
 * this CPU captures, another process's as often as not. */
static __noinline int stack_count(void *ctx, __u32 tgid, __u64 pages, __u64 w)
{
	struct cowtop_stack_key key = { .tgid = tgid };
	__u64 t0 = bpf_ktime_get_ns(), zero = 0, *n, ns;
	__u32 idx = COWTOP_STACK_STAT_MAX;
	long id;

	if (!allow_take(&stacks_allow, t0, sample_allow_ns)) {
		stack_stat_add(COWTOP_STACK_SKIPPED, 1);
		return 0;
	}
	id = bpf_get_stackid(ctx, &stack_map, BPF_F_USER_STACK);
	if (id < 0) {
		bool full = id == -STACK_EEXIST || id == -STACK_ENOMEM;

		stack_stat_add(full ? COWTOP_STACK_COLLIDED : COWTOP_STACK_UNWALKED, 1);
		goto out;
	}
	key.stack_id = id;
	n = bpf_map_lookup_elem(&stack_pages, &key);
	if (!n) {
		bpf_map_update_elem(&stack_pages, &key, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&stack_pages, &key);
	}
	if (n) {
		__sync_fetch_and_add(n, pages * w);
		stack_stat_add(COWTOP_STACK_TAKEN, 1);
		stack_stat_add(COWTOP_STACK_COPIES, w);
	} else {
		stack_stat_add(COWTOP_STACK_UNCOUNTED, 1);
	}
out:
	n = bpf_map_lookup_elem(&stack_stats, &idx);
	if (n)
		*n = 0;
	ns = bpf_ktime_get_ns() - t0;
	allow_charge(&stacks_allow, ns, sample_allow_ns);
	stack_stat_add(COWTOP_STACK_NS, ns);
	return 0;
}

/* A copy of pages by tgid with stacks on at 1 in every: counted, and its
 * stack captured if it is the one due. The path of the copies not due: one
 * lookup, an add and a compare. */
static __always_inline void stack_sample(void *ctx, __u32 tgid, __u64 pages, __u32 every)
{
	__u32 idx = COWTOP_STACK_STAT_MAX;
	__u64 *n = bpf_map_lookup_elem(&stack_stats, &idx), w;

	if (!n)
		return;
	w = allow_due(&stacks_allow, n, every);
	if (w)
		stack_count(ctx, tgid, pages, w);
}

#endif
