/* SPDX-License-Identifier: GPL-2.0 */
/* What both BPF objects define alike: the process map (the task iterator
 * gets the main object's by fd, so the two definitions must match) and the
 * read of an address space's memory counter. Include after core.h, the
 * libbpf headers and cowtop.h. */
#ifndef COWTOP_SHARED_BPF_H
#define COWTOP_SHARED_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, COWTOP_PROCS_MAX);
	__type(key, __u32);
	__type(value, struct cowtop_proc);
} procs SEC(".maps");

/* The rss_stat counter idx of mm (MM_ANONPAGES...) as /proc reads it: the
 * folded count, never below 0 (percpu_counter_read_positive); 0 without
 * one. Only the per-CPU layout (6.2 on): a relocation against a type this
 * kernel lacks (the older struct mm_rss_stat) would make libbpf search the
 * modules' BTF, which needs CAP_SYS_ADMIN, so CAP_BPF + CAP_PERFMON alone
 * could not load the programs; older kernels report 0. */
static __always_inline __u64 mm_counter(struct mm_struct *mm, __u32 idx)
{
	__s64 n = 0;
	__u64 off;

	if (!mm || idx >= 4 || !bpf_core_field_exists(struct mm_struct, rss_stat))
		return 0;
	off = bpf_core_field_offset(struct mm_struct, rss_stat) +
	      idx * bpf_core_type_size(struct percpu_counter) +
	      bpf_core_field_offset(struct percpu_counter, count);
	bpf_probe_read_kernel(&n, sizeof(n), (char *)mm + off);
	return n > 0 ? n : 0;
}

#endif
