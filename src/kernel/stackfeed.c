/* The stack feed: kernel counters -> symbolizer -> stack table. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "folded.h"
#include "stackfeed.h"

#define FRAME_NAME_MAX 256

/* Set up a feed; nothing is allocated until stacks are turned on. */
void stackfeed__init(struct stackfeed *f, struct tracer *t, struct model *m, unsigned every,
		     double budget_pct, bool folded)
{
	*f = (struct stackfeed){ .tracer = t, .model = m, .every = every ? every : 1,
				 .folded = folded };
	sample_budget__init(&f->budget, budget_pct, f->every);
	tracer__set_sample_budget(t, budget_pct);
}

/* Seconds on the monotonic clock. */
static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Turn the capture on (allocating the table the first time) or off. */
int stackfeed__set(struct stackfeed *f, bool on)
{
	if (on && !f->stacks) {
		f->stacks = stacks__new();
		f->sym = symbolizer__new();
		if (!f->stacks || !f->sym)
			return -ENOMEM;
		stacks__keep_gone(f->stacks, f->folded);
	}
	sample_budget__restart(&f->budget);
	tracer__set_stacks(f->tracer, on ? f->budget.every : 0);
	return 0;
}

/* Whose mappings name p's addresses: p's own while it lives, else those of
 * its nearest live ancestor (a forked child maps what its parent maps,
 * unless it exec'd); 0 when nobody's can be read. */
static int mapper_of(struct stackfeed *f, const struct proc *p)
{
	int depth;

	for (depth = 0; p && depth < 8; depth++) {
		if (symbolizer__has(f->sym, p->pid))
			return p->pid;
		p = p->ppid > 0 ? model__find_live(f->model, p->ppid) : NULL;
	}
	return 0;
}

/* Name the frames of a stack first seen now, while its process (or, if it
 * is already gone, the parent it was forked from) lives. */
static void symbolize(struct stackfeed *f, const struct proc *p, unsigned id)
{
	int pid = mapper_of(f, p);
	unsigned long long ips[STACKS_FRAMES_MAX];
	char names[STACKS_FRAMES_MAX][FRAME_NAME_MAX];
	const char *v[STACKS_FRAMES_MAX];
	int i, n = tracer__stack_ips(f->tracer, id, ips, STACKS_FRAMES_MAX);

	if (!n && !p->exited)
		return; /* the id was given back and not taken again yet: next tick */
	for (i = 0; i < n; i++) {
		symbolizer__frame(f->sym, pid, ips[i], i > 0, names[i], sizeof(names[i]));
		v[i] = names[i];
	}
	stacks__set_frames(f->stacks, p->pid, p->start_time, id, v, n);
}

/* Mark stack id as used by a kernel counter: seen (to give it back once
 * unused) and, unless the counter is read for the last time, referred to. */
static void mark(struct stackfeed *f, unsigned id, bool ref)
{
	unsigned long bit = 1UL << (id % (8 * sizeof(long)));

	if (!f->seen || id >= f->nids)
		return;
	f->seen[id / (8 * sizeof(long))] |= bit;
	if (ref)
		f->ref[id / (8 * sizeof(long))] |= bit;
}

/* Remember a counter read for the last time (its process exited); false
 * when it cannot be (it is read again next tick). */
static bool done(struct stackfeed *f, int pid, unsigned id)
{
	if (f->ndone == f->done_cap) {
		size_t cap = f->done_cap ? f->done_cap * 2 : 64;
		void *v = realloc(f->done, cap * sizeof(*f->done));

		if (!v)
			return false;
		f->done = v;
		f->done_cap = cap;
	}
	f->done[f->ndone++] = (struct stackfeed_done){ pid, id };
	return true;
}

/* Counters by pid, then id. */
static int stray_cmp(const void *a, const void *b)
{
	const struct stackfeed_done *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Whether the counter (pid, id) of a process gone and not in the model is
 * given up on: when the last tick found it so too. The first time it is
 * kept: a process forked and gone since the model last took the kernel's
 * records comes into it with them, and its copies count under its stacks
 * then. */
static bool stray_gone(struct stackfeed *f, int pid, unsigned id)
{
	struct stackfeed_done k = { pid, id };

	if (f->nstray_last &&
	    bsearch(&k, f->stray_last, f->nstray_last, sizeof(k), stray_cmp))
		return true;
	if (f->nstray == f->stray_cap) {
		size_t cap = f->stray_cap ? f->stray_cap * 2 : 64;
		void *v = realloc(f->stray, cap * sizeof(*f->stray));

		if (!v)
			return true; /* never kept: as before it was */
		f->stray = v;
		f->stray_cap = cap;
	}
	f->stray[f->nstray++] = k;
	return false;
}

/* This tick's strays become the last tick's. */
static void stray_turn(struct stackfeed *f)
{
	struct stackfeed_done *v = f->stray_last;
	size_t cap = f->stray_last_cap;

	if (f->nstray > 1)
		qsort(f->stray, f->nstray, sizeof(*f->stray), stray_cmp);
	f->stray_last = f->stray;
	f->stray_last_cap = f->stray_cap;
	f->nstray_last = f->nstray;
	f->stray = v;
	f->stray_cap = cap;
	f->nstray = 0;
}

/* One kernel counter: into the table, symbolized if new. */
static void on_stack(int pid, unsigned id, unsigned long long pages, void *ctx)
{
	struct stackfeed *f = ctx;
	struct proc *p = model__find_live(f->model, pid);

	if (!p)
		p = model__find(f->model, pid, 0);
	if (!p) {
		/* not in the model yet (next tick), or never will be: gone */
		mark(f, id, !(kill(pid, 0) && errno == ESRCH && stray_gone(f, pid, id) &&
			      done(f, pid, id)));
		return;
	}
	if (stacks__set(f->stacks, pid, p->start_time, p->comm, id, pages) == 1)
		symbolize(f, p, id);
	mark(f, id, !(p->exited && done(f, pid, id)));
}

/* Give back the stack ids no kernel counter refers to any more (their
 * processes' counts are in the table): the stack map never fills up with
 * the stacks of processes long gone. */
static void prune(struct stackfeed *f)
{
	const size_t bits = 8 * sizeof(long);
	size_t w, nw = (f->nids + bits - 1) / bits;

	for (w = 0; w < nw; w++) {
		unsigned long drop = f->seen[w] & ~f->ref[w];

		while (drop) {
			unsigned b = (unsigned)__builtin_ctzl(drop);

			tracer__drop_stack(f->tracer, (unsigned)(w * bits + b));
			drop &= drop - 1;
		}
		f->seen[w] &= f->ref[w];
		f->ref[w] = 0;
	}
}

/* Words of a bitmap by stack id. */
static size_t id_words(const struct stackfeed *f)
{
	return (f->nids + 8 * sizeof(long) - 1) / (8 * sizeof(long));
}

/* Free the bitmaps by stack id. */
static void free_ids(struct stackfeed *f)
{
	free(f->seen);
	free(f->ref);
	free(f->held);
	free(f->orphan);
	f->seen = f->ref = f->held = f->orphan = NULL;
}

/* An id the kernel's map holds. */
static void on_held(unsigned id, void *ctx)
{
	struct stackfeed *f = ctx;

	if (id < f->nids)
		f->held[id / (8 * sizeof(long))] |= 1UL << (id % (8 * sizeof(long)));
}

/* Give back the stack ids the kernel holds that no counter refers to: a
 * stack captured whose counter found no room (the counter map full) is
 * referred to by nothing user space reads, and would hold its id for the
 * rest of the run. Between a capture and its counter a read may fall, so
 * an id is given back only when found so on two reads in a row. Returns
 * the ids the kernel holds after it; the count of the counters read when
 * the map cannot be walked. */
static unsigned reclaim(struct stackfeed *f)
{
	const size_t bits = 8 * sizeof(long);
	size_t w, nw = id_words(f);
	unsigned n = 0;

	memset(f->held, 0, nw * sizeof(long));
	if (tracer__for_each_stack_id(f->tracer, on_held, f)) {
		for (w = 0; w < nw; w++)
			n += (unsigned)__builtin_popcountl(f->seen[w]);
		return n;
	}
	for (w = 0; w < nw; w++) {
		unsigned long lone = f->held[w] & ~f->seen[w], drop = lone & f->orphan[w];

		f->orphan[w] = lone & ~drop;
		n += (unsigned)__builtin_popcountl(f->held[w] & ~drop);
		while (drop) {
			tracer__drop_stack(f->tracer, (unsigned)(w * bits + (unsigned)__builtin_ctzl(drop)));
			drop &= drop - 1;
		}
	}
	return n;
}

/* What became of the captures: the lost ones by cause, and the ids held. */
static struct stacks_capture capture_of(const struct stackfeed *f, const struct tracer_stack_stats *st)
{
	return (struct stacks_capture){ .failed = st->failed, .collided = st->collided,
					.unwalked = st->unwalked, .uncounted = st->uncounted,
					.ids_used = f->seen ? f->ids_used : 0,
					.ids = f->seen ? f->nids : 0 };
}

/* Whether the model still holds process (pid, start): else its stacks are
 * folded into the table's totals. */
static bool shown(int pid, unsigned long long start, void *ctx)
{
	struct stackfeed *f = ctx;

	return model__find(f->model, pid, start) != NULL;
}

/* Read the kernel's counters into the table; drop the counters read for
 * the last time and the stack ids nothing refers to any more; fold the
 * processes the model forgot; forget sessions of the exited. */
void stackfeed__tick(struct stackfeed *f)
{
	struct tracer_stack_stats st;
	struct stacks_capture c;
	size_t i, n;
	int e;

	if (!f->stacks)
		return;
	if (!f->seen) {
		size_t nw = (tracer__stack_ids(f->tracer) + 8 * sizeof(long) - 1) / (8 * sizeof(long));

		f->seen = calloc(nw, sizeof(long));
		f->ref = calloc(nw, sizeof(long));
		f->held = calloc(nw, sizeof(long));
		f->orphan = calloc(nw, sizeof(long));
		if (f->seen && f->ref && f->held && f->orphan) {
			f->nids = tracer__stack_ids(f->tracer);
		} else {
			free_ids(f); /* never pruned: as if the map were larger */
		}
	}
	f->ndone = 0;
	e = tracer__for_each_stack(f->tracer, on_stack, f);
	stray_turn(f);
	for (i = 0; i < f->ndone; i++)
		tracer__forget_stack(f->tracer, f->done[i].pid, f->done[i].id);
	if (f->seen && !e) {
		prune(f);
		f->ids_used = reclaim(f);
	} else if (f->ref)
		memset(f->ref, 0, id_words(f) * sizeof(long));
	stacks__fold(f->stacks, shown, f); /* on ENOMEM: next tick */
	tracer__stack_stats(f->tracer, &st);
	if (tracer__stacks(f->tracer)) { /* on: keep the rate within the budget */
		struct sample_budget_totals k = { .ns = st.ns, .captures = st.taken + st.failed,
						  .copies = st.copies };

		tracer__set_stacks(f->tracer, sample_budget__update(&f->budget, monotonic(), &k));
	}
	stacks__set_budget(f->stacks, f->budget.budget * 100,
			   f->budget.share < 0 ? -1 : f->budget.share * 100, st.skipped);
	c = capture_of(f, &st);
	stacks__set_status(f->stacks, tracer__stacks(f->tracer),
			   st.taken + st.failed ? st.ns / 1e3 / (st.taken + st.failed) : -1, &c);
	n = model__count(f->model);
	for (i = 0; i < n; i++) {
		struct proc *p = model__at(f->model, i);

		if (p->exited)
			symbolizer__forget(f->sym, p->pid);
	}
}

/* Write the stacks of the whole run to path in the folded format, after a
 * last read; nothing is written when stacks were never on. Returns 0, or -1
 * with the reason in err. */
int stackfeed__write_folded(struct stackfeed *f, const char *path, char *err, size_t errlen)
{
	size_t len = 0;
	char *text;

	if (!f->stacks)
		return 0;
	stackfeed__tick(f);
	text = folded_text(f->stacks, &len);
	return folded_write(path, text, len, err, errlen);
}

/* Free the table and the sessions. */
void stackfeed__free(struct stackfeed *f)
{
	symbolizer__free(f->sym);
	stacks__free(f->stacks);
	free(f->done);
	free(f->stray);
	free(f->stray_last);
	free_ids(f);
	f->done = NULL;
	f->stray = f->stray_last = NULL;
	f->sym = NULL;
	f->stacks = NULL;
}
