/* Copies by code path: pages copied per (process, user stack), as the
 * kernel counts them, with each stack's symbolized frames; the top stacks
 * and top copy sites (innermost functions) of a process; and a snapshot of
 * them per frame. Pure: the kernel side and the symbolizer feed it. */
#ifndef COWTOP_STACKS_H
#define COWTOP_STACKS_H

#include <stdbool.h>
#include <stddef.h>

#define STACKS_TOP 20        /* stacks and sites per process in a snapshot */
#define STACKS_FRAMES_MAX 64 /* frames kept per stack */

struct stacks;

/* One stack of one process: frames innermost first (frames[0] is the
 * function that wrote the page). */
struct stack_top {
	unsigned long long pages;
	int nframes;
	const char **frames;
};

/* A copy site: the innermost frame, with the copies of every stack that
 * ends there, and the heaviest such stack (an index into stacks_proc.top,
 * -1 when it is not among the top stacks). */
struct stack_site {
	const char *name;
	unsigned long long pages;
	int heaviest;
};

/* The top stacks and sites of one process. */
struct stacks_proc {
	int pid;
	unsigned long long start;
	unsigned long long pages;        /* over all its stacks */
	struct stack_top top[STACKS_TOP];
	size_t ntop;
	struct stack_site sites[STACKS_TOP];
	size_t nsites;
};

/* What became of the captures since stacks were first on, as the kernel
 * counted them: those lost, by cause; and how full its stack map is. */
struct stacks_capture {
	unsigned long long failed;    /* captures lost: the sum of the three below */
	unsigned long long collided;  /* no room for a new stack in the map (grows as it fills) */
	unsigned long long unwalked;  /* the user stack could not be walked */
	unsigned long long uncounted; /* no room for its (process, stack) counter */
	unsigned ids_used;            /* stack ids the kernel held after the last read */
	unsigned ids;                 /* stack ids the map has; 0: not known */
};

/* What a frame carries: every process with stacks, by pid. It holds the
 * strings it shows (and the table they belong to) until it is freed. */
struct stacks_snap {
	struct stacks *owner;            /* the table, held */
	unsigned every;                  /* 0: stacks off; N: 1 copy in N sampled */
	double us_per_copy;              /* measured cost of a capture; < 0 unknown */
	struct stacks_capture capture;   /* captures lost, stack map in use */
	double budget_pct;               /* --sample-budget: the rate adapts to it; 0 none */
	double cpu_pct;                  /* of one CPU the captures cost last tick; < 0 unknown */
	unsigned long long skipped;      /* captures due that the kernel's allowance declined */
	struct stacks_proc *procs;
	size_t nprocs;
};

struct stacks *stacks__new(void);
/* Free the table; what a snapshot still holds goes with the snapshot. */
void stacks__free(struct stacks *s);
/* How many distinct names (frames, comms) are held: those of the stacks
 * counted, kept folded, or shown by a snapshot alive; no more. */
size_t stacks__names(const struct stacks *s);
/* Set the pages of process (pid, start) under stack id (kept monotonic);
 * comm names it in folded output. Returns 1 when the stack has no frames
 * yet (symbolize it now), 0, or -ENOMEM. */
int stacks__set(struct stacks *s, int pid, unsigned long long start, const char *comm,
		unsigned id, unsigned long long pages);
/* Give stack id of (pid, start) its frames, innermost first. */
int stacks__set_frames(struct stacks *s, int pid, unsigned long long start, unsigned id,
		       const char *const *frames, int n);
void stacks__set_status(struct stacks *s, unsigned every, double us_per_copy,
			const struct stacks_capture *capture);
/* The budget the rate follows (0: none) and the share of one CPU the
 * captures cost over the last tick (< 0: not measured yet). */
void stacks__set_budget(struct stacks *s, double budget_pct, double cpu_pct,
			unsigned long long skipped);
/* Snapshot of the top stacks and sites of every process; NULL on ENOMEM. */
struct stacks_snap *stacks__snap(struct stacks *s);
void stacks_snap__free(struct stacks_snap *sn);
const struct stacks_proc *stacks_snap__of(const struct stacks_snap *sn, int pid,
					  unsigned long long start);
/* Fold the stacks of every process keep() says no to into totals by (comm,
 * frames) and forget the process (its stacks leave the snapshots, stay in
 * stacks__each). Returns how many were folded, or -ENOMEM (nothing changed). */
int stacks__fold(struct stacks *s, bool (*keep)(int pid, unsigned long long start, void *ctx),
		 void *ctx);
/* Keep totals of the processes folded (true, the default: for the folded
 * output of the whole run), or drop their stacks (false). */
void stacks__keep_gone(struct stacks *s, bool keep);
/* Call fn for every stack of every process seen, exited ones included (those
 * folded: once per comm and frames), the folded first. */
typedef void (*stacks_fn)(const char *comm, const struct stack_top *st, void *ctx);
void stacks__each(const struct stacks *s, stacks_fn fn, void *ctx);

#endif
