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
 * a thread that has one (COWTOP_TASK_THREAD). */
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

SEC("iter/task")
int dump_procs(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task, *leader;
	struct cowtop_task_rec r = {};
	struct mm_struct *mm;
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
	if (!bpf_map_lookup_elem(&procs, &tgid))
		return 0;
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
	/* The whole array: the kernel keeps comm NUL-terminated and padded
	 * (strscpy_pad), and a fixed-size read costs less than a string
	 * read's byte by byte copy. */
	bpf_probe_read_kernel(r.comm, sizeof(r.comm), leader->comm);
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}
