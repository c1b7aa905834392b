/* The model's labels: USDT probes and the kernel's markers, the labels of
 * each breakdown kind, and the log of probe hits. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "model.h"
#include "model_int.h"

/* Register a probe label; returns its id or -ENOSPC. */
int model__add_probe(struct model *m, const char *label)
{
	if (m->nprobes == PROBE_MAX)
		return -ENOSPC;
	snprintf(m->probes[m->nprobes], LABEL_MAX, "%s", label);
	return m->nprobes++;
}

/* Find or register the label of a kind of kernel marker; its id or -ENOSPC. */
int model__kernel_probe(struct model *m, const char *label)
{
	int i, id;

	for (i = 0; i < m->nprobes; i++)
		if (strcmp(m->probes[i], label) == 0)
			return i;
	id = model__add_probe(m, label);
	m->nkernel += id >= 0;
	return id;
}

/* Whether label names a kind of kernel marker; see model.h. */
bool model_kernel_label(const char *label)
{
	static const char *const kinds[] = { "oom:", "reclaim:", "exit:" };
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		if (strncmp(label, kinds[i], strlen(kinds[i])) == 0)
			return true;
	return false;
}

/* Number of kernel marker labels among the probes. */
int model__nkernel_probes(const struct model *m)
{
	return m->nkernel;
}

/* Slots a breakdown kind may have: phases are bounded by the kernel's ids. */
static int label_cap(enum split_kind k)
{
	return k == SPLIT_PHASE ? PHASE_MAX : SPLIT_SLOTS;
}

/* Register a label of kind k (or find it); returns its slot (>= 1) or
 * -ENOSPC (also for an unknown kind). */
int model__add_label(struct model *m, enum split_kind k, const char *label)
{
	int i;

	if ((unsigned)k >= SPLIT_KINDS)
		return -ENOSPC;
	for (i = 1; i < m->nlabels[k]; i++)
		if (strcmp(m->labels[k][i], label) == 0)
			return i;
	if (m->nlabels[k] == label_cap(k))
		return -ENOSPC;
	snprintf(m->labels[k][m->nlabels[k]], LABEL_MAX, "%s", label);
	return m->nlabels[k]++;
}

/* The label of a slot of kind k: "outside"/"other" for 0, "?" when unknown. */
const char *model__label(const struct model *m, enum split_kind k, int slot)
{
	if ((unsigned)k >= SPLIT_KINDS || slot < 0 || slot >= m->nlabels[k])
		return "?";
	return m->labels[k][slot];
}

/* Number of slots of kind k in use, slot 0 included. */
int model__nlabels(const struct model *m, enum split_kind k)
{
	return (unsigned)k < SPLIT_KINDS ? m->nlabels[k] : 0;
}

/* Register a phase label (or find it); returns its id (>= 1) or -ENOSPC. */
int model__add_phase(struct model *m, const char *label)
{
	return model__add_label(m, SPLIT_PHASE, label);
}

/* Number of probes registered. */
int model__nprobes(const struct model *m)
{
	return m->nprobes;
}

/* "provider:name" of a probe ("?" when unknown). */
const char *model__probe_label(const struct model *m, int probe)
{
	return probe >= 0 && probe < m->nprobes ? m->probes[probe] : "?";
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
	if (p && !mproc_of(p)->pending_mark)
		mproc_of(p)->pending_mark = (unsigned char)(mk->probe + 1);
}

/* The i-th kept probe hit, 0 the oldest; returns how many are kept. */
size_t model__marker_log(const struct model *m, size_t i, const struct marker **out)
{
	*out = NULL;
	if (i < m->marks_len)
		*out = &m->marks[(m->marks_head + MARK_LOG - m->marks_len + i) % MARK_LOG];
	return m->marks_len;
}

/* How many probe hits after *cursor were overwritten in the log before they
 * could be taken (the log keeps MARK_LOG). */
unsigned long long model__markers_dropped(const struct model *m, unsigned long long cursor)
{
	unsigned long long oldest = m->marks_total - m->marks_len;

	return oldest > cursor ? oldest - cursor : 0;
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
