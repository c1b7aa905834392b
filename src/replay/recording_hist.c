/* What a recording carries from frame to frame: the rate and sharing
 * histories, the labels of probes and breakdowns, the probe log. */
#include "recording_int.h"

/* Point h's series at its own stores again, after the entries moved. */
static void hist_rebase(struct hist *h)
{
	h->rate.v = h->rate_store.v;
	h->rate.mark = h->rate_store.mark;
	h->shared.v = h->shared_store.v;
	h->shared.mark = h->shared_store.mark;
}

/* The history of (pid, start), made when new; NULL out of memory. */
static struct hist *hist_of(struct recording *r, int pid, unsigned long long start)
{
	size_t h, i;

	if (2 * (r->nhist + 1) > r->nslots) { /* grow the table: at most half full */
		size_t n = r->nslots ? 2 * r->nslots : 256, *s = calloc(n, sizeof(*s));

		if (!s)
			return NULL;
		for (i = 0; i < r->nhist; i++) {
			for (h = ((size_t)r->hist[i].pid * 31 + r->hist[i].start) % n; s[h]; h = (h + 1) % n)
				;
			s[h] = i + 1;
		}
		free(r->slots);
		r->slots = s;
		r->nslots = n;
	}
	for (h = ((size_t)pid * 31 + start) % r->nslots; r->slots[h]; h = (h + 1) % r->nslots) {
		struct hist *e = &r->hist[r->slots[h] - 1];

		if (e->pid == pid && e->start == start)
			return e;
	}
	if (r->nhist == r->histcap) {
		size_t cap = r->histcap ? 2 * r->histcap : 64;
		void *q = realloc(r->hist, cap * sizeof(*r->hist));

		if (!q)
			return NULL;
		r->hist = q;
		r->histcap = cap;
		for (i = 0; i < r->nhist; i++) /* the stores moved */
			hist_rebase(&r->hist[i]);
	}
	r->slots[h] = ++r->nhist;
	r->hist[r->nhist - 1] = (struct hist){ .pid = pid, .start = start };
	series__init_store(&r->hist[r->nhist - 1].rate, &r->hist[r->nhist - 1].rate_store);
	series__init_store(&r->hist[r->nhist - 1].shared, &r->hist[r->nhist - 1].shared_store);
	return &r->hist[r->nhist - 1];
}

/* Forget the histories and the probe log: a jump rebuilds them. */
void rec_hist_reset(struct recording *r)
{
	r->nhist = 0;
	if (r->slots)
		memset(r->slots, 0, r->nslots * sizeof(*r->slots));
	r->log_total = 0;
}

/* The slot of label in breakdown k, added when new (SPLIT_SLOTS at most).
 * An older recording's word for the copies outside every phase is read as
 * today's. */
int rec_label_slot(struct recording *r, enum split_kind k, const char *label)
{
	int i;

	if (k == SPLIT_PHASE && strcmp(label, PHASE_OUTSIDE_OLD) == 0)
		label = PHASE_OUTSIDE;
	for (i = 0; i < r->nlabels[k]; i++)
		if (strcmp(r->labels[k][i], label) == 0)
			return i;
	if (r->nlabels[k] == SPLIT_SLOTS)
		return -1;
	snprintf(r->labels[k][r->nlabels[k]], LABEL_MAX, "%s", label);
	return r->nlabels[k]++;
}

/* The id of a probe label, added when new; -1 out of memory. */
int rec_probe_id(struct recording *r, const char *label)
{
	void *q;
	int i;

	for (i = 0; i < r->nprobes; i++)
		if (strcmp(r->probes[i], label) == 0)
			return i;
	q = realloc(r->probes, (size_t)(r->nprobes + 1) * sizeof(*r->probes));
	if (!q)
		return -1;
	r->probes = q;
	snprintf(r->probes[r->nprobes], LABEL_MAX, "%s", label);
	return r->nprobes++;
}

/* The probe hit's process name in f, for the log. */
static void log_mark(struct recording *r, const struct frame *f, const struct marker *mk)
{
	struct frame_mark *e = &r->log[r->log_total++ % FRAME_LOG];
	size_t i;

	*e = (struct frame_mark){ .mk = *mk };
	for (i = 0; i < f->nprocs; i++)
		if (f->procs[i].pid == mk->pid)
			memcpy(e->comm, f->procs[i].comm, sizeof(e->comm));
}

/* Log the probe hits; with series, push every process's values onto its
 * history and give it the history (frame__finish copies what the view
 * draws of it). */
int rec_take_history(struct recording *r, struct frame *f, bool series)
{
	size_t i, k, *at = NULL;

	if (series && f->nprocs && !(at = malloc(f->nprocs * sizeof(*at))))
		return -ENOMEM;
	for (i = 0; series && i < f->nprocs; i++) {
		struct proc *p = &f->procs[i];
		struct hist *h = hist_of(r, p->pid, p->start_time);
		unsigned char mark = 0;

		if (!h) {
			free(at);
			return -ENOMEM;
		}
		for (k = 0; k < f->nmarks && !mark; k++)
			if (f->marks[k].pid == p->pid)
				mark = (unsigned char)(1 + f->marks[k].probe);
		series__push_marked(&h->rate, p->cow_rate, mark);
		series__push_marked(&h->shared, proc_shared_pct(p), mark);
		at[i] = (size_t)(h - r->hist);
	}
	/* Only now: a new entry may have moved the others. */
	for (i = 0; series && i < f->nprocs; i++) {
		f->procs[i].rate = r->hist[at[i]].rate;
		f->procs[i].shared = r->hist[at[i]].shared;
	}
	free(at);
	for (k = 0; k < f->nmarks; k++)
		log_mark(r, f, &f->marks[k]);
	return 0;
}

/* The labels and the probe log as they stand, copied into the frame. */
int rec_take_labels(struct recording *r, struct frame *f)
{
	size_t kept = r->log_total < FRAME_LOG ? r->log_total : FRAME_LOG, i;
	int k;

	f->nprobes = r->nprobes;
	f->nkprobes = 0;
	for (k = 0; k < r->nprobes; k++) /* the kernel's markers, as the live run had them */
		f->nkprobes += model_kernel_label(r->probes[k]);
	f->probe_labels = calloc((size_t)r->nprobes + 1, sizeof(*f->probe_labels));
	f->log = calloc(kept + 1, sizeof(*f->log));
	if (!f->probe_labels || !f->log)
		return -ENOMEM;
	if (r->nprobes) /* r->probes is NULL before the first probe */
		memcpy(f->probe_labels, r->probes, (size_t)r->nprobes * sizeof(*r->probes));
	for (k = 0; k < SPLIT_KINDS; k++) {
		f->nlabels[k] = r->nlabels[k];
		f->labels[k] = calloc((size_t)r->nlabels[k], sizeof(*f->labels[k]));
		if (!f->labels[k])
			return -ENOMEM;
		memcpy(f->labels[k], r->labels[k], (size_t)r->nlabels[k] * sizeof(*f->labels[k]));
	}
	for (i = r->log_total - kept; i < r->log_total; i++)
		f->log[f->nlog++] = r->log[i % FRAME_LOG];
	f->log_kept = r->log_total;
	return 0;
}

