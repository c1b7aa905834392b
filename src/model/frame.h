/* One immutable snapshot per tick, read by every view (screen, batch
 * text/JSON, snapshot, the metrics exporter; the recorder next). It owns
 * copies of everything it shows: a paused screen or the exporter keeps one
 * while the model moves on. */
#ifndef COWTOP_FRAME_H
#define COWTOP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include "model.h"
#include "stacks.h"
#include "objects.h"
#include "tree.h"

#define FRAME_LOG 256 /* newest probe hits a frame carries for the log pane */

/* What the app knows that the model does not. */
struct frame_status {
	double time;               /* unix seconds */
	double interval;           /* seconds the frame covers (model__tick's answer) */
	const char *mechanism;     /* CoW detection in use */
	const char *fallbacks;     /* what the kernel lacks and cowtop does instead, comma-separated */
	unsigned long long lost;   /* records/processes lost since start */
	double cpu_pct;            /* cowtop's own CPU use over the last interval */
	const char *target;        /* what is watched, e.g. "pid 123" */
	bool usdt;                 /* -u given: phases and markers */
	bool command_done;         /* the -- command and its descendants all exited */
	int command_status;        /* its exit status then */
	struct stacks *stacks;     /* copies by code path (snapshots hold it); NULL: never on */
	const struct objects *objects; /* copies by runtime object; NULL: --objects not given */
	const unsigned long long *lost_by_kind; /* LOST_KINDS counts; NULL: unknown */
	double cpu_seconds;        /* cowtop's own CPU time since start */
	bool bpf_stats;            /* the kernel counts the run time of BPF programs: */
	double bpf_run_seconds;    /* ... of cowtop's, then */
	const char *host;          /* the host name; NULL: unknown */
};

/* A probe hit with its process's name, as the log pane shows it. */
struct frame_mark {
	struct marker mk;
	char comm[PROC_COMM_MAX];
};

struct frame_totals {
	size_t watched, live;       /* processes held, and those still running */
	size_t forgotten;           /* exited processes no longer held */
	unsigned long long cow;     /* every copy since watching began: of the
	                               processes held and of those forgotten */
	double rate;                /* copies per second, summed */
};

/* A watched root (a process whose parent is not watched) with its
 * descendants: what a preforking server's master and workers cost. Members
 * are the root and its descendants; workers the descendants. */
struct frame_group {
	int root_pid;
	unsigned long long root_start;
	size_t workers;                 /* live descendants */
	size_t workers_read;            /* ... with a smaps reading */
	size_t unread;                  /* live members without a smaps reading */
	unsigned long long pss_kib;     /* sum over live members read: the footprint */
	unsigned long long uss_kib;     /* sum over live members read */
	unsigned long long root_rss_kib;
	bool root_mem_known;            /* root_rss_kib was read (proc_mem_known) */
	unsigned long long worker_uss_mean_kib, worker_uss_max_kib; /* over workers read */
	unsigned long long cow;         /* copies of all members, exited ones still held included */
	double rate;
	long long headroom;             /* more workers of mean USS that fit in MemAvailable; -1 unknown */
	bool settled;                   /* the mean behind headroom can be trusted (see FRAME_SETTLE_*) */
	size_t copying;                 /* workers read that copied much since their reading */
	double worker_age;              /* seconds since the oldest reading of a live worker; -1 none */
	long long headroom_cgroup;      /* ... in the root's memory cgroup limit; -1 none */
	struct memcg memcg;             /* the root's memory cgroup (limit 0: none) */
	double smaps_age;               /* seconds since the oldest reading of a live member; -1 none */
	unsigned long long forked;      /* children the root forked since watched */
	unsigned long long reaped;      /* ... and of its children, those that exited */
};

/* When a group's headroom is settled, and shown: its workers' mean USS
 * is over enough of them (every live worker, or at least
 * FRAME_SETTLE_SAMPLE), every reading behind it is at most
 * FRAME_SETTLE_AGE seconds old (twice the age at which the sampler reads an
 * idle process again), and no worker read has copied more than
 * 1/FRAME_SETTLE_COPIED of its USS since its reading (right after a fork
 * workers copy fast: a reading then is already too small). Else the views
 * say "settling". */
#define FRAME_SETTLE_SAMPLE 8
#define FRAME_SETTLE_AGE 10.0
#define FRAME_SETTLE_COPIED 100

struct frame {
	int refs;
	double time, interval;
	char mechanism[128];
	char fallbacks[256];       /* "" when none */
	char target[1024];         /* a command line can be long */
	unsigned long long lost;
	unsigned long long lost_by_kind[LOST_KINDS];
	double cpu_pct;
	double cpu_seconds, bpf_run_seconds; /* see frame_status */
	bool bpf_stats;
	char host[256];
	bool usdt, command_done;
	int command_status;

	struct proc *procs;         /* copies, model order */
	size_t procs_cap;           /* room in procs when frame__build made it; else 0 */
	unsigned long long *stamps; /* ... and the model__stamp of what each holds */
	float *hist_v;              /* storage of their histories (view_opts.hist values each) */
	unsigned char *hist_mark;
	size_t nprocs;
	struct row *rows;           /* laid out with the view_opts given to frame__build;
	                               none when they say no_rows */
	size_t nrows;
	bool laid_out;              /* rows were laid out, with these options: */
	struct view_opts layout;    /* a view with the same takes them, not sorting again */
	struct frame_totals totals; /* computed once, here */
	struct frame_group *groups; /* watched roots with a live descendant, by pid;
				       NULL until summed (view_opts.no_groups) */
	size_t ngroups;
	bool grouped;               /* some watched root has a live descendant: whether
				       ngroups > 0, known even before they are summed */
	unsigned long long mem_available_kib; /* 0 unknown */
	struct psi psi;             /* the machine's memory pressure; negative unknown */

	char (*probe_labels)[LABEL_MAX];
	int nprobes;
	int nkprobes;               /* of them, labels of kernel markers (OOM kills, reclaim stalls) */
	char (*labels[SPLIT_KINDS])[LABEL_MAX]; /* of each breakdown; [k][0] "none"/"other" */
	int nlabels[SPLIT_KINDS];

	struct marker *marks;       /* probe hits new in this frame, by arrival */
	size_t nmarks;
	unsigned long long marks_lost; /* hits since the last frame not in marks: the
					* log keeps MARK_LOG, older ones are dropped */
	struct frame_mark *log;     /* the newest kept hits (<= FRAME_LOG), oldest first */
	size_t nlog, log_kept;      /* ... and how many the model keeps */
	struct stacks_snap *stacks; /* top stacks and copy sites; NULL: never turned on */
	struct objects_snap *objects; /* copies by runtime object; NULL: off */
};

/* Build the frame of the model now; *cursor counts the probe hits already in
 * a frame and moves past those taken. NULL with errno on failure. */
struct frame *frame__build(struct model *m, const struct frame_status *st,
			   const struct view_opts *vo, unsigned long long *cursor);
int frame__finish(struct frame *f, const struct view_opts *vo); /* a frame put together by hand */
/* Whether f's rows are what tree_layout gives for vo (the same sort,
 * direction, tree and focus). */
bool frame_rows_for(const struct frame *f, const struct view_opts *vo);
/* Sum the groups of a frame built without them (view_opts.no_groups), the
 * same as a frame built with them has; nothing when it has them already.
 * The one change a frame takes once built: most frames of the full screen
 * are never asked. 0 or -ENOMEM. */
int frame__groups(struct frame *f);
struct frame *frame__hold(struct frame *f);   /* one more reference */
void frame__free(struct frame *f);            /* drop one; NULL is fine */
void frame__free_spare(void);                 /* free what frames keep for the next one */
const char *frame_lost_kind_name(enum lost_kind k); /* "ringbuf", "map_full", ... */
const char *frame_probe_label(const struct frame *f, int probe);
const char *frame_phase_label(const struct frame *f, int phase);
const char *frame_label(const struct frame *f, enum split_kind k, int slot);
int frame_nlabels(const struct frame *f, enum split_kind k); /* slots 0..n-1 exist */
/* The group of the subtree of focus_pid, or with focus_pid 0 of the
 * watched root above member (a process of f); the first subtree when member
 * is NULL or not in one. 0, -ENOENT when there is no process, -ENOMEM. */
int frame_group_of(const struct frame *f, int focus_pid, const struct proc *member,
		   struct frame_group *out);
double frame_smaps_age(const struct frame *f, const struct proc *p); /* -1 never read */
/* Whether g's headroom is settled (see FRAME_SETTLE_SAMPLE); sets nothing. */
bool frame_group_settled(const struct frame_group *g);
unsigned long long frame_split_none(const struct proc *p, enum split_kind k); /* copies outside every slot */

/* One part of a process's copies split by one kind, as the views show it. */
struct split_part {
	const char *label; /* the frame's */
	unsigned long long pages;
};

/* Region slots 0..3 (other, heap, stack, anon) are fixed by the model and
 * shown even when empty; slots 4.. are files, shown when they hold copies. */
#define FRAME_REGIONS_FIXED SPLIT_REGION_FILES

int frame_split_parts(const struct frame *f, const struct proc *p, enum split_kind k, bool all,
		      struct split_part out[SPLIT_SLOTS]);

#endif
