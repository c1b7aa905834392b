/* The collector's merge of kernel records, the counter map and /proc into
 * the model, on fixtures: a fake tracer (this file defines the tracer__
 * functions the collector calls) and a /proc tree written in a temporary
 * directory. No root, no BPF. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>
#include "collect.h"
#include "frame.h"

#define FAKE_MAX 32

/* The kernel side as the collector sees it. */
struct tracer {
	struct tracer_proc map[FAKE_MAX]; /* the counter map */
	bool map_quiet[FAKE_MAX]; /* ... entries a read of the changed ones skips */
	int nmap;
	int reads, partial_reads; /* reads of the map, and of them of changed entries only */
	struct tracer_event queue[FAKE_MAX]; /* ring-buffer records not yet drained */
	int nqueue;
	struct tracer_hit hits[FAKE_MAX];
	int nhits;
	struct tracer_mem mem[FAKE_MAX]; /* OOM kills and reclaim stalls, drained first */
	int nmem;
	struct { int pid; unsigned long long start; } forgot[FAKE_MAX];
	int nforgot;
	int watched[FAKE_MAX];
	int nwatched;
	struct tracer_region regions[FAKE_MAX]; /* the region map */
	int nregions;
	struct { int pid; unsigned long long start; } dropped[FAKE_MAX]; /* forgotten processes
				    whose regions go at the next walk */
	int ndropped;
	int held;                /* pid whose regions are held until its exec */
	struct tracer_task tasks[FAKE_MAX]; /* what the task iterator would read */
	bool quiet[FAKE_MAX];    /* ... and which of them a walk of changed ones skips */
	bool ran[FAKE_MAX];      /* ... ran since last written, though quiet (renamed its title) */
	bool written[FAKE_MAX];  /* ... written by a walk before */
	int ntasks;
	int walks, partial_walks; /* walks so far, and of them of changed ones only */
	bool iterator;           /* there is one (else: -ENOTSUP, /proc is read) */
	struct { unsigned long long dev, ino; const char *name; } files[FAKE_MAX];
	int nfiles;              /* file names the kernel side kept */
	struct tracer_handlers on;
	/* Phases: -u given, and the per-phase counters (slot of pid, start). */
	bool phases;
	struct { int pid; unsigned long long start; int slot; unsigned long long pages; }
		phase[FAKE_MAX];
	int nphase;
	/* The kernel keeps counting while user space reads: called as the
	 * counter and phase maps are read, a process copying (the region map
	 * is read right after the phase map, as fast as the kernel allows). */
	void (*copying)(struct tracer *t, bool phases);
};

/* Some copies made by the running process, if a test has one, as the
 * counter map (or the phase map) is read. */
static void run_kernel(struct tracer *t, bool phases)
{
	if (t->copying)
		t->copying(t, phases);
}

/* The fake kernel side's kept file names. */
int tracer__file_name(struct tracer *t, unsigned long long dev, unsigned long long ino, char *buf,
		      size_t len)
{
	int i;

	for (i = 0; i < t->nfiles; i++)
		if (t->files[i].dev == dev && t->files[i].ino == ino) {
			snprintf(buf, len, "%s", t->files[i].name);
			return 0;
		}
	return -ENOENT;
}

/* The fake task iterator: its records in the order given, but for the
 * quiet ones when only the changed are asked for; changed as the kernel's
 * digest says it: the first time, when not quiet, or when it ran. */
int tracer__for_each_task(struct tracer *t, bool changed_only, tracer_task_fn fn, void *ctx)
{
	int i;

	if (!t->iterator)
		return -ENOTSUP;
	t->walks++;
	t->partial_walks += changed_only;
	for (i = 0; i < t->ntasks; i++)
		if (!(changed_only && t->quiet[i] && !t->ran[i])) {
			t->tasks[i].changed = !t->written[i] || !t->quiet[i] || t->ran[i];
			t->written[i] = true;
			t->ran[i] = false;
			fn(&t->tasks[i], ctx);
		}
	return 0;
}

/* Every region counter, then drop those of forgotten processes, as the
 * tracer does (a counter put without a start time goes with its pid). */
int tracer__for_each_region(struct tracer *t, bool changed_only, tracer_region_fn fn, void *ctx)
{
	(void)changed_only; /* every counter each time: a superset */
	int i, j, k = 0;

	for (i = 0; i < t->nregions; i++)
		fn(&t->regions[i], ctx);
	for (i = 0; i < t->nregions; i++) {
		bool gone = false;

		for (j = 0; j < t->ndropped; j++)
			gone = gone || (t->regions[i].pid == t->dropped[j].pid &&
					(!t->regions[i].start ||
					 t->regions[i].start == t->dropped[j].start));
		if (!gone)
			t->regions[k++] = t->regions[i];
	}
	t->nregions = k;
	t->ndropped = 0;
	return 0;
}

/* Remember the held pid. */
void tracer__hold_regions(struct tracer *t, int pid)
{
	t->held = pid;
}

/* Records waiting in the fake ring buffer go to the handlers. */
int tracer__drain(struct tracer *t)
{
	int i;

	for (i = 0; i < t->nmem; i++)
		t->on.mem(&t->mem[i], t->on.ctx);
	t->nmem = 0;
	for (i = 0; i < t->nqueue; i++)
		t->on.event(&t->queue[i], t->on.ctx);
	for (i = 0; i < t->nhits; i++)
		t->on.hit(&t->hits[i], t->on.ctx);
	t->nqueue = t->nhits = 0;
	return 0;
}

/* Every entry of the fake map, but for the quiet ones when only the
 * changed are asked for. */
int tracer__for_each(struct tracer *t, bool changed_only, tracer_proc_fn fn, void *ctx)
{
	int i;

	run_kernel(t, false);
	t->reads++;
	t->partial_reads += changed_only;
	for (i = 0; i < t->nmap; i++)
		if (!(changed_only && t->map_quiet[i]))
			fn(&t->map[i], ctx);
	return 0;
}

/* Drop an entry when it still belongs to (pid, start), as the kernel's does. */
int tracer__forget(struct tracer *t, int pid, unsigned long long start)
{
	int i, j = 0;

	t->forgot[t->nforgot].pid = pid;
	t->forgot[t->nforgot++].start = start;
	t->dropped[t->ndropped].pid = pid;
	t->dropped[t->ndropped++].start = start;
	for (i = 0; i < t->nmap; i++)
		if (!(t->map[i].pid == pid && t->map[i].start == start)) {
			t->map_quiet[j] = t->map_quiet[i];
			t->map[j++] = t->map[i];
		}
	t->nmap = j;
	return 0;
}

/* Remember a watch request. */
int tracer__watch(struct tracer *t, int pid, int ppid, unsigned long long start)
{
	t->watched[t->nwatched++] = pid;
	return 0;
}

/* Whether a fixture counts phases. */
bool tracer__has_phases(const struct tracer *t)
{
	return t->phases;
}

/* Every per-phase counter (called only with phases). */
int tracer__for_each_phase(struct tracer *t, bool changed_only, tracer_split_fn fn, void *ctx)
{
	(void)changed_only; /* every counter each time: a superset */
	int i;

	assert_true(t->phases);
	run_kernel(t, true);
	for (i = 0; i < t->nphase; i++)
		fn(t->phase[i].pid, t->phase[i].start, t->phase[i].slot, t->phase[i].pages, ctx);
	return 0;
}

/* The per-phase counters of (pid, start) (called only with phases). */
void tracer__phases_of(struct tracer *t, int pid, unsigned long long start,
		       unsigned long long out[PHASE_MAX])
{
	int i;

	assert_true(t->phases);
	memset(out, 0, PHASE_MAX * sizeof(*out));
	for (i = 0; i < t->nphase; i++)
		if (t->phase[i].pid == pid && t->phase[i].start == start)
			out[t->phase[i].slot] = t->phase[i].pages;
}

struct fixture {
	char dir[64];
	struct model *m;
	struct tracer t;
	struct collect c;
};

static double fake_clock;

/* The model clock of the fixtures. */
static double fake_now(void)
{
	return fake_clock;
}

/* Write DIR/PID/stat as the kernel would, with these fields. */
static void proc_put(struct fixture *f, int pid, int ppid, const char *comm, char state,
		     unsigned long long start)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%d", f->dir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/stat", f->dir, pid);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "%d (%s) %c %d 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %llu 8192000 300 0 0\n",
		pid, comm, state, ppid, start);
	fclose(fp);
}

/* Remove DIR/PID: the process left /proc. */
static void proc_drop(struct fixture *f, int pid)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%d/stat", f->dir, pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d", f->dir, pid);
	rmdir(path);
}

/* Write DIR/PID/maps with these lines. */
static void maps_put(struct fixture *f, int pid, const char *text)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%d/maps", f->dir, pid);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A counter of the fake region map (of whichever process has the pid). */
static void region_put(struct fixture *f, int pid, enum region_kind kind, unsigned maj, unsigned min,
		       unsigned long long ino, unsigned long long pages)
{
	f->t.regions[f->t.nregions++] = (struct tracer_region){
		.pid = pid, .kind = kind, .dev = kind == REGION_FILE ? makedev(maj, min) : 0,
		.ino = ino, .pages = pages,
	};
}

/* A counter of the fake region map of the process (pid, start), not a file. */
static void region_put_of(struct fixture *f, int pid, unsigned long long start, enum region_kind kind,
			  unsigned long long pages)
{
	region_put(f, pid, kind, 0, 0, 0, pages);
	f->t.regions[f->t.nregions - 1].start = start;
}

/* An event record queued in the fake ring buffer. */
static struct tracer_event *queue(struct fixture *f, enum tracer_event_kind kind, int pid, int ppid,
		  unsigned long long start, unsigned long long cow, const char *comm)
{
	struct tracer_event *e = &f->t.queue[f->t.nqueue++];

	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->pid = pid;
	e->ppid = ppid;
	e->start = start;
	e->counts.cow = cow;
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
	return e;
}

/* An entry of the fake counter map, with no baseline (as user space makes). */
static struct tracer_proc *map_put(struct fixture *f, int pid, int ppid, unsigned long long start,
				   unsigned long long cow, bool exited)
{
	f->t.map[f->t.nmap] = (struct tracer_proc){
		.pid = pid, .ppid = ppid, .start = start, .exited = exited, .counts.cow = cow,
		.inherited_kib = -1,
	};
	return &f->t.map[f->t.nmap++];
}

/* A process of init's in /proc, watched, with an entry in the kernel's map. */
static void watch_held(struct fixture *f, int pid, const char *comm, unsigned long long start)
{
	proc_put(f, pid, 1, comm, 'S', start);
	collect__watch(&f->c, &(struct proc_stat){ .pid = pid, .ppid = 1, .start_time = start });
	map_put(f, pid, 1, start, 0, false);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int procfd;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_collect.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	procfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(procfd >= 0);
	f->m = model__new();
	assert_non_null(f->m);
	collect__init(&f->c, f->m, procfd);
	f->c.now = fake_now;
	f->c.machine_tasks = NULL; /* the iterator whatever the machine runs; see test_few_watched */
	f->t.on = collect__handlers(&f->c);
	f->c.tracer = &f->t;
	fake_clock = 100;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	collect__free(&f->c);
	close(f->c.procfd);
	model__free(f->m);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* A fork and an exit: the child is shown under its parent with its final
 * counts, and its kernel entry is forgotten. */
static void test_fork_then_exit(void **state)
{
	struct fixture *f = *state;
	struct proc *p;

	proc_put(f, 10, 1, "master", 'S', 500);
	assert_int_equal(collect__watch(&f->c, &(struct proc_stat){ .pid = 10, .ppid = 1, .start_time = 500 }), 0);
	queue(f, TRACER_FORK, 11, 10, 600, 0, "worker");
	queue(f, TRACER_EXIT, 11, 10, 600, 42, "worker");
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 11, 600);
	assert_non_null(p);
	assert_true(p->exited);
	assert_int_equal(p->ppid, 10);
	assert_string_equal(p->comm, "worker");
	assert_int_equal(p->counts.cow, 42);
	assert_int_equal(f->t.nforgot, 1);
	assert_int_equal(f->t.forgot[0].pid, 11);
	assert_int_equal(f->t.forgot[0].start, 600);
	assert_string_equal(model__find(f->m, 10, 500)->comm, "master");
}

/* A process found in /proc that is gone before the collector reads it
 * again keeps the name and parent found, never shows nameless. */
static void test_watch_gone_keeps_name(void **state)
{
	struct fixture *f = *state;
	struct proc_stat st = { .pid = 40, .ppid = 7, .start_time = 950 };
	struct proc *p;

	snprintf(st.comm, sizeof(st.comm), "brief");
	collect__watch(&f->c, &st); /* not in the fake /proc: it has gone */
	p = model__find(f->m, 40, 950);
	assert_non_null(p);
	assert_string_equal(p->comm, "brief");
	assert_int_equal(p->ppid, 7);
}

/* With only the rows on screen wanted, those are read from /proc every
 * tick, the others once in COLLECT_SLOW_TICKS ticks; with everything
 * wanted, all each tick. (The state letter tells a read.) */
static void test_want_rows(void **state)
{
	struct fixture *f = *state;
	struct proc *on, *off;
	int shown = 30, ticks = 0;

	watch_held(f, 30, "shown", 900);
	watch_held(f, 31, "hidden", 901);
	collect__tick(&f->c, 1.0);
	on = model__find(f->m, 30, 900);
	off = model__find(f->m, 31, 901);
	assert_int_equal(off->state, 'S');
	proc_put(f, 30, 1, "shown", 'R', 900);
	proc_put(f, 31, 1, "hidden", 'R', 901);
	collect__want(&f->c, &shown, 1, false);
	/* the hidden one is read within COLLECT_SLOW_TICKS ticks, not every tick */
	while (off->state != 'R' && ticks < COLLECT_SLOW_TICKS + 1) {
		collect__tick(&f->c, 1.0);
		assert_int_equal(on->state, 'R');
		ticks++;
	}
	assert_int_equal(off->state, 'R');
	assert_true(ticks > 1);
	proc_put(f, 30, 1, "shown", 'D', 900);
	proc_put(f, 31, 1, "hidden", 'D', 901);
	collect__want(&f->c, NULL, 0, true);
	collect__tick(&f->c, 1.0);
	assert_int_equal(on->state, 'D');
	assert_int_equal(off->state, 'D');
}

/* A task record as the iterator gives it. */
static void task_put(struct fixture *f, int pid, int ppid, unsigned long long start, char state,
		     unsigned long long rss_kib, bool thread, const char *comm)
{
	f->t.tasks[f->t.ntasks++] = (struct tracer_task){
		.pid = pid, .ppid = ppid, .start = start, .state = state, .rss_kib = rss_kib,
		.vsz_kib = 4 * rss_kib, .thread = thread,
	};
	snprintf(f->t.tasks[f->t.ntasks - 1].comm, TRACER_COMM_LEN, "%s", comm);
}

/* Tick until n more walks of every process have been made. */
static void full_walks(struct fixture *f, int n)
{
	int want = f->t.walks - f->t.partial_walks + n, ticks = 0;

	while (f->t.walks - f->t.partial_walks < want && ticks++ <= n * COLLECT_SLOW_TICKS)
		collect__tick(&f->c, 1.0);
	assert_int_equal(f->t.walks - f->t.partial_walks, want);
}

/* Between reads of every entry, the map is read for changed entries only:
 * an entry the kernel did not flag keeps its counts in the model until the
 * next read of every entry, within COLLECT_SLOW_TICKS ticks; a flagged one
 * is read at once. */
static void test_changed_counts(void **state)
{
	struct fixture *f = *state;
	struct tracer_proc *qk, *bk;
	struct proc *quiet, *busy;
	int ticks = 0, partial;

	watch_held(f, 60, "quiet", 1200);
	watch_held(f, 61, "busy", 1201);
	qk = &f->t.map[0];
	bk = &f->t.map[1];
	while (f->t.reads - f->t.partial_reads < 1)
		collect__tick(&f->c, 1.0);
	quiet = model__find(f->m, 60, 1200);
	busy = model__find(f->m, 61, 1201);
	qk->counts.cow = 7;
	f->t.map_quiet[0] = true;
	bk->counts.cow = 9;
	partial = f->t.partial_reads;
	collect__tick(&f->c, 1.0);
	assert_int_equal(f->t.partial_reads, partial + 1);
	assert_int_equal(busy->counts.cow, 9);
	assert_int_equal(quiet->counts.cow, 0);
	while (quiet->counts.cow != 7 && ticks < COLLECT_SLOW_TICKS) {
		collect__tick(&f->c, 1.0);
		ticks++;
	}
	assert_int_equal(quiet->counts.cow, 7);
	assert_true(ticks > 1);
}

/* With a task iterator and only the rows on screen wanted, the walk of
 * every task is made once in COLLECT_SLOW_TICKS ticks and no other: in
 * between, the row on screen is read from /proc at every tick, the other
 * is left as it is until the next walk gives its figures. */
static void test_want_rows_walked(void **state)
{
	struct fixture *f = *state;
	struct proc *on, *off;
	int shown = 30, ticks = 0, walks;

	watch_held(f, 30, "shown", 900);
	watch_held(f, 31, "hidden", 901);
	f->t.iterator = true;
	task_put(f, 30, 1, 900, 'S', 100, false, "shown");
	task_put(f, 31, 1, 901, 'S', 100, false, "hidden");
	collect__want(&f->c, &shown, 1, false);
	full_walks(f, 1);
	on = model__find(f->m, 30, 900);
	off = model__find(f->m, 31, 901);
	walks = f->t.walks;
	proc_put(f, 30, 1, "shown", 'R', 900);
	proc_put(f, 31, 1, "hidden", 'R', 901); /* /proc: never read for it */
	f->t.tasks[0].state = 'R';
	f->t.tasks[1].state = 'D';
	while (off->state != 'D' && ticks < COLLECT_SLOW_TICKS) {
		collect__tick(&f->c, 1.0);
		assert_int_equal(on->state, 'R');
		assert_int_equal(off->state, f->t.walks > walks ? 'D' : 'S');
		ticks++;
	}
	assert_int_equal(off->state, 'D');
	assert_int_equal(f->t.walks, walks + 1);
	assert_int_equal(f->t.partial_walks, 0);
	assert_true(ticks > 1);
}

/* With a task iterator, the processes the kernel side holds take their
 * figures from it, not from /proc; a thread's record gives the figures of
 * a process whose leader exited; one the walk no longer sees has gone. */
static void test_task_walk(void **state)
{
	struct fixture *f = *state;
	struct proc *a, *b;

	watch_held(f, 40, "alpha", 1000);
	watch_held(f, 41, "beta", 1001);
	f->t.iterator = true;
	task_put(f, 40, 7, 1000, 'R', 5000, false, "alpha2");
	task_put(f, 41, 1, 1001, 'Z', 0, false, "beta");
	task_put(f, 41, 1, 1001, 'S', 7000, true, "beta");
	collect__tick(&f->c, 1.0);
	a = model__find(f->m, 40, 1000);
	b = model__find(f->m, 41, 1001);
	assert_int_equal(a->state, 'R'); /* /proc says S: the walk was used */
	assert_int_equal(a->rss_kib, 5000);
	assert_int_equal(a->ppid, 7);
	assert_string_equal(a->comm, "alpha2");
	assert_int_equal(b->state, 'S');
	assert_int_equal(b->rss_kib, 7000);
	assert_false(b->exited);
	/* beta leaves the walk, and /proc (and its exit record never came):
	 * gone after the second walk of every process */
	f->t.ntasks = 1;
	proc_drop(f, 41);
	full_walks(f, 1);
	assert_false(b->exited);
	full_walks(f, 1);
	assert_true(b->exited);
	assert_false(a->exited);
	/* a process the walk misses but /proc has (pid 1 on some kernels) lives */
	f->t.ntasks = 0;
	full_walks(f, 2);
	assert_false(a->exited);
	assert_int_equal(a->state, 'S');
}

static size_t fake_tasks;

/* How many tasks the fake machine runs. */
static size_t fake_machine_tasks(void)
{
	return fake_tasks;
}

/* One small tree among many tasks: the task iterator, which would visit
 * every task of the machine, is not run; /proc is read for the watched
 * processes, as without an iterator. When they are many among the
 * machine's tasks, it is run again. */
static void test_few_watched(void **state)
{
	struct fixture *f = *state;
	struct proc *a;
	int ticks;

	watch_held(f, 42, "alpha", 1002);
	f->t.iterator = true;
	task_put(f, 42, 1, 1002, 'R', 5000, false, "alpha");
	f->c.machine_tasks = fake_machine_tasks;
	fake_tasks = 50000;
	for (ticks = 0; ticks < 2 * COLLECT_SLOW_TICKS; ticks++)
		collect__tick(&f->c, 1.0);
	a = model__find(f->m, 42, 1002);
	assert_int_equal(f->t.walks, 0);
	assert_int_equal(a->state, 'S'); /* /proc's, not the walk's R */
	assert_false(a->exited);
	fake_tasks = 4;
	collect__tick(&f->c, 1.0);
	assert_int_equal(f->t.walks, 1);
	assert_int_equal(a->state, 'R');
}

/* A walk of changed processes only: a process it passes over keeps its
 * figures, read neither from it nor from /proc, until the next walk of
 * every process, which comes within COLLECT_SLOW_TICKS ticks; one it
 * writes is fresh at once. */
static void test_task_walk_changed(void **state)
{
	struct fixture *f = *state;
	struct proc *idle, *busy;
	int ticks = 0, partial;

	watch_held(f, 50, "idle", 1100);
	watch_held(f, 51, "busy", 1101);
	f->t.iterator = true;
	task_put(f, 50, 1, 1100, 'S', 100, false, "idle");
	task_put(f, 51, 1, 1101, 'S', 200, false, "busy");
	collect__want(&f->c, NULL, 0, true); /* every process wanted each tick */
	full_walks(f, 1);
	idle = model__find(f->m, 50, 1100);
	busy = model__find(f->m, 51, 1101);
	assert_int_equal(idle->rss_kib, 100);
	/* reclaim shrinks the idle one, which does not run; the busy one runs */
	f->t.tasks[0].rss_kib = 60;
	f->t.quiet[0] = true;
	f->t.tasks[1].rss_kib = 300;
	proc_put(f, 50, 1, "idle", 'D', 1100); /* /proc, if read, would say D */
	partial = f->t.partial_walks;
	collect__tick(&f->c, 1.0);
	assert_int_equal(f->t.partial_walks, partial + 1);
	assert_int_equal(busy->rss_kib, 300);
	assert_int_equal(idle->rss_kib, 100);
	assert_int_equal(idle->state, 'S');
	while (idle->rss_kib != 60 && ticks < COLLECT_SLOW_TICKS) {
		collect__tick(&f->c, 1.0);
		ticks++;
	}
	assert_int_equal(idle->rss_kib, 60);
	assert_int_equal(idle->state, 'S'); /* from the walk, never /proc */
	assert_true(ticks > 1);
	assert_false(idle->exited);
}

/* DIR/PID/cmdline: the process's arguments, NUL-separated. */
static void cmdline_put(struct fixture *f, int pid, const char *arg0, const char *arg1)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%d/cmdline", f->dir, pid);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "%s%c%s%c", arg0, 0, arg1, 0);
	fclose(fp);
}

/* A command line is read when its process is found, and again only at
 * reads within COLLECT_CMDLINE_READS ticks of that, or after a rename: a
 * process that retitles itself soon after runs, and the walk of changed
 * processes reads it; an idle one is not read again by the whole walks.
 * One seen forked has its first reads whenever they come: a new worker
 * off screen is read only by whole walks. */
static void test_cmdline_reads(void **state)
{
	struct fixture *f = *state;
	struct proc *idle, *busy, *child;

	watch_held(f, 70, "idle", 1300);
	watch_held(f, 71, "busy", 1301);
	cmdline_put(f, 70, "idle", "one");
	cmdline_put(f, 71, "busy", "one");
	f->t.iterator = true;
	task_put(f, 70, 1, 1300, 'S', 100, false, "idle");
	task_put(f, 71, 1, 1301, 'S', 100, false, "busy");
	collect__want(&f->c, NULL, 0, true);
	full_walks(f, 1);
	idle = model__find(f->m, 70, 1300);
	busy = model__find(f->m, 71, 1301);
	assert_string_equal(idle->cmdline, "idle one");
	assert_string_equal(busy->cmdline, "busy one");
	/* both retitle; only the busy one runs, and is read the next tick */
	cmdline_put(f, 70, "idle", "two");
	cmdline_put(f, 71, "busy", "two");
	f->t.quiet[0] = true;
	collect__tick(&f->c, 1.0);
	assert_string_equal(busy->cmdline, "busy two");
	assert_string_equal(idle->cmdline, "idle one");
	/* a worker forks off the idle one, and is read at once */
	proc_put(f, 72, 70, "idle", 'S', 1400);
	cmdline_put(f, 72, "idle", "one");
	map_put(f, 72, 70, 1400, 0, false);
	task_put(f, 72, 70, 1400, 'S', 100, false, "idle");
	queue(f, TRACER_FORK, 72, 70, 1400, 0, "idle");
	collect__tick(&f->c, 1.0);
	child = model__find(f->m, 72, 1400);
	assert_non_null(child);
	assert_string_equal(child->cmdline, "idle one");
	/* it retitles, and stays idle: the next whole walk, ten ticks on,
	 * reads its title, and the idle one's stat only */
	cmdline_put(f, 72, "idle", "worker");
	f->t.quiet[2] = true;
	f->t.ran[2] = true;
	full_walks(f, 1);
	assert_string_equal(idle->cmdline, "idle one");
	assert_string_equal(child->cmdline, "idle worker");
	/* past its window, the busy one is not read again either... */
	cmdline_put(f, 71, "busy", "three");
	collect__tick(&f->c, 1.0);
	assert_string_equal(busy->cmdline, "busy two");
	/* ... until it renames itself */
	snprintf(f->t.tasks[1].comm, TRACER_COMM_LEN, "%s", "busy:w1");
	collect__tick(&f->c, 1.0);
	assert_string_equal(busy->cmdline, "busy three");
}

/* A process the task iterator found at start (tracer__discover) has its
 * command line read then, once: an idle one is not read again by the first
 * whole walk, whose record of it says nothing changed (5,000 idle
 * processes found cost 5,000 command lines before the first frame, not
 * 10,000). One that ran since is read again. */
static void test_cmdline_found_once(void **state)
{
	struct fixture *f = *state;
	struct tracer_task k = { .pid = 80, .ppid = 1, .start = 1500, .state = 'S', .rss_kib = 10,
				 .changed = true, .comm = "found" };
	struct proc *idle, *busy;

	proc_put(f, 80, 1, "found", 'S', 1500);
	proc_put(f, 81, 1, "found", 'S', 1501);
	cmdline_put(f, 80, "found", "one");
	cmdline_put(f, 81, "found", "one");
	assert_int_equal(collect__watch_task(&f->c, &k), 0);
	k.pid = 81;
	k.start = 1501;
	assert_int_equal(collect__watch_task(&f->c, &k), 0);
	map_put(f, 80, 1, 1500, 0, false);
	map_put(f, 81, 1, 1501, 0, false);
	idle = model__find(f->m, 80, 1500);
	busy = model__find(f->m, 81, 1501);
	assert_non_null(idle);
	assert_non_null(busy);
	assert_string_equal(idle->cmdline, "found one");
	assert_string_equal(busy->cmdline, "found one");
	assert_int_equal(idle->nspid, -1); /* no ns link in the fixture, none from the record */
	f->t.iterator = true;
	task_put(f, 80, 1, 1500, 'S', 10, false, "found");
	task_put(f, 81, 1, 1501, 'S', 10, false, "found");
	f->t.written[0] = f->t.written[1] = true; /* the discovery pass wrote them */
	f->t.quiet[0] = f->t.quiet[1] = true;
	f->t.ran[1] = true;
	cmdline_put(f, 80, "found", "two");
	cmdline_put(f, 81, "found", "two");
	collect__want(&f->c, NULL, 0, true);
	full_walks(f, 1);
	assert_string_equal(idle->cmdline, "found one");
	assert_string_equal(busy->cmdline, "found two");
}

/* The exit record of a child is read before its fork record: it stays
 * exited with its final counts (the fork's older counts do not move them
 * back), and it still hangs under its parent. */
static void test_exit_before_fork(void **state)
{
	struct fixture *f = *state;
	struct proc *p;

	queue(f, TRACER_EXIT, 21, 20, 700, 77, "early");
	queue(f, TRACER_FORK, 21, 20, 700, 0, "early");
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 21, 700);
	assert_non_null(p);
	assert_true(p->exited);
	assert_int_equal(p->counts.cow, 77);
	assert_int_equal(p->ppid, 20);
	assert_int_equal(model__count(f->m), 1);
}

/* A pid reused by a new process: the two are kept apart, the old one's
 * forget does not drop the new one's counters, and the new one's counts go
 * to it alone. */
static void test_pid_reuse(void **state)
{
	struct fixture *f = *state;
	struct proc *old, *young;

	queue(f, TRACER_FORK, 30, 1, 800, 0, "old");
	queue(f, TRACER_EXIT, 30, 1, 800, 5, "old");
	queue(f, TRACER_FORK, 30, 1, 900, 0, "young");
	map_put(f, 30, 1, 900, 9, false);
	proc_put(f, 30, 1, "young", 'R', 900);
	collect__tick(&f->c, 1.0);
	old = model__find(f->m, 30, 800);
	young = model__find(f->m, 30, 900);
	assert_non_null(old);
	assert_non_null(young);
	assert_ptr_not_equal(old, young);
	assert_true(old->exited);
	assert_int_equal(old->counts.cow, 5);
	assert_false(young->exited);
	assert_int_equal(young->counts.cow, 9);
	assert_ptr_equal(model__find_live(f->m, 30), young);
	assert_int_equal(f->t.nmap, 1); /* the young one's entry survives the old one's forget */
}

/* How children ended, and the parent's respawn counts: each exit's status
 * and the OOM flag reach the model; the OOM kill and one reclaim stall (of
 * two close together) become markers; a process that leaves the --cgroup
 * target is not counted as an exited child. */
static void test_exit_causes_and_respawns(void **state)
{
	struct fixture *f = *state;
	struct tracer_event *e;
	const struct marker *mk[8];
	unsigned long long cursor = 0;
	struct proc *m;

	proc_put(f, 50, 1, "master", 'S', 500);
	assert_int_equal(collect__watch(&f->c, &(struct proc_stat){ .pid = 50, .ppid = 1, .start_time = 500 }), 0);
	queue(f, TRACER_FORK, 51, 50, 600, 0, "w1");
	queue(f, TRACER_FORK, 52, 50, 601, 0, "w2");
	queue(f, TRACER_FORK, 53, 50, 602, 0, "w3");
	queue(f, TRACER_FORK, 54, 50, 603, 0, "w4");
	f->t.mem[f->t.nmem++] = (struct tracer_mem){ .kind = TRACER_RECLAIM, .time = 1.0, .pid = 52,
						     .tid = 52, .memcg = true, .stall = 0.002 };
	f->t.mem[f->t.nmem++] = (struct tracer_mem){ .kind = TRACER_RECLAIM, .time = 1.1, .pid = 52,
						     .tid = 52, .memcg = true, .stall = 0.001 };
	collect__tick(&f->c, 1.0); /* the forks first: a stall or kill of a process not held is no mark */
	f->t.mem[f->t.nmem++] = (struct tracer_mem){ .kind = TRACER_RECLAIM, .time = 2.0, .pid = 52,
						     .tid = 52, .memcg = true, .stall = 0.002 };
	f->t.mem[f->t.nmem++] = (struct tracer_mem){ .kind = TRACER_RECLAIM, .time = 2.1, .pid = 52,
						     .tid = 52, .memcg = true, .stall = 0.001 };
	f->t.mem[f->t.nmem++] = (struct tracer_mem){ .kind = TRACER_OOM, .time = 2.2, .pid = 52,
						     .tid = 52, .anon_kib = 4096 };
	queue(f, TRACER_EXIT, 51, 50, 600, 0, "w1")->exit_status = 3 << 8;
	e = queue(f, TRACER_EXIT, 52, 50, 601, 0, "w2");
	e->exit_status = 9;
	e->reclaims = 2;
	e->reclaim_s = 0.003;
	queue(f, TRACER_EXIT, 53, 50, 602, 0, "w3")->exit_status = 11;
	queue(f, TRACER_LEAVE, 54, 50, 603, 0, "w4");
	collect__tick(&f->c, 1.0);
	assert_int_equal(model__find(f->m, 51, 600)->exit.status, 3 << 8);
	assert_false(model__find(f->m, 51, 600)->exit.oom);
	assert_true(model__find(f->m, 52, 601)->exit.oom);
	assert_int_equal(model__find(f->m, 52, 601)->exit.status, 9);
	assert_int_equal(model__find(f->m, 52, 601)->reclaims, 2);
	assert_int_equal(model__find(f->m, 53, 602)->exit.status, 11);
	assert_true(model__find(f->m, 54, 603)->exit.left);
	assert_true(model__find(f->m, 54, 603)->exited);
	m = model__find(f->m, 50, 500);
	assert_int_equal(m->forked, 4);
	assert_int_equal(m->reaped, 3); /* the one that left the cgroup did not exit */
	assert_int_equal(model__markers_take(f->m, &cursor, mk, 8), 5);
	assert_string_equal(model__probe_label(f->m, mk[0]->probe), "reclaim:memcg");
	assert_int_equal(mk[0]->args[0], 2000); /* microseconds */
	assert_string_equal(model__probe_label(f->m, mk[1]->probe), "oom:kill");
	assert_int_equal(mk[1]->args[0], 4096);
	/* the exits, with their cause; none for the one that left the cgroup */
	assert_string_equal(model__probe_label(f->m, mk[2]->probe), "exit:code");
	assert_int_equal(mk[2]->pid, 51);
	assert_int_equal(mk[2]->nargs, 1);
	assert_int_equal(mk[2]->args[0], 3);
	assert_int_equal(mk[2]->unavail, 0);
	assert_string_equal(model__probe_label(f->m, mk[3]->probe), "exit:oom");
	assert_int_equal(mk[3]->pid, 52);
	assert_string_equal(model__probe_label(f->m, mk[4]->probe), "exit:SIGSEGV");
	assert_int_equal(mk[4]->pid, 53);
	assert_int_equal(mk[4]->nargs, 0);
	assert_int_equal(model__nkernel_probes(f->m), 5);
}

/* Exits 0 are logged only when some target is watched (not everything);
 * any other exit always. */
static void test_exit_markers_clean(void **state)
{
	struct fixture *f = *state;
	const struct marker *mk[8];
	unsigned long long cursor = 0;

	proc_put(f, 50, 1, "master", 'S', 500);
	assert_int_equal(collect__watch(&f->c, &(struct proc_stat){ .pid = 50, .ppid = 1, .start_time = 500 }), 0);
	queue(f, TRACER_FORK, 51, 50, 600, 0, "w1");
	queue(f, TRACER_FORK, 52, 50, 601, 0, "w2");
	queue(f, TRACER_FORK, 53, 50, 602, 0, "w3");
	collect__tick(&f->c, 1.0);
	queue(f, TRACER_EXIT, 51, 50, 600, 0, "w1"); /* exit 0, watching everything: not logged */
	collect__tick(&f->c, 1.0);
	assert_int_equal(model__markers_take(f->m, &cursor, mk, 8), 0);
	f->c.log_clean_exits = true; /* a target: every exit */
	queue(f, TRACER_EXIT, 52, 50, 601, 0, "w2");
	queue(f, TRACER_EXIT, 53, 50, 602, 0, "w3")->exit_status = 64 | 0x80; /* unnamed signal, core */
	collect__tick(&f->c, 1.0);
	assert_int_equal(model__markers_take(f->m, &cursor, mk, 8), 2);
	assert_string_equal(model__probe_label(f->m, mk[0]->probe), "exit:code");
	assert_int_equal(mk[0]->args[0], 0);
	assert_string_equal(model__probe_label(f->m, mk[1]->probe), "exit:signal");
	assert_int_equal(mk[1]->args[0], 64);
}

/* Records lost: an exit whose record never came is found in the map (final
 * counts, exited) and reaped; a fork whose record never came is adopted
 * once /proc confirms it; a map entry /proc does not confirm is left out. */
static void test_lost_records(void **state)
{
	struct fixture *f = *state;
	struct proc *p;

	queue(f, TRACER_FORK, 40, 1, 1000, 0, "quiet");
	collect__tick(&f->c, 1.0);
	map_put(f, 40, 1, 1000, 123, true);     /* its exit record was lost */
	map_put(f, 41, 1, 1100, 7, false);      /* its fork record was lost */
	proc_put(f, 41, 1, "adopted", 'S', 1100);
	map_put(f, 42, 1, 1200, 3, false);      /* gone, its exit on the way */
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 40, 1000);
	assert_non_null(p);
	assert_true(p->exited);
	assert_int_equal(p->counts.cow, 123);
	p = model__find(f->m, 41, 1100);
	assert_non_null(p);
	assert_false(p->exited);
	assert_string_equal(p->comm, "adopted");
	assert_int_equal(p->counts.cow, 7);
	assert_null(model__find(f->m, 42, 0));
	assert_int_equal(f->t.nmap, 2); /* 40's entry reaped, 41 and 42 kept */
}

/* A process vanishing from /proc: one only /proc knew is exited at once;
 * one the kernel counts waits a frame for its exit record, then is exited
 * with the counts it has. */
static void test_vanishing_from_proc(void **state)
{
	struct fixture *f = *state;
	struct proc *scanned, *counted;

	proc_put(f, 50, 1, "scanned", 'S', 1300);
	collect__watch(&f->c, &(struct proc_stat){ .pid = 50, .ppid = 1, .start_time = 1300 });
	proc_put(f, 51, 1, "counted", 'S', 1400);
	queue(f, TRACER_FORK, 51, 1, 1400, 0, "counted");
	collect__tick(&f->c, 1.0);
	scanned = model__find(f->m, 50, 1300);
	counted = model__find(f->m, 51, 1400);
	assert_false(scanned->exited);
	assert_int_equal(scanned->rss_kib, 300 * procfs_page_kib());
	assert_int_equal(scanned->vsz_kib, 8000);
	assert_int_equal(scanned->state, 'S');
	proc_drop(f, 50);
	proc_drop(f, 51);
	fake_clock = 101;
	collect__tick(&f->c, 1.0);
	assert_true(scanned->exited);
	assert_true(scanned->exit_time == 101);
	assert_false(counted->exited);
	collect__tick(&f->c, 1.0);
	assert_true(counted->exited);
}

/* The launched command's copies before its exec (cowtop's own, behind the
 * gate) are not counted; probe hits become markers. */
static void test_launch_base_and_hits(void **state)
{
	struct fixture *f = *state;
	struct tracer_hit *h = &f->t.hits[f->t.nhits++];
	struct proc *p;

	f->c.launched = 60;
	queue(f, TRACER_EXEC, 60, 1, 1500, 30, "cmd");
	queue(f, TRACER_EXIT, 60, 1, 1500, 45, "cmd");
	*h = (struct tracer_hit){ .time = 5.5, .pid = 60, .probe = 0, .nargs = 1, .args = { 7 } };
	assert_int_equal(model__add_probe(f->m, "p:x"), 0);
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 60, 1500);
	assert_non_null(p);
	assert_int_equal(p->counts.cow, 15);
	assert_true(f->c.launched_execd);
}

/* The launched command's copies before its exec (cowtop's, behind the
 * launch gate) were read and settled as its "other" region; the exec takes
 * them off its copies, and off "other" too: its 5 copies after the exec
 * are not raised to the 30 made before. */
static void test_launch_base_other(void **state)
{
	struct fixture *f = *state;
	struct tracer_proc *e;
	struct proc *p;
	int tick;

	f->c.launched = 60;
	watch_held(f, 60, "cowtop", 1500);
	e = &f->t.map[0];
	e->counts.cow = 30;
	collect__tick(&f->c, 1.0);
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 60, 1500);
	assert_int_equal(frame_split_none(p, SPLIT_REGION), 30);
	queue(f, TRACER_EXEC, 60, 1, 1500, 30, "cmd");
	e->counts.cow = 35;
	for (tick = 0; tick < 3; tick++) {
		collect__tick(&f->c, 1.0);
		assert_true(p->counts.cow <= 5);
		assert_true(frame_split_none(p, SPLIT_REGION) <= p->counts.cow);
	}
	assert_int_equal(p->counts.cow, 5);
	assert_int_equal(frame_split_none(p, SPLIT_REGION), 5);
}

/* The launched command was read from /proc as cowtop's fork, before its
 * exec: that RSS and VSZ were cowtop's. An exec makes them unknown until
 * read again (an exit before the next refresh leaves them unknown). */
static void test_exec_forgets_memory(void **state)
{
	struct fixture *f = *state;
	struct proc *p = model__add(f->m, 60, 1500);

	assert_non_null(p);
	model__set_mem(p, 'S', 12000, 18000);
	assert_true(proc_mem_known(p));
	queue(f, TRACER_EXEC, 60, 1, 1500, 0, "cmd");
	queue(f, TRACER_EXIT, 60, 1, 1500, 3, "cmd");
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 60, 1500);
	assert_non_null(p);
	assert_true(p->exited);
	assert_false(proc_mem_known(p));
	assert_int_equal(p->rss_kib, 0);
}

/* The prefork baseline comes with the fork record; a process found
 * running has none. */
static void test_inherited_from_fork(void **state)
{
	struct fixture *f = *state;

	proc_put(f, 80, 1, "master", 'S', 1800);
	collect__watch(&f->c, &(struct proc_stat){ .pid = 80, .ppid = 1, .start_time = 1800 });
	queue(f, TRACER_FORK, 81, 80, 1900, 0, "worker")->inherited_kib = 102400;
	collect__tick(&f->c, 1.0);
	assert_int_equal(model__find(f->m, 81, 1900)->inherited_kib, 102400);
	assert_int_equal(model__find(f->m, 80, 1800)->inherited_kib, -1);
}

/* A lost fork record: the baseline is taken from the map entry, whether
 * the process is adopted from the map or /proc found it first; an entry
 * without one (made by user space) leaves it unknown. */
static void test_inherited_from_map(void **state)
{
	struct fixture *f = *state;

	proc_put(f, 90, 1, "adopted", 'S', 2000);
	map_put(f, 90, 1, 2000, 0, false)->inherited_kib = 4096;
	proc_put(f, 91, 1, "scanned", 'S', 2100);
	collect__watch(&f->c, &(struct proc_stat){ .pid = 91, .ppid = 1, .start_time = 2100 });
	map_put(f, 91, 1, 2100, 0, false)->inherited_kib = 8192;
	proc_put(f, 92, 1, "running", 'S', 2200);
	map_put(f, 92, 1, 2200, 0, false);
	collect__tick(&f->c, 1.0);
	assert_int_equal(model__find(f->m, 90, 2000)->inherited_kib, 4096);
	assert_int_equal(model__find(f->m, 91, 2100)->inherited_kib, 8192);
	assert_int_equal(model__find(f->m, 92, 2200)->inherited_kib, -1);
}

/* Exited processes leave after their frame in batch, after linger seconds
 * on screen. */
static void test_forget_exited(void **state)
{
	struct fixture *f = *state;

	queue(f, TRACER_EXIT, 70, 1, 1600, 1, "a");
	collect__tick(&f->c, 1.0);
	collect__forget_exited(&f->c, true, 5.0);
	assert_int_equal(model__count(f->m), 1);
	fake_clock = 106;
	collect__forget_exited(&f->c, true, 5.0);
	assert_int_equal(model__count(f->m), 0);
	queue(f, TRACER_EXIT, 71, 1, 1700, 1, "b");
	collect__tick(&f->c, 1.0);
	collect__forget_exited(&f->c, false, 5.0);
	assert_int_equal(model__count(f->m), 0);
}

#define MAPS_LIBC "7f33823e7000-7f338240d000 r--p 00000000 fe:00 332835                     /usr/lib/x86_64-linux-gnu/libc.so.6\n"
#define MAPS_LIBC_RW "7f3382589000-7f338258b000 rw-p 001d4000 fe:00 332835                     /usr/lib/x86_64-linux-gnu/libc.so.6\n"
#define MAPS_DATA "7f0f2dfac000-7f0f2dfb6000 rw-p 00000000 08:11 77                         /srv/data.bin (deleted)\n"
#define MAPS_HEAP "555b940fd000-555b94108000 rw-p 00000000 00:00 0                          [heap]\n"

/* Region counters go to their slots: heap, stack, anon fixed; files by the
 * name maps gives them (last component, " (deleted)" dropped), non
 * executable mappings too; a file maps does not show is left to "other";
 * two files of the same name add up in one slot. */
static void test_regions(void **state)
{
	struct fixture *f = *state;
	const struct split *sp;
	struct proc *p;
	int libc, data;

	proc_put(f, 10, 1, "worker", 'S', 500);
	maps_put(f, 10, MAPS_LIBC MAPS_HEAP MAPS_LIBC_RW MAPS_DATA
		 "7f0f2dfac000-7f0f2dfb6000 r--p 00000000 08:12 5 /other/libc.so.6\n");
	collect__watch(&f->c, &(struct proc_stat){ .pid = 10, .ppid = 1, .start_time = 500 });
	map_put(f, 10, 1, 500, 100, false);
	region_put(f, 10, REGION_HEAP, 0, 0, 0, 5);
	region_put(f, 10, REGION_STACK, 0, 0, 0, 3);
	region_put(f, 10, REGION_ANON, 0, 0, 0, 2);
	region_put(f, 10, REGION_FILE, 0xfe, 0, 332835, 4);
	region_put(f, 10, REGION_FILE, 8, 0x11, 77, 6);
	region_put(f, 10, REGION_FILE, 8, 0x12, 5, 1);
	region_put(f, 10, REGION_FILE, 8, 0x11, 99, 7);   /* not in maps */
	region_put(f, 10, REGION_OTHER, 0, 0, 0, 50);     /* never a slot */
	region_put(f, 12, REGION_HEAP, 0, 0, 0, 9);       /* no such process */
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 10, 500);
	sp = &p->split[SPLIT_REGION];
	assert_int_equal(sp->v[SPLIT_REGION_HEAP], 5);
	assert_int_equal(sp->v[SPLIT_REGION_STACK], 3);
	assert_int_equal(sp->v[SPLIT_REGION_ANON], 2);
	libc = model__add_label(f->m, SPLIT_REGION, "file:libc.so.6");
	data = model__add_label(f->m, SPLIT_REGION, "file:data.bin");
	assert_int_equal(model__nlabels(f->m, SPLIT_REGION), SPLIT_REGION_FILES + 2);
	assert_int_equal(sp->v[libc], 5);
	assert_int_equal(sp->v[data], 6);
	assert_int_equal(p->split[SPLIT_PHASE].v[SPLIT_REGION_HEAP], 0);
	assert_null(model__find(f->m, 12, 0));
}

/* A process that exited before its files were named: they are named from
 * its parent's maps; its final region counts are read in the frame of its
 * exit, and its counters then go. */
static void test_regions_at_exit(void **state)
{
	struct fixture *f = *state;
	struct proc *p;
	int libc;

	proc_put(f, 20, 1, "master", 'S', 600);
	maps_put(f, 20, MAPS_LIBC);
	collect__watch(&f->c, &(struct proc_stat){ .pid = 20, .ppid = 1, .start_time = 600 });
	queue(f, TRACER_FORK, 21, 20, 700, 0, "worker");
	queue(f, TRACER_EXIT, 21, 20, 700, 30, "worker");
	region_put(f, 21, REGION_FILE, 0xfe, 0, 332835, 8);
	region_put(f, 21, REGION_HEAP, 0, 0, 0, 20);
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 21, 700);
	assert_true(p->exited);
	libc = model__add_label(f->m, SPLIT_REGION, "file:libc.so.6");
	assert_int_equal(p->split[SPLIT_REGION].v[libc], 8);
	assert_int_equal(p->split[SPLIT_REGION].v[SPLIT_REGION_HEAP], 20);
	assert_int_equal(f->t.nregions, 0);
}

/* A pid reused while the exited process that had it still shows: each
 * one's region counters go to it, never the older one's to the newer. */
static void test_regions_of_reused_pid(void **state)
{
	struct fixture *f = *state;
	struct proc *old, *now;

	proc_put(f, 30, 1, "master", 'S', 800);
	collect__watch(&f->c, &(struct proc_stat){ .pid = 30, .ppid = 1, .start_time = 800 });
	queue(f, TRACER_FORK, 31, 30, 900, 0, "worker");
	queue(f, TRACER_EXIT, 31, 30, 900, 40, "worker");
	region_put_of(f, 31, 900, REGION_HEAP, 40);
	collect__tick(&f->c, 1.0);
	queue(f, TRACER_FORK, 31, 30, 950, 0, "worker");
	region_put_of(f, 31, 950, REGION_HEAP, 3);
	region_put_of(f, 31, 950, REGION_ANON, 2);
	collect__tick(&f->c, 2.0);
	old = model__find(f->m, 31, 900);
	now = model__find(f->m, 31, 950);
	assert_non_null(old);
	assert_non_null(now);
	assert_true(old->exited);
	assert_false(now->exited);
	assert_int_equal(old->split[SPLIT_REGION].v[SPLIT_REGION_HEAP], 40);
	assert_int_equal(old->split[SPLIT_REGION].v[SPLIT_REGION_ANON], 0);
	assert_int_equal(now->split[SPLIT_REGION].v[SPLIT_REGION_HEAP], 3);
	assert_int_equal(now->split[SPLIT_REGION].v[SPLIT_REGION_ANON], 2);
}

/* A worker and its parent both gone before the walk (a command that
 * forked, copied and ended within a tick): no maps file names the file,
 * the name the kernel side kept does. */
static void test_regions_named_by_kernel(void **state)
{
	struct fixture *f = *state;
	struct proc *p;
	int slot;

	f->t.files[f->t.nfiles++].dev = makedev(0xfe, 0);
	f->t.files[0].ino = 4242;
	f->t.files[0].name = "data.bin";
	queue(f, TRACER_FORK, 51, 50, 700, 0, "worker");
	queue(f, TRACER_EXIT, 51, 50, 700, 30, "worker");
	region_put(f, 51, REGION_FILE, 0xfe, 0, 4242, 30);
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 51, 700);
	assert_non_null(p);
	slot = model__add_label(f->m, SPLIT_REGION, "file:data.bin");
	assert_int_equal(p->split[SPLIT_REGION].v[slot], 30);
}

/* A file no process maps any more is "other" for now, and named once a
 * process shows it; past the last slot, files are "other" for good. */
static void test_regions_unnamed_and_full(void **state)
{
	struct fixture *f = *state;
	char label[32], line[160];
	struct proc *p;
	int i, slot;

	proc_put(f, 30, 1, "worker", 'S', 800);
	maps_put(f, 30, "");
	collect__watch(&f->c, &(struct proc_stat){ .pid = 30, .ppid = 1, .start_time = 800 });
	region_put(f, 30, REGION_FILE, 0xfe, 0, 332835, 8);
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 30, 800);
	assert_int_equal(model__nlabels(f->m, SPLIT_REGION), SPLIT_REGION_FILES);
	maps_put(f, 30, MAPS_LIBC);
	collect__tick(&f->c, 1.0);
	slot = model__add_label(f->m, SPLIT_REGION, "file:libc.so.6");
	assert_int_equal(p->split[SPLIT_REGION].v[slot], 8);
	for (i = 0; model__add_label(f->m, SPLIT_REGION, (snprintf(label, sizeof(label), "x%d", i), label)) > 0; i++)
		;
	snprintf(line, sizeof(line), "7f0f2dfac000-7f0f2dfb6000 rw-p 00000000 08:11 123 /late.so\n");
	maps_put(f, 30, line);
	region_put(f, 30, REGION_FILE, 8, 0x11, 123, 4);
	collect__tick(&f->c, 1.0);
	for (i = 0; i < SPLIT_SLOTS; i++)
		assert_true(p->split[SPLIT_REGION].v[i] != 4);
}

/* A short-lived child that brought a file copies were made in, exited:
 * file slot of its copies this frame (-1 when left to "other"). */
static int exited_child_slot(struct fixture *f, int pid, unsigned long long start)
{
	struct proc *p;
	int i;

	queue(f, TRACER_FORK, pid, 50, start, 0, "awk");
	queue(f, TRACER_EXIT, pid, 50, start, 3, "awk");
	region_put(f, pid, REGION_FILE, 0xfe, 0, 332835, 3);
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, pid, start);
	assert_non_null(p);
	for (i = SPLIT_REGION_FILES; i < SPLIT_SLOTS; i++)
		if (p->split[SPLIT_REGION].v[i] == 3)
			return i;
	return -1;
}

/* Exited processes that bring a file nobody maps try to name it less and
 * less often (a shell loop would read the maps of its ancestors every
 * tick), while a live process's copies still name it at once. */
static void test_regions_exited_back_off(void **state)
{
	struct fixture *f = *state;
	struct proc *p;
	int libc;

	proc_put(f, 50, 1, "sh", 'S', 1000);
	maps_put(f, 50, "");
	collect__watch(&f->c, &(struct proc_stat){ .pid = 50, .ppid = 1, .start_time = 1000 });
	assert_int_equal(exited_child_slot(f, 51, 1001), -1); /* tick 1: tried, next at 2 */
	assert_int_equal(exited_child_slot(f, 52, 1002), -1); /* tick 2: tried, next at 4 */
	maps_put(f, 50, MAPS_LIBC);
	assert_int_equal(exited_child_slot(f, 53, 1003), -1); /* tick 3: not tried */
	proc_put(f, 54, 50, "awk", 'S', 1004);
	maps_put(f, 54, MAPS_LIBC);
	collect__watch(&f->c, &(struct proc_stat){ .pid = 54, .ppid = 50, .start_time = 1004 });
	region_put(f, 54, REGION_FILE, 0xfe, 0, 332835, 5);
	collect__tick(&f->c, 1.0);
	p = model__find(f->m, 54, 1004);
	libc = model__add_label(f->m, SPLIT_REGION, "file:libc.so.6");
	assert_int_equal(p->split[SPLIT_REGION].v[libc], 5);
	assert_int_equal(exited_child_slot(f, 55, 1005), libc); /* named for good */
}

/* A worker copying in its phase (slot 1) and its heap while cowtop reads:
 * true_copies made so far, all counted at once in every map they are in;
 * with copy_late, only as the phases are read (the last map of a tick). */
static unsigned long long true_copies;
static bool copy_late;

static void worker_copies(struct tracer *t, bool phases)
{
	if (copy_late && !phases)
		return;
	true_copies += 4;
	t->map[0].counts.cow += 4;
	t->phase[0].pages += 4;
	t->regions[0].pages += 4;
}

/* p's copies outside every slot of breakdown k, as the views show them. */
static unsigned long long outside(const struct proc *p, enum split_kind k)
{
	unsigned long long in = 0;
	int i;

	for (i = 1; i < SPLIT_SLOTS; i++)
		in += p->split[k].v[i];
	return p->counts.cow > in ? p->counts.cow - in : 0;
}

/* Copies the kernel goes on counting between the reads of a tick (its
 * copies, its regions, then its phases) never make a process's copies
 * outside its phases ("none") fall, at a tick or at its exit, nor show more
 * than it made there; the parts of each breakdown add up to its copies,
 * never more than it made. */
static void splits_never_fall(struct fixture *f, bool late)
{
	unsigned long long none = 0, other = 0;
	struct proc *p;
	int tick;

	f->t.phases = true;
	watch_held(f, 60, "worker", 1100);
	f->t.map[0].counts.cow = true_copies = 3; /* made outside its phase */
	f->t.phase[f->t.nphase++] = (typeof(f->t.phase[0])){ .pid = 60, .start = 1100, .slot = 1 };
	region_put_of(f, 60, 1100, REGION_HEAP, 0);
	copy_late = late;
	p = model__find(f->m, 60, 1100);
	for (tick = 0; tick < 6; tick++) {
		f->t.copying = tick ? worker_copies : NULL;
		if (tick == 5) { /* it exits with what it made */
			f->t.copying = NULL;
			queue(f, TRACER_EXIT, 60, 1, 1100, true_copies, "worker");
			f->t.map[0].exited = true;
		}
		collect__tick(&f->c, 1.0);
		assert_true(outside(p, SPLIT_PHASE) >= none);
		assert_true(outside(p, SPLIT_PHASE) <= 3);
		none = outside(p, SPLIT_PHASE);
		other = outside(p, SPLIT_REGION);
		assert_true(p->counts.cow <= true_copies);
		assert_int_equal(p->counts.cow, none + p->split[SPLIT_PHASE].v[1]);
		assert_int_equal(p->counts.cow, other + p->split[SPLIT_REGION].v[SPLIT_REGION_HEAP]);
	}
	assert_true(p->exited);
	assert_int_equal(p->counts.cow, true_copies);
	assert_int_equal(none, 3);
	assert_int_equal(other, 3);
	assert_int_equal(p->split[SPLIT_PHASE].v[1], true_copies - 3);
}

/* The worker copies while every map is read. */
static void test_splits_never_fall(void **state)
{
	splits_never_fall(*state, false);
}

/* The worker copies only while the phases are read: they are ahead of the
 * copies read before them. */
static void test_splits_never_fall_late(void **state)
{
	splits_never_fall(*state, true);
}

/* A worker's copies still pending in a CPU's slot are counted in its
 * copies but missed by a region read (the slot was flushed into the map
 * while the map was read); the next read finds them in the map. A file it
 * copied in is named only later. Its "other" region (2 copies in no
 * region) never falls and never shows more than it made there, at a tick
 * or at its exit; the parts never exceed its copies, nor its copies what
 * it made. */
static void test_region_other_never_falls(void **state)
{
	static const struct {
		unsigned long long cow, anon, file; /* its copies; anon and file as read */
		bool named;
	} tick[] = {
		{ 3, 1, 0, false },   /* 2 in no region, 1 in anon */
		{ 67, 1, 0, false },  /* 64 more in anon, pending, missed by the read */
		{ 67, 65, 0, false }, /* ... found in the map */
		{ 75, 65, 8, false }, /* 8 in a file not named yet */
		{ 75, 65, 8, false },
		{ 75, 65, 8, true },  /* named */
	};
	struct fixture *f = *state;
	unsigned long long other = 0, parts;
	struct proc *p;
	size_t i;
	int j;

	watch_held(f, 70, "worker", 1200);
	maps_put(f, 70, "");
	region_put_of(f, 70, 1200, REGION_ANON, 0);
	region_put(f, 70, REGION_FILE, 8, 0x11, 123, 0);
	f->t.regions[1].start = 1200;
	p = model__find(f->m, 70, 1200);
	for (i = 0; i <= sizeof(tick) / sizeof(*tick); i++) {
		bool exits = i == sizeof(tick) / sizeof(*tick);

		if (exits) { /* it exits: every pending count is in the map */
			queue(f, TRACER_EXIT, 70, 1, 1200, 75, "worker");
			f->t.map[0].exited = true;
		} else {
			f->t.map[0].counts.cow = tick[i].cow;
			f->t.regions[0].pages = tick[i].anon;
			f->t.regions[1].pages = tick[i].file;
			if (tick[i].named && !f->t.nfiles)
				f->t.files[f->t.nfiles++] = (typeof(f->t.files[0])){
					makedev(8, 0x11), 123, "late.so" };
		}
		collect__tick(&f->c, 1.0);
		assert_true(frame_split_none(p, SPLIT_REGION) >= other);
		other = frame_split_none(p, SPLIT_REGION);
		assert_true(other <= 2);
		for (parts = other, j = 1; j < SPLIT_SLOTS; j++)
			parts += p->split[SPLIT_REGION].v[j];
		assert_true(parts <= p->counts.cow);
		assert_true(p->counts.cow <= (exits ? 75 : tick[i].cow));
	}
	assert_true(p->exited);
	assert_int_equal(p->counts.cow, 75);
	assert_int_equal(other, 2);
	assert_int_equal(p->split[SPLIT_REGION].v[SPLIT_REGION_ANON], 65);
	assert_int_equal(p->split[SPLIT_REGION].v[model__add_label(f->m, SPLIT_REGION, "file:late.so")], 8);
}

/* The launched command's regions are held until its exec. */
static void test_regions_held_for_launch(void **state)
{
	struct fixture *f = *state;

	f->c.launched = 40;
	proc_put(f, 40, 1, "cmd", 'S', 900);
	collect__watch(&f->c, &(struct proc_stat){ .pid = 40, .ppid = 1, .start_time = 900 });
	assert_int_equal(f->t.held, 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fork_then_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_gone_keeps_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_want_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_walk_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_few_watched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_want_rows_walked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmdline_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmdline_found_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_before_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_markers_clean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_causes_and_respawns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vanishing_from_proc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_launch_base_and_hits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_launch_base_other, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_forgets_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inherited_from_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inherited_from_map, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forget_exited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regions_at_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regions_of_reused_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regions_named_by_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regions_unnamed_and_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regions_held_for_launch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regions_exited_back_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_splits_never_fall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_splits_never_fall_late, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_other_never_falls, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
