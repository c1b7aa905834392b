/* The table of copies by runtime object. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "itab.h"
#include "objects.h"
#include "runtime.h"

struct objects_ent {
	int pid;
	unsigned long long start;
	int runtime, write;
	unsigned long long type, klass, serial, pages;
	bool has_class;              /* a Ruby type whose class is read */
	char name[OBJECTS_NAME_MAX]; /* "" until named */
	char cls[OBJECTS_NAME_MAX];  /* "" until named (has_class) */
	char comm[OBJECTS_COMM_MAX]; /* its process's name, "" when not given */
	/* The rows of one (pid, start, type), and of one (pid, start, klass,
	 * serial) among has_class rows, are linked in array order; the first
	 * of each list also knows its last. */
	int tnext, cnext; /* the next row of its type, of its class; -1 none */
	int tlast, clast; /* in the first row of a list: the last of it */
	uint64_t ph;      /* itab_pid_hash(pid, start), kept for the hashes */
};

/* The pages of processes pruned, by (comm, runtime, type name, write). */
struct objects_fold {
	char comm[OBJECTS_COMM_MAX];
	char type[2 * OBJECTS_NAME_MAX];
	int runtime, write;
	unsigned long long pages;
};

struct objects {
	struct objects_ent *v;
	size_t n, cap;
	struct itab rtab;          /* every row, by its whole key */
	struct itab ttab;          /* the first row of each type list */
	struct itab ctab;          /* the first row of each class list */
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

/* T_OBJECT, T_STRUCT, T_DATA: the kernel side reads their class word. */
bool obj_has_class(int runtime, unsigned long long type)
{
	return runtime == OBJ_RT_RUBY31 && (type == 0x01 || type == 0x09 || type == 0x0c);
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
	itab__free(&o->rtab);
	itab__free(&o->ttab);
	itab__free(&o->ctab);
	free(o->folds);
	free(o);
}

/* The hash of a type list's key: its process's itab_pid_hash, the type. */
static uint64_t type_hash(uint64_t ph, unsigned long long type)
{
	return itab_mix(ph ^ type);
}

/* The hash of a class list's key: its process's, the class word, its
 * serial. */
static uint64_t class_hash(uint64_t ph, unsigned long long klass, unsigned long long serial)
{
	return itab_mix(ph ^ klass ^ serial * 0x9e3779b97f4a7c15ULL);
}

/* The hash of a row's whole key. */
static uint64_t key_hash(uint64_t ph, int runtime, unsigned long long type,
			 unsigned long long klass, unsigned long long serial, int write)
{
	uint64_t w = (uint64_t)(unsigned)runtime << 32 | (unsigned)write;

	return itab_mix(type_hash(ph, type) ^ klass ^ serial * 0x9e3779b97f4a7c15ULL ^
			w * 0xc2b2ae3d27d4eb4fULL);
}

/* The itab hashes of row i, one per table (ctx: the table of rows). */
static uint64_t row_at(const void *ctx, int i)
{
	const struct objects_ent *e = &((const struct objects *)ctx)->v[i];

	return key_hash(e->ph, e->runtime, e->type, e->klass, e->serial, e->write);
}

static uint64_t type_at(const void *ctx, int i)
{
	const struct objects_ent *e = &((const struct objects *)ctx)->v[i];

	return type_hash(e->ph, e->type);
}

static uint64_t class_at(const void *ctx, int i)
{
	const struct objects_ent *e = &((const struct objects *)ctx)->v[i];

	return class_hash(e->ph, e->klass, e->serial);
}

/* The row of k, or -1; *slot: where it is, or the empty slot where it
 * would go (when the table has room). */
static int find(const struct objects *o, const struct objects_key *k, size_t *slot)
{
	const struct itab *t = &o->rtab;
	size_t s;

	if (!t->cap)
		return -1;
	for (s = itab__home(t, key_hash(itab_pid_hash(k->pid, k->start), k->runtime, k->type, k->klass,
					k->klass_serial, k->write));
	     t->slot[s] >= 0; s = itab__next(t, s)) {
		const struct objects_ent *e = &o->v[t->slot[s]];

		if (e->pid == k->pid && e->start == k->start && e->type == k->type &&
		    e->write == k->write && e->runtime == k->runtime && e->klass == k->klass &&
		    e->serial == k->klass_serial)
			break;
	}
	*slot = s;
	return t->slot[s];
}

/* The first row of (pid, start, type), or -1; *slot as find's; ph: the
 * process's itab_pid_hash. */
static int type_first(const struct objects *o, uint64_t ph, int pid, unsigned long long start,
		      unsigned long long type, size_t *slot)
{
	const struct itab *t = &o->ttab;
	size_t s;

	if (!t->cap)
		return -1;
	for (s = itab__home(t, type_hash(ph, type)); t->slot[s] >= 0; s = itab__next(t, s)) {
		const struct objects_ent *e = &o->v[t->slot[s]];

		if (e->pid == pid && e->start == start && e->type == type)
			break;
	}
	*slot = s;
	return t->slot[s];
}

/* The first has_class row of (pid, start, klass, serial), or -1; *slot
 * and ph as type_first's. */
static int class_first(const struct objects *o, uint64_t ph, int pid, unsigned long long start,
		       unsigned long long klass, unsigned long long serial, size_t *slot)
{
	const struct itab *t = &o->ctab;
	size_t s;

	if (!t->cap)
		return -1;
	for (s = itab__home(t, class_hash(ph, klass, serial)); t->slot[s] >= 0;
	     s = itab__next(t, s)) {
		const struct objects_ent *e = &o->v[t->slot[s]];

		if (e->pid == pid && e->start == start && e->klass == klass && e->serial == serial)
			break;
	}
	*slot = s;
	return t->slot[s];
}

/* Index row i, the last of the array, in the three tables (each with room
 * for one more): rslot is the empty slot find() ended on. */
static void index_row(struct objects *o, int i, size_t rslot)
{
	struct objects_ent *e = &o->v[i];
	size_t s;
	int f;

	itab__put(&o->rtab, rslot, i);
	e->tnext = e->cnext = -1;
	if ((f = type_first(o, e->ph, e->pid, e->start, e->type, &s)) < 0) {
		itab__put(&o->ttab, s, i);
		e->tlast = i;
	} else {
		o->v[o->v[f].tlast].tnext = i;
		o->v[f].tlast = i;
	}
	if (!e->has_class)
		return;
	if ((f = class_first(o, e->ph, e->pid, e->start, e->klass, e->serial, &s)) < 0) {
		itab__put(&o->ctab, s, i);
		e->clast = i;
	} else {
		o->v[o->v[f].clast].cnext = i;
		o->v[f].clast = i;
	}
}

/* Index every row anew, in array order (after the array was compacted):
 * the tables keep their room, enough for fewer rows. */
static void reindex(struct objects *o)
{
	size_t i;

	itab__clear(&o->rtab);
	itab__clear(&o->ttab);
	itab__clear(&o->ctab);
	for (i = 0; i < o->n; i++) {
		size_t s;

		/* keys are unique: the first empty slot of the probe */
		for (s = itab__home(&o->rtab, row_at(o, (int)i)); o->rtab.slot[s] >= 0;
		     s = itab__next(&o->rtab, s))
			;
		index_row(o, (int)i, s);
	}
}

/* What is still to be named of e (OBJECTS_NEED_*). */
static int need(const struct objects_ent *e)
{
	return (e->name[0] ? 0 : OBJECTS_NEED_TYPE) |
	       (e->has_class && !e->cls[0] ? OBJECTS_NEED_CLASS : 0);
}

/* Name row i's type and class as an earlier row of its lists names them
 * (the first named one, in array order). */
static void name_from_peers(struct objects *o, int i)
{
	struct objects_ent *e = &o->v[i];
	size_t s;
	int j;

	if (!e->name[0])
		for (j = type_first(o, e->ph, e->pid, e->start, e->type, &s); j >= 0 && j != i;
		     j = o->v[j].tnext)
			if (o->v[j].name[0]) {
				memcpy(e->name, o->v[j].name, sizeof(e->name));
				break;
			}
	if (e->has_class && !e->cls[0])
		for (j = class_first(o, e->ph, e->pid, e->start, e->klass, e->serial, &s); j >= 0 && j != i;
		     j = o->v[j].cnext)
			if (o->v[j].cls[0]) {
				memcpy(e->cls, o->v[j].cls, sizeof(e->cls));
				break;
			}
}

/* Room for one more row, in the array and in each table: 0 or -ENOMEM. */
static int reserve(struct objects *o)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		void *v = realloc(o->v, cap * sizeof(*o->v));

		if (!v)
			return -ENOMEM;
		o->v = v;
		o->cap = cap;
	}
	if (itab__reserve(&o->rtab, 1, row_at, o) || itab__reserve(&o->ttab, 1, type_at, o) ||
	    itab__reserve(&o->ctab, 1, class_at, o))
		return -ENOMEM;
	return 0;
}

int objects__set(struct objects *o, const struct objects_key *k, unsigned long long pages)
{
	struct objects_ent *e;
	size_t s;
	int i = find(o, k, &s);

	if (i >= 0) {
		e = &o->v[i];
		if (k->comm && !e->comm[0])
			snprintf(e->comm, sizeof(e->comm), "%s", k->comm);
		if (pages > e->pages)
			e->pages = pages;
		return need(e);
	}
	if (reserve(o))
		return -ENOMEM;
	find(o, k, &s); /* the slots moved if a table grew */
	i = (int)o->n++;
	e = &o->v[i];
	*e = (struct objects_ent){ .pid = k->pid, .start = k->start, .runtime = k->runtime,
				   .type = k->type, .klass = k->klass, .serial = k->klass_serial,
				   .write = k->write, .pages = pages,
				   .has_class = obj_has_class(k->runtime, k->type),
				   .ph = itab_pid_hash(k->pid, k->start) };
	if (k->comm)
		snprintf(e->comm, sizeof(e->comm), "%s", k->comm);
	obj_type_static_name(k->runtime, k->type, e->name, sizeof(e->name));
	if (e->has_class && !e->klass)
		snprintf(e->cls, sizeof(e->cls), "%s", OBJ_CLASS_NONE);
	else if (e->has_class && e->klass == OBJ_RB_SINGLETON)
		snprintf(e->cls, sizeof(e->cls), "%s", OBJ_CLASS_SINGLETON);
	index_row(o, i, s);
	/* Another write kind of the same type or class may be named already. */
	name_from_peers(o, i);
	return need(e);
}

void objects__name(struct objects *o, int pid, unsigned long long start, unsigned long long type,
		   const char *name)
{
	size_t s;
	int i;

	for (i = type_first(o, itab_pid_hash(pid, start), pid, start, type, &s); i >= 0;
	     i = o->v[i].tnext)
		if (!o->v[i].name[0])
			snprintf(o->v[i].name, sizeof(o->v[i].name), "%s", name);
}

void objects__name_class(struct objects *o, int pid, unsigned long long start,
			 unsigned long long klass, unsigned long long serial, const char *name)
{
	size_t s;
	int i;

	for (i = class_first(o, itab_pid_hash(pid, start), pid, start, klass, serial, &s); i >= 0;
	     i = o->v[i].cnext)
		if (!o->v[i].cls[0])
			snprintf(o->v[i].cls, sizeof(o->v[i].cls), "%s", name);
}

const char *objects__class_of(const struct objects *o, int pid, unsigned long long start,
			      unsigned long long klass, unsigned long long serial)
{
	size_t s;
	int i;

	for (i = class_first(o, itab_pid_hash(pid, start), pid, start, klass, serial, &s); i >= 0;
	     i = o->v[i].cnext)
		if (o->v[i].cls[0])
			return o->v[i].cls;
	return NULL;
}

const char *objects__name_of(const struct objects *o, int pid, unsigned long long start,
			     unsigned long long type)
{
	size_t s;
	int i;

	for (i = type_first(o, itab_pid_hash(pid, start), pid, start, type, &s); i >= 0;
	     i = o->v[i].tnext)
		if (o->v[i].name[0])
			return o->v[i].name;
	return NULL;
}

/* The type a row is shown under: its type name ("(unnamed)" when none was
 * read), and a Ruby object's class after a space; in buf. */
static const char *ent_type(const struct objects_ent *e, char *buf, size_t len)
{
	const char *name = e->name[0] ? e->name : "(unnamed)";

	if (e->has_class)
		snprintf(buf, len, "%s %s", name, e->cls[0] ? e->cls : OBJ_CLASS_UNKNOWN);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/* Add row e (its process pruned) to the totals; -ENOMEM when it cannot. */
static int fold(struct objects *o, const struct objects_ent *e)
{
	char type[sizeof(((struct objects_fold *)0)->type)];
	struct objects_fold *f;
	size_t i;

	ent_type(e, type, sizeof(type));
	for (i = 0; i < o->nfolds; i++) {
		f = &o->folds[i];
		if (f->runtime == e->runtime && f->write == e->write && !strcmp(f->comm, e->comm) &&
		    !strcmp(f->type, type)) {
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
	snprintf(f->type, sizeof(f->type), "%s", type);
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
	if (k == o->n)
		return;
	o->n = k;
	reindex(o);
}

void objects__keep_gone(struct objects *o, bool keep)
{
	o->keep_gone = keep;
}

void objects__each(const struct objects *o, objects_fn fn, void *ctx)
{
	char type[sizeof(((struct objects_fold *)0)->type)];
	size_t i;

	for (i = 0; i < o->nfolds; i++) {
		const struct objects_fold *f = &o->folds[i];

		fn(f->comm, runtime_name(f->runtime), f->type, f->write, f->pages, ctx);
	}
	for (i = 0; i < o->n; i++) {
		const struct objects_ent *e = &o->v[i];

		if (e->pages)
			fn(e->comm, runtime_name(e->runtime), ent_type(e, type, sizeof(type)), e->write,
			   e->pages, ctx);
	}
}

void objects__set_status(struct objects *o, unsigned every, double us, unsigned long long failed)
{
	o->every = every;
	o->us = us;
	o->failed = failed;
}

/* Put row r into p's top rows, heaviest first. */
static void top_add(struct objects_proc *p, const struct objects_row *r)
{
	size_t i = p->ntop < OBJECTS_TOP ? p->ntop++ : OBJECTS_TOP;

	if (i == OBJECTS_TOP) {
		if (r->pages <= p->top[OBJECTS_TOP - 1].pages)
			return;
		i = OBJECTS_TOP - 1;
	}
	for (; i > 0 && p->top[i - 1].pages < r->pages; i--)
		p->top[i] = p->top[i - 1];
	p->top[i] = *r;
}

/* Add e to its process's rows [0, *n) as they are shown: classes of one
 * name (anonymous ones, unknown ones, singletons) make one row. */
static void merge(struct objects_row *rows, size_t *n, const struct objects_ent *e)
{
	struct objects_row r = { .write = e->write, .pages = e->pages };
	size_t i;

	snprintf(r.type, sizeof(r.type), "%s", e->name[0] ? e->name : "(unnamed)");
	if (e->has_class)
		snprintf(r.cls, sizeof(r.cls), "%s", e->cls[0] ? e->cls : OBJ_CLASS_UNKNOWN);
	for (i = 0; i < *n; i++)
		if (rows[i].write == r.write && !strcmp(rows[i].type, r.type) &&
		    !strcmp(rows[i].cls, r.cls)) {
			rows[i].pages += r.pages;
			return;
		}
	rows[(*n)++] = r;
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
	struct objects_row *rows = NULL;
	struct objects_proc *p = NULL;
	size_t i, nrows = 0, k, nprocs = 0;

	if (!sn)
		return NULL;
	sn->every = o->every;
	sn->us_per_sample = o->us;
	sn->failed = o->failed;
	if (o->n && (!(by = malloc(o->n * sizeof(*by))) || !(rows = malloc(o->n * sizeof(*rows)))))
		goto fail;
	for (i = 0; i < o->n; i++)
		by[i] = &o->v[i];
	if (o->n)
		qsort(by, o->n, sizeof(*by), ent_cmp);
	/* an entry a process (each is large), not one a row */
	for (i = 0; i < o->n; i++)
		nprocs += !i || by[i]->pid != by[i - 1]->pid || by[i]->start != by[i - 1]->start;
	if (nprocs && !(sn->procs = calloc(nprocs, sizeof(*sn->procs))))
		goto fail;
	for (i = 0; i < o->n; i++) {
		const struct objects_ent *e = by[i];

		if (!p || p->pid != e->pid || p->start != e->start) {
			for (k = 0; k < nrows; k++)
				top_add(p, &rows[k]);
			nrows = 0;
			p = &sn->procs[sn->nprocs++];
			p->pid = e->pid;
			p->start = e->start;
			p->runtime = runtime_name(e->runtime);
		}
		p->pages += e->pages;
		p->by_write[e->write >= 0 && e->write < OBJ_WRITES ? e->write : OBJ_W_UNKNOWN] += e->pages;
		merge(rows, &nrows, e);
	}
	for (k = 0; k < nrows; k++)
		top_add(p, &rows[k]);
	free(rows);
	free(by);
	return sn;
fail:
	free(rows);
	free(by);
	free(sn);
	return NULL;
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
