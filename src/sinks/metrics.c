/* The exporter's metrics (see metrics.h): which series a process counts
 * in, the counts of processes gone, and their sums over a frame; the text
 * of a scrape is metrics_put.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fields.h"
#include "metrics.h"
#include "metrics_int.h"
#include "runtime.h"

/* A new, empty set of metrics. */
struct metrics *metrics__new(const struct metrics_opts *o)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->o = *o;
	snprintf(m->group, sizeof(m->group), "%s", o->group ? o->group : "");
	snprintf(m->version, sizeof(m->version), "%s", o->version ? o->version : "?");
	return m;
}

/* Free the metrics and drop the frame held; NULL is fine. */
void metrics__free(struct metrics *m)
{
	if (!m)
		return;
	frame__free(m->frame);
	free(m->track);
	free(m);
}

/* The name of a role, as its label value. */
const char *metrics_role_name(enum metrics_role r)
{
	static const char *const names[METRICS_ROLES] = { "parent", "child", "grandchild" };

	return (unsigned)r < METRICS_ROLES ? names[r] : "?";
}

/* A comm made a label value: printable ASCII only, so that a hostile name
 * can neither break the text format nor be invalid UTF-8. */
void metrics_plain_name(const char *comm, size_t len, char *out, size_t cap)
{
	size_t i, n = 0;

	for (i = 0; i < len && comm[i] && n + 1 < cap; i++) {
		unsigned char c = (unsigned char)comm[i];

		out[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[n] = 0;
	if (!n)
		snprintf(out, cap, "?");
}

/* Whether some series already has this group name. */
static bool group_known(const struct metrics *m, const char *group)
{
	int i;

	for (i = 0; i < m->nseries; i++)
		if (strcmp(m->series[i].group, group) == 0)
			return true;
	return false;
}

/* The series of (group, role), made when new; a group past the bound goes
 * to METRICS_OTHER_GROUP. Never fails: there is room for every role of the
 * bounded groups and of the other one. */
static int series_of(struct metrics *m, const char *group, enum metrics_role role)
{
	struct mseries *s;
	int i;

	if (!group_known(m, group)) {
		if (m->ngroups >= METRICS_GROUPS_MAX)
			group = METRICS_OTHER_GROUP;
		else
			m->ngroups++;
	}
	for (i = 0; i < m->nseries; i++)
		if (m->series[i].role == role && strcmp(m->series[i].group, group) == 0)
			return i;
	s = &m->series[m->nseries];
	memset(s, 0, sizeof(*s));
	snprintf(s->group, sizeof(s->group), "%s", group);
	s->role = role;
	return m->nseries++;
}

/* Order of tracked processes: by pid, then start time. */
static int track_cmp(const void *a, const void *b)
{
	const struct mtrack *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The tracked entry of (pid, start) in a sorted array, NULL if none. */
static const struct mtrack *track_find(const struct mtrack *t, size_t n, int pid,
				       unsigned long long start)
{
	struct mtrack key = { .pid = pid, .start = start };

	return n ? bsearch(&key, t, n, sizeof(*t), track_cmp) : NULL;
}

/* The series of a process seen for the first time: a root starts its group,
 * a descendant joins its parent's group one role down. */
static int place(struct metrics *m, const struct row *r, const int *up)
{
	char name[GROUP_MAX];
	enum metrics_role role;

	if (r->depth == 0) {
		if (m->group[0])
			snprintf(name, sizeof(name), "%s", m->group);
		else
			metrics_plain_name(r->p->comm, sizeof(r->p->comm), name, sizeof(name));
		return series_of(m, name, METRICS_PARENT);
	}
	role = m->series[up[r->depth - 1]].role + 1;
	if (role > METRICS_GRANDCHILD)
		role = METRICS_GRANDCHILD;
	snprintf(name, sizeof(name), "%s", m->series[up[r->depth - 1]].group);
	return series_of(m, name, role);
}

/* Add p's copies by runtime and kind of write (sn: its frame's) to v. */
static void add_objects(unsigned long long v[OBJ_RUNTIMES][OBJ_WRITES], const struct objects_snap *sn,
			const struct proc *p)
{
	const struct objects_proc *op = objects_snap__of(sn, p->pid, p->start_time);
	int w, r;

	if (!op)
		return;
	r = runtime_of_label(op->runtime);
	for (w = 0; w < OBJ_WRITES; w++)
		v[r][w] += op->by_write[w];
}

/* The cause label of how p ended; gone: it left the frames (a process
 * leaves them only once exited, but say "unknown" if it did not). */
static enum mcause cause_of(const struct proc *p)
{
	if (p->exit.left)
		return MCAUSE_LEFT;
	if (p->exit.oom)
		return MCAUSE_OOM;
	if (!p->exited || !p->exit.known)
		return MCAUSE_UNKNOWN;
	if (p->exit.status & 0x7f)
		return MCAUSE_SIGNAL;
	return p->exit.status >> 8 & 0xff ? MCAUSE_EXIT_NONZERO : MCAUSE_EXIT_ZERO;
}

/* Add the other counters of tracked process t to c; gone: it leaves the
 * frames now, and counts as an exit even if it was never seen exited. The
 * cause counted is the one first seen, so that no cause's count goes down
 * if the kernel's word on it comes a frame late. */
static void count_more(struct mcount *c, const struct mtrack *t, bool gone)
{
	const struct proc *p = t->p;
	int i;

	for (i = MREGION_HEAP; i < SPLIT_SLOTS; i++)
		c->region[i < MREGION_FILE ? i : MREGION_FILE] += p->split[SPLIT_REGION].v[i];
	c->forks += p->forked;
	c->reclaims += p->reclaims;
	c->reclaim_s += p->reclaim_s;
	if (t->cause >= 0)
		c->exits[t->cause]++;
	else if (gone)
		c->exits[cause_of(p)]++;
}

/* Add the counts of tracked process t (sn: its frame's objects) to a
 * series' folded counts. */
static void fold(struct mseries *s, const struct mtrack *t, const struct objects_snap *sn)
{
	const struct proc *p = t->p;
	int i;

	add_objects(s->folded_obj, sn, p);
	for (i = 0; i < FIELD_N; i++)
		if (fields[i].metric && fields[i].counter)
			s->folded[i] += field_value((enum field_id)i, NULL, p).u;
	for (i = 1; i < PHASE_MAX; i++)
		s->folded_phase[i] += p->split[SPLIT_PHASE].v[i];
	count_more(&s->folded_more, t, true);
}

/* The frame's processes as tracked entries, placed: the known keep their
 * series, the new are placed from the tree (parents come before children). */
static struct mtrack *track_frame(struct metrics *m, const struct frame *f, size_t *n)
{
	struct view_opts vo = { .sort = FIELD_PID, .tree = true };
	struct row *rows = calloc(f->nprocs + 1, sizeof(*rows));
	int *up = calloc(f->nprocs + 1, sizeof(*up));
	struct mtrack *t = calloc(f->nprocs + 1, sizeof(*t));
	long nr = rows && up && t ? tree_layout(f->procs, f->nprocs, &vo, rows) : -ENOMEM;
	long i;

	for (i = 0; i < nr; i++) {
		const struct proc *p = rows[i].p;
		const struct mtrack *old = track_find(m->track, m->ntrack, p->pid, p->start_time);

		t[i] = (struct mtrack){ .pid = p->pid, .start = p->start_time, .p = p, .cause = -1 };
		t[i].series = old ? old->series : place(m, &rows[i], up);
		if (old && old->cause >= 0)
			t[i].cause = old->cause;
		else if (p->exited)
			t[i].cause = (int)cause_of(p);
		up[rows[i].depth] = t[i].series;
	}
	free(rows);
	free(up);
	if (nr < 0) {
		free(t);
		return NULL;
	}
	qsort(t, (size_t)nr, sizeof(*t), track_cmp);
	*n = (size_t)nr;
	return t;
}

/* Take frame f (see metrics.h). */
int metrics__update(struct metrics *m, struct frame *f)
{
	struct mtrack *t;
	size_t n = 0, i;

	t = track_frame(m, f, &n);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < m->ntrack; i++)
		if (!track_find(t, n, m->track[i].pid, m->track[i].start))
			fold(&m->series[m->track[i].series], &m->track[i],
			     m->frame ? m->frame->objects : NULL);
	free(m->track);
	m->track = t;
	m->ntrack = n;
	frame__free(m->frame);
	m->frame = frame__hold(f);
	return 0;
}

/* The anonymous memory p inherited at fork and, of it, what is still
 * shared, KiB: the two terms of SHR% (see proc_shared_pct). False when
 * either is unknown (no reading, or found running). */
bool metrics_sharing_of(const struct proc *p, unsigned long long *inherited, unsigned long long *shared)
{
	unsigned long long anon = p->smaps.anon, priv = p->smaps.private_dirty;

	if (!p->smaps_time || p->inherited_kib <= 0)
		return false;
	*inherited = (unsigned long long)p->inherited_kib;
	*shared = anon > priv ? anon - priv : 0;
	if (*shared > *inherited)
		*shared = *inherited;
	return true;
}

/* Add a member of the frame to its series' sums. */
static void add_member(struct macc *a, const struct frame *f, const struct mtrack *t)
{
	const struct proc *p = t->p;
	unsigned long long inh, shr;
	int i;

	add_objects(a->obj, f ? f->objects : NULL, p);
	for (i = 0; i < FIELD_N; i++)
		if (fields[i].metric && fields[i].counter)
			a->sum[i] += field_value((enum field_id)i, NULL, p).u;
	for (i = 1; i < PHASE_MAX; i++)
		a->phase[i] += p->split[SPLIT_PHASE].v[i];
	count_more(&a->more, t, false);
	if (p->exited)
		return;
	a->live++;
	for (i = 0; i < FIELD_N; i++)
		if (fields[i].metric && !fields[i].counter && (fields[i].source != FIELD_SMAPS || p->smaps_time))
			a->sum[i] += field_value((enum field_id)i, NULL, p).u;
	if (p->family_why == FAMILY_KNOWN) {
		a->family_read++;
		a->family_anon += p->family.anon_kib;
		a->family_shared += p->family.shared_kib;
	}
	if (!p->smaps_time)
		return;
	a->read++;
	a->shared += p->smaps.shared_clean + p->smaps.shared_dirty;
	if (frame_smaps_age(f, p) > a->age)
		a->age = frame_smaps_age(f, p);
	/* copies are 4 KiB base pages */
	if (p->counts.cow > p->smaps_cow && (p->counts.cow - p->smaps_cow) * 4 * FRAME_SETTLE_COPIED > proc_uss_kib(p))
		a->copying++;
	if (!metrics_sharing_of(p, &inh, &shr))
		return;
	a->fork_read++;
	a->inherited += inh;
	a->inherited_shared += shr;
}

/* Add c to the counters in a. */
static void add_more(struct mcount *a, const struct mcount *c)
{
	int i;

	for (i = 0; i < MREGIONS; i++)
		a->region[i] += c->region[i];
	for (i = 0; i < MCAUSES; i++)
		a->exits[i] += c->exits[i];
	a->forks += c->forks;
	a->reclaims += c->reclaims;
	a->reclaim_s += c->reclaim_s;
}

/* Every series' sums over the last frame; NULL on no memory. */
struct macc *metrics__accumulate(const struct metrics *m)
{
	struct macc *acc = calloc(SERIES_MAX, sizeof(*acc));
	size_t i;
	int s;

	if (!acc)
		return NULL;
	for (s = 0; s < m->nseries; s++) {
		memcpy(acc[s].sum, m->series[s].folded, sizeof(acc[s].sum));
		memcpy(acc[s].phase, m->series[s].folded_phase, sizeof(acc[s].phase));
		add_more(&acc[s].more, &m->series[s].folded_more);
		memcpy(acc[s].obj, m->series[s].folded_obj, sizeof(acc[s].obj));
	}
	for (i = 0; i < m->ntrack; i++)
		add_member(&acc[m->track[i].series], m->frame, &m->track[i]);
	return acc;
}

