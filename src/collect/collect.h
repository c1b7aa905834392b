/* The collector: merges what the kernel side reports (fork, exec and exit
 * events, probe hits, the counter map) and what /proc says into the model,
 * once per tick; marks exits, reaps the kernel's entries, and drops exited
 * processes once they have been shown. Its inputs are the tracer's typed
 * events and a /proc directory fd, so it runs in tests on fixtures. */
#ifndef COWTOP_COLLECT_H
#define COWTOP_COLLECT_H

#include <stdbool.h>
#include "model.h"
#include "procfs.h"
#include "statfds.h"
#include "tracer.h"

#define COLLECT_LINGER_MAX 1024 /* exited processes kept on screen at most (newest) */
#define COLLECT_CMDLINE_READS 3 /* ticks that read a command line after start, exec or rename */
#define COLLECT_FILES 1024      /* files (device, inode) whose region slot is remembered */
#define COLLECT_WANT_MAX 256    /* processes a view can ask to have read every tick */
#define COLLECT_FILE_BACKOFF 32 /* at most this many ticks between tries to name a
				 * file for exited processes only */
#define COLLECT_SLOW_TICKS 10   /* ... the others are read once in this many ticks */
#define COLLECT_RECLAIM_MARK 1.0 /* seconds between two reclaim markers of one process, at least */
#define COLLECT_WALK_SHARE 8    /* the task iterator is used when at least one task of the
				 * machine in this many is a watched process */

/* A file copies were made in, and its slot of SPLIT_REGION: 0 ("other")
 * once the model's slots ran out, -1 while it could not be named yet. */
struct collect_file {
	unsigned long long dev, ino;
	int slot;
	unsigned tried;           /* tick of the last attempt to name it */
	unsigned retry;           /* ... and the next one for an exited process's copies */
	unsigned backoff;         /* ticks from one such attempt to the next */
	bool used;
};

struct collect {
	struct tracer *tracer;
	struct model *model;
	int procfd;               /* /proc, or a fixture directory in tests */
	double (*now)(void);      /* the model clock, seconds */
	size_t (*machine_tasks)(void); /* tasks (threads) of the machine now; 0 unknown */
	/* Called when a watched process exec'd (its probes, its runtime may be
	 * new), and when one forked child pid. */
	void (*on_exec)(int pid, void *ctx);
	/* Called when a watched process mapped a file executable (a library
	 * loaded: its probes may be new). */
	void (*on_mapped)(int pid, void *ctx);
	void (*on_fork)(int pid, int ppid, void *ctx);
	/* Called just before a process found in /proc or by the task iterator
	 * is watched in the kernel, or taken into the model when the kernel
	 * watches it already (its runtime is to be known before its copies
	 * are counted). */
	void (*on_watch)(int pid, unsigned long long start, void *ctx);
	void *ctx;
	int launched;             /* pid of the launched command, 0 when none */
	bool launched_execd;      /* ... and it has exec'd */
	bool saw_fork;            /* a watched process forked */
	bool log_clean_exits;     /* log exits with status 0 too (not when watching everything) */
	unsigned ticks;
	bool walks;               /* the last task walk worked: an iterator is there */
	struct statfds *statfds;  /* kept /proc/PID/stat files; NULL before the first read */
	/* What the views need from /proc (collect__want): every process each
	 * tick, or only these (sorted), the rest every COLLECT_SLOW_TICKS. */
	bool want_all;
	int want[COLLECT_WANT_MAX];
	size_t nwant;
	bool statfds_failed;      /* ... or when they could not be set up */
	struct procfs_pidns self_ns; /* cowtop's own PID namespace, read once */
	struct collect_file files[COLLECT_FILES]; /* open addressing by (dev, ino) */
};

void collect__init(struct collect *c, struct model *m, int procfd);
void collect__free(struct collect *c);
/* Which processes to read from /proc at the next ticks: all of them, or the
 * pids given (rows on screen) every tick and the others now and then. */
void collect__want(struct collect *c, const int *pids, size_t n, bool all);
struct tracer_handlers collect__handlers(struct collect *c);
void collect__event(const struct tracer_event *e, void *ctx);
void collect__hit(const struct tracer_hit *h, void *ctx);
void collect__mem(const struct tracer_mem *m, void *ctx);
void collect__mapped(int pid, void *ctx);
int collect__watch(struct collect *c, const struct proc_stat *st);
/* Watch one process the task iterator found (tracer__discover): in the
 * kernel when it is not there yet, and in the model from its record. */
int collect__watch_task(struct collect *c, const struct tracer_task *k);
void collect__drain(struct collect *c);
double collect__tick(struct collect *c, double dt);
/* collect_regions.c: the copies per region into the model. */
void collect__regions(struct collect *c, bool changed_only);
/* collect_proc.c: what the task walk and /proc say of each process.
 * collect__read_stat reads /proc/PID/stat through a kept file;
 * collect__refresh_proc updates p from /proc, false when the process there
 * is not p any more; collect__refresh_all brings the processes due at this
 * tick up to date; collect__whole_tick says whether this tick reads every
 * process the kernel side holds, not only those that changed. */
int collect__read_stat(struct collect *c, int pid, struct proc_stat *st);
bool collect__refresh_proc(struct collect *c, struct proc *p);
/* Update p from what its /proc/PID/stat said (read by the caller). */
void collect__take_stat(struct collect *c, struct proc *p, const struct proc_stat *st);
void collect__refresh_all(struct collect *c);
bool collect__whole_tick(const struct collect *c);
void collect__forget_exited(struct collect *c, bool screen, double linger);
bool collect__is_live(struct collect *c, int pid);

#endif
