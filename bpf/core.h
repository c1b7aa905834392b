/* SPDX-License-Identifier: GPL-2.0 */
/* The few kernel types cowtop's BPF programs read, declared by hand with
 * preserve_access_index so CO-RE relocates every field against the running
 * kernel's BTF. Only the fields used are declared; layout comes from BTF. */
#ifndef COWTOP_CORE_H
#define COWTOP_CORE_H
/* Stand in for a generated vmlinux.h: libbpf's headers then use the kernel's
 * register names (ip, di, ...) in struct pt_regs. */
#define __VMLINUX_H__

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
typedef int pid_t;
typedef unsigned int gfp_t;

enum {
	false = 0,
	true = 1,
};

enum bpf_map_type {
	BPF_MAP_TYPE_UNSPEC = 0,
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_F_NO_PREALLOC = 1,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

enum {
	BPF_F_USER_STACK = 1ULL << 8, /* flag of bpf_get_stackid() */
};

/* x86_64 registers as saved at a probe; libbpf's USDT code reads argument
 * registers at offsets it computes itself, so only the type is needed. */
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

struct bpf_raw_tracepoint_args {
	__u64 args[0];
};

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	__s64 counter;
} atomic_long_t;

struct signal_struct {
	atomic_t live;
	int group_exit_code;
	unsigned int flags;
} __attribute__((preserve_access_index));

/* Memory counters of an address space (mm->rss_stat). Since 6.2 each
 * counter is a per-CPU counter whose count is the approximate sum (off by
 * at most the per-CPU batches not yet folded in). */
struct percpu_counter {
	__s64 count;
} __attribute__((preserve_access_index));

struct mm_struct {
	struct percpu_counter rss_stat[4];
	unsigned long start_brk, brk, start_stack;
	unsigned long total_vm;
} __attribute__((preserve_access_index));

/* Before 6.2 the counters were plain atomics: struct mm_rss_stat { atomic_long_t
 * count[NR_MM_COUNTERS]; }, exact but for what each task batches before folding
 * it in (SPLIT_RSS_COUNTING), which /proc does not see either. Only relocations
 * rooted at mm_struct are made against it: a type this kernel lacks named as a
 * relocation's root would make libbpf search the modules' BTF (CAP_SYS_ADMIN). */
struct mm_rss_stat___old {
	atomic_long_t count[4];
};

struct mm_struct___old {
	struct mm_rss_stat___old rss_stat;
} __attribute__((preserve_access_index));

/* Since 6.13 mm_lock_seq is a seqcount bumped when the mmap lock is taken
 * for writing and again when it is released: unchanged and even, no VMA of
 * the address space changed in between. Before, an int with another
 * meaning; the struct type makes CO-RE tell the two apart. */
typedef struct seqcount {
	unsigned int sequence;
} seqcount_t;

struct mm_struct___seq {
	seqcount_t mm_lock_seq;
} __attribute__((preserve_access_index));

struct super_block {
	__u32 s_dev; /* the kernel's dev_t: major << 20 | minor */
} __attribute__((preserve_access_index));

struct inode {
	struct super_block *i_sb;
	unsigned long i_ino;
} __attribute__((preserve_access_index));

struct qstr {
	const unsigned char *name;
} __attribute__((preserve_access_index));

struct dentry {
	struct qstr d_name;
} __attribute__((preserve_access_index));

struct path {
	struct dentry *dentry;
} __attribute__((preserve_access_index));

struct file {
	struct inode *f_inode;
	struct path f_path;
} __attribute__((preserve_access_index));

#define VM_SHARED 0x00000008UL

struct vm_area_struct {
	unsigned long vm_start, vm_end;
	unsigned long vm_flags;
	struct file *vm_file;
} __attribute__((preserve_access_index));

#define PF_EXITING 0x00000004
#define PF_DUMPCORE 0x00000200
#define PF_KTHREAD 0x00200000

struct kernfs_node {
	__u64 id; /* the cgroup directory's inode number on 64-bit */
} __attribute__((preserve_access_index));

struct cgroup {
	int level;                  /* 0 for a hierarchy's root */
	struct kernfs_node *kn;
	struct cgroup *ancestors[]; /* [0] the root .. [level] itself */
} __attribute__((preserve_access_index));

struct cgroup_subsys_state {
	struct cgroup *cgroup;
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup_subsys_state *subsys[16]; /* CGROUP_SUBSYS_COUNT, at most */
	struct cgroup *dfl_cgrp;                /* the cgroup v2 one */
} __attribute__((preserve_access_index));

struct sched_entity {
	__u64 sum_exec_runtime; /* ns on a CPU, updated as the task runs */
} __attribute__((preserve_access_index));

/* A pid as the namespaces it is in see it: numbers[level] is the innermost. */
struct upid {
	int nr;
} __attribute__((preserve_access_index));

struct pid {
	unsigned int level;
	struct upid numbers[1];
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned int __state;
	unsigned int flags;
	int exit_state;
	pid_t pid;
	pid_t tgid;
	int exit_code;
	/* Only with cgroup-v1 memory since 6.10 (CONFIG_MEMCG_V1): every read
	 * is guarded by bpf_core_field_exists(). */
	unsigned int in_user_fault: 1;
	/* Faults handled for the task, counted as each one ends (mm_account_fault). */
	unsigned long min_flt, maj_flt;
	__u64 start_boottime;
	char comm[16];
	struct task_struct *real_parent;
	struct task_struct *group_leader;
	struct pid *thread_pid;
	struct signal_struct *signal;
	struct mm_struct *mm;
	struct css_set *cgroups;
	struct sched_entity se;
} __attribute__((preserve_access_index));

/* The task iterator's context (bpf/iter.bpf.c). */
struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

#endif
