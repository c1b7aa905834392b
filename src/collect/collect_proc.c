/* What the task walk and /proc say of each watched process (state,
 * parent, name, command line, RSS and VSZ), and which processes are read
 * at a tick: the rows a view wants every tick, the others now and then. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "collect.h"

/* Whether this tick reads every process the kernel side holds (its
 * entry, its task, its region and phase counters), not only those that
 * changed: once in COLLECT_SLOW_TICKS, the first tick included. */
bool collect__whole_tick(const struct collect *c)
{
	return c->ticks % COLLECT_SLOW_TICKS == 1;
}

/* Read /proc/PID/stat through a kept file. The files are set up at the
 * first read, once the launched command has been forked: the open-file
 * limit raised for them is cowtop's alone. */
int collect__read_stat(struct collect *c, int pid, struct proc_stat *st)
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
	ns = procfs_read_nspid(c->procfd, p->pid, &c->self_ns);
	p->nspid = ns > 0 ? ns : -1;
}

/* Update p from what its /proc/PID/stat said. */
void collect__take_stat(struct collect *c, struct proc *p, const struct proc_stat *st)
{
	p->track.read = true;
	take_nspid(c, p);
	model__set_ppid(p, st->ppid);
	model__set_kthread(p, (st->flags & PROCFS_PF_KTHREAD) != 0);
	refresh_cmdline(c, p, st->comm, (st->flags & PROCFS_PF_KTHREAD) != 0);
	model__set_comm(p, st->comm, strnlen(st->comm, sizeof(st->comm)));
	model__set_mem(p, st->state, (unsigned long long)(st->rss > 0 ? st->rss : 0) * procfs_page_kib(),
		       st->vsize / 1024);
}

/* Update p from /proc; false when the process there is not p any more.
 * One file per process: stat has RSS and VSZ too (statm's resident is the
 * same kernel counter), and /proc reads are most of cowtop's CPU time. */
bool collect__refresh_proc(struct collect *c, struct proc *p)
{
	struct proc_stat st;

	if (collect__read_stat(c, p->pid, &st) || st.start_time != p->start_time)
		return false;
	collect__take_stat(c, p, &st);
	return true;
}

/* Update p from the task iterator's record of it; the command line only
 * when p may have rewritten it (it ran since the last record), or was
 * never read. */
static void take_task(struct collect *c, struct proc *p, const struct tracer_task *k)
{
	if (!k->thread) {
		if (!p->nspid && k->nspid > 0)
			p->nspid = k->nspid;
		take_nspid(c, p);
		model__set_ppid(p, k->ppid);
		model__set_kthread(p, k->kthread);
		if (k->changed || !p->track.cmdline_reads)
			refresh_cmdline(c, p, k->comm, k->kthread);
		model__set_comm(p, k->comm, strnlen(k->comm, sizeof(k->comm)));
	}
	model__set_mem(p, k->state, k->rss_kib, k->vsz_kib);
	p->track.read = true;
}

int collect__watch_task(struct collect *c, const struct tracer_task *k)
{
	struct proc *p;
	int e = 0;

	if (c->on_watch)
		c->on_watch(k->pid, k->start, c->ctx);
	if (k->unwatched && c->tracer)
		e = tracer__watch(c->tracer, k->pid, k->ppid, k->start);
	p = model__add(c->model, k->pid, k->start);
	if (p)
		take_task(c, p, k);
	return e;
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
	take_task(c, p, k);
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
	return collect__refresh_proc(c, p);
}

/* Whether the processes watched are so few among the machine's tasks that
 * reading their /proc/PID/stat costs less than the task iterator, which
 * visits every task of the machine (one small tree among 50,000
 * processes): then /proc is read for those due, as without an iterator,
 * and the cost follows what is watched. */
static bool few_watched(struct collect *c)
{
	size_t n = model__count(c->model), tasks;

	if (!c->machine_tasks)
		return false;
	tasks = c->machine_tasks();
	return tasks && n * COLLECT_WALK_SHARE < tasks;
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
	bool all = collect__whole_tick(c) || !c->walks;

	if (!c->tracer || few_watched(c))
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
void collect__refresh_all(struct collect *c)
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
