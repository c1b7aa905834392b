/* The stack table: pages per (process, stack), frames interned once.
 *
 * Who owns what: a name (one frame's text, or a comm) is shared by every
 * frame list that names it and freed with the last; a frame list is
 * shared by its record (or fold) and the snapshots that show it, and
 * freed with the last of them. A snapshot also holds the names of its
 * sites and the table itself, so a frame built before a fold still reads
 * its strings, and a table freed while a frame lives goes with that
 * frame. Nothing is kept for a stack nobody counts or shows any more: a
 * run of hours with processes coming and going stays the same size. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "itab.h"
#include "stacks.h"

/* An interned name: refs counts the frame lists, folds and snapshots
 * holding it; idx is its place in the table's names. */
struct sname {
	unsigned refs;
	unsigned idx;
	char text[];
};

/* A stack's frames, innermost first: what stack_top.frames points at. */
struct sframes {
	unsigned refs;
	int n;
	const char *v[];
};

struct srec {
	int pid;
	unsigned long long start;
	unsigned id;
	int proc;              /* index into procs */
	struct stack_top st;   /* frames NULL until symbolized */
};

struct sproc {
	int pid;
	unsigned long long start;
	char comm[64];
};

/* Copies of processes gone from the table, by (comm, frames): the strings
 * are interned, so equal stacks have equal pointers. */
struct sfold {
	const char *comm;
	struct stack_top st;
};

struct stacks {
	struct srec *recs;
	size_t nrecs, rcap;
	struct itab rtab;
	struct sproc *procs;
	size_t nprocs, pcap;
	struct itab ptab;
	struct sname **names;    /* by idx; NULL: free, its idx in spare */
	size_t nnames, ncap;     /* high-water mark and room */
	unsigned *spare;
	size_t nspare, sparecap;
	struct itab stab;
	struct sfold *folds;
	size_t nfolds, fcap;
	struct itab ftab;
	bool drop_gone;        /* fold nothing: the stacks of processes gone are dropped */
	unsigned every;
	double us_per_copy;
	struct stacks_capture capture;
	double budget_pct, cpu_pct;
	unsigned long long skipped;
	unsigned nsnaps;         /* snapshots alive: each holds the table */
	bool dead;               /* stacks__free called: gone with the last snapshot */
};

/* FNV-1a of a string. */
static uint64_t str_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*p)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
	return h;
}

static uint64_t rec_hash(int pid, unsigned long long start, unsigned id)
{
	return itab_mix(((uint64_t)(unsigned)pid << 32 | id) ^ itab_mix(start));
}

static uint64_t fold_hash(const char *comm, const struct stack_top *st)
{
	uint64_t h = itab_mix((uintptr_t)comm ^ (uint64_t)st->nframes << 48);
	int i;

	for (i = 0; i < st->nframes; i++)
		h = itab_mix(h ^ (uintptr_t)st->frames[i]);
	return h;
}

/* The hash of fold i (ctx: the table), and of record, process and name i. */
static uint64_t fold_at(const void *ctx, int i)
{
	const struct stacks *s = ctx;

	return fold_hash(s->folds[i].comm, &s->folds[i].st);
}

static uint64_t rec_at(const void *ctx, int i)
{
	const struct stacks *s = ctx;

	return rec_hash(s->recs[i].pid, s->recs[i].start, s->recs[i].id);
}

static uint64_t proc_at(const void *ctx, int i)
{
	const struct stacks *s = ctx;

	return itab_pid_hash(s->procs[i].pid, s->procs[i].start);
}

static uint64_t name_at(const void *ctx, int i)
{
	const struct stacks *s = ctx;

	return str_hash(s->names[i]->text);
}

/* Grow an array of elements of size bytes to hold one more. */
static int grow(void **v, size_t n, size_t *cap, size_t size)
{
	size_t c = *cap ? *cap * 2 : 64;
	void *nv;

	if (n < *cap)
		return 0;
	nv = realloc(*v, c * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

/* The name of text held once more (a name's text is its handle). */
static struct sname *name_of(const char *text)
{
	return (struct sname *)(text - offsetof(struct sname, text));
}

/* Hold the interned copy of str (made if new); NULL on ENOMEM. */
static const char *name_get(struct stacks *s, const char *str)
{
	uint64_t h = str_hash(str);
	size_t k, len;
	struct sname *nm;
	unsigned idx;

	/* the spare list gets room for every idx, so name_put never fails */
	if (itab__reserve(&s->stab, 1, name_at, s) ||
	    grow((void **)&s->names, s->nnames, &s->ncap, sizeof(*s->names)) ||
	    grow((void **)&s->spare, s->nnames, &s->sparecap, sizeof(*s->spare)))
		return NULL;
	for (k = itab__home(&s->stab, h); s->stab.slot[k] >= 0; k = itab__next(&s->stab, k)) {
		nm = s->names[s->stab.slot[k]];
		if (strcmp(nm->text, str) == 0) {
			nm->refs++;
			return nm->text;
		}
	}
	len = strlen(str);
	if (!(nm = malloc(sizeof(*nm) + len + 1)))
		return NULL;
	idx = s->nspare ? s->spare[--s->nspare] : (unsigned)s->nnames++;
	*nm = (struct sname){ .refs = 1, .idx = idx };
	memcpy(nm->text, str, len + 1);
	s->names[idx] = nm;
	itab__put(&s->stab, k, (int)idx);
	return nm->text;
}

/* Hold a name already held once more. */
static void name_hold(const char *text)
{
	name_of(text)->refs++;
}

/* Let go of a name; freed with its last holder. */
static void name_put(struct stacks *s, const char *text)
{
	struct sname *nm = name_of(text);

	if (--nm->refs)
		return;
	itab__del(&s->stab, itab__slot_of(&s->stab, str_hash(nm->text), (int)nm->idx), name_at, s);
	s->names[nm->idx] = NULL;
	s->spare[s->nspare++] = nm->idx;
	free(nm);
}

/* The frame list whose v is frames. */
static struct sframes *frames_of(const char **frames)
{
	return (struct sframes *)((char *)frames - offsetof(struct sframes, v));
}

/* A new frame list holding the names of frames[0..n); NULL on ENOMEM. */
static const char **frames_new(struct stacks *s, const char *const *frames, int n)
{
	struct sframes *sf = malloc(sizeof(*sf) + (size_t)n * sizeof(char *));
	int i;

	if (!sf)
		return NULL;
	sf->refs = 1;
	sf->n = n;
	for (i = 0; i < n; i++)
		if (!(sf->v[i] = name_get(s, frames[i]))) {
			while (i--)
				name_put(s, sf->v[i]);
			free(sf);
			return NULL;
		}
	return sf->v;
}

/* Hold a frame list once more; NULL is fine. */
static void frames_hold(const char **frames)
{
	if (frames)
		frames_of(frames)->refs++;
}

/* Let go of a frame list; with its last holder, its names. NULL is fine. */
static void frames_put(struct stacks *s, const char **frames)
{
	struct sframes *sf;
	int i;

	if (!frames || --(sf = frames_of(frames))->refs)
		return;
	for (i = 0; i < sf->n; i++)
		name_put(s, sf->v[i]);
	free(sf);
}

/* The index of process (pid, start), added if new; -ENOMEM. */
static int proc_of(struct stacks *s, int pid, unsigned long long start, const char *comm)
{
	size_t k;
	struct sproc *p;

	if (itab__reserve(&s->ptab, 1, proc_at, s) ||
	    grow((void **)&s->procs, s->nprocs, &s->pcap, sizeof(*s->procs)))
		return -ENOMEM;
	for (k = itab__home(&s->ptab, itab_pid_hash(pid, start)); s->ptab.slot[k] >= 0;
	     k = itab__next(&s->ptab, k)) {
		p = &s->procs[s->ptab.slot[k]];
		if (p->pid == pid && p->start == start)
			return s->ptab.slot[k];
	}
	p = &s->procs[s->nprocs];
	*p = (struct sproc){ .pid = pid, .start = start };
	strncpy(p->comm, comm ? comm : "?", sizeof(p->comm) - 1);
	itab__put(&s->ptab, k, (int)s->nprocs);
	return (int)s->nprocs++;
}

/* The record of stack id in (pid, start), NULL when none. */
static struct srec *rec_find(const struct stacks *s, int pid, unsigned long long start, unsigned id,
			     size_t *pos)
{
	size_t k;

	if (!s->rtab.cap)
		return NULL;
	for (k = itab__home(&s->rtab, rec_hash(pid, start, id)); s->rtab.slot[k] >= 0;
	     k = itab__next(&s->rtab, k)) {
		struct srec *r = &s->recs[s->rtab.slot[k]];

		if (r->pid == pid && r->start == start && r->id == id)
			return r;
	}
	if (pos)
		*pos = k;
	return NULL;
}

/* An empty stack table. */
struct stacks *stacks__new(void)
{
	return calloc(1, sizeof(struct stacks));
}

/* Free what is left of the table: nothing holds it any more. */
static void destroy(struct stacks *s)
{
	size_t i;

	for (i = 0; i < s->nnames; i++)
		free(s->names[i]); /* none, unless a holder leaked */
	free(s->recs);
	free(s->procs);
	free(s->names);
	free(s->spare);
	itab__free(&s->rtab);
	itab__free(&s->ptab);
	itab__free(&s->stab);
	free(s->folds);
	itab__free(&s->ftab);
	free(s);
}

/* Free the table and what only it holds; what a snapshot still shows
 * goes with the last snapshot. NULL is fine. */
void stacks__free(struct stacks *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nrecs; i++)
		frames_put(s, s->recs[i].st.frames);
	for (i = 0; i < s->nfolds; i++) {
		frames_put(s, s->folds[i].st.frames);
		name_put(s, s->folds[i].comm);
	}
	s->nrecs = s->nfolds = 0;
	s->dead = true;
	if (!s->nsnaps)
		destroy(s);
}

/* How many distinct names (frames, comms) the table and its snapshots
 * hold. */
size_t stacks__names(const struct stacks *s)
{
	return s->stab.n;
}

/* Set the pages of stack id in (pid, start); 1 when it needs frames. */
int stacks__set(struct stacks *s, int pid, unsigned long long start, const char *comm,
		unsigned id, unsigned long long pages)
{
	struct srec *r;
	size_t pos;
	int proc;

	if (itab__reserve(&s->rtab, 1, rec_at, s))
		return -ENOMEM;
	r = rec_find(s, pid, start, id, &pos);
	if (r) {
		if (pages > r->st.pages)
			r->st.pages = pages;
		return r->st.frames == NULL;
	}
	proc = proc_of(s, pid, start, comm);
	if (proc < 0 || grow((void **)&s->recs, s->nrecs, &s->rcap, sizeof(*s->recs)))
		return -ENOMEM;
	s->recs[s->nrecs] = (struct srec){
		.pid = pid, .start = start, .id = id, .proc = proc, .st.pages = pages,
	};
	itab__put(&s->rtab, pos, (int)s->nrecs++);
	return 1;
}

/* Give a stack its frames (interned), innermost first. */
int stacks__set_frames(struct stacks *s, int pid, unsigned long long start, unsigned id,
		       const char *const *frames, int n)
{
	struct srec *r = rec_find(s, pid, start, id, NULL);
	const char **v;

	if (!r)
		return -ENOENT;
	if (n > STACKS_FRAMES_MAX)
		n = STACKS_FRAMES_MAX;
	if (!(v = frames_new(s, frames, n)))
		return -ENOMEM;
	frames_put(s, r->st.frames);
	r->st.frames = v;
	r->st.nframes = n;
	return 0;
}

/* What the snapshot says about the capture itself. */
void stacks__set_status(struct stacks *s, unsigned every, double us_per_copy,
			const struct stacks_capture *capture)
{
	s->every = every;
	s->us_per_copy = us_per_copy;
	s->capture = *capture;
}

/* What the snapshot says about the budget the sampling rate follows. */
void stacks__set_budget(struct stacks *s, double budget_pct, double cpu_pct,
			unsigned long long skipped)
{
	s->budget_pct = budget_pct;
	s->cpu_pct = cpu_pct;
	s->skipped = skipped;
}

/* Records by process, then pages (most first), then id: a stable order. */
static int rec_cmp(const void *a, const void *b, void *ctx)
{
	const struct srec *x = *(const struct srec *const *)a, *y = *(const struct srec *const *)b;

	(void)ctx;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->st.pages != y->st.pages)
		return x->st.pages > y->st.pages ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sites by pages (most first), then name. */
static int site_cmp(const void *a, const void *b)
{
	const struct stack_site *x = a, *y = b;

	if (x->pages != y->pages)
		return x->pages > y->pages ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The site of stacks without frames: not a name of the table. */
static const char unknown_site[] = "[unknown]";

/* The site a stack's copies belong to: its innermost frame. */
static const char *site_name(const struct stack_top *st)
{
	return st->nframes > 0 ? st->frames[0] : unknown_site;
}

/* Add the n records of one process (sorted) to the sites in out, then keep
 * the top ones, holding their names; sites are few per process, so a
 * linear merge does. */
static int take_sites(struct srec **r, size_t n, struct stacks_proc *out)
{
	struct stack_site *v = calloc(n ? n : 1, sizeof(*v));
	size_t i, k, nv = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *name = site_name(&r[i]->st);

		for (k = 0; k < nv && strcmp(v[k].name, name); k++)
			;
		if (k == nv)
			v[nv++] = (struct stack_site){ .name = name, .heaviest = i < STACKS_TOP ? (int)i : -1 };
		v[k].pages += r[i]->st.pages;
	}
	if (nv > 1)
		qsort(v, nv, sizeof(*v), site_cmp);
	out->nsites = nv < STACKS_TOP ? nv : STACKS_TOP;
	memcpy(out->sites, v, out->nsites * sizeof(*v));
	for (k = 0; k < out->nsites; k++)
		if (out->sites[k].name != unknown_site)
			name_hold(out->sites[k].name);
	free(v);
	return 0;
}

/* Fill one process's entry from its n sorted records, holding the frame
 * lists of its top stacks. */
static int take_proc(struct srec **r, size_t n, struct stacks_proc *out)
{
	size_t i;

	out->pid = r[0]->pid;
	out->start = r[0]->start;
	for (i = 0; i < n; i++) {
		out->pages += r[i]->st.pages;
		if (i >= STACKS_TOP)
			continue;
		out->top[i].pages = r[i]->st.pages;
		out->top[i].nframes = r[i]->st.nframes;
		out->top[i].frames = r[i]->st.frames;
		frames_hold(out->top[i].frames);
		out->ntop = i + 1;
	}
	return take_sites(r, n, out);
}

/* Snapshot the top stacks and sites of every process: the snapshot holds
 * what it shows, and the table. */
struct stacks_snap *stacks__snap(struct stacks *s)
{
	struct stacks_snap *sn = calloc(1, sizeof(*sn));
	struct srec **r = calloc(s->nrecs ? s->nrecs : 1, sizeof(*r));
	size_t i, j;

	if (!sn || !r ||
	    !(sn->procs = calloc(s->nprocs ? s->nprocs : 1, sizeof(*sn->procs)))) {
		free(r);
		if (sn)
			free(sn->procs);
		free(sn);
		return NULL;
	}
	sn->owner = s;
	s->nsnaps++;
	sn->every = s->every;
	sn->us_per_copy = s->us_per_copy;
	sn->capture = s->capture;
	sn->budget_pct = s->budget_pct;
	sn->cpu_pct = s->cpu_pct;
	sn->skipped = s->skipped;
	for (i = 0; i < s->nrecs; i++)
		r[i] = &s->recs[i];
	qsort_r(r, s->nrecs, sizeof(*r), rec_cmp, NULL);
	for (i = 0; i < s->nrecs; i = j) {
		for (j = i; j < s->nrecs && r[j]->proc == r[i]->proc; j++)
			;
		if (take_proc(r + i, j - i, &sn->procs[sn->nprocs++]))
			goto fail;
	}
	free(r);
	return sn;
fail:
	free(r);
	stacks_snap__free(sn);
	return NULL;
}

/* Free a snapshot, letting go of what it held (the table too, if it was
 * freed meanwhile and this was its last snapshot); NULL is fine. */
void stacks_snap__free(struct stacks_snap *sn)
{
	struct stacks *s;
	size_t i, k;

	if (!sn)
		return;
	s = sn->owner;
	for (i = 0; i < sn->nprocs; i++) {
		for (k = 0; k < sn->procs[i].ntop; k++)
			frames_put(s, sn->procs[i].top[k].frames);
		for (k = 0; k < sn->procs[i].nsites; k++)
			if (sn->procs[i].sites[k].name != unknown_site)
				name_put(s, sn->procs[i].sites[k].name);
	}
	free(sn->procs);
	free(sn);
	if (s && !--s->nsnaps && s->dead)
		destroy(s);
}

/* The stacks of process (pid, start) in a snapshot, NULL when none. */
const struct stacks_proc *stacks_snap__of(const struct stacks_snap *sn, int pid,
					  unsigned long long start)
{
	size_t i;

	for (i = 0; sn && i < sn->nprocs; i++)
		if (sn->procs[i].pid == pid && sn->procs[i].start == start)
			return &sn->procs[i];
	return NULL;
}

/* Add the copies of record r (its process gone) to the folded totals, the
 * room made beforehand; its frames move there or are let go. */
static void fold_rec(struct stacks *s, const char *comm, struct srec *r)
{
	struct stack_top *st = &r->st;
	size_t k;

	if (s->drop_gone) {
		frames_put(s, st->frames);
		st->frames = NULL;
		return;
	}
	for (k = itab__home(&s->ftab, fold_hash(comm, st)); s->ftab.slot[k] >= 0;
	     k = itab__next(&s->ftab, k)) {
		struct sfold *f = &s->folds[s->ftab.slot[k]];

		if (f->comm == comm && f->st.nframes == st->nframes &&
		    (!st->nframes || !memcmp(f->st.frames, st->frames, st->nframes * sizeof(char *)))) {
			f->st.pages += st->pages;
			frames_put(s, st->frames);
			st->frames = NULL;
			return;
		}
	}
	name_hold(comm);
	s->folds[s->nfolds] = (struct sfold){ .comm = comm, .st = *st };
	st->frames = NULL;
	itab__put(&s->ftab, k, (int)s->nfolds++);
}

/* Whether stacks__fold keeps totals of the processes let go (by default)
 * or drops their stacks (nobody will ask for the whole run). */
void stacks__keep_gone(struct stacks *s, bool keep)
{
	s->drop_gone = !keep;
}

/* Fold the stacks of every process keep() lets go into the totals by
 * (comm, frames), and forget those processes: what an exited process
 * counted stays in stacks__each at the cost of one entry per distinct
 * stack, not one per process. Returns the processes folded, or -ENOMEM
 * (nothing changed). */
int stacks__fold(struct stacks *s, bool (*keep)(int pid, unsigned long long start, void *ctx),
		 void *ctx)
{
	const char **comm = NULL;
	int *map = NULL, *rslot = NULL, *pslot = NULL;
	size_t i, n = 0, nrec = 0, np = 0, nr = 0, was = s->nprocs;
	int e = -ENOMEM;

	if (!was)
		return 0;
	if (!(comm = calloc(s->nprocs, sizeof(*comm))) || !(map = malloc(s->nprocs * sizeof(*map))))
		goto out;
	for (i = 0; i < s->nprocs; i++) {
		map[i] = -1;
		if (keep(s->procs[i].pid, s->procs[i].start, ctx))
			continue;
		if (!(comm[i] = name_get(s, s->procs[i].comm)))
			goto out;
		n++;
	}
	e = 0;
	if (!n)
		goto out;
	for (i = 0; i < s->nrecs; i++)
		nrec += comm[s->recs[i].proc] != NULL;
	e = -ENOMEM;
	while (s->nfolds + nrec > s->fcap)
		if (grow((void **)&s->folds, s->fcap, &s->fcap, sizeof(*s->folds)))
			goto out;
	if (itab__reserve(&s->ftab, nrec, fold_at, s) ||
	    !(rslot = malloc((s->rtab.cap ? s->rtab.cap : 1) * sizeof(int))) ||
	    !(pslot = malloc((s->ptab.cap ? s->ptab.cap : 1) * sizeof(int))))
		goto out;
	for (i = 0; i < s->nprocs; i++)
		if (!comm[i]) {
			map[i] = (int)np;
			s->procs[np++] = s->procs[i];
		}
	for (i = 0; i < s->nrecs; i++) {
		struct srec *r = &s->recs[i];

		if (comm[r->proc]) {
			fold_rec(s, comm[r->proc], r);
			continue;
		}
		r->proc = map[r->proc];
		s->recs[nr++] = *r;
	}
	s->nprocs = np;
	s->nrecs = nr;
	itab__rebuild(&s->rtab, rslot, nr, rec_at, s);
	itab__rebuild(&s->ptab, pslot, np, proc_at, s);
	rslot = pslot = NULL;
	e = (int)n;
out:
	for (i = 0; comm && i < was; i++)
		if (comm[i])
			name_put(s, comm[i]);
	free(rslot);
	free(pslot);
	free(comm);
	free(map);
	return e;
}

/* Call fn for every stack: the folded totals of processes gone, then the
 * stacks of the others in the order first counted. */
void stacks__each(const struct stacks *s, stacks_fn fn, void *ctx)
{
	size_t i;

	for (i = 0; i < s->nfolds; i++)
		fn(s->folds[i].comm, &s->folds[i].st, ctx);
	for (i = 0; i < s->nrecs; i++)
		fn(s->procs[s->recs[i].proc].comm, &s->recs[i].st, ctx);
}
