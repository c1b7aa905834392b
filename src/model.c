/* The process table, its rates and its tree. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "model.h"

#define MODEL_BUCKETS_MIN 1024

struct model {
	struct proc **procs; /* insertion order */
	size_t n, cap;
	struct proc **buckets; /* chained by pid */
	size_t nbuckets;
	struct row *rows;
	size_t rows_cap;
	char probes[PROBE_MAX][LABEL_MAX];
	int probe_phase[PROBE_MAX];
	int nprobes;
	char phases[PHASE_MAX][LABEL_MAX]; /* [0] is "none" */
	int nphases;
	struct marker marks[MARK_LOG];     /* ring of probe hits */
	size_t marks_head, marks_len;
	unsigned long long marks_total;    /* hits ever logged */
};

static const char *const sort_names[SORT_NKEYS] = {
	[SORT_COW_RATE] = "cow-rate", [SORT_COW] = "cow", [SORT_RSS] = "rss",
	[SORT_VSZ] = "vsz", [SORT_PID] = "pid", [SORT_COMM] = "comm",
};

/* Parse a sort key name as given on the command line. */
int sort_key_parse(const char *s, enum sort_key *out)
{
	int k;

	for (k = 0; k < SORT_NKEYS; k++) {
		if (strcmp(s, sort_names[k]) == 0) {
			*out = k;
			return 0;
		}
	}
	return -EINVAL;
}

/* The command-line name of a sort key. */
const char *sort_key_name(enum sort_key k)
{
	return (unsigned)k < SORT_NKEYS ? sort_names[k] : "?";
}

/* Create an empty table. */
struct model *model__new(void)
{
	struct model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->nbuckets = MODEL_BUCKETS_MIN;
	snprintf(m->phases[0], LABEL_MAX, "none");
	m->nphases = 1;
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
	free(m->rows);
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
		live += !m->procs[i]->exited;
	return live;
}

/* The i-th process in insertion order, NULL past the end. */
struct proc *model__at(struct model *m, size_t i)
{
	return i < m->n ? m->procs[i] : NULL;
}

static size_t bucket_of(const struct model *m, int pid)
{
	return ((uint32_t)pid * 2654435761u) & (m->nbuckets - 1);
}

/* The process with this pid and start time (any start time when 0). */
struct proc *model__find(struct model *m, int pid, unsigned long long start_time)
{
	struct proc *p;

	for (p = m->buckets[bucket_of(m, pid)]; p; p = p->hnext)
		if (p->pid == pid && (!start_time || p->start_time == start_time))
			return p;
	return NULL;
}

/* The process with this pid that has not exited. */
struct proc *model__find_live(struct model *m, int pid)
{
	struct proc *p;

	for (p = m->buckets[bucket_of(m, pid)]; p; p = p->hnext)
		if (p->pid == pid && !p->exited)
			return p;
	return NULL;
}

/* Rebuild the pid index with twice the buckets. */
static int model_grow_index(struct model *m)
{
	size_t nb = m->nbuckets * 2, i;
	struct proc **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = nb;
	for (i = 0; i < m->n; i++) {
		struct proc *p = m->procs[i];
		size_t h = bucket_of(m, p->pid);

		p->hnext = m->buckets[h];
		m->buckets[h] = p;
	}
	return 0;
}

/* Add a process, or return the one already held with the same key. */
struct proc *model__add(struct model *m, int pid, unsigned long long start_time)
{
	struct proc *p = model__find(m, pid, start_time);
	size_t h;

	if (p && p->start_time == start_time)
		return p;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct proc **v = realloc(m->procs, cap * sizeof(*v));

		if (!v)
			return NULL;
		m->procs = v;
		m->cap = cap;
	}
	if (m->n >= m->nbuckets * 2 && model_grow_index(m))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->start_time = start_time;
	h = bucket_of(m, pid);
	p->hnext = m->buckets[h];
	m->buckets[h] = p;
	m->procs[m->n++] = p;
	return p;
}

/* Counter c of raw less base, never below zero. */
static __u64 since_base(__u64 raw, __u64 base)
{
	return raw > base ? raw - base : 0;
}

/* Store the kernel's raw counters of p, net of its base. Counters only grow:
 * an older reading (a late event) never moves them back. */
void model__set_counts(struct proc *p, const struct cowtop_counts *raw)
{
	struct cowtop_counts c = {
		.cow = since_base(raw->cow, p->base.cow),
		.cow_kernel = since_base(raw->cow_kernel, p->base.cow_kernel),
		.zero_fill = since_base(raw->zero_fill, p->base.zero_fill),
		.reuse = since_base(raw->reuse, p->base.reuse),
	};

	if (c.cow < p->counts.cow || c.zero_fill < p->counts.zero_fill ||
	    c.reuse < p->counts.reuse)
		return;
	p->counts = c;
}

/* Make the raw counters in raw the zero point of p. */
void model__set_base(struct proc *p, const struct cowtop_counts *raw)
{
	p->base = *raw;
	memset(&p->counts, 0, sizeof(p->counts));
	p->cow_prev = 0;
}

/* Mark p exited at time now (model clock, seconds). */
void model__mark_exited(struct proc *p, double now)
{
	if (p->exited)
		return;
	p->exited = true;
	p->exit_time = now;
}

/* Close an interval of dt seconds: compute every rate and extend histories.
 * Processes that exited before the interval began keep a zero rate. */
void model__tick(struct model *m, double dt)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct proc *p = m->procs[i];
		__u64 d = p->counts.cow - p->cow_prev;

		p->cow_rate = dt > 0 ? (double)d / dt : 0.0;
		p->cow_prev = p->counts.cow;
		series__push_marked(&p->rate, p->cow_rate, p->pending_mark);
		p->pending_mark = 0;
	}
}

/* Take a parent pid read from /proc. A process that is exiting (state X or
 * Z, parent link already cut) reads as ppid 0 there: keep the parent known
 * from its fork then. 0 stands only when no parent was ever known. */
void model__set_ppid(struct proc *p, int ppid)
{
	if (ppid > 0 || p->ppid <= 0)
		p->ppid = ppid;
}

/* Drop processes that exited at or before time before; returns how many. */
size_t model__remove_exited(struct model *m, double before)
{
	size_t i, j = 0, gone = 0;

	for (i = 0; i < m->n; i++) {
		struct proc *p = m->procs[i];

		if (p->exited && p->exit_time <= before) {
			struct proc **pp = &m->buckets[bucket_of(m, p->pid)];

			while (*pp != p)
				pp = &(*pp)->hnext;
			*pp = p->hnext;
			free(p);
			gone++;
			continue;
		}
		m->procs[j++] = p;
	}
	m->n = j;
	return gone;
}

static const struct view_opts *cmp_opts;

/* Order two processes by the view's key; ties by pid, so frames are stable. */
static int proc_cmp(const void *a, const void *b)
{
	const struct proc *p = *(struct proc *const *)a, *q = *(struct proc *const *)b;
	int r = 0;

	switch (cmp_opts->sort) {
	case SORT_COW_RATE:
		r = (q->cow_rate > p->cow_rate) - (q->cow_rate < p->cow_rate);
		break;
	case SORT_COW:
		r = (q->counts.cow > p->counts.cow) - (q->counts.cow < p->counts.cow);
		break;
	case SORT_RSS:
		r = (q->rss_kib > p->rss_kib) - (q->rss_kib < p->rss_kib);
		break;
	case SORT_VSZ:
		r = (q->vsz_kib > p->vsz_kib) - (q->vsz_kib < p->vsz_kib);
		break;
	case SORT_COMM:
		r = strcmp(p->comm, q->comm);
		break;
	default:
		break;
	}
	if (!r)
		r = (p->pid > q->pid) - (p->pid < q->pid);
	return cmp_opts->reverse ? -r : r;
}

/* The process that was p's parent: pid ppid, started no later than p,
 * latest such (pids are reused). */
static struct proc *parent_of(struct model *m, struct proc *p)
{
	struct proc *q, *best = NULL;

	for (q = m->buckets[bucket_of(m, p->ppid)]; q; q = q->hnext) {
		if (q == p || q->pid != p->ppid || q->start_time > p->start_time)
			continue;
		if (!best || q->start_time > best->start_time)
			best = q;
	}
	return best;
}

/* Make room for n rows. */
static int rows_reserve(struct model *m, size_t n)
{
	struct row *r;

	if (n <= m->rows_cap)
		return 0;
	r = realloc(m->rows, n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	m->rows = r;
	m->rows_cap = n;
	return 0;
}

/* Append p and its subtree, depth first, to the rows. Iterative: fork chains
 * can be deeper than any sane recursion. */
static void walk_subtree(struct model *m, struct proc *root, size_t *n)
{
	struct proc *p = root;
	int depth = 0;
	unsigned long long more = 0;

	for (;;) {
		struct row *r = &m->rows[(*n)++];

		p->visited = true;
		r->p = p;
		r->depth = depth;
		r->last = !p->sib || p == root;
		r->more = more;
		if (p->kid && !p->kid->visited) {
			if (depth < 64 && p != root && p->sib)
				more |= 1ULL << depth;
			else if (depth < 64)
				more &= ~(1ULL << depth);
			depth++;
			p = p->kid;
			continue;
		}
		while (p != root && !p->sib) {
			p = p->parent;
			depth--;
			if (depth < 64)
				more &= ~(1ULL << depth);
		}
		if (p == root)
			return;
		p = p->sib;
	}
}

/* Link every process under its parent, siblings in sorted order. */
static void link_tree(struct model *m, struct proc **sorted)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct proc *p = m->procs[i];

		p->kid = p->kid_tail = p->sib = NULL;
		p->visited = false;
		p->parent = parent_of(m, p);
	}
	for (i = 0; i < m->n; i++) {
		struct proc *p = sorted[i], *q = p->parent;

		if (!q)
			continue;
		if (q->kid_tail)
			q->kid_tail->sib = p;
		else
			q->kid = p;
		q->kid_tail = p;
	}
}

/* Whether p is the focused process or below it. */
static bool in_focus(const struct proc *p, int focus_pid)
{
	int hops = 0;

	for (; p && hops < 4096; p = p->parent, hops++)
		if (p->pid == focus_pid)
			return true;
	return false;
}

/* Lay the table out as rows (tree or flat, sorted). The rows stay valid until
 * the next call or a change to the table. */
int model__rows(struct model *m, const struct view_opts *o, struct row **rows, size_t *n)
{
	struct proc **sorted;
	size_t i, k = 0;

	if (rows_reserve(m, m->n ? m->n : 1))
		return -ENOMEM;
	sorted = malloc((m->n ? m->n : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	if (m->n)
		memcpy(sorted, m->procs, m->n * sizeof(*sorted));
	cmp_opts = o;
	qsort(sorted, m->n, sizeof(*sorted), proc_cmp);
	link_tree(m, sorted);
	for (i = 0; i < m->n; i++) {
		struct proc *p = sorted[i];
		bool is_root;

		if (o->focus_pid)
			is_root = p->pid == o->focus_pid;
		else
			is_root = o->tree ? !p->parent : true;
		if (!is_root && o->focus_pid && !o->tree && in_focus(p, o->focus_pid))
			is_root = true;
		if (!is_root || p->visited)
			continue;
		if (o->tree) {
			walk_subtree(m, p, &k);
		} else {
			p->visited = true;
			m->rows[k++] = (struct row){ .p = p, .last = true };
		}
	}
	/* Processes in a parent cycle (impossible unless pids wrap oddly) still show. */
	for (i = 0; i < m->n && !o->focus_pid && o->tree; i++)
		if (!sorted[i]->visited)
			walk_subtree(m, sorted[i], &k);
	free(sorted);
	*rows = m->rows;
	*n = k;
	return 0;
}

/* Register a probe label and the phase it opens or closes (0: a marker);
 * returns its id or -ENOSPC. */
int model__add_probe(struct model *m, const char *label, int phase)
{
	if (m->nprobes == PROBE_MAX)
		return -ENOSPC;
	snprintf(m->probes[m->nprobes], LABEL_MAX, "%s", label);
	m->probe_phase[m->nprobes] = phase;
	return m->nprobes++;
}

/* Register a phase label (or find it); returns its id (>= 1) or -ENOSPC. */
int model__add_phase(struct model *m, const char *label)
{
	int i;

	for (i = 1; i < m->nphases; i++)
		if (strcmp(m->phases[i], label) == 0)
			return i;
	if (m->nphases == PHASE_MAX)
		return -ENOSPC;
	snprintf(m->phases[m->nphases], LABEL_MAX, "%s", label);
	return m->nphases++;
}

/* Number of probes registered. */
int model__nprobes(const struct model *m)
{
	return m->nprobes;
}

/* Number of phase ids in use, "none" (0) included. */
int model__nphases(const struct model *m)
{
	return m->nphases;
}

/* "provider:name" of a probe ("?" when unknown). */
const char *model__probe_label(const struct model *m, int probe)
{
	return probe >= 0 && probe < m->nprobes ? m->probes[probe] : "?";
}

/* The phase a probe opens or closes, 0 for a marker. */
int model__probe_phase(const struct model *m, int probe)
{
	return probe >= 0 && probe < m->nprobes ? m->probe_phase[probe] : 0;
}

/* "provider:phase" of a phase id; "none" for 0. */
const char *model__phase_label(const struct model *m, int phase)
{
	return phase >= 0 && phase < m->nphases ? m->phases[phase] : "?";
}

/* Copies p made outside every phase. */
unsigned long long model__phase_none(const struct proc *p)
{
	unsigned long long in = 0;
	int i;

	for (i = 1; i < PHASE_MAX; i++)
		in += p->phase_cow[i];
	return p->counts.cow > in ? p->counts.cow - in : 0;
}

/* Log a probe hit and mark its process's current interval. */
void model__add_marker(struct model *m, const struct marker *mk)
{
	struct proc *p = model__find_live(m, mk->pid);

	m->marks[m->marks_head] = *mk;
	m->marks_head = (m->marks_head + 1) % MARK_LOG;
	if (m->marks_len < MARK_LOG)
		m->marks_len++;
	m->marks_total++;
	if (p && !p->pending_mark)
		p->pending_mark = (unsigned char)(mk->probe + 1);
}

/* The i-th kept probe hit, 0 the oldest; returns how many are kept. */
size_t model__marker_log(const struct model *m, size_t i, const struct marker **out)
{
	*out = NULL;
	if (i < m->marks_len)
		*out = &m->marks[(m->marks_head + MARK_LOG - m->marks_len + i) % MARK_LOG];
	return m->marks_len;
}

/* The probe hits logged since *cursor (a count of hits, 0 at start), oldest
 * first, up to max; *cursor moves past them. By order of arrival, not by
 * time: a hit read from the ring buffer after a frame, though it happened
 * before it, goes in the next frame. Returns how many. */
size_t model__markers_take(const struct model *m, unsigned long long *cursor,
			   const struct marker **out, size_t max)
{
	unsigned long long oldest = m->marks_total - m->marks_len, seq;
	size_t n = 0;

	seq = *cursor > oldest ? *cursor : oldest;
	for (; seq < m->marks_total && n < max; seq++)
		model__marker_log(m, (size_t)(seq - oldest), &out[n++]);
	*cursor = seq;
	return n;
}
