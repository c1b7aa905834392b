/* Records and counters into the model, once per tick (what /proc says of
 * each process is read in collect_proc.c); exits, reaping and linger. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/sysinfo.h>
#include "collect.h"
#include "loop.h"

/* Let go of the kept /proc files. */
void collect__free(struct collect *c)
{
	statfds__free(c->statfds);
	c->statfds = NULL;
}

/* Tasks (threads) of the machine now, from the kernel's count. */
static size_t machine_tasks(void)
{
	struct sysinfo si;

	return sysinfo(&si) == 0 ? si.procs : 0;
}

/* Start with an empty table fed from the /proc directory procfd. */
void collect__init(struct collect *c, struct model *m, int procfd)
{
	memset(c, 0, sizeof(*c));
	c->model = m;
	c->want_all = true;
	c->procfd = procfd;
	c->now = loop_now;
	c->machine_tasks = machine_tasks;
}

/* The tracer's handlers that feed this collector. */
struct tracer_handlers collect__handlers(struct collect *c)
{
	return (struct tracer_handlers){
		.event = collect__event, .hit = collect__hit, .mem = collect__mem,
		.mapped = collect__mapped, .ctx = c,
	};
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

/* A watched process mapped a file executable: its probes may be new. */
void collect__mapped(int pid, void *ctx)
{
	struct collect *c = ctx;

	if (c->on_mapped)
		c->on_mapped(pid, c->ctx);
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
	if (c->on_fork)
		c->on_fork(e->pid, e->ppid, c->ctx);
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

/* Unix time now, seconds. */
static double unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Log p's exit with its cause in the marker log: "exit:code" with the exit
 * code, "exit:SIGNAME" when a signal killed it, "exit:oom" when the OOM
 * killer chose it. Watching everything, only exits that are not a plain
 * "exit 0" are logged (a busy machine ends processes by the thousand). */
static void exit_marker(struct collect *c, const struct proc *p)
{
	int sig = p->exit.status & 0x7f;
	char label[LABEL_MAX];
	struct marker mk = { .time = unix_now(), .pid = p->pid };

	if (!c->log_clean_exits && p->exit.known && p->exit.status == 0 && !p->exit.oom)
		return;
	if (p->exit.oom) {
		snprintf(label, sizeof(label), "exit:oom");
	} else if (p->exit.known && sig) {
		snprintf(label, sizeof(label), "exit:%s", proc_signal_name(sig) ? proc_signal_name(sig) : "signal");
		if (!proc_signal_name(sig)) {
			mk.nargs = 1;
			mk.args[0] = sig;
		}
	} else {
		snprintf(label, sizeof(label), "exit:code");
		mk.nargs = 1;
		mk.args[0] = (p->exit.status >> 8) & 0xff;
		mk.unavail = !p->exit.known; /* the kernel did not say: "-" */
	}
	mk.probe = model__kernel_probe(c->model, label);
	if (mk.probe < 0 && sig && p->exit.known) { /* no room for one more name */
		mk.probe = model__kernel_probe(c->model, "exit:signal");
		mk.nargs = 1;
		mk.args[0] = sig;
	}
	if (mk.probe >= 0)
		model__add_marker(c->model, &mk);
}

/* p exited, or left the --cgroup target: how, and its final figures. */
static void on_end(struct collect *c, struct proc *p, const struct tracer_event *e)
{
	if (e->kind == TRACER_EXIT) {
		model__set_exit(p, e->exit_status, e->oom);
		exit_marker(c, p);
	} else
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
	if (c->on_watch)
		c->on_watch(st->pid, st->start_time, c->ctx);
	e = c->tracer ? tracer__watch(c->tracer, st->pid, st->ppid, st->start_time) : 0;

	/* What /proc said a moment ago, not read again: even one gone since
	 * (a storm of short lives) has a name and a parent, never none. */
	if (p)
		collect__take_stat(c, p, st);
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
	bool there = collect__read_stat(c, k->pid, &st) == 0 && st.start_time == k->start;
	struct proc *p;

	if (!k->exited && !there)
		return NULL;
	p = model__add(c->model, k->pid, k->start);
	if (!p)
		return NULL;
	model__set_parent(p, k->ppid);
	if (collect__refresh_proc(c, p))
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
	tracer__for_each(c->tracer, !collect__whole_tick(c), on_counts, &w);
	/* Exit records of processes the walk just found exited: take them
	 * now, while those processes are still in the model, so that they do
	 * not come back as new exits in the next frame. */
	tracer__drain(c->tracer);
	for (i = 0; i < w.nreap; i++)
		tracer__forget(c->tracer, w.reap[i]->pid, w.reap[i]->start_time);
	free(w.reap);
	/* The region counters of every process forgotten so far, the ones
	 * exited in this frame included, are read before they go. */
	collect__regions(c, !collect__whole_tick(c));
	/* The phases last, after every other count of the tick: then the
	 * copies outside every phase never show more than there were, and
	 * never fall (see model__settle_split). */
	if (!tracer__has_phases(c->tracer))
		return;
	tracer__for_each_phase(c->tracer, !collect__whole_tick(c), on_phase, c);
	for (i = 0; (p = model__at(c->model, i)); i++)
		model__settle_split(p, SPLIT_PHASE);
}

/* Close an interval of dt seconds: records, counters and /proc into the
 * model, then rates. Returns the interval the frame covers. */
double collect__tick(struct collect *c, double dt)
{
	collect__drain(c);
	collect_counts(c);
	collect__refresh_all(c);
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

	if (model__exited(c->model) <= COLLECT_LINGER_MAX)
		return cut; /* without a pass over every process */
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
