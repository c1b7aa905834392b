/* SPDX-License-Identifier: GPL-2.0 */
/* The watch set: which processes cowtop counts (a bit per tgid tested on
 * the per-fault path, then the process map), the processes the map refused,
 * the entries that changed since user space looked, and the events that
 * carry an entry's counts to user space at fork, exec, exit and cgroup
 * moves. Included by cowtop.bpf.c after its maps. */
#ifndef COWTOP_WATCH_BPF_H
#define COWTOP_WATCH_BPF_H

/* One bit per tgid: is it watched? A plain array test on the per-fault path,
 * so processes nobody watches never reach a hash lookup. Set by the fork
 * handler and by user space (the array is memory-mapped), cleared at exit.
 * Tgids beyond the bitmap alias; a stale or aliased bit only costs a lookup. */
__u64 watch_bits[COWTOP_WATCH_WORDS] = {};
/* The processes whose map entry changed since user space last looked, one
 * bit a tgid as in watch_bits: between its reads of the whole map, user
 * space reads only these (and the ones in the per-CPU slots). */
__u64 changed_bits[COWTOP_WATCH_WORDS] = {};
/* The processes the process map had no room for, one bit a tgid. One
 * refused stays out for its whole life (counts from the middle of it would
 * be wrong) and is counted once: set at the refusal (by user space too, for
 * a process found in /proc), cleared at its exit and when its pid is forked
 * anew. */
__u64 refused_bits[COWTOP_WATCH_WORDS] = {};

/* Whether tgid may be watched (exact unless bits alias). */
static __always_inline bool watched(__u32 tgid)
{
	return watch_all ||
	       (watch_bits[(tgid / 64) % COWTOP_WATCH_WORDS] & (1ULL << (tgid % 64)));
}

/* Set or clear the watched bit of tgid. */
static __always_inline void watch_bit(__u32 tgid, bool on)
{
	__u64 *w = &watch_bits[(tgid / 64) % COWTOP_WATCH_WORDS];
	__u64 bit = 1ULL << (tgid % 64);

	if (on)
		__sync_fetch_and_or(w, bit);
	else
		__sync_fetch_and_and(w, ~bit);
}

/* Say that tgid's entry changed. Tested first: the bit is most often set
 * already, and a plain load costs less than an atomic operation. */
static __always_inline void mark_changed(__u32 tgid)
{
	__u64 *w = &changed_bits[(tgid / 64) % COWTOP_WATCH_WORDS];
	__u64 bit = 1ULL << (tgid % 64);

	if (!(*w & bit))
		__sync_fetch_and_or(w, bit);
}

/* Count one loss of kind idx. */
static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += 1;
}

/* Whether the process map refused tgid. */
static __always_inline bool refused(__u32 tgid)
{
	return refused_bits[(tgid / 64) % COWTOP_WATCH_WORDS] & (1ULL << (tgid % 64));
}

/* The process map has no room for tgid: count it, once in its life. */
static __always_inline void refuse(__u32 tgid)
{
	__u64 *w = &refused_bits[(tgid / 64) % COWTOP_WATCH_WORDS];
	__u64 bit = 1ULL << (tgid % 64);

	if (!(__sync_fetch_and_or(w, bit) & bit))
		stat_inc(COWTOP_STAT_MAP_FULL);
}

/* tgid is a new process, or gone: no longer refused. */
static __always_inline void unrefuse(__u32 tgid)
{
	if (refused(tgid))
		__sync_fetch_and_and(&refused_bits[(tgid / 64) % COWTOP_WATCH_WORDS],
				     ~(1ULL << (tgid % 64)));
}

/* Start time of a task's thread group, as the kernel keeps it. */
static __always_inline __u64 group_start_ns(struct task_struct *task)
{
	return BPF_CORE_READ(task, group_leader, start_boottime);
}

/* Add tgid to the watched map with zeroed counts; flags as for map update.
 * NULL when the map has no room: tgid is refused. */
static __always_inline struct cowtop_proc *proc_add(__u32 tgid, __u32 ppid, __u64 start_ns,
						    __u64 inherited, __u64 flags)
{
	struct cowtop_proc p = { .start_ns = start_ns, .ppid = ppid, .inherited = inherited };
	long err = bpf_map_update_elem(&procs, &tgid, &p, flags);

	if (err && err != -17 /* EEXIST */) {
		refuse(tgid);
		return NULL;
	}
	mark_changed(tgid);
	return bpf_map_lookup_elem(&procs, &tgid);
}

/* The counters of tgid, or NULL when it is not watched. In watch-all mode a
 * process seen for the first time gets an entry. */
static __always_inline struct cowtop_proc *proc_get(__u32 tgid)
{
	struct cowtop_proc *p = bpf_map_lookup_elem(&procs, &tgid);
	struct task_struct *task;

	if (p || !watch_all || refused(tgid))
		return p; /* a refused process is not tried again at every copy */
	task = (struct task_struct *)bpf_get_current_task();
	/* An exiting thread's last writes (clear_child_tid) may come after its
	 * process's exit dropped the entry: no new entry for a dying process. */
	if (BPF_CORE_READ(task, flags) & PF_EXITING)
		return NULL;
	return proc_add(tgid, BPF_CORE_READ(task, real_parent, tgid),
			group_start_ns(task), COWTOP_INHERITED_UNKNOWN, BPF_NOEXIST);
}

/* Send one event about task (a group leader or any of its threads). */
static __always_inline bool emit(__u32 type, __u32 pid, struct task_struct *task,
				 struct cowtop_proc *p, __u64 inherited)
{
	struct cowtop_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(COWTOP_STAT_RINGBUF_LOST);
		return false;
	}
	e->type = type;
	e->pid = pid;
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->exit_code = BPF_CORE_READ(task, exit_code);
	e->start_ns = group_start_ns(task);
	if (p)
		e->counts = p->counts;
	else
		__builtin_memset(&e->counts, 0, sizeof(e->counts));
	e->inherited = inherited;
	e->flags = p ? p->flags : refused(pid) ? COWTOP_PROC_UNHELD : 0;
	e->pad = 0;
	e->reclaims = p ? p->reclaims : 0;
	e->reclaim_ns = p ? p->reclaim_ns : 0;
	BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
	bpf_ringbuf_submit(e, 0);
	return true;
}

#endif
