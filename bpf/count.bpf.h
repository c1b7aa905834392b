/* SPDX-License-Identifier: GPL-2.0 */
/* Counting copies: a write fault of a watched process is flagged in this
 * CPU's slot; the next movable allocation by the same thread still inside
 * that fault is its copy (the detection is described in cowtop.bpf.c). The
 * copies pend in the slot (acc) and are added to the process's entry when
 * another process copies here, or at its exit; each copy is also split by
 * region, stack, runtime object and phase. Included by cowtop.bpf.c after
 * the parts it splits into. */
#ifndef COWTOP_COUNT_BPF_H
#define COWTOP_COUNT_BPF_H

/* The flagged fault in the slot ended without an allocation: a reuse. */
static __always_inline void slot_settle(struct cowtop_slot *s)
{
	struct cowtop_proc *p;

	__u32 flag = s->flagged;

	if (!flag)
		return;
	s->flagged = COWTOP_FLAG_NONE;
	if (flag != COWTOP_FLAG_PRESENT)
		return; /* a not-present write that allocated nothing: no reuse */
	/* Only the process that faulted may get a new entry (watch-all): the
	 * current task may be another one, whose start time must not be used. */
	if (s->tgid == bpf_get_current_pid_tgid() >> 32)
		p = proc_get(s->tgid);
	else
		p = bpf_map_lookup_elem(&procs, &s->tgid);
	if (p) {
		__sync_fetch_and_add(&p->counts.reuse, 1);
		mark_changed(s->tgid);
	}
}

/* Faults of task that have ended: handle_mm_fault counts each one as it
 * ends (mm_account_fault: min_flt or maj_flt), in the task's own struct. */
static __always_inline __u32 faults_ended(struct task_struct *task)
{
	return (__u32)(task->min_flt + task->maj_flt);
}

/* Common fault handler: settle the previous fault, flag this one if it is a
 * write to a user page of a watched process. */
static __always_inline int on_fault(__u64 addr, __u64 error_code, __u32 kernel)
{
	__u32 zero = 0;
	struct cowtop_slot *s = bpf_map_lookup_elem(&slots, &zero);
	__u64 id;

	if (!s)
		return 0;
	slot_settle(s);
	if (!(error_code & 2) || addr >= user_addr_end)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (!watched(id >> 32))
		return 0;
	s->tid = (__u32)id;
	s->tgid = id >> 32;
	s->kernel = kernel;
	s->addr = addr;
	s->flagged = (error_code & 1) ? COWTOP_FLAG_PRESENT : COWTOP_FLAG_ABSENT;
	if (objects_every && (error_code & 1) && !kernel)
		obj_fault(s->tgid, s->tid, addr, objects_every);
	if (fault_end == COWTOP_FAULT_END_COUNT)
		s->faults = faults_ended(bpf_get_current_task_btf());
	return 0;
}

SEC("raw_tp/page_fault_user")
int on_page_fault_user(struct bpf_raw_tracepoint_args *ctx)
{
	return on_fault(ctx->args[0], ctx->args[2], 0);
}

SEC("raw_tp/page_fault_kernel")
int on_page_fault_kernel(struct bpf_raw_tracepoint_args *ctx)
{
	return on_fault(ctx->args[0], ctx->args[2], 1);
}

/* True when task (current) is still inside the user fault that flagged the
 * slot. Where handle_mm_fault marks user faults in task->in_user_fault, that
 * bit; a direct load through the BTF pointer, no probe-read helper call on
 * this path, which runs for every copy. Kernels without the bit (built
 * without cgroup-v1 memory, 6.10 on) give the same answer from the count of
 * ended faults, unchanged since the flag; and since a fault that fails
 * (SIGSEGV, SIGBUS, OOM) is not counted, from the entry too: not in a
 * system call (a fault's saved orig_ax is -1) nor dumping core or exiting. */
static __always_inline bool in_user_fault(struct cowtop_slot *s, struct task_struct *task)
{
	struct pt_regs *regs;

	if (fault_end == COWTOP_FAULT_END_FLAG &&
	    bpf_core_field_exists(struct task_struct, in_user_fault))
		return BPF_CORE_READ_BITFIELD(task, in_user_fault);
	if (faults_ended(task) != s->faults || (task->flags & (PF_EXITING | PF_DUMPCORE)))
		return false;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	return regs && (long)regs->orig_ax < 0;
}

/* Add the pending copies packed in acc to their process, if it is still in
 * the map. */
static __always_inline void acc_flush(__u64 acc)
{
	__u32 tgid = COWTOP_ACC_TGID(acc);
	struct cowtop_proc *p;

	if (!COWTOP_ACC_COUNT(acc))
		return;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (p) {
		__sync_fetch_and_add(&p->counts.cow, COWTOP_ACC_COUNT(acc));
		mark_changed(tgid);
	}
}

/* Count pages copied by tgid on this CPU: in the slot while the same
 * process keeps copying here, into the map when another one starts. Only
 * this CPU adds to its slot, and only while the process runs, so the plain
 * store cannot race with a flush at that process's exit. */
static __always_inline void acc_add(struct cowtop_slot *s, __u32 tgid, __u64 pages)
{
	__u64 acc = s->acc;

	if (COWTOP_ACC_TGID(acc) == tgid && COWTOP_ACC_COUNT(acc) < 0x7fffffff) {
		s->acc = acc + pages;
		return;
	}
	acc = __sync_lock_test_and_set(&s->acc, ((__u64)tgid << 32) | pages);
	acc_flush(acc);
}

/* What a counted copy adds besides its process's count: its region (kind,
 * OTHER when not classified), a stack sample, its phase. Inlined in both the
 * hot path and alloc_slow. */
static __always_inline void count_split(struct bpf_raw_tracepoint_args *ctx, struct cowtop_slot *s,
					struct task_struct *task, __u32 kind, __u64 pages)
{
	region_add(s, task, kind, pages);
	if (stacks_every)
		stack_sample(ctx, s->tgid, pages, stacks_every);
	if (objects_every)
		obj_take(s->tid, s->addr, pages);
	if (usdt_enabled)
		phase_count(task, s->tgid, s->tid, pages);
}

/* The rare kinds of allocation in a flagged fault: a first write to a page
 * not present (counted only in a private file mapping), a zero fill, a copy
 * by a kernel-mode write, or a copy by a process this CPU's slot did not
 * count last (its entry is looked up, made in watch-all mode). */
static __noinline int alloc_slow(struct bpf_raw_tracepoint_args *ctx, struct cowtop_slot *s,
				 struct task_struct *task, __u32 flag)
{
	__u64 pages = 1ULL << (ctx->args[1] & 31);
	__u32 gfp = ctx->args[2], kind;
	struct cowtop_proc *p;

	if (flag == COWTOP_FLAG_ABSENT) {
		/* A first touch of anonymous memory allocates a zeroed page:
		 * not classified, not counted. */
		if (gfp & gfp_zero)
			return 0;
		kind = classify(s, task);
		if (kind != COWTOP_REGION_FILE)
			return 0; /* THP first touch, swap-in, shared mapping */
		if (!regions_enabled)
			kind = COWTOP_REGION_OTHER; /* counted, not split */
	} else if ((gfp & gfp_zero) || !regions_enabled) {
		kind = COWTOP_REGION_OTHER; /* a zero fill, or no regions asked */
	} else {
		kind = classify(s, task);
	}
	p = proc_get(s->tgid);
	if (!p)
		return 0;
	if (gfp & gfp_zero) {
		__sync_fetch_and_add(&p->counts.zero_fill, pages);
		mark_changed(s->tgid);
		return 0;
	}
	if (s->kernel) {
		__sync_fetch_and_add(&p->counts.cow, pages);
		__sync_fetch_and_add(&p->counts.cow_kernel, pages);
		mark_changed(s->tgid);
	} else {
		acc_add(s, s->tgid, pages);
	}
	count_split(ctx, s, task, kind, pages);
	return 0;
}

/* Every page allocation in the machine: returns at the first test unless
 * this CPU's slot holds a flagged fault. The common case after that, a user
 * write copying a present page of the process this CPU counted last, is
 * straight-line: no map lookup, no atomic operation, no helper call but the
 * one that gives the task. */
SEC("raw_tp/mm_page_alloc")
int on_mm_page_alloc(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 zero = 0;
	struct cowtop_slot *s = bpf_map_lookup_elem(&slots, &zero);
	struct task_struct *task;
	__u32 flag, gfp, kind;
	__u64 pages, acc;

	if (!s || !s->flagged)
		return 0;
	gfp = ctx->args[2];
	if (!(gfp & gfp_movable))
		return 0;
	task = bpf_get_current_task_btf();
	/* The thread that flagged the slot, still inside its user fault. */
	if (s->tid != task->pid || (!s->kernel && !in_user_fault(s, task)))
		return 0;
	flag = s->flagged;
	s->flagged = COWTOP_FLAG_NONE;
	pages = 1ULL << (ctx->args[1] & 31);
	acc = s->acc;
	if (flag != COWTOP_FLAG_PRESENT || (gfp & gfp_zero) || s->kernel ||
	    COWTOP_ACC_TGID(acc) != s->tgid || COWTOP_ACC_COUNT(acc) >= 0x7fffffff)
		return alloc_slow(ctx, s, task, flag);
	/* The hot path: this process copied on this CPU last time too. */
	s->acc = acc + pages;
	kind = regions_enabled ? classify(s, task) : COWTOP_REGION_OTHER;
	count_split(ctx, s, task, kind, pages);
	return 0;
}

/* Take tgid's pending copies from every CPU's slot into the map. */
static __always_inline void flush_everywhere(__u32 tgid)
{
	__u32 zero = 0, cpu;

	for (cpu = 0; cpu < COWTOP_MAX_CPUS && cpu < nr_cpus; cpu++) {
		struct cowtop_slot *s = bpf_map_lookup_percpu_elem(&slots, &zero, cpu);
		__u64 acc;

		if (!s)
			continue;
		acc = s->acc;
		if (COWTOP_ACC_TGID(acc) != tgid || !COWTOP_ACC_COUNT(acc))
			continue;
		/* Another CPU may be swapping its slot to a new process right now:
		 * take the pending count only if the slot still holds it. */
		if (__sync_val_compare_and_swap(&s->acc, acc, 0) == acc)
			acc_flush(acc);
	}
}

#endif
