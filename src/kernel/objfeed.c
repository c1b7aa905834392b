/* The object feed: runtimes -> kernel side; kernel counters -> object table. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include "folded.h"
#include <unistd.h>
#include "itab.h"
#include "loop.h"
#include "objfeed.h"
#include "runtime.h"

#define OBJFEED_DEPTH 16             /* generations a descendant is looked for in */
#define OBJFEED_YOUNG_FIRST 0.001    /* seconds from an exec to the next look */
#define OBJFEED_YOUNG_SECONDS 0.5    /* how long a process is looked at after an exec */

/* Seconds on the monotonic clock. */
static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Set up the feed; nothing happens unless on. */
int objfeed__init(struct objfeed *f, struct tracer *t, struct model *m, bool on, unsigned every,
		  double budget_pct, bool whole_run)
{
	int e;

	*f = (struct objfeed){ .tracer = t, .model = m, .every = every ? every : 1, .timerfd = -1 };
	sample_budget__init(&f->budget, budget_pct, f->every);
	if (!on)
		return 0;
	e = loop_timerfd(3600);
	if (e < 0)
		return e;
	f->timerfd = e;
	e = loop_timer_stop(f->timerfd);
	if (e)
		return e;
	f->objects = objects__new();
	if (!f->objects)
		return -ENOMEM;
	objects__keep_gone(f->objects, whole_run);
	tracer__set_sample_budget(t, budget_pct);
	tracer__set_objects(t, f->every);
	return 0;
}

/* Append (pid, start) to a list; its entry, or NULL. */
static struct objfeed_seen *list_add(struct objfeed_seen **v, size_t *n, size_t *cap, int pid,
				     unsigned long long start, int runtime)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		void *p = realloc(*v, c * sizeof(**v));

		if (!p)
			return NULL;
		*v = p;
		*cap = c;
	}
	(*v)[*n] = (struct objfeed_seen){ .pid = pid, .start = start, .runtime = runtime };
	return &(*v)[(*n)++];
}

/* The hash of seen entry i (ctx: the feed). */
static uint64_t seen_at(const void *ctx, int i)
{
	const struct objfeed *f = ctx;

	return itab_pid_hash(f->seen[i].pid, f->seen[i].start);
}

/* The entry of (pid, start) among the processes looked at, or NULL; *pos
 * (if not NULL) the slot its place would take in the index. */
static struct objfeed_seen *seen_find(struct objfeed *f, int pid, unsigned long long start,
				      size_t *pos)
{
	size_t k;

	if (!f->seen_tab.cap)
		return NULL;
	for (k = itab__home(&f->seen_tab, itab_pid_hash(pid, start)); f->seen_tab.slot[k] >= 0;
	     k = itab__next(&f->seen_tab, k)) {
		struct objfeed_seen *s = &f->seen[f->seen_tab.slot[k]];

		if (s->pid == pid && s->start == start)
			return s;
	}
	if (pos)
		*pos = k;
	return NULL;
}

/* The entry of (pid, start) in the seen list, or NULL. */
static struct objfeed_seen *seen_of(struct objfeed *f, int pid, unsigned long long start)
{
	return seen_find(f, pid, start, NULL);
}

/* Remember (pid, start) as looked at: its entry (the one there, if it was
 * looked at already), or NULL when out of memory. */
static struct objfeed_seen *seen_add(struct objfeed *f, int pid, unsigned long long start,
				     int runtime)
{
	struct objfeed_seen *s;
	size_t k;

	if (itab__reserve(&f->seen_tab, 1, seen_at, f))
		return NULL;
	if ((s = seen_find(f, pid, start, &k)))
		return s;
	s = list_add(&f->seen, &f->nseen, &f->seen_cap, pid, start, runtime);
	if (s)
		itab__put(&f->seen_tab, k, (int)(f->nseen - 1));
	return s;
}

/* Forget the looked-at processes the model forgot: each entry gone leaves
 * the index, and the last entry takes its place. */
static void seen_prune(struct objfeed *f)
{
	struct itab *t = &f->seen_tab;
	size_t i = 0, last;

	while (i < f->nseen) {
		if (model__find(f->model, f->seen[i].pid, f->seen[i].start)) {
			i++;
			continue;
		}
		itab__del(t, itab__slot_of(t, seen_at(f, (int)i), (int)i), seen_at, f);
		last = --f->nseen;
		if (i < last) {
			itab__move(t, seen_at(f, (int)last), (int)last, (int)i);
			f->seen[i] = f->seen[last];
		}
	}
}

/* Look at p's maps now: its runtime (an unknown one too) to the kernel
 * side, and remembered with p's name. Returns the runtime, or -1 when p's
 * maps cannot be read (gone, or not readable yet); *loading (if not NULL)
 * says whether more may come: an unknown layout (a library mapped in
 * part), or none while the dynamic loader is mapped alone. */
static int look_one(struct objfeed *f, const struct proc *p, bool *loading)
{
	struct objfeed_seen *s = seen_of(f, p->pid, p->start_time);
	struct runtime_layout rt;

	if (loading)
		*loading = false;
	if (runtime_detect(p->pid, &rt))
		return -1;
	if (loading)
		*loading = rt.runtime == OBJ_RT_UNKNOWN ||
			   (rt.runtime == OBJ_RT_NONE && rt.loader && !rt.libs);
	if (rt.runtime != OBJ_RT_NONE)
		tracer__set_runtime(f->tracer, p->pid, rt.runtime, rt.type_type);
	if (!s)
		s = seen_add(f, p->pid, p->start_time, rt.runtime);
	if (s) {
		s->runtime = rt.runtime;
		s->names = rt.rb_names;
		s->names_tick = f->ticks;
		s->names_tries = 0;
		memcpy(s->comm, p->comm, sizeof(s->comm));
	}
	return rt.runtime;
}

/* Whether q descends from p, as far as the model knows. */
static bool descends(struct objfeed *f, const struct proc *q, const struct proc *p)
{
	int depth;

	for (depth = 0; q && q->ppid > 0 && depth < OBJFEED_DEPTH; depth++) {
		q = model__find_live(f->model, q->ppid);
		if (q == p)
			return true;
	}
	return false;
}

/* p's runtime was found just now: its live descendants forked before (they
 * inherited nothing, or an unknown layout, in the kernel) are looked at too,
 * each in its own maps (one may have exec'd another program since). */
static void give_descendants(struct objfeed *f, const struct proc *p)
{
	size_t i, n = model__count(f->model);

	for (i = 0; i < n; i++) {
		struct proc *q = model__at(f->model, i);

		if (q != p && !q->exited && tracer__runtime(f->tracer, q->pid) <= OBJ_RT_UNKNOWN &&
		    descends(f, q, p))
			look_one(f, q, NULL);
	}
}

/* Look at p now; when its runtime is one cowtop reads, at its descendants
 * that have none too. Returns p's runtime, or -1. */
static int look(struct objfeed *f, const struct proc *p, bool *loading)
{
	int r = look_one(f, p, loading);

	if (r > OBJ_RT_UNKNOWN)
		give_descendants(f, p);
	return r;
}

/* Detect the runtime of a live process not looked at yet, or looked at
 * before an exec: the kernel side drops a layout at exec, and a process
 * that had none is looked at again when its name changes. A child forked
 * after its parent was looked at inherits its layout in the kernel. */
static void detect(struct objfeed *f, const struct proc *p)
{
	struct objfeed_seen *s = seen_of(f, p->pid, p->start_time);

	if (s && !s->comm[0]) /* looked at as it was watched: its name now */
		memcpy(s->comm, p->comm, sizeof(s->comm));
	if (s && s->runtime == OBJ_RT_NONE && !strcmp(s->comm, p->comm))
		return;
	if (s && s->runtime != OBJ_RT_NONE && tracer__runtime(f->tracer, p->pid) >= 0)
		return;
	if (!s && tracer__runtime(f->tracer, p->pid) >= 0) {
		s = seen_add(f, p->pid, p->start_time, -1);
		if (s)
			memcpy(s->comm, p->comm, sizeof(s->comm));
		return; /* inherited at fork */
	}
	look(f, p, NULL); /* gone, or not readable: try next tick */
}

/* Arm the timer for the next look at a young process, or stop it. */
static void young_arm(struct objfeed *f)
{
	double next = 0, now = loop_now();
	size_t i;

	for (i = 0; i < f->nyoung; i++)
		if (!i || f->young[i].next < next)
			next = f->young[i].next;
	if (!f->nyoung)
		loop_timer_stop(f->timerfd);
	else
		loop_timer_set(f->timerfd, next > now ? next - now : 0, 0);
}

int objfeed__timerfd(const struct objfeed *f)
{
	return f->objects ? f->timerfd : -1;
}

/* A process that exec'd: look at it now, and again a while if its runtime is
 * not found yet and more may be mapped. The kernel maps the program and the
 * dynamic loader before the exec is reported (Debian's python3.11 holds the
 * interpreter: found at once); the loader maps the libraries (libruby,
 * libpython) a moment later, all before the program's own code runs:
 * looked at again after 1, 2, 4 ... ms, while the loader is mapped alone
 * (or a runtime's library only in part), for OBJFEED_YOUNG_SECONDS at most.
 * A program without a runtime costs one or two reads of its maps. */
void objfeed__exec(struct objfeed *f, int pid)
{
	struct proc *p;
	bool loading;
	double now;

	if (!f->objects || !(p = model__find_live(f->model, pid)) ||
	    look(f, p, &loading) > OBJ_RT_UNKNOWN || !loading || f->nyoung == OBJFEED_YOUNG_MAX)
		return; /* found, nothing more to come, or no room: the next tick looks */
	now = loop_now();
	f->young[f->nyoung++] = (struct objfeed_young){
		.pid = pid, .start = p->start_time, .step = OBJFEED_YOUNG_FIRST,
		.next = now + OBJFEED_YOUNG_FIRST, .until = now + OBJFEED_YOUNG_SECONDS,
	};
	young_arm(f);
}

/* The young timer fired: look at the processes due. */
void objfeed__poll(struct objfeed *f)
{
	double now = loop_now();
	size_t i, j = 0;

	loop_timer_expirations(f->timerfd);
	for (i = 0; i < f->nyoung; i++) {
		struct objfeed_young y = f->young[i];
		struct proc *p = model__find(f->model, y.pid, y.start);
		bool loading = true;
		int r = 0;

		if (y.next <= now) {
			r = p && !p->exited ? look(f, p, &loading) : -1;
			y.step *= 2;
			y.next = now + y.step;
		}
		if (r < 0 || r > OBJ_RT_UNKNOWN || !loading || y.next > y.until)
			continue; /* gone, found, settled, or done waiting */
		f->young[j++] = y;
	}
	f->nyoung = j;
	young_arm(f);
}

/* A process found at start (the descendants of -p, the members of a
 * cgroup, everything) is about to be watched, or is watched already (the
 * kernel side followed its fork since its programs run): its runtime goes
 * to the kernel side now rather than at the first tick, so that its copies
 * are read from the first one counted, and its children forked from then
 * on inherit it. */
void objfeed__watch(struct objfeed *f, int pid, unsigned long long start)
{
	struct runtime_layout rt;

	if (!f->objects || runtime_detect(pid, &rt))
		return;
	if (rt.runtime != OBJ_RT_NONE)
		tracer__set_runtime(f->tracer, pid, rt.runtime, rt.type_type);
	seen_add(f, pid, start, rt.runtime); /* looked at already: that entry stays */
}

/* A watched process forked pid. The child inherited its parent's layout in
 * the kernel, if the parent had one; if not, the parent is looked at now
 * (unless known to run none), and a runtime found goes to the child too.
 * Its copies since the fork are not read: what the child does first is
 * lost, this only keeps the rest. A parent found after the fork but before
 * this event (the event was on its way) gives its runtime to the child here. */
void objfeed__fork(struct objfeed *f, int pid, int ppid)
{
	struct proc *parent, *child;

	if (!f->objects || tracer__runtime(f->tracer, pid) > OBJ_RT_UNKNOWN)
		return;
	parent = model__find_live(f->model, ppid);
	child = model__find_live(f->model, pid);
	if (!parent || !child)
		return;
	if (tracer__runtime(f->tracer, ppid) > OBJ_RT_UNKNOWN)
		look_one(f, child, NULL);
	else
		detect(f, parent);
}

/* Read a CPython type's tp_name from pid's memory. */
static int read_tp_name(int pid, unsigned long long type, char *buf, size_t len)
{
	unsigned long long name = 0;
	struct iovec l = { &name, sizeof(name) }, r = { (void *)(uintptr_t)(type + 24), sizeof(name) };

	if (process_vm_readv(pid, &l, 1, &r, 1, 0) != sizeof(name) || !name)
		return -EFAULT;
	l = (struct iovec){ buf, len - 1 };
	r = (struct iovec){ (void *)(uintptr_t)name, len - 1 };
	memset(buf, 0, len);
	/* A name near the end of a mapping reads short: take what came. */
	if (process_vm_readv(pid, &l, 1, &r, 1, 0) <= 0 || !buf[0])
		return -EFAULT;
	return 0;
}

/* Name type for process p as an ancestor's row names it, or from p's
 * memory, or from the nearest live ancestor's (a forked child has its
 * parent's types at the same addresses). */
static void name_type(struct objfeed *f, const struct proc *p, unsigned long long type)
{
	char name[OBJECTS_NAME_MAX];
	const struct proc *q;
	const char *known;
	int depth;

	for (q = p, depth = 0; q && depth < 8; depth++) {
		known = q == p ? NULL : objects__name_of(f->objects, q->pid, q->start_time, type);
		if (known || (!q->exited && !read_tp_name(q->pid, type, name, sizeof(name)))) {
			objects__name(f->objects, p->pid, p->start_time, type, known ? known : name);
			return;
		}
		q = q->ppid > 0 ? model__find(f->model, q->ppid, 0) : NULL;
	}
}

/* How many times a Ruby process's class names are looked for (once a tick,
 * while a class is to be named) before its classes are unknown. */
#define NAMES_TRIES 8

/* How live process q's Ruby names its classes: found at its detection, or
 * its parent's when it was forked from one; looked for again when its
 * runtime was detected before it had set them up. NULL while they may
 * still be found; names with no classpath ID (nothing can be named) once
 * looked for NAMES_TRIES times. */
static const struct rb31_names *names_of(struct objfeed *f, const struct proc *q)
{
	struct objfeed_seen *s;
	struct runtime_layout rt;
	int depth;

	for (depth = 0; q && depth < 8; depth++) {
		s = seen_of(f, q->pid, q->start_time);
		if (s && s->runtime == OBJ_RT_RUBY31) {
			if (!s->names.classpath_id && s->names_tries < NAMES_TRIES && !q->exited &&
			    s->names_tick != f->ticks) {
				s->names_tick = f->ticks;
				s->names_tries++;
				if (!runtime_detect(q->pid, &rt) && rt.runtime == OBJ_RT_RUBY31)
					s->names = rt.rb_names;
			}
			return s->names.classpath_id || s->names_tries >= NAMES_TRIES ? &s->names : NULL;
		}
		if (s && s->runtime != -1)
			return NULL;
		q = q->ppid > 0 ? model__find(f->model, q->ppid, 0) : NULL;
	}
	return NULL;
}

/* Name Ruby class (klass, serial) for process p as an ancestor's row names
 * it, or from p's memory, or from the nearest live ancestor's: a forked
 * child has its parent's classes at the same addresses, and a class with
 * another serial there (created after the fork, or freed) is not named.
 * Left for the next tick while no process can be read yet; unknown when
 * every one read said no. */
static void name_class(struct objfeed *f, const struct proc *p, unsigned long long klass,
		       unsigned long long serial)
{
	char name[OBJECTS_NAME_MAX];
	const struct rb31_names *nm;
	bool tried = false;
	const struct proc *q;
	const char *known;
	int depth, pid, e;

	for (q = p, depth = 0; q && depth < 8; depth++) {
		struct rb31_reader r = { rb31_peek_pid, &pid };

		known = q == p ? NULL : objects__class_of(f->objects, q->pid, q->start_time, klass, serial);
		if (known) {
			objects__name_class(f->objects, p->pid, p->start_time, klass, serial, known);
			return;
		}
		if (!q->exited && (nm = names_of(f, q))) {
			pid = q->pid;
			tried = true;
			e = rb31_class_name(&r, nm, klass, serial, name, sizeof(name));
			if (e >= 0) {
				objects__name_class(f->objects, p->pid, p->start_time, klass, serial,
						    e == RB31_NAMED	? name
						    : e == RB31_SINGLETON ? OBJ_CLASS_SINGLETON
									  : OBJ_CLASS_ANON);
				return;
			}
		}
		q = q->ppid > 0 ? model__find(f->model, q->ppid, 0) : NULL;
	}
	if (tried)
		objects__name_class(f->objects, p->pid, p->start_time, klass, serial, OBJ_CLASS_UNKNOWN);
}

/* One kernel counter into the table. */
static void on_obj(const struct tracer_obj *o, void *ctx)
{
	struct objfeed *f = ctx;
	struct proc *p = model__find(f->model, o->pid, o->start);
	const struct objects_key k = { .pid = o->pid, .start = o->start, .runtime = o->runtime,
				       .type = o->type, .klass = o->klass,
				       .klass_serial = o->klass_serial, .write = o->write,
				       .comm = p ? p->comm : NULL };
	int need;

	if (!p)
		return; /* not in the model yet: next tick */
	need = objects__set(f->objects, &k, o->pages);
	if (need > 0 && (need & OBJECTS_NEED_TYPE))
		name_type(f, p, o->type);
	if (need > 0 && (need & OBJECTS_NEED_CLASS))
		name_class(f, p, o->klass, o->klass_serial);
	if (p->exited)
		list_add(&f->gone, &f->ngone, &f->gone_cap, o->pid, o->start, 0);
}

/* Whether the model still holds (pid, start). */
static bool held(int pid, unsigned long long start, void *ctx)
{
	return model__find(ctx, pid, start) != NULL;
}

void objfeed__tick(struct objfeed *f)
{
	struct sample_budget_totals k;
	struct tracer_obj_stats st;
	size_t i, n;

	if (!f->objects)
		return;
	f->ticks++;
	n = model__count(f->model);
	for (i = 0; i < n; i++) {
		struct proc *p = model__at(f->model, i);

		if (!p->exited)
			detect(f, p);
	}
	f->ngone = 0;
	tracer__for_each_object(f->tracer, on_obj, f);
	for (i = 0; i < f->ngone; i++)
		tracer__forget_objects(f->tracer, f->gone[i].pid, f->gone[i].start);
	objects__prune(f->objects, held, f->model);
	seen_prune(f);
	tracer__object_stats(f->tracer, &st);
	k = (struct sample_budget_totals){ .ns = st.ns, .captures = st.reads, .copies = st.faults };
	tracer__set_objects(f->tracer, sample_budget__update(&f->budget, monotonic(), &k));
	objects__set_status(f->objects, tracer__objects(f->tracer),
			    st.taken + st.failed ? st.ns / 1e3 / (st.taken + st.failed) : -1,
			    st.failed);
}

/* Write the copies by object of the whole run to path in the folded
 * format, after a last read; nothing when --objects is off. Returns 0, or
 * -1 with the reason in err. */
int objfeed__write_folded(struct objfeed *f, const char *path, char *err, size_t errlen)
{
	size_t len = 0;
	char *buf;

	if (!f->objects)
		return 0;
	objfeed__tick(f);
	buf = folded_objects_text(f->objects, &len);
	return folded_write(path, buf, len, err, errlen);
}

void objfeed__free(struct objfeed *f)
{
	objects__free(f->objects);
	if (f->timerfd >= 0)
		close(f->timerfd);
	f->timerfd = -1;
	free(f->seen);
	itab__free(&f->seen_tab);
	free(f->gone);
	f->objects = NULL;
	f->seen = f->gone = NULL;
}
