/* The process table: every watched process keyed by (pid, start time), its
 * counters, rates, history and per-process breakdowns. No curses, no BPF, no
 * /proc here: collect feeds it through the functions below. */
#ifndef COWTOP_MODEL_H
#define COWTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include "counts.h"
#include "mem.h"
#include "series.h"

#define PROC_COMM_MAX 64
#define PROC_CMDLINE_MAX 256           /* bytes of a command line kept, NUL included */
#define PROBE_MAX 64
#define LABEL_MAX 136              /* "provider:name" */
#define MARK_LOG 1024              /* probe hits kept */
#define MARK_ARGS 3

/* One USDT probe hit. */
struct marker {
	double time;  /* unix seconds */
	int pid;
	int probe;    /* index into the model's probe labels */
	int nargs;
	unsigned unavail; /* bit i: args[i] could not be read (shown as null, "-") */
	long long args[MARK_ARGS];
};

/* Kinds of per-process breakdown of the copies, each with its own label
 * table. Phases: USDT phase ids (slot 0 PHASE_OUTSIDE). Regions: where the copied
 * page was (slot 0 "other", then the fixed SPLIT_REGION_* slots, then one
 * "file:<basename>" slot per file met). */
/* The label of the copies made outside every phase, on screen and in JSON;
 * recordings made before it was one word say PHASE_OUTSIDE_OLD. */
#define PHASE_OUTSIDE "outside"
#define PHASE_OUTSIDE_OLD "none"

enum split_kind {
	SPLIT_PHASE,
	SPLIT_REGION,
	SPLIT_KINDS,
};

enum {
	SPLIT_REGION_HEAP = 1,  /* the brk area */
	SPLIT_REGION_STACK = 2, /* the main thread's stack */
	SPLIT_REGION_ANON = 3,  /* other private anonymous memory */
	SPLIT_REGION_FILES = 4, /* first slot of a file */
};

/* Copies of one process split by one kind. Phases: v[0] is the floor of
 * "outside" kept by model__settle_split, else 0 (the rest is computed:
 * counts.cow less the sum of the others). Regions: v[0] is "other" itself,
 * kept by model__settle_regions; copies not classified yet (pending in a
 * CPU's slot when read) are in no slot until they are. */
struct split {
	unsigned long long v[SPLIT_SLOTS];
};

/* How a process ended, once it has exited. */
struct proc_exit {
	bool known;   /* the kernel told its wait status */
	int status;   /* wait status, as waitpid reports it */
	bool oom;     /* the OOM killer chose it (it then dies of SIGKILL) */
	bool left;    /* it did not end: it moved out of the --cgroup target */
};

/* What the collector alone keeps per process about where it has seen it. */
struct proc_track {
	bool in_kernel;      /* the BPF side holds its counters */
	unsigned char gone;  /* frames in a row it was not in /proc */
	bool read;           /* /proc was read for it at least once */
	unsigned walked;     /* 1 + the collector's tick of the last task walk that saw it */
	unsigned char cmdline_reads; /* of its command line since it started, exec'd or renamed */
	unsigned cmdline_tick;       /* the collector's tick of the first of them */
	bool born;                   /* seen forked or exec'd: all of those reads count */
	unsigned long long probes_vsz; /* vsz_kib when its maps were last looked at for -u probes */
	unsigned long long unnamed;    /* region copies in files not named yet, as last read */
	unsigned long long unnamed_now; /* the same, counted by the read going on */
};

/* One process: public data, read by everyone, written only through model__*
 * (and track, by the collector). Copied by value into frames, which give the
 * histories (rate, shared) storage of their own. */
struct proc {
	int pid;
	int ppid;
	unsigned long long start_time; /* clock ticks since boot, as in /proc stat */
	unsigned long long stamp;      /* model__stamp's: here, in the line a frame reads first */
	char comm[PROC_COMM_MAX];      /* raw bytes: sanitize before showing */
	char cmdline[PROC_CMDLINE_MAX]; /* /proc/PID/cmdline as one line, cut; raw bytes; "" unknown */
	bool kthread;                  /* a kernel thread (PF_KTHREAD) */
	char state;                    /* /proc state letter, 0 if never read */
	bool exited;
	double exit_time;              /* model clock when the exit was seen */
	struct cow_counts counts;      /* since watched, base already taken off */
	double cow_rate;               /* copies per second over the last interval */
	unsigned long long rss_kib, vsz_kib;
	struct split split[SPLIT_KINDS];
	unsigned long long region_cow; /* counts.cow at the last region read (see
	                                  model__settle_regions) */
	struct series rate;            /* cow_rate history, one value a tick: SERIES_CAP
	                                  in the model, what the views draw in a frame */
	struct smaps smaps;
	double smaps_time;             /* unix seconds of the reading; 0: never read */
	unsigned long long smaps_rss_kib, smaps_cow; /* rss_kib and counts.cow at the reading */
	long long inherited_kib;       /* anonymous RSS of the parent at fork, KiB; -1 unknown
	                                  (found already running, or not told yet) */
	struct family_mem family;          /* its anonymous memory still shared, from pagemap */
	double family_time;            /* unix seconds of that reading; 0: none */
	unsigned char family_why;      /* enum family_why: FAMILY_KNOWN, or why none */
	struct memcg memcg;            /* read for group roots only */
	struct series shared;          /* proc_shared_pct history, one value a tick (-1: unknown) */
	struct proc_exit exit;         /* how it ended (when exited) */
	int nspid;                     /* its pid in its own PID namespace (a container's);
	                                  0 not read yet, -1 not known */
	unsigned long long reclaims;   /* direct-reclaim stalls of its threads since watched */
	double reclaim_s;              /* their total length, seconds */
	double reclaim_marked;         /* model clock of its last reclaim marker */
	unsigned long long forked;     /* children it forked since watched */
	unsigned long long reaped;     /* of its children, those that exited since watched */
	struct proc_track track;
};

struct model;

struct model *model__new(void);
void model__free(struct model *m);
size_t model__count(const struct model *m);
size_t model__live(const struct model *m);
struct proc *model__at(struct model *m, size_t i);          /* insertion order; NULL past end */
struct proc *model__find(struct model *m, int pid, unsigned long long start_time); /* 0: any */
struct proc *model__find_live(struct model *m, int pid);
struct proc *model__add(struct model *m, int pid, unsigned long long start_time);
/* A number that changes whenever p's name, command line or breakdowns
 * (comm, cmdline, split: most of its bytes, and seldom written) change,
 * and that no other process held had or will have: a frame copies those
 * again only when it changed. Never 0. */
unsigned long long model__stamp(const struct proc *p);

/* Writers used by the collector. */
void model__set_counts(struct proc *p, const struct cow_counts *raw); /* raw less base, monotonic */
void model__set_base(struct proc *p, const struct cow_counts *raw);
void model__set_comm(struct proc *p, const char *comm, size_t len);   /* len bytes, maybe unterminated */
void model__set_cmdline(struct proc *p, const char *cmdline, size_t len); /* "" keeps the last */
void model__forget_cmdline(struct proc *p);
void model__set_kthread(struct proc *p, bool kthread);
void model__set_ppid(struct proc *p, int ppid);                       /* keeps a known parent over 0 */
void model__set_parent(struct proc *p, int ppid);                     /* from a fork: always taken */
void model__set_mem(struct proc *p, char state, unsigned long long rss_kib, unsigned long long vsz_kib);
void model__forget_mem(struct proc *p);                               /* an exec: unknown again */
void model__set_split(struct proc *p, enum split_kind k, int slot, unsigned long long pages); /* keeps max */
void model__settle_split(struct proc *p, enum split_kind k); /* read last: none never falls */
void model__settle_regions(struct proc *p, unsigned long long unnamed); /* other never falls */
void model__mark_exited(struct proc *p, double now);
void model__set_exit(struct proc *p, int status, bool oom);           /* the kernel's word */
void model__set_oom(struct proc *p);                                  /* chosen by the OOM killer */
void model__set_reclaim(struct proc *p, unsigned long long n, double secs); /* keeps max */
/* Writers used by the memory sampler and the kernel side. */
void model__set_smaps(struct proc *p, const struct smaps *s, double when); /* when: unix s */
void model__set_inherited(struct proc *p, unsigned long long kib);
void model__set_family(struct proc *p, const struct family_mem *f, double when); /* when: unix s */
void model__family_unknown(struct proc *p, enum family_why why);     /* drops the reading */
void model__set_memcg(struct proc *p, const struct memcg *cg);
void model__set_mem_available(struct model *m, unsigned long long kib); /* /proc/meminfo; 0 unknown */
unsigned long long model__mem_available(const struct model *m);
void model__set_psi(struct model *m, const struct psi *psi);          /* negative: unknown */
struct psi model__psi(const struct model *m);

/* How p ended in a few words: "exit 3", "SIGSEGV (core)", "oom-killed";
 * "" while it runs, "?" when not known. Returns buf. */
const char *proc_exit_reason(const struct proc *p, char *buf, size_t cap);
/* The name of signal sig ("SIGKILL"), or NULL for one without a name. */
const char *proc_signal_name(int sig);

/* Derived figures. USS: what the process alone holds, private_clean +
 * private_dirty. Shared%: the share of the anonymous memory inherited at
 * fork that is still shared, 100 * min(1, max(0, anon - private_dirty) /
 * inherited_kib), 0..100; -1 when unknown (no reading yet, or inherited
 * unknown or 0). */
unsigned long long proc_uss_kib(const struct proc *p);
/* Whether p's RSS and VSZ were ever read from /proc: a process that lived
 * less than one refresh never was, and its figures are unknown, not 0. */
bool proc_mem_known(const struct proc *p);
double proc_shared_pct(const struct proc *p);
/* The share of p's anonymous memory still shared with its family (another
 * process maps the page: after a fork, its parent, a sibling or a child),
 * 0..100, from its pagemap reading; -1 when unknown (no reading, or no
 * anonymous memory present). Unlike proc_shared_pct it needs no baseline
 * at fork, so it is known for processes found already running. */
double proc_family_pct(const struct proc *p);
/* Why p's family reading is unknown, in a few words; NULL when known. */
const char *proc_family_why(const struct proc *p);
/* Close an interval of dt seconds: rates and histories. An interval shorter
 * than MODEL_MERGE_RATIO of the refresh period (of the interval before when
 * no period was set) is never rated alone: a final frame right after a
 * regular one is merged into it (the rate is over both, the last history
 * point is replaced, the merged length is returned); a first frame that
 * short is rated over one whole period (returned). Else dt is returned. */
#define MODEL_MERGE_RATIO 0.25
void model__set_period(struct model *m, double seconds);
double model__tick(struct model *m, double dt);
size_t model__remove_exited(struct model *m, double before);
size_t model__exited(struct model *m); /* exited processes held */
/* What model__remove_exited took away: the copies of those processes (kept
 * in the totals, which count every copy since watching began) and their number. */
unsigned long long model__forgotten_cow(const struct model *m);
size_t model__forgotten(const struct model *m);

/* Labels: USDT probes, and the labels of each breakdown kind. A kind has
 * at most SPLIT_SLOTS labels (phases PHASE_MAX); slot 0's is fixed. */
int model__add_probe(struct model *m, const char *label);
/* The label of markers the kernel side makes (OOM kills, reclaim stalls):
 * found or registered like a probe, but not counted as one. */
int model__kernel_probe(struct model *m, const char *label);
int model__nkernel_probes(const struct model *m);
/* Whether label names a kind of kernel marker (oom:kill, reclaim:*,
 * exit:*), not a USDT probe: what a recording's reader tells them by. */
bool model_kernel_label(const char *label);
int model__nprobes(const struct model *m);
const char *model__probe_label(const struct model *m, int probe);
int model__add_label(struct model *m, enum split_kind k, const char *label); /* slot (>= 1) or -ENOSPC */
const char *model__label(const struct model *m, enum split_kind k, int slot); /* "?" when unknown */
int model__nlabels(const struct model *m, enum split_kind k);                 /* slots 0..n-1 exist */
/* The labels of SPLIT_PHASE, as the probes and views name them. */
int model__add_phase(struct model *m, const char *label);
void model__add_marker(struct model *m, const struct marker *mk);
/* The probe hits logged since *cursor (a count of hits, 0 at start), oldest
 * first, up to max; *cursor moves past them. Returns how many. */
unsigned long long model__markers_dropped(const struct model *m, unsigned long long cursor);
size_t model__markers_take(const struct model *m, unsigned long long *cursor,
			   const struct marker **out, size_t max);
/* The i-th kept probe hit, 0 the oldest, in *out (NULL past the end);
 * returns how many are kept. */
size_t model__marker_log(const struct model *m, size_t i, const struct marker **out);

#endif
