/* The processes running at start, from the task iterator. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "discover.h"

struct pass {
	struct discovered *d;
	struct collect *c;
	bool all;
	struct tracer_task *rest; /* records of processes not watched (yet) */
	size_t nrest, cap;
	int err;
};

/* Remember that the iterator saw pid, child of ppid. */
static void seen(struct pass *ps, int pid, int ppid)
{
	struct discovered *d = ps->d;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024;
		int *a = realloc(d->pid, cap * sizeof(*a)), *b;

		if (!a) {
			ps->err = -ENOMEM;
			return;
		}
		d->pid = a;
		b = realloc(d->ppid, cap * sizeof(*b));
		if (!b) {
			ps->err = -ENOMEM;
			return;
		}
		d->ppid = b;
		d->cap = cap;
	}
	d->pid[d->n] = pid;
	d->ppid[d->n++] = ppid;
}

/* Keep the record of a process not watched, for the descendants pass. */
static void keep(struct pass *ps, const struct tracer_task *k)
{
	if (ps->nrest == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 1024;
		struct tracer_task *v = realloc(ps->rest, cap * sizeof(*v));

		if (!v) {
			ps->err = -ENOMEM;
			return;
		}
		ps->rest = v;
		ps->cap = cap;
	}
	ps->rest[ps->nrest++] = *k;
}

/* One record: watched at once when everything is (the iterator added it to
 * the kernel's map), or when it is a process the kernel side already
 * follows (forked since its programs were attached); else kept. */
static void on_record(const struct tracer_task *k, void *ctx)
{
	struct pass *ps = ctx;

	if (!k->thread)
		seen(ps, k->pid, k->ppid);
	if (ps->all || collect__is_live(ps->c, k->pid) || (!k->unwatched && !k->thread))
		collect__watch_task(ps->c, k);
	else
		keep(ps, k);
}

/* Watch the kept processes whose parent is watched, until no new one is:
 * children come after their parent in pid order most of the time, so this
 * takes a pass or two. A thread record goes to its watched process. */
static void descendants(struct pass *ps)
{
	bool more = true;
	size_t i;

	while (more) {
		more = false;
		for (i = 0; i < ps->nrest; i++) {
			struct tracer_task *k = &ps->rest[i];

			if (!k->pid || collect__is_live(ps->c, k->pid) ||
			    !collect__is_live(ps->c, k->ppid) || k->thread)
				continue;
			collect__watch_task(ps->c, k);
			k->pid = 0;
			more = true;
		}
	}
	for (i = 0; i < ps->nrest; i++)
		if (ps->rest[i].thread && collect__is_live(ps->c, ps->rest[i].pid))
			collect__watch_task(ps->c, &ps->rest[i]);
}

static int cmp_key(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;

	return (a > b) - (a < b);
}

/* Sort what was seen by pid (each ppid along). */
static int sort_seen(struct discovered *d)
{
	long long *v = malloc((d->n ? d->n : 1) * sizeof(*v));
	size_t i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < d->n; i++)
		v[i] = (long long)d->pid[i] << 32 | (unsigned)d->ppid[i];
	qsort(v, d->n, sizeof(*v), cmp_key);
	for (i = 0; i < d->n; i++) {
		d->pid[i] = (int)(v[i] >> 32);
		d->ppid[i] = (int)(unsigned)v[i];
	}
	free(v);
	return 0;
}

int discover__run(struct discovered *d, struct collect *c, bool all)
{
	struct pass ps = { .d = d, .c = c, .all = all };
	int e;

	if (!c->tracer)
		return -ENOTSUP;
	e = tracer__discover(c->tracer, all, on_record, &ps);
	if (!e && !ps.err)
		descendants(&ps);
	free(ps.rest);
	if (!e && !ps.err)
		e = sort_seen(d);
	if (e || ps.err) {
		discover__free(d); /* a /proc walk reads every process then */
		return e ? e : ps.err;
	}
	return 0;
}

int discover__ppid(const struct discovered *d, int pid)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->pid[mid] < pid)
			lo = mid + 1;
		else if (d->pid[mid] > pid)
			hi = mid;
		else
			return d->ppid[mid];
	}
	return -1;
}

void discover__free(struct discovered *d)
{
	free(d->pid);
	free(d->ppid);
	memset(d, 0, sizeof(*d));
}
