/* One run of cowtop: its state, and the loop that drives it. */
#ifndef COWTOP_APP_H
#define COWTOP_APP_H

#include <stdbool.h>
#include "launch.h"
#include "model.h"
#include "options.h"
#include "tui.h"

struct tracer;
struct loop;
struct tui;
struct probes;

#define RESCAN_MAX 64

struct app {
	struct options *opt;
	struct tracer *tracer;
	struct model *model;
	struct loop *loop;
	struct launch launch;
	struct tui *tui;   /* NULL in batch mode */
	double cpu_pct;    /* our own CPU use over the last interval */
	double cpu_prev;   /* our CPU seconds at the last tick */
	char target[128];  /* what is watched, for the header */
	struct tui_status status;
	int procfd, sigfd, timerfd;
	struct probes *probes;  /* NULL without -u */
	int scanfd;             /* timer: look for probes in freshly exec'd processes */
	int rescan[RESCAN_MAX]; /* those processes */
	double rescan_until[RESCAN_MAX];
	int nrescan;
	unsigned long long marks_shown; /* probe hits already in a frame */
	bool watch_all;
	bool launch_execd; /* the launched command has exec'd */
	bool cmd_reaped;   /* and has been waited for */
	bool saw_fork;     /* a watched process forked (--track-first-clone waits for it) */
	bool final_due;    /* everything watched is gone: one last frame */
	bool stop;
	int exit_code;
	double last_tick;
	long frames;
};

int app_run(struct options *opt);

#endif
