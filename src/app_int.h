/* What the live source's two files share (app.c runs it, app_open.c opens
 * and closes the machine's side): its state, opaque to everyone else. */
#ifndef COWTOP_APP_INT_H
#define COWTOP_APP_INT_H

#include <stdbool.h>
#include <unistd.h>
#include "collect.h"
#include "driver.h"
#include "objfeed.h"
#include "sampler.h"
#include "stackfeed.h"
#include "targets.h"
#include "tracer.h"

struct app {
	struct source base;             /* first: the driver's view of it */
	struct driver *d;
	struct options *opt;
	struct model *model;
	struct tracer *tracer;
	struct collect collect;
	struct targets targets;
	struct sampler *sampler;        /* smaps_rollup, MemAvailable, memory cgroups */
	struct stackfeed stacks;        /* copies by code path (--stacks, key c) */
	struct objfeed objects;         /* copies by runtime object (--objects) */
	int procfd;
	char host[256];                 /* the host name frames carry */
	double cpu_pct, cpu_prev;       /* our own CPU use: last interval, seconds at the last tick */
	unsigned long long marks_shown; /* probe hits already in a frame */
	double last_tick;
	long frames;
};

/* Whether to show the full-screen view: not in batch mode, not headless
 * (--exporter), and only on a terminal (otherwise frames go out as batch
 * text). */
static inline bool app_use_tui(const struct app *a)
{
	return !a->opt->batch && !a->opt->exporter && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
}

/* app_open.c: the model, /proc, the sampler, the probes, the kernel side,
 * checked against the output chosen (0, or -1 with the failure said);
 * closed again, whatever was opened; the folded stacks written at the end. */
int app__open(struct app *a);
void app__free(struct app *a);
void app__write_folded(struct app *a);

#endif
