/* The process table's insides, shared by model.c (processes, counts,
 * ticks) and model_labels.c (labels, probes, the probe log). */
#ifndef COWTOP_MODEL_INT_H
#define COWTOP_MODEL_INT_H

#include "model.h"

#define MODEL_BUCKETS_MIN 1024

/* A process as the model holds it: the public part, copied into frames, and
 * what only the model needs. */
struct mproc {
	struct proc pub;               /* first: a struct proc * is a struct mproc * */
	struct mproc *hnext;           /* pid hash chain */
	struct cow_counts base;        /* counts before the watch really began */
	unsigned long long cow_prev;   /* counts.cow at the end of the last interval */
	unsigned long long cow_start;  /* counts.cow at the start of the last interval */
	unsigned char pending_mark;    /* 1 + first probe hit this interval, 0 none */
	struct series_store rate_store, shared_store; /* behind pub.rate and pub.shared */
};

struct model {
	struct mproc **procs; /* insertion order */
	size_t n, cap;
	struct mproc **buckets; /* chained by pid */
	size_t nbuckets;
	double last_dt;         /* length of the last interval, 0 before the first */
	double period;          /* the refresh period, seconds; 0 unknown */
	unsigned long long mem_available; /* KiB, 0 unknown */
	struct psi psi;                   /* the machine's memory pressure; negative unknown */
	char probes[PROBE_MAX][LABEL_MAX];
	int nprobes, nkernel;
	char labels[SPLIT_KINDS][SPLIT_SLOTS][LABEL_MAX]; /* per kind, [0] "none"/"other" */
	int nlabels[SPLIT_KINDS];
	struct marker marks[MARK_LOG];     /* ring of probe hits */
	size_t marks_head, marks_len;
	unsigned long long marks_total;    /* hits ever logged */
	unsigned long long forgotten_cow;  /* copies of the processes removed */
	size_t forgotten;                  /* ... and how many they were */
	/* The exited processes held, as of the last pass over them, when
	 * model_exits (every model's count of exits marked) was exits_seen:
	 * while it still is, no pass is needed to know them. */
	unsigned long long exits_seen;
	size_t nexited;
	double first_exit;                 /* the earliest exit_time among them */
};

/* The model's own record of p. */
static inline struct mproc *mproc_of(struct proc *p)
{
	return (struct mproc *)p;
}

#endif
