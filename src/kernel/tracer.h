/* The kernel side's lifecycle: pick a detection mechanism, load and attach
 * the BPF programs, turn ring-buffer records into typed events, read and
 * reap the counters. The only user of the kernel ABI (bpf/cowtop.h): what it
 * hands out is in cowtop's own types and units (start times in clock ticks,
 * as /proc gives them; event times in unix seconds). */
#ifndef COWTOP_TRACER_H
#define COWTOP_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include "counts.h"
#include "usdt.h"

#define TRACER_COMM_LEN 16 /* the kernel's task name, at most, with its NUL */
#define TRACER_USDT_ARGS 3

struct tracer;

enum tracer_event_kind {
	TRACER_FORK, /* a watched process forked: pid is the new child */
	TRACER_EXEC, /* a watched process exec'd: comm is the new name */
	TRACER_EXIT, /* the whole thread group exited: counts are final */
	TRACER_ENTER, /* --cgroup: a process moved into the target: watched from now on */
	TRACER_LEAVE, /* --cgroup: a watched process moved out: counts are final */
};

/* A fork, an exec or an exit. */
struct tracer_event {
	enum tracer_event_kind kind;
	int pid, ppid;
	unsigned long long start;  /* clock ticks since boot, as in /proc stat */
	int exit_status;           /* EXIT: wait status, as waitpid reports it */
	bool oom;                  /* EXIT: the OOM killer chose it */
	unsigned long long reclaims; /* EXIT: its reclaim stalls */
	double reclaim_s;          /* EXIT: their total length, seconds */
	struct cow_counts counts;  /* at the moment of the event */
	long long inherited_kib;   /* FORK: the parent's anonymous RSS at the fork, KiB; -1
				    * when this kernel's counters cannot be read */
	char comm[TRACER_COMM_LEN];/* NUL-terminated */
	bool unheld;               /* FORK, ENTER: the kernel's process table had no
				    * room for it: listed, its copies not counted */
};

/* A USDT probe hit. */
struct tracer_hit {
	double time;               /* unix seconds */
	int pid;
	int probe;
	int nargs;
	unsigned unavail;          /* bit i: args[i] could not be read */
	long long args[TRACER_USDT_ARGS];
};

/* What happened to the memory of a watched process. */
enum tracer_mem_kind {
	TRACER_OOM,     /* the OOM killer chose it (it is being killed) */
	TRACER_RECLAIM, /* one of its threads stalled in direct reclaim */
};

/* An OOM kill or a reclaim stall. */
struct tracer_mem {
	enum tracer_mem_kind kind;
	double time;               /* unix seconds (RECLAIM: when the stall ended) */
	int pid, tid;
	bool memcg;                /* RECLAIM: of a memory cgroup at its limit, not of the machine */
	double stall;              /* RECLAIM: seconds */
	long long anon_kib;        /* OOM: the victim's anonymous memory; -1 unknown */
};

/* One process the kernel side counts, read at a tick. */
struct tracer_proc {
	int pid, ppid;
	unsigned long long start;  /* clock ticks since boot */
	bool exited;               /* its group exited; the counts are final */
	struct cow_counts counts;  /* copies still pending per CPU included */
	long long inherited_kib;   /* as in tracer_event; -1 when not known (no fork seen) */
	int exit_status;           /* exited: wait status */
	bool oom;                  /* chosen by the OOM killer */
	bool left;                 /* exited means it moved out of the --cgroup target */
	unsigned long long reclaims; /* reclaim stalls of its threads */
	double reclaim_s;          /* their total length, seconds */
};

struct tracer_handlers {
	void (*event)(const struct tracer_event *e, void *ctx);
	void (*hit)(const struct tracer_hit *h, void *ctx);
	void (*mem)(const struct tracer_mem *m, void *ctx);
	/* A watched process mmap()ed a file executable (tracer_opts.mapped). */
	void (*mapped)(int pid, void *ctx);
	void *ctx;
};

/* Where copies were made: the kind of memory region holding the pages. */
enum region_kind { REGION_OTHER, REGION_HEAP, REGION_STACK, REGION_ANON, REGION_FILE };

/* The copies of one process in one region, read at a tick. */
struct tracer_region {
	int pid;
	unsigned long long start;     /* its process's start time, clock ticks */
	enum region_kind kind;
	unsigned long long dev, ino;  /* FILE: the mapped file; dev is makedev(maj, min) of
	                                 the "maj:min" /proc/PID/maps shows */
	unsigned long long pages;     /* copies in it so far, pending per-CPU counts included */
};

/* What /proc/PID/stat says of a watched process, as the kernel side's task
 * iterator reads it from the same fields. */
struct tracer_task {
	int pid, ppid;
	unsigned long long start;  /* clock ticks since boot */
	char state;                /* /proc's letter */
	char comm[TRACER_COMM_LEN];/* NUL-terminated */
	unsigned long long rss_kib, vsz_kib;
	bool thread;               /* the leader exited: state and figures of a live thread */
	bool kthread;              /* a kernel thread */
	bool changed;              /* it ran or changed since the iterator last wrote it */
	bool unwatched;            /* tracer__discover: not in the kernel's map */
	int nspid;                 /* its pid in its own PID namespace; 0 unknown */
};

typedef void (*tracer_proc_fn)(const struct tracer_proc *p, void *ctx);
typedef void (*tracer_task_fn)(const struct tracer_task *t, void *ctx);
typedef void (*tracer_region_fn)(const struct tracer_region *r, void *ctx);
/* One counter of the process pid that started at start (clock ticks). */
typedef void (*tracer_split_fn)(int pid, unsigned long long start, int slot, unsigned long long pages,
				void *ctx);

/* A cgroup whose subtree is watched (--cgroup, --unit). */
struct tracer_cgroup {
	unsigned long long id;  /* its directory's inode number: the kernel's cgroup id */
	int level;              /* its depth below its hierarchy's root (>= 1) */
	char controller[32];    /* v1: the controller of its hierarchy ("memory"); "" for v2 */
};

/* A process watched from before the programs are attached (-p): its
 * forks are followed from the first one they see. */
struct tracer_root {
	int pid, ppid;
	unsigned long long start; /* clock ticks since boot */
	int runtime;              /* with objects: its runtime (0: none), told to */
	unsigned long long type_type; /* the kernel side before the programs run */
};

struct tracer_opts {
	bool watch_all;
	const struct tracer_root *roots;
	int nroots;
	const struct tracer_cgroup *cgroup; /* NULL: none */
	int first_clone_of;
	unsigned ringbuf_kib; /* 0: default */
	bool usdt;            /* load the USDT program and count copies per phase */
	bool mapped;          /* report new executable file mappings of watched processes */
	bool no_regions;      /* leave copies unsplit by region (all "other") */
	bool objects;         /* follow runtime layouts for the object sampler */
	unsigned objects_every; /* with objects: read 1 copy in N from the start */
	unsigned stacks_every;  /* capture the stack of 1 copy in N from the start; 0: off */
	struct tracer_handlers on;
};

int tracer__open(struct tracer **out, const struct tracer_opts *o, char *err, size_t errlen);
void tracer__free(struct tracer *t);
const char *tracer__mechanism(const struct tracer *t);
/* What this kernel lacks and cowtop does instead (or without): words
 * separated by commas, "" when nothing; and one line of why for each. */
const char *tracer__fallbacks(const struct tracer *t);
const char *tracer__fallback_notes(const struct tracer *t);
/* Whether OOM kills and reclaim stalls are seen (their tracepoints exist). */
int tracer__watch(struct tracer *t, int pid, int ppid, unsigned long long start);
/* Whether new executable file mappings are reported (tracer_opts.mapped,
 * and the kernel runs the program that sees them). */
bool tracer__sees_mappings(const struct tracer *t);
int tracer__forget(struct tracer *t, int pid, unsigned long long start);
/* Count no regions for pid until it execs (the launched command, whose
 * copies before its exec are cowtop's own). */
void tracer__hold_regions(struct tracer *t, int pid);
int tracer__epoll_fd(struct tracer *t);
int tracer__drain(struct tracer *t);
/* Every process the kernel side counts, or (changed_only) those whose
 * entries changed since the last call and those with copies pending. */
int tracer__for_each(struct tracer *t, bool changed_only, tracer_proc_fn fn, void *ctx);
/* Every watched process as /proc would show it, in one read of the kernel
 * side's task iterator: leaders first, then the thread records. With
 * changed_only, only the processes that ran or whose figures changed since
 * the iterator last wrote them (a thread record always comes). -ENOTSUP
 * when there is no iterator (read /proc then), or -errno. */
int tracer__for_each_task(struct tracer *t, bool changed_only, tracer_task_fn fn, void *ctx);
/* The task iterator's record of every process of the machine, in one
 * read, watched or not (unwatched); with add, those not watched are
 * watched first as tracer__watch would (one the map has no room for is
 * refused and counted). -ENOTSUP without an iterator, or -errno. */
int tracer__discover(struct tracer *t, bool add, tracer_task_fn fn, void *ctx);
/* Every (process, region) counter, forgotten processes' included until
 * this walk, which then drops them (tracer__forget only queues that).
 * With changed_only, none when nothing was added to them, pending or
 * counted, and no process was forgotten since the last call. -errno when
 * the pending counts could not be read (the map's were given). */
int tracer__for_each_region(struct tracer *t, bool changed_only, tracer_region_fn fn, void *ctx);
/* The name the kernel side kept of the file dev:ino (user-space dev_t)
 * when it first classified a copy there, into buf; -ENOENT when none. */
int tracer__file_name(struct tracer *t, unsigned long long dev, unsigned long long ino, char *buf,
		      size_t len);
/* Records and processes lost since start, summed; by kind too when by_kind
 * is not NULL. */
unsigned long long tracer__lost(struct tracer *t, unsigned long long by_kind[LOST_KINDS]);
/* Seconds the kernel spent running cowtop's BPF programs, when it counts
 * them (sysctl kernel.bpf_stats_enabled=1): 0, or -ENODATA when it does not. */
int tracer__bpf_run_seconds(struct tracer *t, double *seconds);
/* What an attached probe is to the model. */
struct tracer_usdt_probe {
	int probe;           /* its id */
	enum usdt_kind kind; /* a marker, or it opens or closes phase */
	int phase;
};
/* What an attach found, and what to take down to undo it. */
struct tracer_usdt_result {
	size_t sites;    /* of the probe in the object */
	int unavailable; /* arguments that cannot be read (shown as null) */
	bool attached;
	bool multi;      /* one link: link_fds[first]; else links[first, first + sites) */
	size_t first;
};
/* Attach the USDT program to every site of provider:name in the ELF object
 * at path (for every process that maps it; watched ones are picked in the
 * kernel), all or none. Returns 0, -ENOENT when the object has no such
 * probe, -ENOSPC when the kernel's table of site specs is full, or the
 * -errno of what failed. */
int tracer__attach_usdt(struct tracer *t, const char *path, const char *provider,
			const char *name, const struct tracer_usdt_probe *p,
			struct tracer_usdt_result *res);
/* Take down what one tracer__attach_usdt attached (res->attached). */
void tracer__detach_usdt(struct tracer *t, struct tracer_usdt_result *res);
bool tracer__has_phases(const struct tracer *t);
/* Every (process, phase) copy counter; with changed_only, none when
 * nothing was added to them since the last call. */
int tracer__for_each_phase(struct tracer *t, bool changed_only, tracer_split_fn fn, void *ctx);
void tracer__phases_of(struct tracer *t, int pid, unsigned long long start,
		       unsigned long long out[PHASE_MAX]);

/* Copies by code path (--stacks). */
typedef void (*tracer_stack_fn)(int pid, unsigned stack_id, unsigned long long pages, void *ctx);
struct tracer_stack_stats {
	unsigned long long taken, failed; /* captures counted, captures lost (the sum of the three below) */
	unsigned long long collided;      /* lost: the map had no room for a new stack (full) */
	unsigned long long unwalked;      /* lost: the user stack could not be walked */
	unsigned long long uncounted;     /* lost: no room for the (process, stack) counter */
	unsigned long long ns;            /* time spent capturing, summed */
	unsigned long long skipped;       /* captures due that the kernel's allowance declined */
	unsigned long long copies;        /* copies the captures stood for (their weights) */
};
void tracer__set_stacks(struct tracer *t, unsigned every); /* 0 off; N: 1 copy in N */
/* The kernel's own hold on the budget: stack captures, and apart object
 * reads, spend at most budget_pct% of one CPU in each of its windows (0: no
 * limit). */
void tracer__set_sample_budget(struct tracer *t, double budget_pct);
unsigned tracer__stacks(const struct tracer *t);
int tracer__for_each_stack(struct tracer *t, tracer_stack_fn fn, void *ctx);
/* The user addresses of stack id, innermost first; returns how many (0 when gone). */
int tracer__stack_ips(struct tracer *t, unsigned stack_id, unsigned long long *ips, int max);
void tracer__forget_stack(struct tracer *t, int pid, unsigned stack_id);
/* Stack ids are below tracer__stack_ids(); one no counter refers to any
 * more is given back with tracer__drop_stack. */
unsigned tracer__stack_ids(const struct tracer *t);
void tracer__drop_stack(struct tracer *t, unsigned stack_id);
/* Call fn for every stack id the kernel holds (fn must not drop one). */
int tracer__for_each_stack_id(struct tracer *t, void (*fn)(unsigned id, void *ctx), void *ctx);
void tracer__stack_stats(struct tracer *t, struct tracer_stack_stats *out);

/* The runtime object of sampled copies (--objects; tracer_objects.c). The
 * runtime and write kinds are objects.h's (same values as the kernel's). */
struct tracer_obj {
	int pid;
	unsigned long long start;  /* its process's start, clock ticks */
	int runtime;               /* enum obj_runtime */
	int write;                 /* enum obj_write */
	unsigned long long type;   /* PY311: the type object's address, or OBJ_PYT_*;
				      RUBY31: the builtin type, or OBJ_RBT_NONE */
	unsigned long long klass;  /* RUBY31: the slot's class word (its T_OBJECT,
				      T_STRUCT, T_DATA), else 0 */
	unsigned long long klass_serial; /* the class's serial read with it */
	unsigned long long pages;  /* scaled by the sampling */
};
typedef void (*tracer_obj_fn)(const struct tracer_obj *o, void *ctx);
struct tracer_obj_stats {
	unsigned long long taken, failed, ns;
	unsigned long long skipped;       /* reads due that the kernel's allowance declined */
	unsigned long long reads;         /* objects read (taken + failed counts those that copied) */
	unsigned long long faults;        /* write faults the reads stood for (their weights) */
};
void tracer__set_objects(struct tracer *t, unsigned every); /* 0 off; N: 1 copy in N */
unsigned tracer__objects(const struct tracer *t);
/* Tell the kernel side pid's runtime layout (type_type: PY311's PyType_Type). */
int tracer__set_runtime(struct tracer *t, int pid, int runtime, unsigned long long type_type);
/* The runtime the kernel side knows pid runs (set, or inherited at fork),
 * or -1 when it knows none. */
int tracer__runtime(struct tracer *t, int pid);
int tracer__for_each_object(struct tracer *t, tracer_obj_fn fn, void *ctx);
/* Drop the counters of process (pid, start), read for the last time. */
void tracer__forget_objects(struct tracer *t, int pid, unsigned long long start);
void tracer__object_stats(struct tracer *t, struct tracer_obj_stats *out);

#endif
