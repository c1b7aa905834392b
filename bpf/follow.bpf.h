/* SPDX-License-Identifier: GPL-2.0 */
/* Following processes: a fork by a watched process (or into the --cgroup
 * target) adds the child with its prefork baseline; exec and exit are
 * reported, and an exit puts what pends in every CPU's slot into the map
 * before the final record. Included by cowtop.bpf.c after cgroup.bpf.h. */
#ifndef COWTOP_FOLLOW_BPF_H
#define COWTOP_FOLLOW_BPF_H

/* Set once the first clone of first_clone_of has been taken. */
__u64 first_clone_taken = 0;

/* Whether a fork by parent_tgid creates a process cowtop must watch. With
 * --cgroup, whether the child starts in the target (clone3 can start it in
 * another cgroup than its parent's). */
static __always_inline bool fork_watched(__u32 parent_tgid, struct task_struct *child)
{
	if (cgroup_id)
		return in_target_cgroup(child);
	if (watched(parent_tgid) && (watch_all || bpf_map_lookup_elem(&procs, &parent_tgid)))
		return true;
	if (refused(parent_tgid))
		return true; /* its children are watched too: refused, and counted, in turn */
	if (first_clone_of && parent_tgid == first_clone_of)
		return __sync_val_compare_and_swap(&first_clone_taken, 0, 1) == 0;
	return false;
}

/* Anonymous pages mapped by task's address space (0 without one). The count
 * is the kernel's own, as summed for /proc's RssAnon minus the per-CPU
 * deltas not yet folded in: exact enough for a baseline, and a single read. */
static __always_inline __u64 anon_pages(struct task_struct *task)
{
	if (rss_layout == COWTOP_RSS_NONE)
		return COWTOP_INHERITED_UNKNOWN;
	return mm_counter(BPF_CORE_READ(task, mm), mm_anonpages);
}

/* The process task belongs to: its tgid in *tgid, and its entry in procs
 * (NULL if it is not watched). */
static __always_inline struct cowtop_proc *task_proc(struct task_struct *task, __u32 *tgid)
{
	*tgid = BPF_CORE_READ(task, tgid);
	return bpf_map_lookup_elem(&procs, tgid);
}

SEC("raw_tp/sched_process_fork")
int on_process_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct cowtop_proc *p;
	__u64 inherited;

	if (ctgid == ptgid)
		return 0; /* a new thread */
	unrefuse(ctgid); /* a new process on the pid */
	if (!fork_watched(ptgid, child))
		return 0; /* nobody we watch */
	/* The prefork baseline: what the child now shares with its parent. */
	inherited = anon_pages(parent);
	/* BPF_ANY: the pid may be a reused one whose old entry is still there. */
	p = proc_add(ctgid, BPF_CORE_READ(child, real_parent, tgid),
		     group_start_ns(child), inherited, BPF_ANY);
	if (p)
		watch_bit(ctgid, true);
	if (p && objects_enabled)
		obj_fork(ptgid, ctgid);
	emit(COWTOP_EV_FORK, ctgid, child, p, inherited);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int on_process_exec(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[0];
	__u32 tgid;
	struct cowtop_proc *p = task_proc(task, &tgid);

	if (region_hold == tgid)
		region_hold = 0;
	if (objects_enabled)
		obj_forget(tgid);
	if (p || watch_all)
		emit(COWTOP_EV_EXEC, tgid, task, p, COWTOP_INHERITED_UNKNOWN);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int on_process_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[0];
	__u32 tgid, zero = 0, tid;
	struct cowtop_proc *p = task_proc(task, &tgid);
	struct cowtop_slot *s;

	if (usdt_enabled) {
		tid = BPF_CORE_READ(task, pid);
		bpf_map_delete_elem(&thread_phase, &tid);
	}

	if (!p && refused(tgid) && BPF_CORE_READ(task, signal, live.counter) == 0) {
		unrefuse(tgid);
		watch_bit(tgid, false);
	}
	if (!p || (p->flags & COWTOP_PROC_LEFT) || BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0; /* not watched (or left the --cgroup target), or other threads live */
	s = bpf_map_lookup_elem(&slots, &zero);
	if (s && s->tgid == tgid)
		slot_settle(s);
	flush_everywhere(tgid);
	if (regions_enabled)
		regions_at_exit(tgid);
	p->exit_code = BPF_CORE_READ(task, exit_code);
	p->exited = 1;
	mark_changed(tgid);
	watch_bit(tgid, false);
	if (objects_enabled)
		obj_forget(tgid);
	/* The record has the final counts: the entry goes now, here, so that
	 * user space never deletes by pid an entry that a new process on the
	 * same pid may already have (a lookup and a delete are two steps). If
	 * the record was lost, the entry stays, exited, for the map walk. */
	if (emit(COWTOP_EV_EXIT, tgid, task, p, COWTOP_INHERITED_UNKNOWN))
		bpf_map_delete_elem(&procs, &tgid);
	return 0;
}

#endif
