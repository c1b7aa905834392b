/* SPDX-License-Identifier: GPL-2.0 */
/* The ABI shared by cowtop's BPF programs and user space: plain structs and
 * constants only, fixed-width types, no kernel or libc headers. */
#ifndef COWTOP_ABI_H
#define COWTOP_ABI_H

#define COWTOP_COMM_LEN 16
#define COWTOP_WATCH_WORDS 65536 /* watched-tgid bitmap: 4M bits */

/* Per-process (thread group) counters, kept in the kernel. All page counts
 * are in base pages (4 KiB on x86_64); a huge page counts as 1 << order. */
struct cowtop_counts {
	__u64 cow;        /* pages copied because they were shared: sharing lost */
	__u64 cow_kernel; /* of cow: copies made by kernel-mode writes (read() into a shared buffer) */
	__u64 zero_fill;  /* writes that replaced the shared zero page (no sharing lost) */
	__u64 reuse;      /* write-protect faults resolved without a copy */
};

/* inherited of a process found already running: no fork was seen. */
#define COWTOP_INHERITED_UNKNOWN (~0ULL)

/* The watched-process map, keyed by tgid, holds as many processes as the
 * machine can run at once (user space sets it before load from
 * kernel.threads-max and kernel.pid_max), never fewer than this. A process
 * it cannot hold is refused for its whole life: counted once
 * (COWTOP_STAT_MAP_FULL), its records flagged COWTOP_PROC_UNHELD. */
#define COWTOP_PROCS_MIN 32768

/* What the task iterator (bpf/iter.bpf.c) writes per watched process: the
 * figures /proc/PID/stat gives, read from the same kernel fields. */
struct cowtop_task_rec {
	__u32 tgid;
	__u32 ppid;     /* the real parent's tgid */
	__u64 start_ns; /* group leader's start time, as in cowtop_proc */
	__u64 rss;      /* pages: file + anon + shmem counters, as /proc's RSS */
	__u64 vm;       /* pages: total_vm, /proc's VSZ */
	__u32 flags;    /* COWTOP_TASK_* */
	char state;     /* /proc's state letter */
	char pad[3];
	char comm[16];
	__u32 nspid;    /* the leader's pid in its own PID namespace; 0 unknown */
	__u32 pad2;
};

enum {
	/* The leader has exited and others still run: rss, vm and state are
	 * those of a live thread (a record of its own, after the leader's). */
	COWTOP_TASK_THREAD = 1,
	COWTOP_TASK_KTHREAD = 2, /* a kernel thread (PF_KTHREAD) */
	/* A discovery pass (iter.bpf.c's discover): the process is not in the
	 * map, or the map had no room to add it. */
	COWTOP_TASK_UNWATCHED = 4,
	COWTOP_TASK_REFUSED = 8,
	/* The figures or the leader's run time changed since the iterator last
	 * wrote this process (always set the first time). */
	COWTOP_TASK_CHANGED = 16,
};

struct cowtop_proc {
	struct cowtop_counts counts;
	__u64 start_ns; /* group leader's start time, ns since boot (CLOCK_BOOTTIME) */
	__u32 ppid;
	__u32 exited;   /* set at group exit; user space reaps the entry */
	__u64 inherited; /* parent's anonymous pages at the fork, or COWTOP_INHERITED_UNKNOWN */
	__s32 exit_code; /* at group exit: wait status (as in waitpid) */
	__u32 flags;     /* COWTOP_PROC_* */
	__u64 reclaims;  /* direct-reclaim stalls (global or memory cgroup) of its threads */
	__u64 reclaim_ns; /* their total length */
	__u64 seen;      /* task iterator: digest of the figures it last wrote; 0 none */
};

#define COWTOP_PROC_OOM 1  /* chosen by the OOM killer (oom:mark_victim) */
#define COWTOP_PROC_LEFT 2 /* moved out of the --cgroup target: no longer watched */
#define COWTOP_PROC_UNHELD 4 /* FORK, ENTER: the map had no room: shown, not counted */

enum cowtop_event_type {
	COWTOP_EV_FORK = 1, /* a watched process forked: pid is the new child */
	COWTOP_EV_EXEC = 2, /* a watched process exec'd: comm is the new name */
	COWTOP_EV_EXIT = 3, /* the whole thread group exited: counts are final */
	COWTOP_EV_USDT = 4, /* a watched process hit a USDT probe (struct cowtop_usdt_event) */
	COWTOP_EV_OOM = 5,  /* the OOM killer chose a watched process (struct cowtop_mem_event) */
	COWTOP_EV_RECLAIM = 6, /* a thread of a watched process stalled in reclaim (cowtop_mem_event) */
	COWTOP_EV_ENTER = 7, /* --cgroup: a process moved into the cgroup: watched from now on */
	COWTOP_EV_LEAVE = 8, /* --cgroup: a watched process moved out: counts are final */
	COWTOP_EV_MAPPED = 9, /* a watched process mmap()ed a file executable (cowtop_map_event) */
};

/* A new executable file mapping: its process's maps are worth a look. */
struct cowtop_map_event {
	__u32 type;
	__u32 pid;
};

/* Kinds of reclaim stall: which tracepoints bracketed it. */
enum cowtop_reclaim_kind {
	COWTOP_RECLAIM_DIRECT = 0, /* vmscan:mm_vmscan_direct_reclaim_begin/end: the machine's memory */
	COWTOP_RECLAIM_MEMCG = 1,  /* vmscan:mm_vmscan_memcg_reclaim_begin/end: a memory cgroup's limit */
};

/* An OOM kill or a reclaim stall, for the marker log. Starts like cowtop_event. */
struct cowtop_mem_event {
	__u32 type;
	__u32 pid;
	__u32 tid;     /* RECLAIM: the thread that stalled */
	__u32 kind;    /* RECLAIM: enum cowtop_reclaim_kind */
	__u64 time_ns; /* when it happened (RECLAIM: when the stall ended), CLOCK_BOOTTIME */
	__u64 value;   /* RECLAIM: stall length, ns; OOM: the victim's anonymous pages */
};

#define COWTOP_PHASE_MAX 16 /* phase ids 1..15; 0 is outside any phase */
#define COWTOP_USDT_ARGS 3

/* The cookie of an attached USDT probe: which probe, what it does. */
#define COWTOP_COOKIE(probe, kind, phase) \
	((__u64)(probe) | ((__u64)(kind) << 16) | ((__u64)(phase) << 24))
#define COWTOP_COOKIE_PROBE(c) ((__u32)((c) & 0xffff))
#define COWTOP_COOKIE_KIND(c) ((__u32)(((c) >> 16) & 0xff))
#define COWTOP_COOKIE_PHASE(c) ((__u32)(((c) >> 24) & 0xff))

enum cowtop_probe_kind {
	COWTOP_PROBE_MARKER = 0,
	COWTOP_PROBE_BEGIN = 1, /* opens its phase in the calling thread */
	COWTOP_PROBE_END = 2,   /* closes it */
};

/* Key of the per-process, per-phase copy counters. start tells the
 * processes of a reused pid apart. */
struct cowtop_phase_key {
	__u32 tgid;
	__u32 phase;
	__u64 start; /* the group leader's start time, clock ticks since boot (as
			/proc/PID/stat's field 22) */
};

/* Where a copied page was: the kind of memory region (VMA) holding it. */
enum cowtop_region {
	COWTOP_REGION_OTHER = 0, /* no VMA found (or not classified): never in the map */
	COWTOP_REGION_HEAP = 1,  /* the VMA holding the brk area */
	COWTOP_REGION_STACK = 2, /* the VMA holding the main thread's stack */
	COWTOP_REGION_ANON = 3,  /* any other private anonymous VMA */
	COWTOP_REGION_FILE = 4,  /* a private file mapping */
};

/* Key of the per-process, per-region copy counters. */
struct cowtop_region_key {
	__u32 tgid;
	__u32 kind; /* enum cowtop_region */
	__u64 dev;  /* FILE only: the kernel's dev_t of the file (major << 20 | minor) */
	__u64 ino;  /* FILE only: its inode number */
	__u64 start; /* as in cowtop_phase_key: a reused pid's process has its own */
};

/* The name of a file copies were counted in (its last path component, as
 * the VMA's dentry has it), so that it can be named after every process
 * mapping it has gone. */
#define COWTOP_FILE_NAME 64
#define COWTOP_FILE_NAMES 4096
struct cowtop_file_key {
	__u64 dev; /* the kernel's dev_t (major << 20 | minor) */
	__u64 ino;
};

struct cowtop_file_name {
	char name[COWTOP_FILE_NAME];
};

/* How the kernel fetches one USDT argument (the note's "SIZE@WHERE"). */
enum cowtop_arg_type {
	COWTOP_ARG_NONE = 0,  /* unavailable: a form cowtop cannot read */
	COWTOP_ARG_CONST = 1, /* the value is off */
	COWTOP_ARG_REG = 2,   /* the register at reg_off in struct pt_regs */
	COWTOP_ARG_DEREF = 3, /* the user memory at that register + off; a
			       * global "SYM(%rip)" is the ip register (the
			       * probe's address while its handler runs) plus
			       * SYM's distance from the probe */
};

struct cowtop_usdt_arg {
	__s64 off;
	__u16 reg_off;
	__u8 type;      /* enum cowtop_arg_type */
	__u8 shift;     /* 64 - 8 * size: keep the low size bytes */
	__u8 is_signed; /* sign-extend them */
	__u8 pad[3];
};

/* One probe site's spec, found by the BPF cookie of its attachment (an
 * index in the usdt_specs map; sites with equal specs share one). */
#define COWTOP_USDT_SPECS 8192
struct cowtop_usdt_spec {
	__u64 cookie; /* COWTOP_COOKIE(probe, kind, phase) */
	__u32 nargs;  /* arguments in the note (more than COWTOP_USDT_ARGS are not read) */
	__u32 pad;
	struct cowtop_usdt_arg args[COWTOP_USDT_ARGS];
};

/* nargs of a hit: the count in its low byte, and one bit per argument
 * (from bit 8) that could not be read: unavailable, or a fault. */
#define COWTOP_HIT_NARGS(n) ((n) & 0xff)
#define COWTOP_HIT_UNAVAIL(n) (((n) >> 8) & ((1u << COWTOP_USDT_ARGS) - 1))

/* A probe hit, for the marker log. Starts like cowtop_event. */
struct cowtop_usdt_event {
	__u32 type;
	__u32 pid;
	__u32 probe;
	__u32 nargs;
	__u64 time_ns;
	__s64 args[COWTOP_USDT_ARGS];
};

/* One ring-buffer record. Only low-rate events travel this way: copies are
 * counted in maps, never sent one by one. */
struct cowtop_event {
	__u32 type;
	__u32 pid;
	__u32 ppid;
	__s32 exit_code;  /* EXIT: wait status (as in waitpid) */
	__u64 start_ns;   /* as in cowtop_proc */
	struct cowtop_counts counts; /* counts at the moment of the event */
	__u64 inherited;  /* FORK: as in cowtop_proc */
	char comm[COWTOP_COMM_LEN];
	__u32 flags;      /* EXIT: as in cowtop_proc (COWTOP_PROC_OOM) */
	__u32 pad;
	__u64 reclaims;   /* EXIT: as in cowtop_proc */
	__u64 reclaim_ns;
};

/* What a flagged fault was: a write to a present page (a copy or a reuse)
 * or to a page not present (a copy only in a private file mapping). */
enum cowtop_flag {
	COWTOP_FLAG_NONE = 0,
	COWTOP_FLAG_PRESENT = 1,
	COWTOP_FLAG_ABSENT = 2,
};

/* The per-CPU fault slot. Besides the fault in progress it holds the copies
 * of one process not yet added to the process map: the common case (the same
 * process copying page after page on this CPU) then costs no map lookup and
 * no atomic operation. acc packs the tgid (high 32 bits) and the pending
 * count (low 32 bits) so that a flush from another CPU (at exit) takes both
 * in one atomic exchange. User space adds pending counts when it reads.
 *
 * The same holds for regions: copies of one (process, region) pend in
 * rkey/rcount until another key is counted on this CPU. They are never
 * flushed from another CPU: at exit, user space reads what is still here.
 * rgen is odd while the pending key changes; user space reads the slots
 * twice and keeps a CPU's pending region count only when rgen is even and
 * the same in both reads. rstart (start of rkey.tgid's group leader, ns)
 * tells a pending count of a process from one of a reused pid.
 *
 * vma_* caches the VMA classified last on this CPU: it stands for
 * vma_tgid's address space at vma_mm while the mm's mmap lock sequence is
 * vma_seq (always even: a VMA found while the sequence was odd is not
 * cached, vma_mm is 0). rkey_vma is set while rkey is the key of that cached
 * VMA, so a copy there adds to rcount after the cache check alone. vma_hits
 * and vma_misses count the cache's use (bpftool map dump name slots).
 *
 * What every copy reads comes first, in the order the allocation hook
 * reads it, so that the common case touches as few cache lines as it can. */
struct cowtop_slot {
	__u32 tid;
	__u32 tgid;
	__u32 flagged; /* enum cowtop_flag: a write fault is being handled */
	__u32 kernel;  /* it came from a kernel-mode access */
	__u64 addr;    /* the flagged fault's address */
	__u64 acc;     /* (tgid << 32) | pending copies */
	__u64 vma_mm, vma_lo, vma_hi;
	__u32 vma_tgid, vma_seq;
	__u32 rkey_vma, vma_kind;
	__u64 rcount;
	__u64 vma_hits;
	struct cowtop_region_key rkey;
	__u64 rstart;
	__u64 vma_dev, vma_ino;
	__u32 rgen;
	__u32 faults;  /* the faulting thread's ended faults when it flagged (COWTOP_FAULT_END_COUNT) */
	__u64 vma_misses;
};

/* How the allocation hook tells that the thread that flagged a fault is still
 * inside it, chosen by user space before load from the kernel's BTF. */
enum cowtop_fault_end {
	COWTOP_FAULT_END_FLAG = 0,  /* task_struct.in_user_fault, set by handle_mm_fault */
	COWTOP_FAULT_END_COUNT = 1, /* no such bit: the task's ended-fault count is unchanged */
};

/* Which layout of mm->rss_stat the BPF side reads, chosen by user space
 * before load from the kernel's BTF. */
enum cowtop_rss_layout {
	COWTOP_RSS_NONE = 0,   /* unknown: RSS is read from /proc, baselines unknown */
	COWTOP_RSS_PERCPU = 1, /* 6.2 on: struct percpu_counter rss_stat[NR_MM_COUNTERS] */
	COWTOP_RSS_ATOMIC = 2, /* before: struct mm_rss_stat { atomic_long_t count[]; } */
};

#define COWTOP_ACC_TGID(a) ((__u32)((a) >> 32))
#define COWTOP_ACC_COUNT(a) ((__u32)(a))

/* Loss counters, indexes into the "stats" per-CPU array. */
enum cowtop_stat {
	COWTOP_STAT_RINGBUF_LOST = 0, /* ring-buffer records that did not fit */
	COWTOP_STAT_MAP_FULL = 1,     /* processes the map could not hold (each once) */
	COWTOP_STAT_PHASE_FULL = 2,   /* copies in a phase that could not be counted */
	COWTOP_STAT_REGION_FULL = 3,  /* flushes of region copies that found the map full */
	COWTOP_STAT_MAX = 4,
};

/* Copies by code path (--stacks): pages copied per (process, user stack). */
#define COWTOP_STACK_DEPTH 64   /* user frames kept per stack, innermost first */
#define COWTOP_STACKS 8192      /* distinct stacks the kernel can hold */

struct cowtop_stack_key {
	__u32 tgid;
	__u32 stack_id; /* an id in the stack-trace map */
};

/* The samplers' CPU budget is held in the kernel over windows of this
 * length (allow.h): each may spend its share of one. */
#define COWTOP_ALLOW_WINDOW_NS 10000000ULL /* 10 ms */

struct cowtop_allow {
	__s64 left;    /* ns still to spend; < 0: a debt, the captures in flight overran */
	__s64 base;    /* left when this window began */
	__u64 window;  /* the number of the window last refilled (ktime / window) */
	__u32 shift;   /* the kernel's own divisor: 1 copy in every << shift (<< probe) */
	__u32 probe;   /* doublings since the allowance ran out in this window */
};

/* Counters of the stack capture, indexes into the "stack_stats" per-CPU array.
 * A capture that failed counts in the slot of its cause, once: the failures
 * are the sum of the three (a total read apart would not match its parts). */
enum cowtop_stack_stat {
	COWTOP_STACK_TAKEN = 0,     /* stacks captured and counted */
	COWTOP_STACK_COLLIDED = 1,  /* no room for a new stack: its bucket held another
				       (-EEXIST), or no entry was free (-ENOMEM) */
	COWTOP_STACK_NS = 2,        /* nanoseconds spent capturing and counting */
	COWTOP_STACK_SKIPPED = 3,   /* captures due that the kernel's allowance declined (allow.h) */
	COWTOP_STACK_COPIES = 4,    /* copies the captures stood for: their weights, added up */
	COWTOP_STACK_UNWALKED = 5,  /* the user stack could not be walked (-EFAULT, other errors) */
	COWTOP_STACK_UNCOUNTED = 6, /* captured, but no room for its (process, stack) counter */
	COWTOP_STACK_STAT_MAX = 7,
};

#include "objects.h" /* the object sampler (--objects) */

#endif
