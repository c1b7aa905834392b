/* The sampler: reads what is too costly to read for every process on every
 * tick, on a budget of CPU time. Each run it reads MemAvailable, the memory
 * cgroup of every root (a live process whose parent is not a live process
 * of the model), then smaps_rollup of the processes wanted (the rows on
 * screen, the selection), then, when a view needs every process's reading,
 * of the ones with the oldest reading, until the budget is spent. A smaps_rollup read walks every page table of the
 * process: about 36 us of CPU for a small process, about 10 ms for one with
 * 1 GiB resident, on the machines cowtop was measured on. Each reading also
 * walks the process's anonymous memory in pagemap (the family figures, see
 * struct family_mem): about as costly again (1 ms against 0.7 ms for a
 * unicorn worker of 48 MiB resident, 110 MiB mapped). */
#ifndef COWTOP_SAMPLER_H
#define COWTOP_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>

struct model;
struct sampler;

/* The clocks a sampler reads; tests put fakes here. */
struct sampler_clock {
	double (*cpu)(void *arg);  /* CPU seconds this thread has used */
	double (*wall)(void *arg); /* unix seconds */
	void *arg;
};

struct sampler_opts {
	double budget_pct;                 /* of one CPU, 0..100; 0: off */
	int cgroupfd;                      /* where cgroups are mounted (borrowed); -1: none */
	const struct sampler_clock *clock; /* NULL: the thread's CPU clock and real time */
};

/* A sampler filling m from /proc (procfd) and /sys/fs/cgroup. With a
 * budget of 0 it only reads MemAvailable, which costs about 10 us. NULL
 * with errno set on failure. */
struct sampler *sampler__new(struct model *m, int procfd, double budget_pct);
struct sampler *sampler__new_opts(struct model *m, int procfd, const struct sampler_opts *o);
void sampler__free(struct sampler *s);

/* A wanted process is read again at every run only while it copies or
 * its RSS changes; else when its reading is this many seconds old. What
 * moves an idle process's PSS and USS is other processes (a sibling that
 * copies, or exits, shares a page less): that shows this late. */
#define SAMPLER_FRESH 5.0

/* Read these pids first (the rows on screen); duplicates count once. all:
 * then the others too, oldest reading first, on what is left of the budget
 * (a view shows or sorts by every process's reading); else only these. The
 * list is kept until the next call; a new sampler reads all. */
void sampler__want(struct sampler *s, const int *pids, size_t n, bool all);

/* One run, once per tick of interval seconds: spends budget_pct% of
 * interval of CPU time. A run that overshoots (one process can cost more
 * than a whole allowance) leaves a debt the next runs pay; budget left
 * unused carries over, up to one interval's worth. */
void sampler__run(struct sampler *s, double interval);


#endif
