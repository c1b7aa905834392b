/* Reads smaps_rollup, MemAvailable and memory cgroups on a CPU budget. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "model.h"
#include "procfs.h"
#include "sampler.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

/* A wanted pid and where it came in the list. */
struct want {
	int pid;
	size_t pos;
};

/* A process waiting its turn, by the age of its reading. */
struct turn {
	double time;   /* smaps_time: 0, never read, comes first */
	size_t index;  /* model order breaks ties */
	struct proc *p;
};

struct sampler {
	struct model *m;
	int procfd, cgroupfd;
	bool own_cgroupfd;
	double budget;          /* fraction of one CPU */
	double credit;          /* CPU seconds left to spend; below 0: debt */
	double mark;            /* CPU clock when the last cost was charged */
	struct sampler_clock clock;
	unsigned long long zero_pfn; /* of the shared zero page; 0: none */
	int zero_err;           /* finding it failed: -EPERM, frame numbers hidden */
	struct want *want;      /* by position, one per pid */
	struct want *want_pid;  /* the same, by pid, for lookups */
	size_t nwant;
	bool want_all;          /* the others too, on what is left */
	struct turn *turns;     /* scratch of a run */
	size_t cap;
};

/* Read a clock of clock_gettime in seconds. */
static double clock_seconds(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds this thread has used. */
static double thread_cpu(void *arg)
{
	(void)arg;
	return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

/* Unix time in seconds. */
static double unix_time(void *arg)
{
	(void)arg;
	return clock_seconds(CLOCK_REALTIME);
}

static const struct sampler_clock real_clock = { thread_cpu, unix_time, NULL };

/* Make a sampler with options; see sampler.h. */
struct sampler *sampler__new_opts(struct model *m, int procfd, const struct sampler_opts *o)
{
	struct sampler *s;

	if (!(o->budget_pct >= 0 && o->budget_pct <= 100)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->m = m;
	s->procfd = procfd;
	s->cgroupfd = o->cgroupfd;
	s->budget = o->budget_pct / 100;
	s->want_all = true;
	s->clock = o->clock ? *o->clock : real_clock;
	s->zero_err = procfs_zero_pfn(procfd, &s->zero_pfn);
	return s;
}

/* Make a sampler reading the cgroups of this machine; see sampler.h. */
struct sampler *sampler__new(struct model *m, int procfd, double budget_pct)
{
	struct sampler_opts o = { .budget_pct = budget_pct, .cgroupfd = -1 };
	struct sampler *s;
	int err;

	/* Without cgroups mounted there are no limits to read: not an error. */
	o.cgroupfd = open(CGROUP_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s = sampler__new_opts(m, procfd, &o);
	if (s) {
		s->own_cgroupfd = true;
		return s;
	}
	err = errno;
	if (o.cgroupfd >= 0)
		close(o.cgroupfd);
	errno = err;
	return NULL;
}

/* Free a sampler; NULL is fine. */
void sampler__free(struct sampler *s)
{
	if (!s)
		return;
	if (s->own_cgroupfd && s->cgroupfd >= 0)
		close(s->cgroupfd);
	free(s->want);
	free(s->want_pid);
	free(s->turns);
	free(s);
}

/* Order wanted pids by pid, then by position. */
static int want_by_pid(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Order wanted pids by position. */
static int want_by_pos(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Take the pids to read first; see sampler.h. Out of memory, none is. */
void sampler__want(struct sampler *s, const int *pids, size_t n, bool all)
{
	struct want *w = n ? malloc(n * sizeof(*w)) : NULL;
	struct want *by_pid = n ? malloc(n * sizeof(*by_pid)) : NULL;
	size_t i, k = 0;

	s->want_all = all;
	free(s->want);
	free(s->want_pid);
	s->want = s->want_pid = NULL;
	s->nwant = 0;
	if (!w || !by_pid) {
		free(w);
		free(by_pid);
		return;
	}
	for (i = 0; i < n; i++)
		by_pid[i] = (struct want){ pids[i], i };
	qsort(by_pid, n, sizeof(*by_pid), want_by_pid);
	for (i = 0; i < n; i++) {
		if (k == 0 || by_pid[i].pid != by_pid[k - 1].pid)
			by_pid[k++] = by_pid[i];
	}
	memcpy(w, by_pid, k * sizeof(*w));
	qsort(w, k, sizeof(*w), want_by_pos);
	s->want = w;
	s->want_pid = by_pid;
	s->nwant = k;
}

/* Whether pid is wanted. */
static bool wanted(const struct sampler *s, int pid)
{
	struct want key = { pid, 0 };
	size_t lo = 0, hi = s->nwant, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (want_by_pid(&s->want_pid[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nwant && s->want_pid[lo].pid == pid;
}

/* Charge the CPU time used since the last charge. */
static void charge(struct sampler *s)
{
	double now = s->clock.cpu(s->clock.arg), cost = now - s->mark;

	s->mark = now;
	if (cost < 0)
		cost = 0;
	s->credit -= cost;
}

/* Whether a process has memory to read: kernel threads (no address space:
 * size 0 once stat was read) and zombies have none. */
static bool has_memory(const struct proc *p)
{
	if (p->exited || p->state == 'Z' || p->state == 'X')
		return false;
	return !(p->state && p->vsz_kib == 0);
}

/* Walk p's anonymous memory in pagemap (sm: its smaps reading; none
 * present, nothing to walk). Returns 0 or -errno. */
static int read_family(struct sampler *s, const struct proc *p, const struct smaps *sm,
		       struct family_mem *fam)
{
	if (s->zero_err)
		return s->zero_err;
	if (!sm->anon) {
		*fam = (struct family_mem){ 0 };
		return 0;
	}
	return procfs_read_family(s->procfd, p->pid, s->zero_pfn, fam);
}

/* Read and store p's smaps_rollup, page tables (status) and anonymous
 * memory (pagemap), unless p is gone or its pid now names another
 * process: stat is read after them, so if it still shows p's start time,
 * p was alive (and the reading its own) all along. */
static void read_smaps(struct sampler *s, struct proc *p)
{
	struct proc_stat st;
	struct family_mem fam;
	struct smaps sm;
	double now;
	int err;

	if (procfs_read_smaps_rollup(s->procfd, p->pid, &sm) == 0 &&
	    procfs_read_pte(s->procfd, p->pid, &sm.pte) == 0) {
		err = read_family(s, p, &sm, &fam);
		if (procfs_read_stat(s->procfd, p->pid, &st) == 0 &&
		    (!p->start_time || st.start_time == p->start_time)) {
			now = s->clock.wall(s->clock.arg);
			model__set_smaps(p, &sm, now);
			if (err == 0)
				model__set_family(p, &fam, now);
			else
				model__family_unknown(p, err == -EPERM ? FAMILY_NO_PFN :
							 err == -E2BIG ? FAMILY_TOO_BIG : FAMILY_FAILED);
		}
	}
	charge(s);
}

/* Read the memory cgroup of every root, while there is credit. */
static void read_roots(struct sampler *s)
{
	struct memcg cg;
	struct proc *p;
	size_t i;

	if (s->cgroupfd < 0)
		return;
	for (i = 0; s->credit > 0 && (p = model__at(s->m, i)); i++) {
		if (p->exited || model__find_live(s->m, p->ppid))
			continue;
		if (procfs_read_memcg(s->procfd, s->cgroupfd, p->pid, &cg) == 0)
			model__set_memcg(p, &cg);
		charge(s);
	}
}

/* Whether p's reading stands: younger than SAMPLER_FRESH seconds (*now:
 * the wall clock, read once a run, at the first need), and p has neither
 * copied nor changed its RSS since. */
static bool still_fresh(struct sampler *s, const struct proc *p, double *now)
{
	if (!p->smaps_time || p->rss_kib != p->smaps_rss_kib || p->counts.cow != p->smaps_cow)
		return false;
	if (!*now)
		*now = s->clock.wall(s->clock.arg);
	return *now - p->smaps_time < SAMPLER_FRESH;
}

/* Read the wanted processes, in the order given, while there is credit;
 * those whose reading still stands are passed over. */
static void read_wanted(struct sampler *s)
{
	double now = 0;
	struct proc *p;
	size_t i;

	for (i = 0; i < s->nwant && s->credit > 0; i++) {
		p = model__find_live(s->m, s->want[i].pid);
		if (p && has_memory(p) && !still_fresh(s, p, &now))
			read_smaps(s, p);
	}
}

/* Order processes by the age of their reading, then by model order. */
static int turn_order(const void *a, const void *b)
{
	const struct turn *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Read the processes not wanted, oldest reading first, while there is
 * credit, when some view needs them all. */
static void read_oldest(struct sampler *s)
{
	size_t i, n = 0, count = model__count(s->m);
	struct proc *p;
	struct turn *t;

	if (!s->want_all || s->credit <= 0 || count == 0)
		return;
	if (count > s->cap) {
		t = realloc(s->turns, count * sizeof(*t));
		if (!t)
			return;
		s->turns = t;
		s->cap = count;
	}
	for (i = 0; i < count; i++) {
		p = model__at(s->m, i);
		if (has_memory(p) && !wanted(s, p->pid))
			s->turns[n++] = (struct turn){ p->smaps_time, i, p };
	}
	qsort(s->turns, n, sizeof(*s->turns), turn_order);
	for (i = 0; i < n && s->credit > 0; i++)
		read_smaps(s, s->turns[i].p);
}

/* One run; see sampler.h. MemAvailable and the memory pressure are read
 * even when off: each is one cheap read, and the header needs them. */
void sampler__run(struct sampler *s, double interval)
{
	double allowance = s->budget * (interval > 0 ? interval : 0);
	struct psi psi = { -1, -1 };
	unsigned long long kib;

	s->mark = s->clock.cpu(s->clock.arg);
	if (s->credit > allowance)
		s->credit = allowance;
	s->credit += allowance;
	model__set_mem_available(s->m,
	    procfs_read_meminfo_available(s->procfd, &kib) == 0 ? kib : 0);
	if (procfs_read_psi_memory(s->procfd, &psi))
		psi = (struct psi){ -1, -1 };
	model__set_psi(s->m, &psi);
	charge(s);
	if (s->budget <= 0) {
		s->credit = 0;
		return;
	}
	read_roots(s);
	read_wanted(s);
	read_oldest(s);
}
