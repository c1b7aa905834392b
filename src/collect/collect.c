/* Records, counters and /proc into the model, once per tick. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>
#include "collect.h"
#include "loop.h"

/* Let go of the kept /proc files. */
void collect__free(struct collect *c)
{
	statfds__free(c->statfds);
	c->statfds = NULL;
}

/* Start with an empty table fed from the /proc directory procfd. */
void collect__init(struct collect *c, struct model *m, int procfd)
{
	memset(c, 0, sizeof(*c));
	c->model = m;
	c->want_all = true;
	c->procfd = procfd;
	c->now = loop_now;
}

/* The tracer's handlers that feed this collector. */
struct tracer_handlers collect__handlers(struct collect *c)
{
	return (struct tracer_handlers){
		.event = collect__event, .hit = collect__hit, .mem = collect__mem, .ctx = c,
	};
}

/* Read /proc/PID/stat through a kept file. The files are set up at the
 * first read, once the launched command has been forked: the open-file
 * limit raised for them is cowtop's alone. */
static int read_stat(struct collect *c, int pid, struct proc_stat *st)
{
	if (!c->statfds && !c->statfds_failed) {
		c->statfds = statfds__new(c->procfd, statfds_budget());
		c->statfds_failed = !c->statfds;
	}
	if (!c->statfds)
		return procfs_read_stat(c->procfd, pid, st);
	return statfds__read(c->statfds, pid, st);
}

/* Read p's command line when it may have changed: in its first
 * COLLECT_CMDLINE_READS reads after cowtop saw it fork or exec (a
 * preforking server's worker rewrites its argv right after fork), or
 * after it was found or renamed, those of them within as many ticks
 * (most title setters also change comm, which stat gives for free).
 * Then never again: a title rewritten without a rename is not seen. A
 * process found idle is read once, not again by the whole walks ten ticks
 * apart: 5,000 of them found at start cost a command line each, not
 * three. */
static void refresh_cmdline(struct collect *c, struct proc *p, const char *comm, bool kthread)
{
	char buf[PROC_CMDLINE_MAX];
	ssize_t n;

	if (strncmp(p->comm, comm, sizeof(p->comm)) != 0)
		p->track.cmdline_reads = 0;
	if (p->track.cmdline_reads >= COLLECT_CMDLINE_READS || kthread)
		return;
	if (!p->track.cmdline_reads) {
		p->track.cmdline_tick = c->ticks;
	} else if (!p->track.born && c->ticks - p->track.cmdline_tick >= COLLECT_CMDLINE_READS) {
		p->track.cmdline_reads = COLLECT_CMDLINE_READS;
		return;
	}
	p->track.cmdline_reads++;
	n = procfs_read_cmdline(c->procfd, p->pid, buf, sizeof(buf));
	if (n > 0)
		model__set_cmdline(p, buf, (size_t)n);
}

/* p's pid in its own PID namespace, read once: it never changes. */
static void take_nspid(struct collect *c, struct proc *p)
{
	int ns;

	if (p->nspid)
		return;
	ns = procfs_read_nspid(c->procfd, p->pid);
	p->nspid = ns > 0 ? ns : -1;
}

/* Update p from /proc; false when the process there is not p any more.
 * One file per process: stat has RSS and VSZ too (statm's resident is the
 * same kernel counter), and /proc reads are most of cowtop's CPU time. */
static bool refresh_from_proc(struct collect *c, struct proc *p)
{
	struct proc_stat st;

	if (read_stat(c, p->pid, &st) || st.start_time != p->start_time)
		return false;
	p->track.read = true;
	take_nspid(c, p);
	model__set_ppid(p, st.ppid);
	model__set_kthread(p, (st.flags & PROCFS_PF_KTHREAD) != 0);
	refresh_cmdline(c, p, st.comm, (st.flags & PROCFS_PF_KTHREAD) != 0);
	model__set_comm(p, st.comm, strnlen(st.comm, sizeof(st.comm)));
	model__set_mem(p, st.state, (unsigned long long)(st.rss > 0 ? st.rss : 0) * procfs_page_kib(),
		       st.vsize / 1024);
	return true;
}

/* Copy the kernel's per-phase counters of an exited process into p. */
static void take_final_phases(struct collect *c, struct proc *p)
{
	unsigned long long ph[PHASE_MAX];
	int i;

	if (!c->tracer || !tracer__has_phases(c->tracer))
		return;
	tracer__phases_of(c->tracer, p->pid, p->start_time, ph);
	for (i = 1; i < PHASE_MAX; i++)
		model__set_split(p, SPLIT_PHASE, i, ph[i]);
}

/* One more child of p's parent has exited (if cowtop holds the parent). */
static void count_reaped(struct collect *c, const struct proc *p)
{
	struct proc *parent = p->ppid > 0 ? model__find_live(c->model, p->ppid) : NULL;

	if (parent && parent != p)
		parent->reaped++;
}

/* p has exited (or left the --cgroup target) with the counts it has: take
 * its phases, forget its entry. */
static void end_proc(struct collect *c, struct proc *p)
{
	take_final_phases(c, p);
	if (!p->exited && !p->exit.left)
		count_reaped(c, p);
	model__mark_exited(p, c->now());
	statfds__drop(c->statfds, p->pid);
	if (c->tracer)
		tracer__forget(c->tracer, p->pid, p->start_time);
}

/* A USDT probe hit: into the marker log. */
void collect__hit(const struct tracer_hit *h, void *ctx)
{
	struct collect *c = ctx;
	struct marker mk = { .time = h->time, .pid = h->pid, .probe = h->probe, .nargs = h->nargs,
				.unavail = h->unavail };

	memcpy(mk.args, h->args, sizeof(mk.args));
	model__add_marker(c->model, &mk);
}

/* Log a marker of the kernel side's kind label for pid at time. */
static void kernel_marker(struct collect *c, const char *label, int pid, double time,
			  long long a0, long long a1)
{
	struct marker mk = { .time = time, .pid = pid, .nargs = 2, .args = { a0, a1 } };

	mk.probe = model__kernel_probe(c->model, label);
	if (mk.probe >= 0)
		model__add_marker(c->model, &mk);
}

/* An OOM kill or a reclaim stall of a watched process: flag it, and log a
 * marker (reclaim stalls at most one per process per COLLECT_RECLAIM_MARK
 * seconds: they come by the thousand under pressure, and the counts the
 * kernel keeps are exact anyway). */
void collect__mem(const struct tracer_mem *m, void *ctx)
{
	struct collect *c = ctx;
	struct proc *p = model__find_live(c->model, m->pid);
	double now = c->now();

	if (m->kind == TRACER_OOM) {
		if (p)
			model__set_oom(p);
		kernel_marker(c, "oom:kill", m->pid, m->time, m->anon_kib, m->tid);
		return;
	}
	if (!p || (p->reclaim_marked > 0 && now - p->reclaim_marked < COLLECT_RECLAIM_MARK))
		return;
	p->reclaim_marked = now;
	kernel_marker(c, m->memcg ? "reclaim:memcg" : "reclaim:direct", m->pid, m->time,
		      (long long)(m->stall * 1e6), m->tid);
}

/* A fork of a watched process: p is the child; its parent forked one more. */
static void on_fork(struct collect *c, struct proc *p, const struct tracer_event *e)
{
	struct proc *parent = model__find_live(c->model, e->ppid);

	model__set_parent(p, e->ppid);
	if (e->inherited_kib >= 0)
		model__set_inherited(p, (unsigned long long)e->inherited_kib);
	p->track.born = true;
	if (parent && parent != p)
		parent->forked++;
	c->saw_fork = true;
}

/* An exec of a watched process: its probes may be new. */
static void on_exec(struct collect *c, struct proc *p, const struct tracer_event *e)
{
	p->track.cmdline_reads = 0; /* a new program, new arguments */
	p->track.born = true;
	model__forget_cmdline(p);      /* the old ones are not its any more */
	model__forget_mem(p);
	if (c->on_exec)
		c->on_exec(e->pid, c->ctx);
	if (c->launched == e->pid && !c->launched_execd) {
		/* The gated child's own copies before exec are cowtop's, not the command's. */
		c->launched_execd = true;
		model__set_base(p, &e->counts);
	}
}

/* p exited, or left the --cgroup target: how, and its final figures. */
static void on_end(struct collect *c, struct proc *p, const struct tracer_event *e)
{
	if (e->kind == TRACER_EXIT)
		model__set_exit(p, e->exit_status, e->oom);
	else
		p->exit.left = true;
	model__set_reclaim(p, e->reclaims, e->reclaim_s);
	end_proc(c, p);
}

/* A fork, an exec, an exit, or a move into or out of the --cgroup target
 * of a watched process. */
void collect__event(const struct tracer_event *e, void *ctx)
{
	struct collect *c = ctx;
	struct proc *p = model__add(c->model, e->pid, e->start);

	if (!p)
		return;
	p->track.in_kernel = !e->unheld; /* else /proc says when it has gone */
	if (e->kind == TRACER_FORK || e->kind == TRACER_EXEC || !p->comm[0])
		model__set_comm(p, e->comm, strlen(e->comm));
	if (e->kind == TRACER_ENTER)
		model__set_parent(p, e->ppid);
	if (e->kind == TRACER_FORK)
		on_fork(c, p, e);
	if (e->kind == TRACER_EXEC)
		on_exec(c, p, e);
	model__set_counts(p, &e->counts);
	if (e->kind == TRACER_EXIT || e->kind == TRACER_LEAVE)
		on_end(c, p, e);
}

/* Watch one process found in /proc, in the kernel and in the model. */
int collect__watch(struct collect *c, const struct proc_stat *st)
{
	struct proc *p = model__add(c->model, st->pid, st->start_time);
	int e;

	/* The launched command's copies before its exec are cowtop's: its
	 * counts lose them as a base at the exec, its regions never get them. */
	if (c->tracer && st->pid == c->launched)
		tracer__hold_regions(c->tracer, st->pid);
	e = c->tracer ? tracer__watch(c->tracer, st->pid, st->ppid, st->start_time) : 0;

	/* Gone since st was read (a storm of short lives): it still has the
	 * name and parent /proc gave a moment ago, never none. */
	if (p && !refresh_from_proc(c, p)) {
		model__set_ppid(p, st->ppid);
		if (!p->comm[0])
			model__set_comm(p, st->comm, strnlen(st->comm, sizeof(st->comm)));
	}
	return e;
}

/* Whether a watched process with this pid is running. */
bool collect__is_live(struct collect *c, int pid)
{
	return model__find_live(c->model, pid) != NULL;
}

/* Hand every pending kernel record to the model. */
void collect__drain(struct collect *c)
{
	if (c->tracer)
		tracer__drain(c->tracer);
}

struct walk {
	struct collect *c;
	struct proc **reap; /* exited processes whose kernel entries go after the walk */
	size_t nreap, cap;
};

/* Remember p to forget after the map walk (deleting during it restarts it). */
static void walk_reap(struct walk *w, struct proc *p)
{
	if (w->nreap == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct proc **r = realloc(w->reap, cap * sizeof(*r));

		if (!r)
			return;
		w->reap = r;
		w->cap = cap;
	}
	w->reap[w->nreap++] = p;
}

/* A process whose fork and exit records were both lost (the ring buffer
 * overflowed) and that /proc no longer has: the kernel's map has its
 * counts but no name. Say the name is unknown rather than show none. */
static void name_unknown(struct proc *p)
{
	if (!p->comm[0])
		model__set_comm(p, "?", 1);
}

/* A process known only from the kernel's map: add it once /proc confirms who
 * it is, or once it has exited. Else it has just gone (its exit record is on
 * the way) or the entry names no process: NULL. */
static struct proc *adopt(struct collect *c, const struct tracer_proc *k)
{
	struct proc_stat st;
	bool there = read_stat(c, k->pid, &st) == 0 && st.start_time == k->start;
	struct proc *p;

	if (!k->exited && !there)
		return NULL;
	p = model__add(c->model, k->pid, k->start);
	if (!p)
		return NULL;
	model__set_parent(p, k->ppid);
	if (refresh_from_proc(c, p))
		return p;
	if (there) /* gone since: the name read a moment ago */
		model__set_comm(p, st.comm, strnlen(st.comm, sizeof(st.comm)));
	else
		name_unknown(p);
	return p;
}

/* One entry of the kernel's counter map, read at a tick. */
static void on_counts(const struct tracer_proc *k, void *ctx)
{
	struct walk *w = ctx;
	struct proc *p = model__find(w->c->model, k->pid, k->start);

	if (!p) {
		p = adopt(w->c, k);
		if (!p)
			return;
	} else if (p->exited) {
		walk_reap(w, p); /* exit already handled */
		return;
	}
	p->track.in_kernel = true;
	model__set_counts(p, &k->counts);
	model__set_reclaim(p, k->reclaims, k->reclaim_s);
	if (k->oom)
		model__set_oom(p);
	/* Its fork record may have been lost, or /proc found it first. */
	if (k->inherited_kib >= 0 && p->inherited_kib < 0)
		model__set_inherited(p, (unsigned long long)k->inherited_kib);
	if (k->exited) {
		/* Its exit record was lost: the map still has the final counts. */
		take_final_phases(w->c, p);
		if (k->left) {
			p->exit.left = true;
		} else {
			model__set_exit(p, k->exit_status, k->oom);
			count_reaped(w->c, p);
		}
		model__mark_exited(p, w->c->now());
		statfds__drop(w->c->statfds, p->pid);
		walk_reap(w, p);
	}
}

/* One per-phase counter: to the process of its pid and start time. */
static void on_phase(int pid, unsigned long long start, int phase, unsigned long long pages,
		     void *ctx)
{
	struct collect *c = ctx;
	struct proc *p = model__find(c->model, pid, start);

	if (p && phase > 0 && phase < PHASE_MAX)
		model__set_split(p, SPLIT_PHASE, phase, pages);
}

/* Whether this tick reads every process the kernel side holds (its
 * entry, its task, its region and phase counters), not only those that
 * changed: once in COLLECT_SLOW_TICKS, the first tick included. */
static bool whole_tick(const struct collect *c)
{
	return c->ticks % COLLECT_SLOW_TICKS == 1;
}

/* Read every counter the kernel holds into the model. */
static void collect_counts(struct collect *c)
{
	struct walk w = { .c = c };
	struct proc *p;
	size_t i;

	if (!c->tracer)
		return;
	c->ticks++;
	/* Between reads of every entry, only those that changed: an idle
	 * process's copies and exit are not read again. */
	tracer__for_each(c->tracer, !whole_tick(c), on_counts, &w);
	/* Exit records of processes the walk just found exited: take them
	 * now, while those processes are still in the model, so that they do
	 * not come back as new exits in the next frame. */
	tracer__drain(c->tracer);
	for (i = 0; i < w.nreap; i++)
		tracer__forget(c->tracer, w.reap[i]->pid, w.reap[i]->start_time);
	free(w.reap);
	/* The region counters of every process forgotten so far, the ones
	 * exited in this frame included, are read before they go. */
	collect__regions(c, !whole_tick(c));
	/* The phases last, after every other count of the tick: then the
	 * copies outside every phase never show more than there were, and
	 * never fall (see model__settle_split). */
	if (!tracer__has_phases(c->tracer))
		return;
	tracer__for_each_phase(c->tracer, !whole_tick(c), on_phase, c);
	for (i = 0; (p = model__at(c->model, i)); i++)
		model__settle_split(p, SPLIT_PHASE);
}

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

void collect__want(struct collect *c, const int *pids, size_t n, bool all)
{
	c->want_all = all;
	c->nwant = n < COLLECT_WANT_MAX ? n : COLLECT_WANT_MAX;
	if (c->nwant)
		memcpy(c->want, pids, c->nwant * sizeof(*pids));
	if (c->nwant > 1)
		qsort(c->want, c->nwant, sizeof(*c->want), cmp_int);
}

/* Whether a view wants p's figures at every tick (a row on screen). */
static bool wanted(const struct collect *c, const struct proc *p)
{
	return c->want_all ||
	       (c->nwant && bsearch(&p->pid, c->want, c->nwant, sizeof(*c->want), cmp_int));
}

/* Whether p is read from /proc this tick: when it is wanted, when only
 * /proc can tell that it has gone (the kernel side does not hold it), when
 * it was never read, and the others once in COLLECT_SLOW_TICKS (staggered
 * by pid, so that the reads spread). */
static bool due(const struct collect *c, const struct proc *p)
{
	if (!p->track.in_kernel || !p->track.read || wanted(c, p))
		return true;
	return (c->ticks + (unsigned)p->pid) % COLLECT_SLOW_TICKS == 0;
}

/* One watched process as the kernel side's task iterator read it: what
 * /proc/PID/stat would have said. A thread's record (the leader has
 * exited, others run) comes after its leader's and gives the figures. */
static void on_task(const struct tracer_task *k, void *ctx)
{
	struct collect *c = ctx;
	struct proc *p = model__find(c->model, k->pid, k->start);

	if (!p || p->exited)
		return;
	if (!k->thread) {
		take_nspid(c, p);
		model__set_ppid(p, k->ppid);
		model__set_kthread(p, k->kthread);
		refresh_cmdline(c, p, k->comm, k->kthread);
		model__set_comm(p, k->comm, strnlen(k->comm, sizeof(k->comm)));
	}
	model__set_mem(p, k->state, k->rss_kib, k->vsz_kib);
	p->track.read = true;
	p->track.walked = c->ticks + 1;
}

/* How a tick's task walk went. */
enum walk_kind {
	WALK_NONE,    /* no iterator, or it failed: /proc for what is due */
	WALK_ALL,     /* every process the kernel side holds */
	WALK_CHANGED, /* those that ran or changed since the walk wrote them */
	WALK_SKIPPED, /* none: the rows on screen are read from /proc */
};

/* Whether p's figures are fresh this tick: from the task walk when it saw
 * p; left as they are when a walk of changed processes passed over a
 * process it had written before, or when no walk was made and no view
 * wants p now (the next walk of every process reads it); else from /proc,
 * read when p is due, or at once when a walk of every process missed one
 * the kernel side holds (the task iterator passes over pid 1 on some
 * kernels; /proc decides whether it has gone). -1: left as it is. */
static int refresh_one(struct collect *c, struct proc *p, enum walk_kind walk)
{
	bool written = p->track.in_kernel && p->track.read;

	if (p->track.walked == c->ticks + 1)
		return 1;
	if ((walk == WALK_CHANGED && written) || (walk == WALK_SKIPPED && written && !wanted(c, p)))
		return -1;
	if (!(walk == WALK_ALL && p->track.in_kernel) && !due(c, p))
		return -1;
	return refresh_from_proc(c, p);
}

/* This tick's task walk. Every process once in COLLECT_SLOW_TICKS ticks:
 * a size changed by reclaim, or an entry the walk no longer finds, shows
 * then. In between, when a view needs every process, only the processes
 * that ran or changed: an idle one costs a map lookup and a few reads in
 * the kernel, and nothing here. When only the rows on screen are needed,
 * no walk at all (it visits every task of the machine): /proc is read for
 * those rows. */
static enum walk_kind walk_tasks(struct collect *c)
{
	bool all = whole_tick(c) || !c->walks;

	if (!c->tracer)
		return WALK_NONE;
	if (!all && !c->want_all)
		return WALK_SKIPPED;
	c->walks = tracer__for_each_task(c->tracer, !all, on_task, c) == 0;
	if (!c->walks)
		return WALK_NONE;
	return all ? WALK_ALL : WALK_CHANGED;
}

/* Read /proc for every live process that is due. One gone from /proc is marked exited
 * here when the kernel side does not know it; else its exit record brings
 * the final counts. That record is written before the process leaves /proc,
 * so it has been read by the next frame: a process still gone then, with no
 * exit seen, exited unseen (before cowtop's exit program was attached), and
 * is marked exited with the counts it has. */
static void refresh_all(struct collect *c)
{
	enum walk_kind walk = walk_tasks(c);
	size_t i;
	struct proc *p;
	int fresh;

	for (i = 0; (p = model__at(c->model, i)); i++) {
		if (p->exited || (fresh = refresh_one(c, p, walk)) < 0)
			continue;
		if (fresh)
			p->track.gone = 0;
		else if (!p->track.in_kernel || ++p->track.gone >= 2)
			model__mark_exited(p, c->now());
	}
}

/* Close an interval of dt seconds: records, counters and /proc into the
 * model, then rates. Returns the interval the frame covers. */
double collect__tick(struct collect *c, double dt)
{
	collect__drain(c);
	collect_counts(c);
	refresh_all(c);
	return model__tick(c->model, dt);
}

/* Order exit times, oldest first. */
static int cmp_time(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The exit time up to which exited processes leave the screen: linger
 * seconds ago, or later when more than COLLECT_LINGER_MAX exited since (a
 * fork storm would keep tens of thousands): then only the newest stay. */
static double linger_cutoff(struct collect *c, double now, double linger)
{
	double cut = now - linger, *t;
	size_t i, n = 0;
	struct proc *p;

	for (i = 0; (p = model__at(c->model, i)); i++)
		n += p->exited && p->exit_time > cut;
	if (n <= COLLECT_LINGER_MAX)
		return cut;
	t = malloc(n * sizeof(*t));
	if (!t)
		return now;
	for (i = 0, n = 0; (p = model__at(c->model, i)); i++)
		if (p->exited && p->exit_time > cut)
			t[n++] = p->exit_time;
	qsort(t, n, sizeof(*t), cmp_time);
	cut = t[n - COLLECT_LINGER_MAX - 1];
	free(t);
	return cut;
}

/* After a frame: drop the exited processes it showed. On screen they stay
 * linger seconds; in batch an exit is in one frame (exits seen while that
 * frame was built were in it too). */
void collect__forget_exited(struct collect *c, bool screen, double linger)
{
	double now = c->now();

	model__remove_exited(c->model, screen ? linger_cutoff(c, now, linger) : now);
}
