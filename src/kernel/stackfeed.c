/* The stack feed: kernel counters -> symbolizer -> stack table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "folded.h"
#include "safefile.h"
#include "stackfeed.h"

#define FRAME_NAME_MAX 256

/* Set up a feed; nothing is allocated until stacks are turned on. */
void stackfeed__init(struct stackfeed *f, struct tracer *t, struct model *m, unsigned every)
{
	*f = (struct stackfeed){ .tracer = t, .model = m, .every = every ? every : 1 };
}

/* Turn the capture on (allocating the table the first time) or off. */
int stackfeed__set(struct stackfeed *f, bool on)
{
	if (on && !f->stacks) {
		f->stacks = stacks__new();
		f->sym = symbolizer__new();
		if (!f->stacks || !f->sym)
			return -ENOMEM;
	}
	tracer__set_stacks(f->tracer, on ? f->every : 0);
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

	for (i = 0; i < n; i++) {
		symbolizer__frame(f->sym, pid, ips[i], i > 0, names[i], sizeof(names[i]));
		v[i] = names[i];
	}
	stacks__set_frames(f->stacks, p->pid, p->start_time, id, v, n);
}

/* Remember a counter read for the last time (its process exited). */
static void done(struct stackfeed *f, int pid, unsigned id)
{
	if (f->ndone == f->done_cap) {
		size_t cap = f->done_cap ? f->done_cap * 2 : 64;
		void *v = realloc(f->done, cap * sizeof(*f->done));

		if (!v)
			return; /* read again next tick */
		f->done = v;
		f->done_cap = cap;
	}
	f->done[f->ndone++] = (struct stackfeed_done){ pid, id };
}

/* One kernel counter: into the table, symbolized if new. */
static void on_stack(int pid, unsigned id, unsigned long long pages, void *ctx)
{
	struct stackfeed *f = ctx;
	struct proc *p = model__find_live(f->model, pid);

	if (!p)
		p = model__find(f->model, pid, 0);
	if (!p)
		return; /* not in the model yet: next tick */
	if (stacks__set(f->stacks, pid, p->start_time, p->comm, id, pages) == 1)
		symbolize(f, p, id);
	if (p->exited)
		done(f, pid, id);
}

/* Read the kernel's counters into the table; forget sessions of the exited. */
void stackfeed__tick(struct stackfeed *f)
{
	struct tracer_stack_stats st;
	size_t i, n;

	if (!f->stacks)
		return;
	f->ndone = 0;
	tracer__for_each_stack(f->tracer, on_stack, f);
	for (i = 0; i < f->ndone; i++)
		tracer__forget_stack(f->tracer, f->done[i].pid, f->done[i].id);
	tracer__stack_stats(f->tracer, &st);
	stacks__set_status(f->stacks, tracer__stacks(f->tracer),
			   st.taken + st.failed ? st.ns / 1e3 / (st.taken + st.failed) : -1, st.failed);
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
	int e;

	if (!f->stacks)
		return 0;
	stackfeed__tick(f);
	text = folded_text(f->stacks, &len);
	if (!text) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	e = safefile_write(path, text, len, NULL, err, errlen);
	free(text);
	return e ? -1 : 0;
}

/* Free the table and the sessions. */
void stackfeed__free(struct stackfeed *f)
{
	symbolizer__free(f->sym);
	stacks__free(f->stacks);
	free(f->done);
	f->done = NULL;
	f->sym = NULL;
	f->stacks = NULL;
}
