/* Frames: what every view shows of one tick, copied out of the model. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frame.h"

/* An array of n elements of size bytes, zeroed; never NULL for n == 0. */
static void *array(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* Copy the processes and lay them out as rows. */
static int take_procs(struct frame *f, struct model *m, const struct view_opts *vo)
{
	static const struct view_opts dflt = { .sort = SORT_COW_RATE, .tree = true };
	size_t i, n = model__count(m);
	long rows;

	f->procs = array(n, sizeof(*f->procs));
	f->rows = array(n, sizeof(*f->rows));
	if (!f->procs || !f->rows)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		f->procs[i] = *model__at(m, i);
	f->nprocs = n;
	rows = tree_layout(f->procs, n, vo ? vo : &dflt, f->rows);
	if (rows < 0)
		return (int)rows;
	f->nrows = (size_t)rows;
	return 0;
}

/* Sum what the header and the batch header show, once. */
static void take_totals(struct frame *f)
{
	size_t i;

	f->totals = (struct frame_totals){ .watched = f->nprocs };
	for (i = 0; i < f->nprocs; i++) {
		f->totals.live += !f->procs[i].exited;
		f->totals.cow += f->procs[i].counts.cow;
		f->totals.rate += f->procs[i].cow_rate;
	}
}

/* Copy the probe and phase labels: a frame names what it shows by itself. */
static int take_labels(struct frame *f, const struct model *m)
{
	int i;

	f->nprobes = model__nprobes(m);
	f->nphases = model__nphases(m);
	f->probe_labels = array((size_t)f->nprobes, sizeof(*f->probe_labels));
	f->phase_labels = array((size_t)f->nphases, sizeof(*f->phase_labels));
	if (!f->probe_labels || !f->phase_labels)
		return -ENOMEM;
	for (i = 0; i < f->nprobes; i++)
		snprintf(f->probe_labels[i], LABEL_MAX, "%s", model__probe_label(m, i));
	for (i = 0; i < f->nphases; i++)
		snprintf(f->phase_labels[i], LABEL_MAX, "%s", model__phase_label(m, i));
	return 0;
}

/* Copy the probe hits new since *cursor, by order of arrival. */
static int take_marks(struct frame *f, const struct model *m, unsigned long long *cursor)
{
	const struct marker *taken[MARK_LOG];
	unsigned long long dummy = 0;
	size_t i;

	f->nmarks = model__markers_take(m, cursor ? cursor : &dummy, taken, MARK_LOG);
	f->marks = array(f->nmarks, sizeof(*f->marks));
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
	f->log = array(kept < FRAME_LOG ? kept : FRAME_LOG, sizeof(*f->log));
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
	snprintf(f->target, sizeof(f->target), "%s", st->target ? st->target : "?");
	f->lost = st->lost;
	f->cpu_pct = st->cpu_pct;
	f->usdt = st->usdt;
	f->command_done = st->command_done;
	f->command_status = st->command_status;
}

/* Build the frame of the model now, rows laid out as vo says (NULL: a tree
 * by copy rate). */
struct frame *frame__build(struct model *m, const struct frame_status *st,
			   const struct view_opts *vo, unsigned long long *cursor)
{
	static const struct frame_status none;
	struct frame *f = calloc(1, sizeof(*f));
	int e;

	if (!f)
		return NULL;
	f->refs = 1;
	take_status(f, st ? st : &none);
	e = take_procs(f, m, vo);
	if (!e)
		e = take_labels(f, m);
	if (!e)
		e = take_marks(f, m, cursor);
	if (!e)
		e = take_log(f, m);
	if (e) {
		frame__free(f);
		errno = -e;
		return NULL;
	}
	take_totals(f);
	return f;
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
	if (!f || --f->refs > 0)
		return;
	free(f->procs);
	free(f->rows);
	free(f->probe_labels);
	free(f->phase_labels);
	free(f->marks);
	free(f->log);
	free(f);
}

/* "provider:name" of a probe ("?" when unknown). */
const char *frame_probe_label(const struct frame *f, int probe)
{
	return probe >= 0 && probe < f->nprobes ? f->probe_labels[probe] : "?";
}

/* "provider:phase" of a phase id; "none" for 0, "?" when unknown. */
const char *frame_phase_label(const struct frame *f, int phase)
{
	return phase >= 0 && phase < f->nphases ? f->phase_labels[phase] : "?";
}

/* Copies p made outside every slot of breakdown k. */
unsigned long long frame_split_none(const struct proc *p, enum split_kind k)
{
	unsigned long long in = 0;
	int i;

	for (i = 1; i < SPLIT_SLOTS; i++)
		in += p->split[k].v[i];
	return p->counts.cow > in ? p->counts.cow - in : 0;
}
