/* Frames: what every view shows of one tick, copied out of the model. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frame.h"
#include "frame_int.h"

/* An array of n elements of size bytes, zeroed; never NULL for n == 0. */
void *frame_array(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* Lay the frame's processes out as rows. */
static int lay_out(struct frame *f, const struct view_opts *vo)
{
	static const struct view_opts dflt = { .sort = FIELD_COW_RATE, .tree = true };
	long rows;

	f->rows = frame_array(vo && vo->no_rows ? 0 : f->nprocs, sizeof(*f->rows));
	if (!f->rows)
		return -ENOMEM;
	if (vo && vo->no_rows)
		return 0;
	rows = tree_layout(f->procs, f->nprocs, vo ? vo : &dflt, f->rows);
	if (rows < 0)
		return (int)rows;
	f->nrows = (size_t)rows;
	f->laid_out = true;
	f->layout = vo ? *vo : dflt;
	return 0;
}

/* Whether f's rows are laid out as vo says; see frame.h. */
bool frame_rows_for(const struct frame *f, const struct view_opts *vo)
{
	const struct view_opts *l = &f->layout;

	return f->laid_out && l->sort == vo->sort && l->reverse == vo->reverse && l->tree == vo->tree &&
	       l->focus_pid == vo->focus_pid && l->focus_start == vo->focus_start;
}

/* Values of history a frame copies of each process for vo. */
static size_t hist_values(const struct view_opts *vo)
{
	return vo && vo->hist > 0 ? (size_t)(vo->hist < SERIES_CAP ? vo->hist : SERIES_CAP) : 0;
}

/* The storage p's histories take in a frame keeping n values. */
static size_t hist_room(const struct proc *p, size_t n)
{
	return n ? series__tail_room(&p->rate, n) + series__tail_room(&p->shared, n) : 0;
}

/* Give p's histories, which need no storage, their tails of n values: an
 * idle process's, a run of one value. Returns the storage the others need. */
static size_t tail_in_place(struct proc *p, size_t n)
{
	size_t room = 0, r;

	r = series__tail_room(&p->rate, n);
	if (!r)
		series__copy_tail(&p->rate, &p->rate, NULL, NULL, n);
	room += r;
	r = series__tail_room(&p->shared, n);
	if (!r)
		series__copy_tail(&p->shared, &p->shared, NULL, NULL, n);
	return room + r;
}

/* Copy p's histories, n values each, into storage at *at, moving it on. */
static void tail_copy(struct frame *f, struct proc *p, size_t n, size_t *at)
{
	size_t r = n ? series__tail_room(&p->rate, n) : 0;

	series__copy_tail(&p->rate, &p->rate, r ? f->hist_v + *at : NULL, r ? f->hist_mark + *at : NULL, n);
	*at += r;
	r = n ? series__tail_room(&p->shared, n) : 0;
	series__copy_tail(&p->shared, &p->shared, r ? f->hist_v + *at : NULL,
			  r ? f->hist_mark + *at : NULL, n);
	*at += r;
}

/* Which processes of a frame still point at histories not their own. */
struct hist_need {
	bool all;     /* every process (not counted yet) */
	size_t *at;   /* else these, indices in procs */
	size_t n, cap;
	size_t room;  /* the storage they take */
	bool failed;  /* out of memory: no history at all */
};

/* Give the processes copied in histories of their own: the newest vo->hist
 * values of the ones they point at (the model's, a recording's), or none.
 * Most views draw no history, and the screen only as many values as it has
 * columns for; an idle process's history is one value repeated, a run the
 * series keeps in itself: it takes no storage, and was given its tail as
 * it was copied (tail_in_place). Copying the whole of every history each
 * tick was most of a frame. need: the processes whose histories take
 * storage, or all of them. */
static void take_history(struct frame *f, const struct view_opts *vo, const struct hist_need *need)
{
	size_t n = hist_values(vo), i, at = 0, room = need->room;
	bool all = need->all || need->failed;

	if (need->all)
		for (i = 0, room = 0; i < f->nprocs; i++)
			room += hist_room(&f->procs[i], n);
	if (need->failed)
		n = 0;
	if (n && room) {
		f->hist_v = frame_array(room, sizeof(*f->hist_v));
		f->hist_mark = frame_array(room, sizeof(*f->hist_mark));
		if (!f->hist_v || !f->hist_mark) {
			n = 0; /* the rows still show, without sparklines */
			all = true; /* the runs given already go too */
		}
	}
	for (i = 0; i < (all ? f->nprocs : need->n); i++)
		tail_copy(f, &f->procs[all ? i : need->at[i]], n, &at);
}

/* The process array of the frame freed last, kept for the next one built.
 * Each tick builds a frame of about as many processes as the last and
 * frees an older one: 6 MB at 5,000 processes. Allocated afresh each
 * time, a frame held longer (a paused screen) made the allocator leave a
 * frame-sized hole that was never given back: 6.5 MiB more resident.
 * With it, the stamps of what it holds: a process still in the same
 * place with the same stamp has the same name, command line and
 * breakdowns there, which are not copied again. */
static struct {
	struct proc *procs;
	unsigned long long *stamps;
	size_t cap;
} spare;

/* An array for n processes (*cap: room for how many), not zeroed, with
 * its stamps (*stamps). The spare if it fits and is not much larger; else
 * a new one, with room to grow, so that the spare keeps fitting while the
 * count creeps up. */
static struct proc *procs_array(size_t n, size_t *cap, unsigned long long **stamps)
{
	struct proc *procs;

	if (spare.procs && spare.cap >= n && spare.cap / 2 <= n + 64) {
		procs = spare.procs;
		*cap = spare.cap;
		*stamps = spare.stamps;
		spare.procs = NULL;
		spare.stamps = NULL;
		return procs;
	}
	*cap = n + n / 64 + 16;
	*stamps = calloc(*cap, sizeof(**stamps)); /* 0: no stamp, nothing held */
	procs = *stamps ? malloc(*cap * sizeof(*procs)) : NULL;
	if (!procs)
		free(*stamps);
	return procs;
}

/* Give back f's process array: kept as the spare when it is the larger. */
static void drop_procs(struct frame *f)
{
	if (!f->procs_cap || (spare.procs && spare.cap >= f->procs_cap)) {
		free(f->procs);
		free(f->stamps);
		return;
	}
	free(spare.procs);
	free(spare.stamps);
	spare.procs = f->procs;
	spare.stamps = f->stamps;
	spare.cap = f->procs_cap;
}

/* Free the spare process array (at exit: nothing holds it). */
void frame__free_spare(void)
{
	free(spare.procs);
	free(spare.stamps);
	spare.procs = NULL;
	spare.stamps = NULL;
	spare.cap = 0;
}

/* The parts of a process that are most of its bytes and seldom change
 * (model__stamp): its name and command line, side by side, and its
 * breakdowns. */
#define COLD1_AT offsetof(struct proc, comm)
#define COLD1_END (offsetof(struct proc, cmdline) + sizeof(((struct proc *)0)->cmdline))
#define COLD2_AT offsetof(struct proc, split)
#define COLD2_END (offsetof(struct proc, split) + sizeof(((struct proc *)0)->split))
_Static_assert(offsetof(struct proc, cmdline) == COLD1_AT + PROC_COMM_MAX, "comm, then cmdline");
_Static_assert(COLD1_END <= COLD2_AT, "the name before the breakdowns");

/* Copy the process src into dst, which held the process of stamp *stamp:
 * all of it, or when the stamps are the same, all but what is the same. */
static void copy_proc(struct proc *dst, const struct proc *src, unsigned long long *stamp)
{
	unsigned long long now = model__stamp(src);
	char *d = (char *)dst;
	const char *s = (const char *)src;

	if (*stamp != now) {
		*dst = *src;
		*stamp = now;
		return;
	}
	memcpy(d, s, COLD1_AT);
	memcpy(d + COLD1_END, s + COLD1_END, COLD2_AT - COLD1_END);
	memcpy(d + COLD2_END, s + COLD2_END, sizeof(*src) - COLD2_END);
}

/* Note that process i of a frame needs room values of history storage. */
static void hist_note(struct hist_need *need, size_t i, size_t room)
{
	size_t *at;

	need->room += room;
	if (need->n == need->cap) {
		need->cap = need->cap ? 2 * need->cap : 64;
		at = realloc(need->at, need->cap * sizeof(*at));
		if (!at) {
			need->failed = true;
			return;
		}
		need->at = at;
	}
	need->at[need->n++] = i;
}

/* Copy the processes and lay them out as rows. */
static int take_procs(struct frame *f, struct model *m, const struct view_opts *vo)
{
	size_t i, n = model__count(m), hist = hist_values(vo), room;
	struct hist_need need = { .all = false };

	/* Not zeroed: every element is written next (5,000 processes make
	 * 6 MB, zeroed for nothing at every tick). */
	f->procs = procs_array(n, &f->procs_cap, &f->stamps);
	if (!f->procs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		copy_proc(&f->procs[i], model__at(m, i), &f->stamps[i]);
		/* while the row is in cache: the histories of the idle now,
		 * the others after, when their storage is there */
		room = tail_in_place(&f->procs[i], hist);
		if (room && !need.failed)
			hist_note(&need, i, room);
	}
	f->nprocs = n;
	take_history(f, vo, &need);
	free(need.at);
	return lay_out(f, vo);
}

/* Sum what the header and the batch header show, once. The copies of
 * processes already forgotten (forgotten of them, forgotten_cow copies)
 * stay in: a total never goes down. */
static void take_totals(struct frame *f, size_t forgotten, unsigned long long forgotten_cow)
{
	size_t i;

	f->totals = (struct frame_totals){ .watched = f->nprocs, .forgotten = forgotten,
					   .cow = forgotten_cow };
	for (i = 0; i < f->nprocs; i++) {
		f->totals.live += !f->procs[i].exited;
		f->totals.cow += f->procs[i].counts.cow;
		f->totals.rate += f->procs[i].cow_rate;
	}
}

/* Copy the probe labels and the labels of every breakdown: a frame names
 * what it shows by itself. */
static int take_labels(struct frame *f, const struct model *m)
{
	int i, k;

	f->nprobes = model__nprobes(m);
	f->nkprobes = model__nkernel_probes(m);
	f->probe_labels = frame_array((size_t)f->nprobes, sizeof(*f->probe_labels));
	if (!f->probe_labels)
		return -ENOMEM;
	for (i = 0; i < f->nprobes; i++)
		snprintf(f->probe_labels[i], LABEL_MAX, "%s", model__probe_label(m, i));
	for (k = 0; k < SPLIT_KINDS; k++) {
		f->nlabels[k] = model__nlabels(m, k);
		f->labels[k] = frame_array((size_t)f->nlabels[k], sizeof(*f->labels[k]));
		if (!f->labels[k])
			return -ENOMEM;
		for (i = 0; i < f->nlabels[k]; i++)
			snprintf(f->labels[k][i], LABEL_MAX, "%s", model__label(m, k, i));
	}
	return 0;
}

/* Copy the probe hits new since *cursor, by order of arrival. */
static int take_marks(struct frame *f, const struct model *m, unsigned long long *cursor)
{
	const struct marker *taken[MARK_LOG];
	unsigned long long dummy = 0;
	size_t i;

	f->marks_lost = model__markers_dropped(m, cursor ? *cursor : 0);
	f->nmarks = model__markers_take(m, cursor ? cursor : &dummy, taken, MARK_LOG);
	f->marks = frame_array(f->nmarks, sizeof(*f->marks));
	if (!f->marks)
		return -ENOMEM;
	for (i = 0; i < f->nmarks; i++)
		f->marks[i] = *taken[i];
	return 0;
}

/* Copy the newest kept probe hits with their processes' names, for the log. */
static int take_log(struct frame *f, struct model *m)
{
	const struct marker *mk;
	struct frame_mark *e;
	struct proc *p;
	size_t kept = model__marker_log(m, 0, &mk), i;

	f->log_kept = kept;
	f->log = frame_array(kept < FRAME_LOG ? kept : FRAME_LOG, sizeof(*f->log));
	if (!f->log)
		return -ENOMEM;
	for (i = kept > FRAME_LOG ? kept - FRAME_LOG : 0; i < kept; i++) {
		model__marker_log(m, i, &mk);
		if (!mk)
			continue;
		e = &f->log[f->nlog++];
		e->mk = *mk;
		p = model__find_live(m, mk->pid);
		if (!p)
			p = model__find(m, mk->pid, 0);
		if (p)
			memcpy(e->comm, p->comm, sizeof(e->comm) - 1);
	}
	return 0;
}

/* Copy what the app says about the frame. */
static void take_status(struct frame *f, const struct frame_status *st)
{
	f->time = st->time;
	f->interval = st->interval;
	snprintf(f->mechanism, sizeof(f->mechanism), "%s", st->mechanism ? st->mechanism : "?");
	snprintf(f->fallbacks, sizeof(f->fallbacks), "%s", st->fallbacks ? st->fallbacks : "");
	snprintf(f->target, sizeof(f->target), "%s", st->target ? st->target : "?");
	f->lost = st->lost;
	if (st->lost_by_kind)
		memcpy(f->lost_by_kind, st->lost_by_kind, sizeof(f->lost_by_kind));
	f->cpu_pct = st->cpu_pct;
	f->cpu_seconds = st->cpu_seconds;
	f->bpf_stats = st->bpf_stats;
	f->bpf_run_seconds = st->bpf_stats ? st->bpf_run_seconds : 0;
	snprintf(f->host, sizeof(f->host), "%s", st->host ? st->host : "");
	f->usdt = st->usdt;
	f->command_done = st->command_done;
	f->command_status = st->command_status;
}

/* Build the frame of the model now, rows laid out as vo says (NULL: a tree
 * by copy rate), its groups summed unless vo says no_groups. */
struct frame *frame__build(struct model *m, const struct frame_status *st,
			   const struct view_opts *vo, unsigned long long *cursor)
{
	static const struct frame_status none;
	struct frame *f = calloc(1, sizeof(*f));
	int e;

	if (!f)
		return NULL;
	f->refs = 1;
	f->psi = model__psi(m);
	take_status(f, st ? st : &none);
	f->mem_available_kib = model__mem_available(m);
	e = take_procs(f, m, vo);
	if (!e)
		e = take_labels(f, m);
	if (!e)
		e = take_marks(f, m, cursor);
	if (!e)
		e = take_log(f, m);
	if (!e)
		e = vo && vo->no_groups ? take_grouped(f, m) : take_groups(f);
	if (!e && st && st->stacks && !(f->stacks = stacks__snap(st->stacks)))
		e = -ENOMEM;
	if (!e && st && st->objects && !(f->objects = objects__snap(st->objects)))
		e = -ENOMEM;
	if (e) {
		frame__free(f);
		errno = -e;
		return NULL;
	}
	take_totals(f, model__forgotten(m), model__forgotten_cow(m));
	return f;
}

/* Finish a frame whose status, processes, labels and probe hits were put
 * in by its maker (a replayed recording: f from calloc, refs 1; what it
 * holds is freed by frame__free): rows as vo says, groups (unless vo says
 * no_groups) and totals.
 * 0 or -errno. */
int frame__finish(struct frame *f, const struct view_opts *vo)
{
	int e;

	take_history(f, vo, &(struct hist_need){ .all = true });
	e = lay_out(f, vo);
	if (!e)
		e = vo && vo->no_groups ? grouped_by_tree(f) : take_groups(f);
	if (!e)
		take_totals(f, 0, 0); /* a recording keeps no totals of forgotten processes */
	return e;
}

/* One more reference to f. */
struct frame *frame__hold(struct frame *f)
{
	if (f)
		f->refs++;
	return f;
}

/* Drop a reference to f, freeing it with the last; NULL is fine. */
void frame__free(struct frame *f)
{
	int k;

	if (!f || --f->refs > 0)
		return;
	drop_procs(f);
	free(f->hist_v);
	free(f->hist_mark);
	free(f->rows);
	free(f->probe_labels);
	for (k = 0; k < SPLIT_KINDS; k++)
		free(f->labels[k]);
	free(f->marks);
	free(f->log);
	free(f->groups);
	stacks_snap__free(f->stacks);
	objects_snap__free(f->objects);
	free(f);
}

/* The name of a kind of loss, as the metrics label it. */
const char *frame_lost_kind_name(enum lost_kind k)
{
	static const char *const names[LOST_KINDS] = {
		[LOST_RINGBUF] = "ringbuf", [LOST_MAP_FULL] = "map_full",
		[LOST_PHASE_FULL] = "phase_full", [LOST_REGION_FULL] = "region_full",
	};

	return (unsigned)k < LOST_KINDS ? names[k] : "?";
}

/* "provider:name" of a probe ("?" when unknown). */
const char *frame_probe_label(const struct frame *f, int probe)
{
	return probe >= 0 && probe < f->nprobes ? f->probe_labels[probe] : "?";
}

/* "provider:phase" of a phase id; "outside" for 0, "?" when unknown. */
const char *frame_phase_label(const struct frame *f, int phase)
{
	return frame_label(f, SPLIT_PHASE, phase);
}

/* The label of a slot of breakdown k: "outside"/"other" for 0, "?" when unknown. */
const char *frame_label(const struct frame *f, enum split_kind k, int slot)
{
	if ((unsigned)k >= SPLIT_KINDS || slot < 0 || slot >= f->nlabels[k])
		return "?";
	return f->labels[k][slot];
}

/* Slots 0..n-1 of breakdown k exist. */
int frame_nlabels(const struct frame *f, enum split_kind k)
{
	return (unsigned)k < SPLIT_KINDS ? f->nlabels[k] : 0;
}

/* Copies p made outside every slot of breakdown k: for regions the
 * settled "other" (copies not classified yet are in no part). */
unsigned long long frame_split_none(const struct proc *p, enum split_kind k)
{
	unsigned long long in = 0;
	int i;

	if (k == SPLIT_REGION)
		return p->split[k].v[0];
	for (i = 1; i < SPLIT_SLOTS; i++)
		in += p->split[k].v[i];
	return p->counts.cow > in ? p->counts.cow - in : 0;
}

/* p's copies split by breakdown k in the order every view shows them:
 * slots 1.. with copies (every slot when all, and the fixed region slots
 * always), then slot 0 ("outside"/"other") last, always. Returns how many
 * parts were put in out; they add up to p's copies (for regions, less the
 * copies not classified yet). */
int frame_split_parts(const struct frame *f, const struct proc *p, enum split_kind k, bool all,
		      struct split_part out[SPLIT_SLOTS])
{
	int fixed = k == SPLIT_REGION ? FRAME_REGIONS_FIXED : 1;
	int n = 0, i;

	for (i = 1; i < frame_nlabels(f, k) && i < SPLIT_SLOTS; i++)
		if (all || i < fixed || p->split[k].v[i])
			out[n++] = (struct split_part){ frame_label(f, k, i), p->split[k].v[i] };
	out[n++] = (struct split_part){ frame_label(f, k, 0), frame_split_none(p, k) };
	return n;
}
