/* Copies by runtime object: each watched process's runtime detected and told
 * to the kernel side before its children can copy (at start, at its exec
 * and for a while after it, at a fork whose child inherited none, and each
 * tick for the rest), the kernel's pages per (process, type, write kind)
 * into the object table each tick, and each new CPython type and Ruby class
 * named from the process (or the parent it was forked from) while one of
 * them lives. */
#ifndef COWTOP_OBJFEED_H
#define COWTOP_OBJFEED_H

#include "itab.h"
#include "model.h"
#include "objects.h"
#include "rbclass.h"
#include "sample_budget.h"
#include "tracer.h"

#define OBJFEED_YOUNG_MAX 64 /* processes looked at again after their exec */

struct objfeed {
	struct tracer *tracer;
	struct model *model;
	struct objects *objects; /* NULL: --objects not given */
	unsigned every;          /* the sampling asked for: at most 1 copy in every */
	struct sample_budget budget; /* the rate in effect, within the CPU budget */
	struct objfeed_seen {
		int pid;
		unsigned long long start;
		int runtime;            /* -1: inherited at fork */
		struct rb31_names names;  /* Ruby 3.1: how its classes are named */
		unsigned long names_tick; /* when names were last looked for */
		unsigned names_tries;     /* how many times since detected */
		char comm[PROC_COMM_MAX]; /* when looked at: an exec renames
					   * ("": looked at before it was in the model) */
	} *seen;
	size_t nseen, seen_cap;  /* processes whose runtime was looked at */
	struct itab seen_tab;    /* their index by (pid, start) */
	struct objfeed_seen *gone; /* read for the last time this tick */
	size_t ngone, gone_cap;
	unsigned long ticks;
	int timerfd;             /* looks again at processes that exec'd lately */
	struct objfeed_young {
		int pid;
		unsigned long long start;
		double next, step, until; /* loop_now() seconds */
	} young[OBJFEED_YOUNG_MAX];
	size_t nyoung;           /* exec'd lately, runtime not found yet */
};

/* budget_pct: % of one CPU the object reads may cost (0: no limit);
 * whole_run: keep the figures of the processes gone, for the folded file. */
int objfeed__init(struct objfeed *f, struct tracer *t, struct model *m, bool on, unsigned every,
		  double budget_pct, bool whole_run);
/* The timer fd to watch (-1 when off), and what to do when it fires. */
int objfeed__timerfd(const struct objfeed *f);
void objfeed__poll(struct objfeed *f);
/* A process found at start is about to be watched (or is, by a fork). */
void objfeed__watch(struct objfeed *f, int pid, unsigned long long start);
/* A watched process exec'd, or forked child pid. */
void objfeed__exec(struct objfeed *f, int pid);
void objfeed__fork(struct objfeed *f, int pid, int ppid);
void objfeed__tick(struct objfeed *f);
int objfeed__write_folded(struct objfeed *f, const char *path, char *err, size_t errlen);
void objfeed__free(struct objfeed *f);

#endif
