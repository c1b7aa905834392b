/* The table of copies by runtime object. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objects.h"
#include "runtime.h"

struct objects_ent {
	int pid;
	unsigned long long start;
	int runtime, write;
	unsigned long long type, pages;
	char name[OBJECTS_NAME_MAX]; /* "" until named */
	char comm[OBJECTS_COMM_MAX]; /* its process's name, "" when not given */
};

/* The pages of processes pruned, by (comm, runtime, type name, write). */
struct objects_fold {
	char comm[OBJECTS_COMM_MAX];
	char type[OBJECTS_NAME_MAX];
	int runtime, write;
	unsigned long long pages;
};

struct objects {
	struct objects_ent *v;
	size_t n, cap;
	bool keep_gone;            /* prune folds rows into folds instead of dropping them */
	struct objects_fold *folds;
	size_t nfolds, fcap;
	unsigned every;
	double us;
	unsigned long long failed;
};

const char *obj_write_name(int w)
{
	static const char *const names[OBJ_WRITES] = {
		[OBJ_W_OUTSIDE] = "outside", [OBJ_W_REFCNT] = "refcount",
		[OBJ_W_GC] = "gc_header", [OBJ_W_HEADER] = "header",
		[OBJ_W_PAYLOAD] = "payload", [OBJ_W_FLAGS] = "flags",
		[OBJ_W_SLOT] = "slot", [OBJ_W_UNKNOWN] = "unknown",
	};

	return w >= 0 && w < OBJ_WRITES ? names[w] : "unknown";
}

int obj_write_of_name(const char *s)
{
	int w;

	for (w = 0; w < OBJ_WRITES; w++)
		if (!strcmp(s, obj_write_name(w)))
			return w;
	return OBJ_W_UNKNOWN;
}

/* Ruby 3.1's builtin types (ruby_value_type), by number. */
static const char *ruby_type(unsigned t)
{
	static const char *const names[32] = {
		[0x00] = "T_NONE (free slot)", [0x01] = "T_OBJECT", [0x02] = "T_CLASS",
		[0x03] = "T_MODULE", [0x04] = "T_FLOAT", [0x05] = "T_STRING", [0x06] = "T_REGEXP",
		[0x07] = "T_ARRAY", [0x08] = "T_HASH", [0x09] = "T_STRUCT", [0x0a] = "T_BIGNUM",
		[0x0b] = "T_FILE", [0x0c] = "T_DATA", [0x0d] = "T_MATCH", [0x0e] = "T_COMPLEX",
		[0x0f] = "T_RATIONAL", [0x11] = "T_NIL", [0x12] = "T_TRUE", [0x13] = "T_FALSE",
		[0x14] = "T_SYMBOL", [0x15] = "T_FIXNUM", [0x16] = "T_UNDEF", [0x1a] = "T_IMEMO",
		[0x1b] = "T_NODE", [0x1c] = "T_ICLASS", [0x1d] = "T_ZOMBIE", [0x1e] = "T_MOVED",
	};

	return t < 32 && names[t] ? names[t] : "T_? (unknown)";
}

bool obj_type_static_name(int runtime, unsigned long long type, char *buf, size_t len)
{
	const char *s = NULL;

	if (runtime == OBJ_RT_UNKNOWN)
		s = "unknown runtime layout";
	else if (runtime == OBJ_RT_RUBY31)
		s = type == OBJ_RBT_NONE ? "(outside heap pages)" : ruby_type((unsigned)type);
	else if (runtime == OBJ_RT_PY311 && type == OBJ_PYT_NONE)
		s = "(outside pymalloc)";
	else if (runtime == OBJ_RT_PY311 && type == OBJ_PYT_BLOCK)
		s = "(block without object)";
	else if (runtime == OBJ_RT_PY311 && type == OBJ_PYT_POOL)
		s = "(pool header)";
	if (!s)
		return false;
	snprintf(buf, len, "%s", s);
	return true;
}

struct objects *objects__new(void)
{
	return calloc(1, sizeof(struct objects));
}

void objects__free(struct objects *o)
{
	if (!o)
		return;
	free(o->v);
	free(o->folds);
	free(o);
}

/* The entry of (pid, start, runtime, type, write), or NULL. */
static struct objects_ent *find(struct objects *o, int pid, unsigned long long start, int runtime,
				unsigned long long type, int write)
{
	size_t i;

	for (i = o->n; i-- > 0;) {
		struct objects_ent *e = &o->v[i];

		if (e->pid == pid && e->start == start && e->type == type && e->write == write &&
		    e->runtime == runtime)
			return e;
	}
	return NULL;
}

int objects__set(struct objects *o, int pid, unsigned long long start, const char *comm,
		 int runtime, unsigned long long type, int write, unsigned long long pages)
{
	struct objects_ent *e = find(o, pid, start, runtime, type, write);
	size_t i;

	if (e && comm && !e->comm[0])
		snprintf(e->comm, sizeof(e->comm), "%s", comm);
	if (e) {
		if (pages > e->pages)
			e->pages = pages;
		return e->name[0] ? 0 : 1;
	}
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		void *v = realloc(o->v, cap * sizeof(*o->v));

		if (!v)
			return -ENOMEM;
		o->v = v;
		o->cap = cap;
	}
	e = &o->v[o->n++];
	*e = (struct objects_ent){ .pid = pid, .start = start, .runtime = runtime, .type = type,
				   .write = write, .pages = pages };
	if (comm)
		snprintf(e->comm, sizeof(e->comm), "%s", comm);
	if (obj_type_static_name(runtime, type, e->name, sizeof(e->name)))
		return 0;
	/* Another write kind of the same type may be named already. */
	for (i = 0; i + 1 < o->n; i++)
		if (o->v[i].pid == pid && o->v[i].start == start && o->v[i].type == type &&
		    o->v[i].name[0]) {
			memcpy(e->name, o->v[i].name, sizeof(e->name));
			return 0;
		}
	return 1;
}

void objects__name(struct objects *o, int pid, unsigned long long start, unsigned long long type,
		   const char *name)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->v[i].pid == pid && o->v[i].start == start && o->v[i].type == type &&
		    !o->v[i].name[0])
			snprintf(o->v[i].name, sizeof(o->v[i].name), "%s", name);
}

const char *objects__name_of(const struct objects *o, int pid, unsigned long long start,
			     unsigned long long type)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->v[i].pid == pid && o->v[i].start == start && o->v[i].type == type &&
		    o->v[i].name[0])
			return o->v[i].name;
	return NULL;
}

/* The type name a row is shown under. */
static const char *ent_type(const struct objects_ent *e)
{
	return e->name[0] ? e->name : "(unnamed)";
}

/* Add row e (its process pruned) to the totals; -ENOMEM when it cannot. */
static int fold(struct objects *o, const struct objects_ent *e)
{
	struct objects_fold *f;
	size_t i;

	for (i = 0; i < o->nfolds; i++) {
		f = &o->folds[i];
		if (f->runtime == e->runtime && f->write == e->write && !strcmp(f->comm, e->comm) &&
		    !strcmp(f->type, ent_type(e))) {
			f->pages += e->pages;
			return 0;
		}
	}
	if (o->nfolds == o->fcap) {
		size_t cap = o->fcap ? o->fcap * 2 : 64;
		void *v = realloc(o->folds, cap * sizeof(*o->folds));

		if (!v)
			return -ENOMEM;
		o->folds = v;
		o->fcap = cap;
	}
	f = &o->folds[o->nfolds++];
	*f = (struct objects_fold){ .runtime = e->runtime, .write = e->write, .pages = e->pages };
	snprintf(f->comm, sizeof(f->comm), "%s", e->comm);
	snprintf(f->type, sizeof(f->type), "%s", ent_type(e));
	return 0;
}

void objects__prune(struct objects *o, bool (*keep)(int pid, unsigned long long start, void *ctx),
		    void *ctx)
{
	size_t i, k = 0;

	for (i = 0; i < o->n; i++)
		if (keep(o->v[i].pid, o->v[i].start, ctx) ||
		    (o->keep_gone && o->v[i].pages && fold(o, &o->v[i])))
			o->v[k++] = o->v[i]; /* kept, or not folded for want of memory: next time */
	o->n = k;
}

void objects__keep_gone(struct objects *o, bool keep)
{
	o->keep_gone = keep;
}

void objects__each(const struct objects *o, objects_fn fn, void *ctx)
{
	size_t i;

	for (i = 0; i < o->nfolds; i++) {
		const struct objects_fold *f = &o->folds[i];

		fn(f->comm, runtime_name(f->runtime), f->type, f->write, f->pages, ctx);
	}
	for (i = 0; i < o->n; i++) {
		const struct objects_ent *e = &o->v[i];

		if (e->pages)
			fn(e->comm, runtime_name(e->runtime), ent_type(e), e->write, e->pages, ctx);
	}
}

void objects__set_status(struct objects *o, unsigned every, double us, unsigned long long failed)
{
	o->every = every;
	o->us = us;
	o->failed = failed;
}

/* Put row e into p's top rows, heaviest first. */
static void top_add(struct objects_proc *p, const struct objects_ent *e)
{
	size_t i = p->ntop < OBJECTS_TOP ? p->ntop++ : OBJECTS_TOP;

	if (i == OBJECTS_TOP) {
		if (e->pages <= p->top[OBJECTS_TOP - 1].pages)
			return;
		i = OBJECTS_TOP - 1;
	}
	for (; i > 0 && p->top[i - 1].pages < e->pages; i--)
		p->top[i] = p->top[i - 1];
	p->top[i] = (struct objects_row){ .write = e->write, .pages = e->pages };
	snprintf(p->top[i].type, sizeof(p->top[i].type), "%s", ent_type(e));
}

/* (pid, start) order of entries, through pointers. */
static int ent_cmp(const void *x, const void *y)
{
	const struct objects_ent *a = *(const struct objects_ent *const *)x;
	const struct objects_ent *b = *(const struct objects_ent *const *)y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

/* The entries are sorted by process first: a process's rows are then
 * together, and the processes come out in the order objects_snap__of
 * searches (thousands of processes: no scan per entry). */
struct objects_snap *objects__snap(const struct objects *o)
{
	struct objects_snap *sn = calloc(1, sizeof(*sn));
	const struct objects_ent **by = NULL;
	struct objects_proc *p = NULL;
	size_t i;

	if (!sn)
		return NULL;
	sn->every = o->every;
	sn->us_per_sample = o->us;
	sn->failed = o->failed;
	if (o->n && (!(sn->procs = calloc(o->n, sizeof(*sn->procs))) || !(by = malloc(o->n * sizeof(*by))))) {
		free(sn->procs);
		free(sn);
		return NULL;
	}
	for (i = 0; i < o->n; i++)
		by[i] = &o->v[i];
	if (o->n)
		qsort(by, o->n, sizeof(*by), ent_cmp);
	for (i = 0; i < o->n; i++) {
		const struct objects_ent *e = by[i];

		if (!p || p->pid != e->pid || p->start != e->start) {
			p = &sn->procs[sn->nprocs++];
			p->pid = e->pid;
			p->start = e->start;
			p->runtime = runtime_name(e->runtime);
		}
		p->pages += e->pages;
		p->by_write[e->write >= 0 && e->write < OBJ_WRITES ? e->write : OBJ_W_UNKNOWN] += e->pages;
		top_add(p, e);
	}
	free(by);
	return sn;
}

void objects_snap__free(struct objects_snap *sn)
{
	if (!sn)
		return;
	free(sn->procs);
	free(sn);
}

/* (pid, start) order of processes. */
static int proc_cmp(const void *x, const void *y)
{
	const struct objects_proc *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

const struct objects_proc *objects_snap__of(const struct objects_snap *sn, int pid,
					    unsigned long long start)
{
	const struct objects_proc key = { .pid = pid, .start = start };

	if (!sn || !sn->nprocs)
		return NULL;
	return bsearch(&key, sn->procs, sn->nprocs, sizeof(*sn->procs), proc_cmp);
}

struct objects_snap *objects_snap__new(unsigned every, double us, unsigned long long failed)
{
	struct objects_snap *sn = calloc(1, sizeof(*sn));

	if (sn)
		*sn = (struct objects_snap){ .every = every, .us_per_sample = us, .failed = failed };
	return sn;
}

int objects_snap__push(struct objects_snap *sn, const struct objects_proc *p)
{
	/* grown at each power of two: no capacity to keep */
	if (!(sn->nprocs & (sn->nprocs - 1))) {
		void *v = realloc(sn->procs, (sn->nprocs ? 2 * sn->nprocs : 1) * sizeof(*sn->procs));

		if (!v)
			return -ENOMEM;
		sn->procs = v;
	}
	sn->procs[sn->nprocs++] = *p;
	return 0;
}

void objects_snap__sort(struct objects_snap *sn)
{
	if (sn->nprocs)
		qsort(sn->procs, sn->nprocs, sizeof(*sn->procs), proc_cmp);
}
