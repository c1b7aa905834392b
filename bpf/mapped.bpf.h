/* SPDX-License-Identifier: GPL-2.0 */
/* New code in a watched process: an mmap() that leaves an executable file
 * mapping (the dynamic loader mapping a library's text at dlopen()) is
 * reported, so that user space looks for -u probes in that process's maps
 * at once, whatever its size did. Loaded only when -u names a probe by
 * provider alone (found in what processes map). Included by cowtop.bpf.c
 * after watch.bpf.h. */
#ifndef COWTOP_MAPPED_BPF_H
#define COWTOP_MAPPED_BPF_H

#define VM_EXEC 0x00000004UL

/* The number of mmap on this architecture, set by user space before load. */
const volatile __u32 mmap_nr = 9;

/* bpf_find_vma callback: whether the VMA is an executable file mapping. */
static long vma_exec_file(struct task_struct *task, struct vm_area_struct *vma, bool *exec)
{
	*exec = (vma->vm_flags & VM_EXEC) && vma->vm_file;
	return 0;
}

/* The end of an mmap() by the current task that returned ret: report it
 * when the task's process is watched and the new VMA is an executable file
 * mapping. */
static __always_inline int mapped_exit(__u64 ret)
{
	struct cowtop_map_event *e;
	bool exec = false;
	__u32 tgid;

	if (ret < 65536 || ret >= user_addr_end)
		return 0; /* an error, or no user address */
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!watched(tgid) || !bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	bpf_find_vma(bpf_get_current_task_btf(), ret, vma_exec_file, &exec, 0);
	if (!exec)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		stat_inc(COWTOP_STAT_RINGBUF_LOST);
		return 0;
	}
	e->type = COWTOP_EV_MAPPED;
	e->pid = tgid;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* The classic tracepoint syscalls:sys_exit_mmap: the kernel filters the
 * system call by number before any program runs. Attached through tracefs
 * (its id is read there), so used only where tracefs is mounted. */
struct sys_exit_args {
	__u64 common; /* type, flags, preempt count, pid */
	int nr;
	long ret;
};

SEC("tracepoint/syscalls/sys_exit_mmap")
int on_mmap_exit(struct sys_exit_args *ctx)
{
	return mapped_exit(ctx->ret);
}

/* The same from every system call's exit (raw_syscalls:sys_exit: a raw
 * tracepoint, attached by name, no tracefs needed), at about twice the
 * cost to every system call of the machine. */
SEC("raw_tp/sys_exit")
int on_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u64 ret = ctx->args[1];

	if (ret < 65536 || ret >= user_addr_end)
		return 0;
	if (BPF_CORE_READ(regs, orig_ax) != mmap_nr)
		return 0;
	return mapped_exit(ret);
}

#endif
