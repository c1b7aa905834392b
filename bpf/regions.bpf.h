/* SPDX-License-Identifier: GPL-2.0 */
/* Copies by memory region: each copy is classified by the VMA holding the
 * faulting address (heap, stack, anon, file dev:ino), looked up with
 * bpf_find_vma and cached per CPU while the address space's mmap lock
 * sequence says no VMA changed; counts pend per CPU like acc (cowtop.h) and
 * go to region_cow when the key changes or the process exits. Included by
 * cowtop.bpf.c after watch.bpf.h. */
#ifndef COWTOP_REGIONS_BPF_H
#define COWTOP_REGIONS_BPF_H

/* The command cowtop launched, until it execs: its copies before (cowtop's
 * own, behind the launch gate) are taken off its counts by user space, and
 * are not put in any region here. Set by user space, cleared at the exec. */
__u32 region_hold = 0;

/* Copies per process and region; the rest of a process's copies (no VMA,
 * pending when it exited, map full) is its "other". */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct cowtop_region_key);
	__type(value, __u64);
} region_cow SEC(".maps");

/* Names of the files of region_cow's keys (see cowtop.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, COWTOP_FILE_NAMES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct cowtop_file_key);
	__type(value, struct cowtop_file_name);
} file_names SEC(".maps");

/* What a VMA lookup found. */
struct vma_found {
	__u64 start_brk, brk, start_stack; /* of the address space, read before */
	__u64 lo, hi, dev, ino;
	__u32 kind;
};

/* Keep the name of the file dev:ino the first time a VMA of it is looked
 * up (a VMA cache miss, not every copy). */
static __always_inline void name_file(struct file *file, __u64 dev, __u64 ino)
{
	struct cowtop_file_key key = { .dev = dev, .ino = ino };
	struct cowtop_file_name v = {};

	if (bpf_map_lookup_elem(&file_names, &key))
		return;
	if (bpf_probe_read_kernel_str(v.name, sizeof(v.name), file->f_path.dentry->d_name.name) <= 0)
		return;
	bpf_map_update_elem(&file_names, &key, &v, BPF_NOEXIST);
}

/* bpf_find_vma callback: the kind of the VMA holding the address, with the
 * rules /proc/PID/maps uses to name [heap] and [stack]. A shared mapping
 * never copies: it is "other", so a not-present write there is not counted. */
static long vma_classify(struct task_struct *task, struct vm_area_struct *vma, struct vma_found *f)
{
	struct file *file = vma->vm_file;

	f->lo = vma->vm_start;
	f->hi = vma->vm_end;
	if (vma->vm_flags & VM_SHARED) {
		f->kind = COWTOP_REGION_OTHER;
	} else if (file) {
		struct inode *inode = file->f_inode;

		f->kind = COWTOP_REGION_FILE;
		f->dev = inode->i_sb->s_dev;
		f->ino = inode->i_ino;
		name_file(file, f->dev, f->ino);
	} else if (f->lo <= f->brk && f->hi >= f->start_brk) {
		f->kind = COWTOP_REGION_HEAP;
	} else if (f->lo <= f->start_stack && f->hi >= f->start_stack) {
		f->kind = COWTOP_REGION_STACK;
	} else {
		f->kind = COWTOP_REGION_ANON;
	}
	return 0;
}

/* The mmap lock sequence of mm, or 1 (odd: do not cache) on kernels
 * without a seqcount there. A direct load: mm is current's, reached through
 * a BTF pointer. */
static __always_inline __u32 mm_seq(struct mm_struct *mm)
{
	if (!bpf_core_field_exists(struct mm_struct___seq, mm_lock_seq))
		return 1;
	return ((struct mm_struct___seq *)mm)->mm_lock_seq.sequence;
}

/* The VMA cache missed: look the faulting address up, classify its VMA and
 * cache it (unless the address space is changing: odd sequence). */
static __noinline __u32 classify_slow(struct cowtop_slot *s, struct task_struct *task,
				      struct mm_struct *mm, __u32 seq)
{
	struct vma_found f = {};

	s->vma_misses++;
	s->vma_mm = 0;
	s->rkey_vma = 0; /* the pending key may not be the new VMA's */
	f.start_brk = mm->start_brk;
	f.brk = mm->brk;
	f.start_stack = mm->start_stack;
	if (bpf_find_vma(task, s->addr, vma_classify, &f, 0))
		return COWTOP_REGION_OTHER; /* no VMA, or the mmap lock was contended */
	s->vma_tgid = s->tgid;
	s->vma_seq = seq;
	s->vma_lo = f.lo;
	s->vma_hi = f.hi;
	s->vma_kind = f.kind;
	s->vma_dev = f.dev;
	s->vma_ino = f.ino;
	if (!(seq & 1))
		s->vma_mm = (__u64)mm;
	return f.kind;
}

/* The region of the slot's faulting address: from the slot's VMA cache
 * when the current address space has not changed since, else looked up
 * (and cached). dev and ino are in s->vma_dev/vma_ino for a file. task is
 * current, as a BTF pointer. */
static __always_inline __u32 classify(struct cowtop_slot *s, struct task_struct *task)
{
	struct mm_struct *mm = task->mm;
	__u32 seq;

	if (!mm)
		return COWTOP_REGION_OTHER;
	seq = mm_seq(mm);
	/* vma_seq is always even and vma_mm 0 when nothing is cached, so an
	 * odd (changing) sequence never matches. */
	if (s->vma_mm == (__u64)mm && s->vma_seq == seq && s->vma_tgid == s->tgid &&
	    s->addr >= s->vma_lo && s->addr < s->vma_hi) {
		s->vma_hits++;
		return s->vma_kind;
	}
	return classify_slow(s, task, mm, seq);
}

/* Add pages copied in one region to the map, if their process is still the
 * one counted there and has not exited (what pends at exit is its "other"). */
static __always_inline void region_flush(struct cowtop_region_key *key, __u64 start, __u64 pages)
{
	struct cowtop_proc *p;
	__u64 zero = 0, *n;
	long err;

	if (!pages)
		return;
	p = bpf_map_lookup_elem(&procs, &key->tgid);
	if (!p || p->exited || start < p->start_ns || start - p->start_ns >= ns_per_tick)
		return;
	n = bpf_map_lookup_elem(&region_cow, key);
	if (!n) {
		err = bpf_map_update_elem(&region_cow, key, &zero, BPF_NOEXIST);
		if (err && err != -17 /* EEXIST */) {
			stat_inc(COWTOP_STAT_REGION_FULL);
			return;
		}
		n = bpf_map_lookup_elem(&region_cow, key);
	}
	if (n) {
		__sync_fetch_and_add(n, pages);
		set_dirty(&regions_dirty);
	}
}

/* The copy changed the pending region key, or the VMA cache was refilled:
 * compare the key, and move what pended under the old key into the map
 * when it changes. */
static __noinline void region_switch(struct cowtop_slot *s, struct task_struct *task,
				     __u32 kind, __u64 pages)
{
	struct cowtop_region_key old;
	__u64 dev = 0, ino = 0, old_start, old_count;

	if (kind == COWTOP_REGION_FILE) {
		dev = s->vma_dev;
		ino = s->vma_ino;
	}
	/* The same key, of the same process: a new one on a reused pid starts
	 * its own count. */
	if (s->rkey.tgid == s->tgid && s->rkey.kind == kind && s->rkey.dev == dev &&
	    s->rkey.ino == ino && s->rcount < (1ULL << 62) &&
	    s->rstart == task->group_leader->start_boottime) {
		s->rcount += pages;
		s->rkey_vma = 1;
		return;
	}
	if (s->tgid == region_hold)
		return;
	old = s->rkey;
	old_start = s->rstart;
	old_count = s->rcount;
	s->rgen++;
	asm volatile("" ::: "memory");
	s->rkey.tgid = s->tgid;
	s->rkey.kind = kind;
	s->rkey.dev = dev;
	s->rkey.ino = ino;
	s->rstart = task->group_leader->start_boottime;
	s->rkey.start = s->rstart / ns_per_tick;
	s->rcount = pages;
	asm volatile("" ::: "memory");
	s->rgen++;
	s->rkey_vma = 1;
	region_flush(&old, old_start, old_count);
}

/* Count pages copied by the slot's process in a region (kind, as classify
 * just said): in the slot while the key stays the same, into the map when it
 * changes. The common case, a copy in the VMA the pending key came from, is
 * one test: rkey_vma. */
static __always_inline void region_add(struct cowtop_slot *s, struct task_struct *task,
				       __u32 kind, __u64 pages)
{
	if (kind == COWTOP_REGION_OTHER)
		return;
	if (s->rkey_vma && s->rcount < (1ULL << 62)) {
		s->rcount += pages;
		return;
	}
	region_switch(s, task, kind, pages);
}

/* Put tgid's region copies still pending in any CPU's slot into the map,
 * before its exit: a worker that copies in one region and exits never
 * switches keys, and all its copies were "other". Another CPU's slot is
 * read whole between two equal even generations and left as it is: when
 * that CPU moves on, its flush finds the process exited (or a newer one on
 * the pid) and drops it. This CPU's slot is emptied. */
static __always_inline void regions_at_exit(__u32 tgid)
{
	__u32 zero = 0, cpu, here = bpf_get_smp_processor_id(), gen;
	struct cowtop_region_key key;
	__u64 start, count;

	for (cpu = 0; cpu < COWTOP_MAX_CPUS && cpu < nr_cpus; cpu++) {
		struct cowtop_slot *s = bpf_map_lookup_percpu_elem(&slots, &zero, cpu);

		if (!s)
			continue;
		gen = s->rgen;
		asm volatile("" ::: "memory");
		key = s->rkey;
		start = s->rstart;
		count = s->rcount;
		asm volatile("" ::: "memory");
		if ((gen & 1) || gen != s->rgen || key.tgid != tgid || !count)
			continue;
		if (cpu == here) {
			s->rgen++;
			asm volatile("" ::: "memory");
			s->rcount = 0;
			s->rkey.tgid = 0;
			s->rkey_vma = 0;
			asm volatile("" ::: "memory");
			s->rgen++;
		}
		region_flush(&key, start, count);
	}
}

#endif
