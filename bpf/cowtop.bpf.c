// SPDX-License-Identifier: GPL-2.0
/* cowtop's kernel side: counts copy-on-write copies per watched process in
 * maps and follows watched processes across fork, exec and exit.
 *
 * Detection ("fault+alloc" mechanism): a write fault on a present page
 * (error_code & 3 == 3) is remembered in a per-CPU slot; the next movable page
 * allocation by the same thread while it is still inside that fault is the new
 * page of a copy. A flagged fault that ends without an allocation was resolved
 * by reusing the page. Every fault clears the slot, so a flag never outlives
 * the fault that set it. Faults of processes nobody watches are never
 * flagged, so their allocations return at the first test.
 *
 * A write to a page NOT present is flagged too, and counted as a copy only
 * when its allocation is movable, not zeroed (__GFP_ZERO) and the address is
 * in a private file mapping: the kernel then copies the page-cache page into
 * a new private page (do_cow_fault), sharing lost just the same (a child
 * writing a page of a private file mapping its parent had only read, ld.so
 * relocating a library). Anonymous first touches allocate zeroed pages (or
 * land outside file mappings) and stay uncounted, as before: neither a zero
 * fill nor a copy. A not-present write that allocates nothing is no reuse.
 *
 * Regions: each copy is classified by the VMA holding the faulting address
 * (heap, stack, anon, file dev:ino), looked up with bpf_find_vma from the
 * allocation hook and cached per CPU while the address space's mmap lock
 * sequence says no VMA changed; counts pend per CPU like acc (cowtop.h). */
#include "core.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "cowtop.h"

#define COWTOP_MAX_CPUS 512

char LICENSE[] SEC("license") = "GPL";

/* Set by user space between open and load. */
const volatile bool watch_all = false;     /* count every process */
const volatile __u32 first_clone_of = 0;   /* --track-first-clone PID */
const volatile __u32 gfp_movable = 0x08;   /* __GFP_MOVABLE of this kernel */
const volatile __u32 gfp_zero = 0x100;     /* __GFP_ZERO of this kernel */
const volatile __u64 user_addr_end = 0x00007ffffffff000ULL;
const volatile bool usdt_enabled = false;  /* -u given: count copies per phase */
const volatile bool regions_enabled = true; /* split copies by memory region */
const volatile __u32 nr_cpus = 1;          /* possible CPUs, for flushes at exit */
const volatile __u32 mm_anonpages = 1;     /* MM_ANONPAGES of this kernel (an anonymous enum) */
const volatile __u64 ns_per_tick = 10000000; /* user space's start times are in clock ticks */
const volatile __u32 fault_end = COWTOP_FAULT_END_FLAG; /* enum cowtop_fault_end */
/* --cgroup: watch the processes of one cgroup subtree. cgroup_id is its
 * directory's id (0: no such target), cgroup_level its depth below the
 * hierarchy's root, cgroup_subsys the v1 controller whose hierarchy holds it
 * (its id, e.g. memory_cgrp_id), or -1 for cgroup v2. */
const volatile __u64 cgroup_id = 0;
const volatile __u32 cgroup_level = 0;
const volatile __s32 cgroup_subsys = -1;

/* The command cowtop launched, until it execs: its copies before (cowtop's
 * own, behind the launch gate) are taken off its counts by user space, and
 * are not put in any region here. Set by user space, cleared at the exec. */
__u32 region_hold = 0;

/* Copies by code path: 0 off, else capture the user stack of 1 copy in
 * stacks_every. Writable (.bss), so it is turned on and off while running. */
__u32 stacks_every = 0;

/* Set once the first clone of first_clone_of has been taken. */
__u64 first_clone_taken = 0;

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
/* Set after every add to the region map, or to the phase map, and cleared
 * by user space before it reads that map: a map nothing was added to since
 * is not read again (a read walks every bucket, empty ones included). */
__u32 regions_dirty = 0, phases_dirty = 0;

/* Say *flag after a map write: a load, and a store only when user space
 * has cleared it, so a busy path does not keep taking the line. */
static __always_inline void set_dirty(__u32 *flag)
{
	if (!*flag)
		*flag = 1;
}

#include "shared.bpf.h" /* the process map, mm_counter() */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COWTOP_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* The phase open in each thread of a watched process (USDT begin/end). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} thread_phase SEC(".maps");

/* The specs of the attached USDT probe sites, written by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, COWTOP_USDT_SPECS);
	__type(key, __u32);
	__type(value, struct cowtop_usdt_spec);
} usdt_specs SEC(".maps");

/* Copies made inside each phase, per process. Outside-phase copies are the
 * process's total less these. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct cowtop_phase_key);
	__type(value, __u64);
} phase_cow SEC(".maps");

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

/* The write fault in progress on this CPU, and pending copies (cowtop.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cowtop_slot);
} slots SEC(".maps");

/* User stacks of sampled copies, and pages copied per (process, stack). */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, COWTOP_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, COWTOP_STACK_DEPTH * sizeof(__u64));
} stack_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4 * COWTOP_STACKS);
	__type(key, struct cowtop_stack_key);
	__type(value, __u64);
} stack_pages SEC(".maps");

/* Stack captures: taken, failed, time spent (cowtop.h); and the per-CPU
 * count of copies since the last sample, at index COWTOP_STACK_STAT_MAX. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COWTOP_STACK_STAT_MAX + 1);
	__type(key, __u32);
	__type(value, __u64);
} stack_stats SEC(".maps");

#include "objects.bpf.h" /* the object sampler (--objects) */

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

/* Credit pages copied by thread tid of task's process to the phase it has
 * open, if any. */
static __always_inline void phase_count(struct task_struct *task, __u32 tgid, __u32 tid,
					__u64 pages)
{
	__u32 *phase = bpf_map_lookup_elem(&thread_phase, &tid);
	struct cowtop_phase_key key = { .tgid = tgid };
	__u64 zero = 0, *n;

	if (!phase)
		return;
	key.phase = *phase;
	key.start = task->group_leader->start_boottime / ns_per_tick;
	n = bpf_map_lookup_elem(&phase_cow, &key);
	if (!n) {
		bpf_map_update_elem(&phase_cow, &key, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&phase_cow, &key);
	}
	if (n) {
		__sync_fetch_and_add(n, pages);
		set_dirty(&phases_dirty);
	} else {
		stat_inc(COWTOP_STAT_PHASE_FULL);
	}
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

/* Add v to the stack counter idx of this CPU. */
static __always_inline void stack_stat_add(__u32 idx, __u64 v)
{
	__u64 *n = bpf_map_lookup_elem(&stack_stats, &idx);

	if (n)
		*n += v;
}

/* Whether this copy is the 1 in every that gets its stack taken. */
static __always_inline bool stack_sampled(__u32 every)
{
	__u32 idx = COWTOP_STACK_STAT_MAX;
	__u64 *n;

	if (every <= 1)
		return true;
	n = bpf_map_lookup_elem(&stack_stats, &idx);
	if (!n)
		return false;
	if (++*n < every)
		return false;
	*n = 0;
	return true;
}

/* Count pages copied by tgid under the current user stack. A sample of 1
 * in every counts every pages, so totals estimate all copies. */
static __noinline int stack_count(void *ctx, __u32 tgid, __u64 pages, __u32 every)
{
	struct cowtop_stack_key key = { .tgid = tgid };
	__u64 t0 = bpf_ktime_get_ns(), zero = 0, *n;
	long id;

	id = bpf_get_stackid(ctx, &stack_map, BPF_F_USER_STACK);
	if (id < 0) {
		stack_stat_add(COWTOP_STACK_FAILED, 1);
		goto out;
	}
	key.stack_id = id;
	n = bpf_map_lookup_elem(&stack_pages, &key);
	if (!n) {
		bpf_map_update_elem(&stack_pages, &key, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&stack_pages, &key);
	}
	if (n) {
		__sync_fetch_and_add(n, pages * (every ? every : 1));
		stack_stat_add(COWTOP_STACK_TAKEN, 1);
	} else {
		stack_stat_add(COWTOP_STACK_FAILED, 1);
	}
out:
	stack_stat_add(COWTOP_STACK_NS, bpf_ktime_get_ns() - t0);
	return 0;
}

/* What a counted copy adds besides its process's count: its region (kind,
 * OTHER when not classified), a stack sample, its phase. Inlined in both the
 * hot path and alloc_slow. */
static __always_inline void count_split(struct bpf_raw_tracepoint_args *ctx, struct cowtop_slot *s,
					struct task_struct *task, __u32 kind, __u64 pages)
{
	region_add(s, task, kind, pages);
	if (stacks_every && stack_sampled(stacks_every))
		stack_count(ctx, s->tgid, pages, stacks_every);
	if (objects_every)
		obj_take(s->tid, s->addr, pages, objects_every);
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

/* Whether task is in the --cgroup target's subtree. */
static __always_inline bool in_target_cgroup(struct task_struct *task)
{
	struct css_set *cs = BPF_CORE_READ(task, cgroups);
	struct cgroup_subsys_state *css = NULL;
	struct cgroup *cg, *anc = NULL;

	if (!cs)
		return false;
	if (cgroup_subsys >= 0) {
		bpf_core_read(&css, sizeof(css), &cs->subsys[cgroup_subsys & 15]);
		cg = BPF_CORE_READ(css, cgroup);
	} else {
		cg = BPF_CORE_READ(cs, dfl_cgrp);
	}
	if (!cg || BPF_CORE_READ(cg, level) < (int)cgroup_level)
		return false;
	bpf_core_read(&anc, sizeof(anc), &cg->ancestors[cgroup_level & 255]);
	return anc && BPF_CORE_READ(anc, kn, id) == cgroup_id;
}

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
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct cowtop_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	if (region_hold == tgid)
		region_hold = 0;
	if (objects_enabled)
		obj_forget(tgid);
	if (p || watch_all)
		emit(COWTOP_EV_EXEC, tgid, task, p, COWTOP_INHERITED_UNKNOWN);
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

SEC("raw_tp/sched_process_exit")
int on_process_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[0];
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct cowtop_proc *p = bpf_map_lookup_elem(&procs, &tgid);
	__u32 zero = 0, tid;
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

/* Open or close the calling thread's phase as the probe says. */
static __always_inline void phase_switch(__u32 tid, __u32 kind, __u32 phase)
{
	__u32 *open;

	if (kind == COWTOP_PROBE_BEGIN) {
		bpf_map_update_elem(&thread_phase, &tid, &phase, BPF_ANY);
		return;
	}
	open = bpf_map_lookup_elem(&thread_phase, &tid);
	if (open && *open == phase)
		bpf_map_delete_elem(&thread_phase, &tid);
}

/* Fetch one USDT argument as its spec says; 0 when it cannot be read. */
static __always_inline int usdt_arg(struct pt_regs *ctx, const struct cowtop_usdt_arg *a,
				    long *out)
{
	__u64 v = 0;

	if (a->type == COWTOP_ARG_CONST) {
		v = a->off;
	} else if (a->type == COWTOP_ARG_REG || a->type == COWTOP_ARG_DEREF) {
		if (bpf_probe_read_kernel(&v, sizeof(v), (void *)ctx + (a->reg_off & 0xf8)))
			return -1;
		if (a->type == COWTOP_ARG_DEREF &&
		    bpf_probe_read_user(&v, sizeof(v), (void *)(v + a->off)))
			return -1;
	} else {
		return -1;
	}
	v <<= a->shift & 63;
	if (a->is_signed)
		*out = (long)v >> (a->shift & 63);
	else
		*out = (long)(v >> (a->shift & 63));
	return 0;
}

/* Send a probe hit with up to COWTOP_USDT_ARGS integer arguments. */
static __always_inline void emit_usdt(struct pt_regs *ctx, __u32 pid,
				      const struct cowtop_usdt_spec *spec)
{
	struct cowtop_usdt_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u32 n = spec->nargs, unavail = 0;
	int i;

	if (!e) {
		stat_inc(COWTOP_STAT_RINGBUF_LOST);
		return;
	}
	e->type = COWTOP_EV_USDT;
	e->pid = pid;
	e->probe = COWTOP_COOKIE_PROBE(spec->cookie);
	e->time_ns = bpf_ktime_get_boot_ns();
	if (n > COWTOP_USDT_ARGS)
		n = COWTOP_USDT_ARGS;
	for (i = 0; i < COWTOP_USDT_ARGS; i++) {
		long v = 0;

		if (i < n && usdt_arg(ctx, &spec->args[i], &v))
			unavail |= 1u << i;
		e->args[i] = v;
	}
	e->nargs = n | unavail << 8;
	bpf_ringbuf_submit(e, 0);
}

/* Every attached USDT probe site: a phase edge or a marker, in a watched
 * process. The attachment's cookie is the site's spec in usdt_specs. User
 * space attaches all sites of a probe in an object with one multi-uprobe
 * link where the kernel has them (then this program's expected attach type
 * is set to BPF_TRACE_UPROBE_MULTI before load), else one uprobe per site. */
SEC("uprobe")
int on_usdt(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), cookie;
	const struct cowtop_usdt_spec *spec;
	__u32 tgid = id >> 32, spec_id;

	if (!watched(tgid) || !bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	spec_id = (__u32)bpf_get_attach_cookie(ctx);
	spec = bpf_map_lookup_elem(&usdt_specs, &spec_id);
	if (!spec)
		return 0;
	cookie = spec->cookie;
	if (COWTOP_COOKIE_KIND(cookie) != COWTOP_PROBE_MARKER)
		phase_switch((__u32)id, COWTOP_COOKIE_KIND(cookie), COWTOP_COOKIE_PHASE(cookie));
	emit_usdt(ctx, tgid, spec);
	return 0;
}

/* Send an OOM kill or a reclaim stall of tgid. */
static __always_inline void emit_mem(__u32 type, __u32 tgid, __u32 tid, __u32 kind, __u64 value)
{
	struct cowtop_mem_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(COWTOP_STAT_RINGBUF_LOST);
		return;
	}
	e->type = type;
	e->pid = tgid;
	e->tid = tid;
	e->kind = kind;
	e->time_ns = bpf_ktime_get_boot_ns();
	e->value = value;
	bpf_ringbuf_submit(e, 0);
}

/* The OOM killer chose a task (not the current one): flag its process, so
 * that its exit says why, and log the kill when cowtop watches it. */
SEC("raw_tp/mark_victim")
int on_oom_victim(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[0];
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct cowtop_proc *p;

	if (!watched(tgid))
		return 0;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	__sync_fetch_and_or(&p->flags, COWTOP_PROC_OOM);
	mark_changed(tgid);
	emit_mem(COWTOP_EV_OOM, tgid, BPF_CORE_READ(task, pid), 0, anon_pages(task));
	return 0;
}

/* A reclaim stall in progress: when it began and which kind, per thread. */
struct reclaim_start {
	__u64 ns;
	__u32 kind;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct reclaim_start);
} reclaiming SEC(".maps");

/* A thread enters reclaim: remember when, if its process is watched. Only
 * the watched bit is tested for every other process in the machine. */
static __always_inline int reclaim_begin(__u32 kind)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct reclaim_start r = { .kind = kind };

	if (!watched(tgid) || !bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	r.ns = bpf_ktime_get_boot_ns();
	bpf_map_update_elem(&reclaiming, &tid, &r, BPF_ANY);
	return 0;
}

/* A thread leaves reclaim: count the stall for its process and log it. */
static __always_inline int reclaim_end(void)
{
	__u64 id = bpf_get_current_pid_tgid(), ns;
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct reclaim_start *r;
	struct cowtop_proc *p;
	__u32 kind;

	if (!watched(tgid))
		return 0;
	r = bpf_map_lookup_elem(&reclaiming, &tid);
	if (!r)
		return 0;
	ns = bpf_ktime_get_boot_ns() - r->ns;
	kind = r->kind;
	bpf_map_delete_elem(&reclaiming, &tid);
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	__sync_fetch_and_add(&p->reclaims, 1);
	__sync_fetch_and_add(&p->reclaim_ns, ns);
	mark_changed(tgid);
	emit_mem(COWTOP_EV_RECLAIM, tgid, tid, kind, ns);
	return 0;
}

SEC("raw_tp/mm_vmscan_direct_reclaim_begin")
int on_direct_reclaim_begin(struct bpf_raw_tracepoint_args *ctx)
{
	return reclaim_begin(COWTOP_RECLAIM_DIRECT);
}

SEC("raw_tp/mm_vmscan_direct_reclaim_end")
int on_direct_reclaim_end(struct bpf_raw_tracepoint_args *ctx)
{
	return reclaim_end();
}

SEC("raw_tp/mm_vmscan_memcg_reclaim_begin")
int on_memcg_reclaim_begin(struct bpf_raw_tracepoint_args *ctx)
{
	return reclaim_begin(COWTOP_RECLAIM_MEMCG);
}

SEC("raw_tp/mm_vmscan_memcg_reclaim_end")
int on_memcg_reclaim_end(struct bpf_raw_tracepoint_args *ctx)
{
	return reclaim_end();
}

/* --cgroup: a process was moved between cgroups (the write to cgroup.procs
 * has been done). Watch it from now on if it is now in the target, stop if
 * it was watched and is not any more. */
SEC("raw_tp/cgroup_attach_task")
int on_cgroup_attach(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[2];
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct cowtop_proc *p;
	bool in;

	if (!cgroup_id)
		return 0;
	in = in_target_cgroup(task);
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (in && (!p || p->exited)) {
		p = proc_add(tgid, BPF_CORE_READ(task, real_parent, tgid), group_start_ns(task),
			     COWTOP_INHERITED_UNKNOWN, BPF_ANY);
		if (p) {
			unrefuse(tgid); /* counted from its move in, as any process entering */
			watch_bit(tgid, true);
		}
		emit(COWTOP_EV_ENTER, tgid, task, p, COWTOP_INHERITED_UNKNOWN);
	} else if (!in && p && !p->exited) {
		flush_everywhere(tgid);
		__sync_fetch_and_or(&p->flags, COWTOP_PROC_LEFT);
		p->exited = 1;
		mark_changed(tgid);
		watch_bit(tgid, false);
		emit(COWTOP_EV_LEAVE, tgid, task, p, COWTOP_INHERITED_UNKNOWN);
	}
	return 0;
}
