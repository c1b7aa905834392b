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

/* Every system call's exit (raw_syscalls:sys_exit: a raw tracepoint, attached
 * by name, no tracefs needed). Most return at the first test: a result that
 * is no user address (mmap returns one), then a process nobody watches. */
SEC("raw_tp/sys_exit")
int on_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u64 ret = ctx->args[1];
	struct cowtop_map_event *e;
	bool exec = false;
	__u32 tgid;

	if (ret < 65536 || ret >= user_addr_end)
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!watched(tgid) || BPF_CORE_READ(regs, orig_ax) != mmap_nr ||
	    !bpf_map_lookup_elem(&procs, &tgid))
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

#endif
