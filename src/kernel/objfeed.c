/* The object feed: runtimes -> kernel side; kernel counters -> object table. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include "objfeed.h"
#include "runtime.h"

/* Seconds on the monotonic clock. */
static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Set up the feed; nothing happens unless on. */
int objfeed__init(struct objfeed *f, struct tracer *t, struct model *m, bool on, unsigned every,
		  double budget_pct)
{
	*f = (struct objfeed){ .tracer = t, .model = m, .every = every ? every : 1 };
	sample_budget__init(&f->budget, budget_pct, f->every);
	if (!on)
		return 0;
	f->objects = objects__new();
	if (!f->objects)
		return -ENOMEM;
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

/* The entry of (pid, start) in the seen list, or NULL. */
static struct objfeed_seen *seen_of(struct objfeed *f, int pid, unsigned long long start)
{
	size_t i;

	for (i = 0; i < f->nseen; i++)
		if (f->seen[i].pid == pid && f->seen[i].start == start)
			return &f->seen[i];
	return NULL;
}

/* Detect the runtime of a live process not looked at yet, or looked at
 * before an exec: the kernel side drops a layout at exec, and a process
 * that had none is looked at again when its name changes. A child forked
 * after its parent was looked at inherits its layout in the kernel. */
static void detect(struct objfeed *f, const struct proc *p)
{
	struct objfeed_seen *s = seen_of(f, p->pid, p->start_time);
	struct runtime_layout rt;

	if (s && s->runtime == OBJ_RT_NONE && !strcmp(s->comm, p->comm))
		return;
	if (s && s->runtime != OBJ_RT_NONE && tracer__has_runtime(f->tracer, p->pid))
		return;
	if (!s && tracer__has_runtime(f->tracer, p->pid)) {
		s = list_add(&f->seen, &f->nseen, &f->seen_cap, p->pid, p->start_time, -1);
		if (s)
			memcpy(s->comm, p->comm, sizeof(s->comm));
		return; /* inherited at fork */
	}
	if (runtime_detect(p->pid, &rt))
		return; /* gone, or not readable: try next tick */
	if (rt.runtime != OBJ_RT_NONE)
		tracer__set_runtime(f->tracer, p->pid, rt.runtime, rt.type_type);
	if (!s)
		s = list_add(&f->seen, &f->nseen, &f->seen_cap, p->pid, p->start_time, rt.runtime);
	if (s) {
		s->runtime = rt.runtime;
		memcpy(s->comm, p->comm, sizeof(s->comm));
	}
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

/* One kernel counter into the table. */
static void on_obj(const struct tracer_obj *o, void *ctx)
{
	struct objfeed *f = ctx;
	struct proc *p = model__find(f->model, o->pid, o->start);

	if (!p)
		return; /* not in the model yet: next tick */
	if (objects__set(f->objects, o->pid, o->start, o->runtime, o->type, o->write, o->pages) == 1)
		name_type(f, p, o->type);
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
	/* Forget the looked-at processes the model forgot. */
	for (i = 0; i < f->nseen;)
		if (!model__find(f->model, f->seen[i].pid, f->seen[i].start))
			f->seen[i] = f->seen[--f->nseen];
		else
			i++;
	tracer__object_stats(f->tracer, &st);
	k = (struct sample_budget_totals){ .ns = st.ns, .captures = st.reads, .copies = st.faults };
	tracer__set_objects(f->tracer, sample_budget__update(&f->budget, monotonic(), &k));
	objects__set_status(f->objects, tracer__objects(f->tracer),
			    st.taken + st.failed ? st.ns / 1e3 / (st.taken + st.failed) : -1,
			    st.failed);
}

void objfeed__free(struct objfeed *f)
{
	objects__free(f->objects);
	free(f->seen);
	free(f->gone);
	f->objects = NULL;
	f->seen = f->gone = NULL;
}
