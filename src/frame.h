/* One immutable snapshot per tick, read by every view (screen,
 * batch text/JSON, snapshot; exporter and recorder next). It owns copies of
 * everything it shows: a paused screen keeps one while the model moves on. */
#ifndef COWTOP_FRAME_H
#define COWTOP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include "model.h"
#include "tree.h"

#define FRAME_LOG 256 /* newest probe hits a frame carries for the log pane */

/* What the app knows that the model does not. */
struct frame_status {
	double time;               /* unix seconds */
	double interval;           /* seconds the frame covers (model__tick's answer) */
	const char *mechanism;     /* CoW detection in use */
	unsigned long long lost;   /* records/processes lost since start */
	double cpu_pct;            /* cowtop's own CPU use over the last interval */
	const char *target;        /* what is watched, e.g. "pid 123" */
	bool usdt;                 /* -u given: phases and markers */
	bool command_done;         /* the -- command and its descendants all exited */
	int command_status;        /* its exit status then */
};

/* A probe hit with its process's name, as the log pane shows it. */
struct frame_mark {
	struct marker mk;
	char comm[PROC_COMM_MAX];
};

struct frame_totals {
	size_t watched, live;       /* processes held, and those still running */
	unsigned long long cow;     /* copies of all of them */
	double rate;                /* copies per second, summed */
};

struct frame {
	int refs;
	double time, interval;
	char mechanism[128];
	char target[1024];         /* a command line can be long */
	unsigned long long lost;
	double cpu_pct;
	bool usdt, command_done;
	int command_status;

	struct proc *procs;         /* copies, model order */
	size_t nprocs;
	struct row *rows;           /* laid out with the view_opts given to frame__build */
	size_t nrows;
	struct frame_totals totals; /* computed once, here */

	char (*probe_labels)[LABEL_MAX];
	int nprobes;
	char (*phase_labels)[LABEL_MAX]; /* [0] "none" */
	int nphases;

	struct marker *marks;       /* probe hits new in this frame, by arrival */
	size_t nmarks;
	struct frame_mark *log;     /* the newest kept hits (<= FRAME_LOG), oldest first */
	size_t nlog, log_kept;      /* ... and how many the model keeps */
};

/* Build the frame of the model now; *cursor counts the probe hits already in
 * a frame and moves past those taken. NULL with errno on failure. */
struct frame *frame__build(struct model *m, const struct frame_status *st,
			   const struct view_opts *vo, unsigned long long *cursor);
struct frame *frame__hold(struct frame *f);   /* one more reference */
void frame__free(struct frame *f);            /* drop one; NULL is fine */
const char *frame_probe_label(const struct frame *f, int probe);
const char *frame_phase_label(const struct frame *f, int phase);
unsigned long long frame_split_none(const struct proc *p, enum split_kind k); /* copies outside every slot */

#endif
