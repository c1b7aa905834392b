/* One run of cowtop: its state, and the loop that drives it. */
#ifndef COWTOP_APP_H
#define COWTOP_APP_H

#include <stdbool.h>
#include "launch.h"
#include "model.h"
#include "options.h"

struct tracer;
struct loop;

struct app {
	struct options *opt;
	struct tracer *tracer;
	struct model *model;
	struct loop *loop;
	struct launch launch;
	int procfd, sigfd, timerfd;
	bool watch_all;
	bool launch_execd; /* the launched command has exec'd */
	bool cmd_reaped;   /* and has been waited for */
	bool final_due;    /* everything watched is gone: one last frame */
	bool stop;
	int exit_code;
	double last_tick;
	long frames;
};

int app_run(struct options *opt);

#endif
