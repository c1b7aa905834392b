/* SPDX-License-Identifier: GPL-2.0 */
/* What both BPF objects define alike: the process map (the task iterator
 * gets the main object's by fd, so the two definitions must match; user
 * space sizes it from the machine before load, see COWTOP_PROCS_MIN) and the
 * read of an address space's memory counter. Include after core.h, the
 * libbpf headers and cowtop.h. */
#ifndef COWTOP_SHARED_BPF_H
#define COWTOP_SHARED_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, COWTOP_PROCS_MIN);
	/* Entries are allocated as processes come: the map costs its buckets
	 * (16 bytes each) until then, not max_entries full entries. */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct cowtop_proc);
} procs SEC(".maps");

/* The layout of mm->rss_stat (enum cowtop_rss_layout), set before load. */
const volatile __u32 rss_layout = COWTOP_RSS_PERCPU;

/* The rss_stat counter idx of mm (MM_ANONPAGES...) as /proc reads it, never
 * below 0: since 6.2 the folded count of a per-CPU counter
 * (percpu_counter_read_positive), before that a plain atomic. 0 without an
 * mm, or with COWTOP_RSS_NONE (user space then does not ask: it reads /proc
 * and calls baselines unknown). Only relocations rooted at mm_struct, which
 * every kernel has (see core.h). */
static __always_inline __u64 mm_counter(struct mm_struct *mm, __u32 idx)
{
	__s64 n = 0;
	__u64 off;

	if (!mm || idx >= 4)
		return 0;
	if (rss_layout == COWTOP_RSS_PERCPU && bpf_core_field_exists(struct mm_struct, rss_stat)) {
		off = bpf_core_field_offset(struct mm_struct, rss_stat) +
		      idx * bpf_core_type_size(struct percpu_counter) +
		      bpf_core_field_offset(struct percpu_counter, count);
	} else if (rss_layout == COWTOP_RSS_ATOMIC &&
		   bpf_core_field_exists(struct mm_struct___old, rss_stat)) {
		off = bpf_core_field_offset(struct mm_struct___old, rss_stat) +
		      idx * (bpf_core_field_size(struct mm_struct___old, rss_stat) / 4);
	} else {
		return 0;
	}
	bpf_probe_read_kernel(&n, sizeof(n), (char *)mm + off);
	return n > 0 ? n : 0;
}

#endif
