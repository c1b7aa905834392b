// SPDX-License-Identifier: GPL-2.0
/* cowtop's task iterator: one read of it gives, for every watched process,
 * what /proc/PID/stat would (state, parent, RSS, VSZ, name, start time),
 * read from the same kernel fields, in one system call or a few instead of
 * an open, a read and a close per process. It shares the main object's
 * process map (user space hands its fd over before load), so "watched" means
 * the same thing on both sides.
 *
 * A process whose leader thread has exited while others still run has no
 * address space in its leader: a second record then carries the figures of
 * a thread that has one (COWTOP_TASK_THREAD).
 *
 * Told to (changed_only), it writes only the processes whose figures may
 * have changed since it last wrote them: a digest of the figures and of the
 * leader's run time is kept in the process's map entry. A process that has
 * not run keeps its name; its size can still change (reclaim), which the
 * passes of every process user space asks for now and then catch. */
#include "core.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "cowtop.h"

char LICENSE[] SEC("license") = "GPL";

/* rss_stat indexes of this kernel (anonymous enums), set before load. */
const volatile __u32 mm_filepages = 0;
const volatile __u32 mm_anonpages = 1;
const volatile __u32 mm_shmempages = 3;

#include "shared.bpf.h" /* the process map, mm_counter() */

/* Set by user space before each read: write only changed processes. */
volatile bool changed_only = false;
/* ... or every process of the machine, watched or not (the pass that finds
 * what runs at start, instead of a /proc walk); with discover_add, those
 * not watched yet are added to the map as user space would add them. */
volatile bool discover = false;
volatile bool discover_add = false;

/* /proc's state letter of task (fs/proc/array.c: the highest bit of the
 * reported state, an idle kernel thread as I). */
static __always_inline char state_letter(struct task_struct *task)
{
	static const char letters[] = "RSDTtXZPI";
	__u32 st = task->__state, rep;
	int i, idx = 0;

	rep = (st | (__u32)task->exit_state) & 0x7f;
	if (st == 0x402) /* TASK_IDLE */
		rep = 0x80;
	else if (st == 0x1000) /* TASK_RTLOCK_WAIT */
		rep = 0x2;
	for (i = 0; i < 8; i++)
		if (rep & (1u << i))
			idx = i + 1;
	return letters[idx];
}

/* A digest of what a leader's record says besides its name, and of the
 * time the leader has run (only a running task renames itself: /proc's
 * comm is writable by the task's own thread group only): equal digests,
 * nothing to write. Never 0 (an entry's "none yet"). */
static __always_inline __u64 digest(const struct cowtop_task_rec *r, __u64 runtime)
{
	__u64 h = r->rss * 0x9e3779b97f4a7c15ULL;

	h ^= (r->vm + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;
	h ^= ((__u64)r->ppid << 32 | (__u64)r->flags << 8 | (__u8)r->state) * 0x94d049bb133111ebULL;
	h ^= runtime * 0xd6e8feb86659fd93ULL;
	return h | 1;
}

/* The leader's pid in its innermost PID namespace (/proc's NSpid, last
 * field); 0 when it cannot be read. The level is bounded by the kernel's
 * MAX_PID_NS_LEVEL (32). */
static __always_inline __u32 ns_pid(struct task_struct *leader)
{
	struct pid *pid = BPF_CORE_READ(leader, thread_pid);
	unsigned int level;
	__u64 addr;
	int nr = 0;

	if (!pid)
		return 0;
	level = BPF_CORE_READ(pid, level);
	if (level > 32)
		return 0;
	addr = (__u64)pid + bpf_core_field_offset(struct pid, numbers) +
	       level * bpf_core_type_size(struct upid) + bpf_core_field_offset(struct upid, nr);
	bpf_probe_read_kernel(&nr, sizeof(nr), (void *)addr);
	return nr > 0 ? nr : 0;
}

/* Add tgid to the process map as user space's tracer__watch does (its
 * fork was before ours): the entry, or NULL when the map has no room. */
static __always_inline struct cowtop_proc *add_proc(__u32 tgid, const struct cowtop_task_rec *r)
{
	struct cowtop_proc p = { .start_ns = r->start_ns, .ppid = r->ppid,
				 .inherited = COWTOP_INHERITED_UNKNOWN };

	bpf_map_update_elem(&procs, &tgid, &p, BPF_NOEXIST);
	return bpf_map_lookup_elem(&procs, &tgid);
}

SEC("iter/task")
int dump_procs(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task, *leader;
	struct cowtop_task_rec r = {};
	struct cowtop_proc *e;
	struct mm_struct *mm;
	__u64 d, runtime;
	__u32 tgid;

	if (!task)
		return 0;
	tgid = task->tgid;
	leader = task->group_leader;
	/* Threads first, before the map lookup: most have nothing to say. */
	if (task != leader) {
		if (leader->mm || !task->mm)
			return 0; /* the leader's record says it all */
		r.flags = COWTOP_TASK_THREAD;
	}
	/* Every field before the lookup: after it, the verifier walks the
	 * paths of a found and of a missing entry apart, and each load of a
	 * kernel pointer costs it a search of the kernel's types (a load
	 * twice as long as with the fields read once). */
	if (leader->flags & PF_KTHREAD)
		r.flags |= COWTOP_TASK_KTHREAD;
	r.tgid = tgid;
	r.ppid = leader->real_parent->tgid;
	r.start_ns = leader->start_boottime;
	r.state = state_letter(task);
	mm = task->mm;
	if (mm) {
		r.rss = mm_counter(mm, mm_filepages) + mm_counter(mm, mm_anonpages) +
			mm_counter(mm, mm_shmempages);
		r.vm = mm->total_vm;
	}
	runtime = leader->se.sum_exec_runtime;
	e = bpf_map_lookup_elem(&procs, &tgid);
	if (!e) {
		if (!discover)
			return 0;
		if (discover_add && !(r.flags & COWTOP_TASK_THREAD)) {
			e = add_proc(tgid, &r);
			if (!e)
				r.flags |= COWTOP_TASK_REFUSED;
		}
		if (!e)
			r.flags |= COWTOP_TASK_UNWATCHED;
	}
	/* A thread's record (rare: an exited leader) is always written. */
	if (e && !(r.flags & COWTOP_TASK_THREAD)) {
		d = digest(&r, runtime);
		if (changed_only && e->seen == d)
			return 0;
		if (e->seen != d)
			r.flags |= COWTOP_TASK_CHANGED;
		e->seen = d;
	}
	/* It never changes: user space takes it from the first record. */
	if (discover && !(r.flags & COWTOP_TASK_THREAD))
		r.nspid = ns_pid(leader);
	/* The whole array: the kernel keeps comm NUL-terminated and padded
	 * (strscpy_pad), and a fixed-size read costs less than a string
	 * read's byte by byte copy. */
	bpf_probe_read_kernel(r.comm, sizeof(r.comm), leader->comm);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}
