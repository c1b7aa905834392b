/* The process table: every watched process keyed by (pid, start time), its
 * CoW counters, rates and history, and the tree/list views of it. No curses,
 * no BPF, no /proc here: the tracer and the procfs readers feed it. */
#ifndef COWTOP_MODEL_H
#define COWTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "../bpf/cowtop.h"
#include "series.h"

#define PROC_COMM_MAX 64
#define PHASE_MAX COWTOP_PHASE_MAX /* phase 0 is "outside any phase" */
#define PROBE_MAX 64
#define LABEL_MAX 136              /* "provider:name" */
#define MARK_LOG 1024              /* probe hits kept for the log pane */

/* One USDT probe hit. */
struct marker {
	double time;  /* unix seconds */
	int pid;
	int probe;    /* index into the model's probe labels */
	int nargs;
	long long args[COWTOP_USDT_ARGS];
};

enum sort_key {
	SORT_COW_RATE,
	SORT_COW,
	SORT_RSS,
	SORT_VSZ,
	SORT_PID,
	SORT_COMM,
	SORT_NKEYS,
};

struct proc {
	int pid;
	int ppid;
	unsigned long long start_time; /* clock ticks since boot, as in /proc stat */
	char comm[PROC_COMM_MAX];      /* raw bytes: sanitize before showing */
	char state;                    /* /proc state letter, 0 if never read */
	bool exited;
	bool in_kernel;                /* the BPF side holds its counters */
	unsigned char gone;            /* frames in a row it was not in /proc */
	double exit_time;              /* model clock when the exit was seen */
	struct cowtop_counts counts;   /* since watched, base already taken off */
	struct cowtop_counts base;     /* counts before the watch really began */
	unsigned long long cow_prev;   /* counts.cow at the previous tick */
	double cow_rate;               /* copies per second over the last tick */
	unsigned long long rss_kib, vsz_kib;
	unsigned long long phase_cow[PHASE_MAX]; /* copies inside each phase; [0] unused */
	unsigned char pending_mark;    /* 1 + first probe hit this interval, 0 none */
	struct series rate;            /* cow_rate history, one value a tick */

	/* private to model.c */
	struct proc *hnext;
	struct proc *parent, *kid, *kid_tail, *sib;
	bool visited;
};

/* One line of a view: a process with its place in the tree. */
struct row {
	struct proc *p;
	int depth;
	bool last;                 /* last among its siblings */
	unsigned long long more;   /* bit d: the ancestor at depth d has siblings below */
};

struct view_opts {
	enum sort_key sort;
	bool reverse;
	bool tree;
	int focus_pid; /* 0: everything; else only this process's subtree */
};

struct model;

struct model *model__new(void);
void model__free(struct model *m);
size_t model__count(const struct model *m);
size_t model__live(const struct model *m);
struct proc *model__find(struct model *m, int pid, unsigned long long start_time);
struct proc *model__find_live(struct model *m, int pid);
struct proc *model__add(struct model *m, int pid, unsigned long long start_time);
void model__set_counts(struct proc *p, const struct cowtop_counts *raw);
void model__set_base(struct proc *p, const struct cowtop_counts *raw);
void model__mark_exited(struct proc *p, double now);
/* Take a parent pid read from /proc (a reparented process moves). */
void model__set_ppid(struct proc *p, int ppid);
void model__tick(struct model *m, double dt);
size_t model__remove_exited(struct model *m, double before);
int model__rows(struct model *m, const struct view_opts *o, struct row **rows, size_t *n);
struct proc *model__at(struct model *m, size_t i);

/* USDT probes and phases (names are "provider:name" / "provider:phase"). */
int model__add_probe(struct model *m, const char *label, int phase);
int model__add_phase(struct model *m, const char *label);
int model__nprobes(const struct model *m);
int model__nphases(const struct model *m);  /* phases 1..n-1 exist */
const char *model__probe_label(const struct model *m, int probe);
int model__probe_phase(const struct model *m, int probe);
const char *model__phase_label(const struct model *m, int phase);
unsigned long long model__phase_none(const struct proc *p);
void model__add_marker(struct model *m, const struct marker *mk);
size_t model__markers_take(const struct model *m, unsigned long long *cursor,
			   const struct marker **out, size_t max);
size_t model__marker_log(const struct model *m, size_t i, const struct marker **out);
int sort_key_parse(const char *s, enum sort_key *out);
const char *sort_key_name(enum sort_key k);

#endif
