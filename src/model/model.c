/* The process table, its rates, histories and probe hits. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "model.h"
#include "model_int.h"

/* The fixed labels of each breakdown kind. */
static void init_labels(struct model *m)
{
	static const char *const region[] = { "other", "heap", "stack", "anon" };
	size_t i;

	snprintf(m->labels[SPLIT_PHASE][0], LABEL_MAX, "%s", PHASE_OUTSIDE);
	m->nlabels[SPLIT_PHASE] = 1;
	for (i = 0; i < sizeof(region) / sizeof(*region); i++)
		snprintf(m->labels[SPLIT_REGION][i], LABEL_MAX, "%s", region[i]);
	m->nlabels[SPLIT_REGION] = SPLIT_REGION_FILES;
}

/* Create an empty table. */
struct model *model__new(void)
{
	struct model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->nbuckets = MODEL_BUCKETS_MIN;
	m->psi = (struct psi){ -1, -1 };
	init_labels(m);
	m->buckets = calloc(m->nbuckets, sizeof(*m->buckets));
	if (!m->buckets) {
		free(m);
		return NULL;
	}
	return m;
}

/* Free the table and every process in it; NULL is fine. */
void model__free(struct model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->procs[i]);
	free(m->procs);
	free(m->buckets);
	free(m);
}

/* Number of processes held, exited ones included. */
size_t model__count(const struct model *m)
{
	return m->n;
}

/* Number of processes that have not exited. */
size_t model__live(const struct model *m)
{
	size_t i, live = 0;

	for (i = 0; i < m->n; i++)
		live += !m->procs[i]->pub.exited;
	return live;
}

/* The i-th process in insertion order, NULL past the end. */
struct proc *model__at(struct model *m, size_t i)
{
	return i < m->n ? &m->procs[i]->pub : NULL;
}

static size_t bucket_of(const struct model *m, int pid)
{
	return ((uint32_t)pid * 2654435761u) & (m->nbuckets - 1);
}

/* The process with this pid and start time (any start time when 0). */
struct proc *model__find(struct model *m, int pid, unsigned long long start_time)
{
	struct mproc *q;

	for (q = m->buckets[bucket_of(m, pid)]; q; q = q->hnext)
		if (q->pub.pid == pid && (!start_time || q->pub.start_time == start_time))
			return &q->pub;
	return NULL;
}

/* The process with this pid that has not exited. */
struct proc *model__find_live(struct model *m, int pid)
{
	struct mproc *q;

	for (q = m->buckets[bucket_of(m, pid)]; q; q = q->hnext)
		if (q->pub.pid == pid && !q->pub.exited)
			return &q->pub;
	return NULL;
}

/* Rebuild the pid index with twice the buckets. */
static int model_grow_index(struct model *m)
{
	size_t nb = m->nbuckets * 2, i;
	struct mproc **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = nb;
	for (i = 0; i < m->n; i++) {
		struct mproc *q = m->procs[i];
		size_t h = bucket_of(m, q->pub.pid);

		q->hnext = m->buckets[h];
		m->buckets[h] = q;
	}
	return 0;
}

/* The last stamp given (model__stamp): one counter for every model, so
 * that a stamp is never seen twice, even at an address freed and reused. */
static unsigned long long stamps;

/* p's name, command line or breakdowns changed. */
static void restamp(struct proc *p)
{
	p->stamp = ++stamps;
}

unsigned long long model__stamp(const struct proc *p)
{
	return p->stamp;
}

/* Add a process, or return the one already held with the same key. */
struct proc *model__add(struct model *m, int pid, unsigned long long start_time)
{
	struct proc *p = model__find(m, pid, start_time);
	struct mproc *q;
	size_t h;

	if (p && p->start_time == start_time)
		return p;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct mproc **v = realloc(m->procs, cap * sizeof(*v));

		if (!v)
			return NULL;
		m->procs = v;
		m->cap = cap;
	}
	if (m->n >= m->nbuckets * 2 && model_grow_index(m))
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->pub.pid = pid;
	q->pub.start_time = start_time;
	q->pub.inherited_kib = -1;
	restamp(&q->pub);
	series__init_store(&q->pub.rate, &q->rate_store);
	series__init_store(&q->pub.shared, &q->shared_store);
	h = bucket_of(m, pid);
	q->hnext = m->buckets[h];
	m->buckets[h] = q;
	m->procs[m->n++] = q;
	return &q->pub;
}

/* Counter c of raw less base, never below zero. */
static unsigned long long since_base(unsigned long long raw, unsigned long long base)
{
	return raw > base ? raw - base : 0;
}

/* Store the raw counters of p, net of its base. Counters only grow: an
 * older reading (a late event) never moves them back. */
void model__set_counts(struct proc *p, const struct cow_counts *raw)
{
	const struct cow_counts *b = &mproc_of(p)->base;
	struct cow_counts c = {
		.cow = since_base(raw->cow, b->cow),
		.cow_kernel = since_base(raw->cow_kernel, b->cow_kernel),
		.zero_fill = since_base(raw->zero_fill, b->zero_fill),
		.reuse = since_base(raw->reuse, b->reuse),
	};

	if (c.cow < p->counts.cow || c.zero_fill < p->counts.zero_fill ||
	    c.reuse < p->counts.reuse)
		return;
	p->counts = c;
}

/* Make the raw counters in raw the zero point of p. */
void model__set_base(struct proc *p, const struct cow_counts *raw)
{
	struct mproc *q = mproc_of(p);

	q->base = *raw;
	memset(&p->counts, 0, sizeof(p->counts));
	q->cow_prev = q->cow_start = 0;
	/* "other" was settled from the copies before (the region counters
	 * themselves are held until then) */
	p->split[SPLIT_REGION].v[0] = p->region_cow = 0;
}

/* Take a name of len bytes (maybe unterminated), cut to fit. */
void model__set_comm(struct proc *p, const char *comm, size_t len)
{
	size_t n = strnlen(comm, len < PROC_COMM_MAX - 1 ? len : PROC_COMM_MAX - 1);

	if (!memcmp(p->comm, comm, n) && !p->comm[n]) /* the same: every walk reads it */
		return;
	memcpy(p->comm, comm, n);
	memset(p->comm + n, 0, sizeof(p->comm) - n);
	restamp(p);
}

/* Take a parent pid read from /proc. A process that is exiting (state X or
 * Z, parent link already cut) reads as ppid 0 there: keep the parent known
 * from its fork then. 0 stands only when no parent was ever known. */
void model__set_ppid(struct proc *p, int ppid)
{
	if (ppid > 0 || p->ppid <= 0)
		p->ppid = ppid;
}

/* Take the parent a fork event names: it is always right. */
void model__set_parent(struct proc *p, int ppid)
{
	p->ppid = ppid;
}

/* Take the /proc state letter and memory figures of p. */
void model__set_mem(struct proc *p, char state, unsigned long long rss_kib, unsigned long long vsz_kib)
{
	p->state = state;
	p->rss_kib = rss_kib;
	p->vsz_kib = vsz_kib;
}

/* Forget the state and memory figures of p: after an exec they describe
 * the image that is gone (the launched command was read as cowtop's fork,
 * with cowtop's RSS); unknown until read again. */
void model__forget_mem(struct proc *p)
{
	p->state = 0;
	p->rss_kib = 0;
	p->vsz_kib = 0;
}

/* Take the copies p made in one slot of a breakdown; counters only grow.
 * The kernel adds a copy to its breakdowns as it counts it, but p's count
 * of copies can be read a flush of the per-CPU counts behind them: its
 * count is raised to what its breakdown adds up to, so the parts never
 * exceed the whole and "outside" is never negative. */
void model__set_split(struct proc *p, enum split_kind k, int slot, unsigned long long pages)
{
	unsigned long long sum = 0;
	int i;

	if ((unsigned)k >= SPLIT_KINDS || slot <= 0 || slot >= SPLIT_SLOTS ||
	    pages <= p->split[k].v[slot])
		return;
	p->split[k].v[slot] = pages;
	restamp(p);
	for (i = 1; i < SPLIT_SLOTS; i++)
		sum += p->split[k].v[i];
	if (sum > p->counts.cow)
		p->counts.cow = sum;
}

/* Settle p's breakdown k once a tick has read its copies, then that
 * breakdown last: its copies outside every slot ("none") never fall.
 * Every count read before the slots (its copies, its other breakdown)
 * holds no copy made in a slot that the slots do not hold yet: the copies
 * less the slots is then at most what was made outside, and only grows; it
 * is kept in v[0]. Slots that grew past it since raise the copies to the
 * slots plus v[0], never more than were made by then (an exit's final
 * slots thus add to the copies, not move copies shown outside into a slot). */
void model__settle_split(struct proc *p, enum split_kind k)
{
	unsigned long long sum = 0, *none;
	int i;

	if ((unsigned)k >= SPLIT_KINDS)
		return;
	none = &p->split[k].v[0];
	for (i = 1; i < SPLIT_SLOTS; i++)
		sum += p->split[k].v[i];
	if (p->counts.cow >= sum + *none) {
		if (*none != p->counts.cow - sum)
			restamp(p);
		*none = p->counts.cow - sum;
	} else
		p->counts.cow = sum + *none;
}

/* Exits marked so far, in every model: a model whose last pass over its
 * exited processes saw the same count holds no exited process it did not
 * count then (p has no way to its model: one count for all). */
static unsigned long long model_exits;

/* Settle p's "other" region (v[0]) once a tick has read its regions:
 * unnamed pages were read in files not named yet. A copy counted in
 * p->counts.cow can still pend in a CPU's slot, unclassified, when the
 * regions are read; the tracer reads the slots too, but a slot flushed to
 * the map during the read is missed, until the next read finds it in the
 * map. So the copies of the read before (region_cow) less what is
 * classified now is at most what was made outside every region: "other"
 * is raised to it, never more, and never falls. Once p has exited, its
 * slots were flushed before the regions were read: its count less what is
 * classified is other. The count is raised to the parts, as by
 * model__set_split: the parts never exceed the whole. What is in no part
 * is not classified yet. */
void model__settle_regions(struct proc *p, unsigned long long unnamed)
{
	unsigned long long sum = 0, seen, *other = &p->split[SPLIT_REGION].v[0];
	int i;

	if (!p->counts.cow) /* no copy, so no part either (the common case) */
		return;
	for (i = 1; i < SPLIT_SLOTS; i++)
		sum += p->split[SPLIT_REGION].v[i];
	seen = p->exited ? p->counts.cow : p->region_cow;
	if (seen > sum + unnamed + *other) {
		*other = seen - sum - unnamed;
		restamp(p);
	}
	if (p->counts.cow < sum + *other)
		p->counts.cow = sum + *other;
	p->region_cow = p->counts.cow;
}

/* Mark p exited at time now (model clock, seconds). */
void model__mark_exited(struct proc *p, double now)
{
	if (p->exited)
		return;
	p->exited = true;
	p->exit_time = now;
	model_exits++;
}

/* Count the exited processes held again, unless no exit was marked since
 * the last count. */
static void count_exited(struct model *m)
{
	const struct proc *p;
	size_t i;

	if (m->exits_seen == model_exits)
		return;
	m->nexited = 0;
	for (i = 0; i < m->n; i++) {
		p = &m->procs[i]->pub;
		if (!p->exited)
			continue;
		if (!m->nexited++ || p->exit_time < m->first_exit)
			m->first_exit = p->exit_time;
	}
	m->exits_seen = model_exits;
}

/* How many exited processes the model holds (not removed yet). A pass
 * over the processes only when some process exited since the last one:
 * on a machine where nothing exits, none. */
size_t model__exited(struct model *m)
{
	count_exited(m);
	return m->nexited;
}

/* Record how p ended, as the kernel said at its exit. */
void model__set_exit(struct proc *p, int status, bool oom)
{
	p->exit.known = true;
	p->exit.status = status;
	p->exit.oom = p->exit.oom || oom;
}

/* The OOM killer chose p. */
void model__set_oom(struct proc *p)
{
	p->exit.oom = true;
}

/* p's reclaim stalls so far: the kernel's totals only grow. */
void model__set_reclaim(struct proc *p, unsigned long long n, double secs)
{
	if (n > p->reclaims)
		p->reclaims = n;
	if (secs > p->reclaim_s)
		p->reclaim_s = secs;
}

/* Close one process's interval of span seconds; merged: the interval
 * extends the last one instead of following it. */
static void proc_tick(struct mproc *q, double span, bool merged)
{
	struct proc *p = &q->pub;
	unsigned char mark = q->pending_mark;
	size_t len = series__len(&p->rate);

	if (!merged)
		q->cow_start = q->cow_prev;
	p->cow_rate = span > 0 ? (double)(p->counts.cow - q->cow_start) / span : 0.0;
	q->cow_prev = p->counts.cow;
	q->pending_mark = 0;
	if (!merged) {
		series__push_marked(&p->rate, p->cow_rate, mark);
		series__push_marked(&p->shared, proc_shared_pct(p), 0);
		return;
	}
	series__set_last(&p->shared, proc_shared_pct(p), 0);
	if (len && series__mark(&p->rate, len - 1))
		mark = series__mark(&p->rate, len - 1);
	series__set_last(&p->rate, p->cow_rate, mark);
}

/* Take the refresh period: intervals much shorter than it are not rated
 * alone (see model__tick). */
void model__set_period(struct model *m, double seconds)
{
	m->period = seconds > 0 ? seconds : 0;
}

/* Close an interval of dt seconds: compute every rate and extend histories.
 * A rate over a vanishing interval means nothing (16 copies in 0.4 ms read
 * as 40000/s). An interval under MODEL_MERGE_RATIO of the refresh period
 * (of the last interval when the period is unknown) is merged into the last
 * one; a first one, with none to merge into, is rated over a whole period:
 * nothing was counted before the watch began, so the copies of the period
 * are the ones seen. Returns the length the rates are over. */
double model__tick(struct model *m, double dt)
{
	double ref = m->period > 0 ? m->period : m->last_dt;
	bool short_dt = ref > 0 && dt < MODEL_MERGE_RATIO * ref;
	bool merged = short_dt && m->last_dt > 0;
	double span = dt > 0 ? dt : 0;
	size_t i;

	if (merged)
		span += m->last_dt;
	else if (short_dt)
		span = m->period;
	for (i = 0; i < m->n; i++)
		proc_tick(m->procs[i], span, merged);
	m->last_dt = span;
	return span;
}

/* Drop processes that exited at or before time before; returns how many. */
size_t model__remove_exited(struct model *m, double before)
{
	size_t i, j = 0, gone = 0;

	count_exited(m);
	if (!m->nexited || m->first_exit > before)
		return 0; /* none is due: no pass over every process */
	m->nexited = 0; /* counted again as they are passed */
	for (i = 0; i < m->n; i++) {
		struct mproc *q = m->procs[i];

		if (q->pub.exited && q->pub.exit_time <= before) {
			struct mproc **pp = &m->buckets[bucket_of(m, q->pub.pid)];

			while (*pp != q)
				pp = &(*pp)->hnext;
			*pp = q->hnext;
			/* Totals count every copy since watching began. */
			m->forgotten_cow += q->pub.counts.cow;
			m->forgotten++;
			free(q);
			gone++;
			continue;
		}
		if (q->pub.exited && (!m->nexited++ || q->pub.exit_time < m->first_exit))
			m->first_exit = q->pub.exit_time;
		m->procs[j++] = q;
	}
	m->n = j;
	m->exits_seen = model_exits;
	return gone;
}

/* Copies of the processes removed so far (exited, past their linger). */
unsigned long long model__forgotten_cow(const struct model *m)
{
	return m->forgotten_cow;
}

/* How many processes were removed so far. */
size_t model__forgotten(const struct model *m)
{
	return m->forgotten;
}

/* Take p's command line (len bytes, cut to fit). An empty one (a zombie,
 * or a process gone) keeps the last one read: it names the process best. */
/* p exec'd: its command line is not the one read any more. */
void model__forget_cmdline(struct proc *p)
{
	memset(p->cmdline, 0, sizeof(p->cmdline));
	restamp(p);
}

void model__set_cmdline(struct proc *p, const char *cmdline, size_t len)
{
	size_t n = strnlen(cmdline, len < PROC_CMDLINE_MAX - 1 ? len : PROC_CMDLINE_MAX - 1);

	if (!n)
		return;
	/* Cut before a character split by the cut, not inside it. */
	if (n < len && n == PROC_CMDLINE_MAX - 1)
		while (n > 0 && ((unsigned char)cmdline[n] & 0xc0) == 0x80)
			n--;
	if (!memcmp(p->cmdline, cmdline, n) && !p->cmdline[n])
		return;
	memcpy(p->cmdline, cmdline, n);
	memset(p->cmdline + n, 0, sizeof(p->cmdline) - n);
	restamp(p);
}

/* Mark p as a kernel thread or not. */
void model__set_kthread(struct proc *p, bool kthread)
{
	p->kthread = kthread;
}
