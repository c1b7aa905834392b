/* Copies by runtime object, fed each tick: each watched process's runtime
 * detected once (and again after an exec) and told to the kernel side, the
 * kernel's pages per (process, type, write kind) into the object table, and
 * each new CPython type and Ruby class named from the process (or the
 * parent it was forked from) while one of them lives. */
#ifndef COWTOP_OBJFEED_H
#define COWTOP_OBJFEED_H

#include "model.h"
#include "objects.h"
#include "rbclass.h"
#include "sample_budget.h"
#include "tracer.h"

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
		char comm[PROC_COMM_MAX]; /* when looked at: an exec renames */
		struct rb31_names names;  /* Ruby 3.1: how its classes are named */
		unsigned long names_tick; /* when names were last looked for */
		unsigned names_tries;     /* how many times since detected */
	} *seen;
	size_t nseen, seen_cap;  /* processes whose runtime was looked at */
	struct objfeed_seen *gone; /* read for the last time this tick */
	size_t ngone, gone_cap;
	unsigned long ticks;
};

/* budget_pct: % of one CPU the object reads may cost (0: no limit);
 * whole_run: keep the figures of the processes gone, for the folded file. */
int objfeed__init(struct objfeed *f, struct tracer *t, struct model *m, bool on, unsigned every,
		  double budget_pct, bool whole_run);
void objfeed__tick(struct objfeed *f);
int objfeed__write_folded(struct objfeed *f, const char *path, char *err, size_t errlen);
void objfeed__free(struct objfeed *f);

#endif
