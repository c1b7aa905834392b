/* Copies by code path, fed each tick: the kernel's pages per (process,
 * stack) into the stack table, each new stack symbolized while its process
 * still lives (so an exited process keeps its names). */
#ifndef COWTOP_STACKFEED_H
#define COWTOP_STACKFEED_H

#include "model.h"
#include "sample_budget.h"
#include "stacks.h"
#include "symbolize.h"
#include "tracer.h"

struct stackfeed {
	struct tracer *tracer;
	struct model *model;
	struct stacks *stacks;   /* NULL until stacks are first turned on */
	struct symbolizer *sym;
	unsigned every;          /* the sampling asked for: at most 1 copy in every */
	struct sample_budget budget; /* the rate in effect, within the CPU budget */
	bool folded;             /* the whole run is written (keep the stacks of the gone) */
	struct stackfeed_done { int pid; unsigned id; } *done; /* read for the last time */
	size_t ndone, done_cap;
	/* counters of processes gone and not in the model: this tick's, and
	 * last tick's (sorted), given up on when found on both */
	struct stackfeed_done *stray, *stray_last;
	size_t nstray, stray_cap, nstray_last, stray_last_cap;
	unsigned long *seen, *ref; /* bitmaps by stack id: counted, still referred to */
	unsigned long *held, *orphan; /* held by the kernel; held with no counter at the last read */
	unsigned nids;             /* stack ids are below this */
	unsigned ids_used;         /* held by the kernel after the last tick */
};

/* budget_pct: % of one CPU the captures may cost (0: no limit, always 1 in every). */
void stackfeed__init(struct stackfeed *f, struct tracer *t, struct model *m, unsigned every,
		     double budget_pct, bool folded);
int stackfeed__set(struct stackfeed *f, bool on);  /* turn the capture on or off, live */
void stackfeed__tick(struct stackfeed *f);
int stackfeed__write_folded(struct stackfeed *f, const char *path, char *err, size_t errlen);
void stackfeed__free(struct stackfeed *f);

#endif
