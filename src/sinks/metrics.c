/* The exporter's metrics (see metrics.h): which series a process counts
 * in, the counts of processes gone, and the text of a scrape. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fields.h"
#include "metrics.h"
#include "runtime.h"

#define GROUP_MAX 64 /* bytes of a group name, with its NUL */
#define SERIES_MAX ((METRICS_GROUPS_MAX + 1) * METRICS_ROLES)

/* The region label values: the model's fixed region slots, and every file
 * in one value, so that the label stays bounded whatever files are met.
 * No "other": what is not classified yet is the rest of the copies, and
 * shrinks as the kernel side's region counts come in: no counter. */
enum mregion { MREGION_HEAP = SPLIT_REGION_HEAP, MREGION_STACK, MREGION_ANON, MREGION_FILE, MREGIONS };

/* Why a member left: the cause label values (bounded). */
enum mcause { MCAUSE_EXIT_ZERO, MCAUSE_EXIT_NONZERO, MCAUSE_SIGNAL, MCAUSE_OOM, MCAUSE_LEFT,
	      MCAUSE_UNKNOWN, MCAUSES };

/* Counters of a process besides the field table's: copies by region,
 * forks, exits by cause, reclaim stalls. */
struct mcount {
	unsigned long long region[MREGIONS];
	unsigned long long forks, exits[MCAUSES], reclaims;
	double reclaim_s;
};

/* One group and role: the counts of its members that left the frames. */
struct mseries {
	char group[GROUP_MAX];
	enum metrics_role role;
	unsigned long long folded[FIELD_N]; /* the counter figures of members gone */
	unsigned long long folded_phase[PHASE_MAX];
	struct mcount folded_more;
	unsigned long long folded_obj[OBJ_RUNTIMES][OBJ_WRITES]; /* --objects */
};

/* A process of the last frame: its series and its last counts. */
struct mtrack {
	int pid;
	unsigned long long start;
	int series;
	int cause;            /* enum mcause once seen exited, latched; else -1 */
	const struct proc *p; /* in the held frame */
};

struct metrics {
	struct metrics_opts o;
	char group[GROUP_MAX];    /* --label group=NAME, or empty */
	char version[64];
	struct mseries series[SERIES_MAX];
	int nseries, ngroups;
	struct mtrack *track;     /* sorted by (pid, start) */
	size_t ntrack;
	struct frame *frame;      /* the last frame taken, held */
};

/* Sums of a series over one frame: folded counts plus its members'. */
struct macc {
	unsigned long long sum[FIELD_N];  /* counters: every member's; gauges: live members' */
	unsigned long long phase[PHASE_MAX];
	struct mcount more;               /* every member's */
	unsigned long long obj[OBJ_RUNTIMES][OBJ_WRITES]; /* sampled copies by runtime, write kind */
	unsigned long long shared;        /* KiB, live members */
	unsigned long long inherited, inherited_shared; /* KiB, live members with both */
	unsigned long long family_anon, family_shared;  /* KiB, live members with a pagemap reading */
	unsigned family_read;                           /* ... how many */
	unsigned live, read, fork_read;   /* live members, those with a smaps reading,
					     those with one and a known inheritance */
	unsigned copying;                 /* members read that copied much since */
	double age;                       /* of the oldest reading of a live member */
};

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
static void plain_name(const char *comm, size_t len, char *out, size_t cap)
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
			plain_name(r->p->comm, sizeof(r->p->comm), name, sizeof(name));
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
static bool sharing_of(const struct proc *p, unsigned long long *inherited, unsigned long long *shared)
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
	if (!sharing_of(p, &inh, &shr))
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
static struct macc *accumulate(const struct metrics *m)
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

/* A label value with the text format's escapes (\\, \", \n). */
static void put_value(FILE *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', out);
		if (*v == '\n') {
			fputs("\\n", out);
			continue;
		}
		fputc(*v, out);
	}
}

/* A family's metadata. Counters are named without "_total" here. */
struct family {
	const char *name, *type, *unit, *help;
};

/* The # TYPE, # UNIT and # HELP lines of a family in the chosen format. */
static void put_head(FILE *out, enum metrics_format fmt, const struct family *fam)
{
	bool om = fmt == METRICS_OPENMETRICS, counter = strcmp(fam->type, "counter") == 0;
	bool info = strcmp(fam->type, "info") == 0;
	const char *suffix = !om && counter ? "_total" : !om && info ? "_info" : "";
	const char *type = !om && info ? "gauge" : fam->type;

	fprintf(out, "# HELP %s%s %s\n", fam->name, suffix, fam->help);
	fprintf(out, "# TYPE %s%s %s\n", fam->name, suffix, type);
	if (om && fam->unit)
		fprintf(out, "# UNIT %s %s\n", fam->name, fam->unit);
}

/* The sample name of a family: counters end in _total, infos in _info. */
static void put_name(FILE *out, const struct family *fam)
{
	fputs(fam->name, out);
	if (strcmp(fam->type, "counter") == 0)
		fputs("_total", out);
	else if (strcmp(fam->type, "info") == 0)
		fputs("_info", out);
}

/* {group="...",role="..."} of a series. */
static void put_series_labels(FILE *out, const struct mseries *s)
{
	fputs("{group=\"", out);
	put_value(out, s->group);
	fprintf(out, "\",role=\"%s\"}", metrics_role_name(s->role));
}

/* The family of a field's figure: cowtop_NAME per group and role, or
 * cowtop_process_NAME per process; name is its storage. */
static struct family field_family(const struct field *f, bool by_pid, char *name, size_t cap)
{
	snprintf(name, cap, "cowtop_%s%s", by_pid ? "process_" : "", f->metric);
	return (struct family){ name, f->counter ? "counter" : "gauge", f->unit == FIELD_KIB ? "bytes" : "pages",
				by_pid ? f->metric_pid_help : f->metric_help };
}

/* A figure's value in its family's unit: KiB are exported as bytes. */
static unsigned long long in_unit(const struct field *f, unsigned long long v)
{
	return f->unit == FIELD_KIB ? v * 1024 : v;
}

/* The samples of a family per group and role: v of each series, those
 * not known left out. */
static void put_series_samples(const struct metrics *m, FILE *out, const struct family *fam,
			       const unsigned long long *v, const bool *known)
{
	int s;

	for (s = 0; s < m->nseries; s++) {
		if (known && !known[s])
			continue;
		put_name(out, fam);
		put_series_labels(out, &m->series[s]);
		fprintf(out, " %llu\n", v[s]);
	}
}

/* The families of group and role series: the live members, the fields
 * that have a family, and the shared memory. */
static void put_groups(const struct metrics *m, enum metrics_format fmt, const struct macc *acc, FILE *out)
{
	static const struct family live = { "cowtop_processes", "gauge", NULL,
		"Live processes of the group in this role." };
	static const struct family shared = { "cowtop_shared_bytes", "gauge", "bytes",
		"Shared_Clean + Shared_Dirty (shared mappings included) summed over live members with a reading." };
	unsigned long long v[SERIES_MAX];
	bool known[SERIES_MAX];
	char name[128];
	int k, s;

	for (k = 0; k < FIELD_N; k++) {
		const struct field *f = &fields[k];
		struct family fam;

		if (!f->metric)
			continue;
		fam = field_family(f, false, name, sizeof(name));
		for (s = 0; s < m->nseries; s++) {
			v[s] = in_unit(f, acc[s].sum[k]);
			known[s] = f->source != FIELD_SMAPS || acc[s].read > 0;
		}
		put_head(out, fmt, &fam);
		put_series_samples(m, out, &fam, v, known);
	}
	put_head(out, fmt, &live);
	for (s = 0; s < m->nseries; s++)
		v[s] = acc[s].live;
	put_series_samples(m, out, &live, v, NULL);
	put_head(out, fmt, &shared);
	for (s = 0; s < m->nseries; s++) {
		v[s] = acc[s].shared * 1024;
		known[s] = acc[s].read > 0;
	}
	put_series_samples(m, out, &shared, v, known);
}

/* The name and labels of a sample of series s, with one more label
 * (key NULL: none); the value follows. */
static void put_labelled(FILE *out, const struct family *fam, const struct mseries *s,
			 const char *key, const char *val)
{
	put_name(out, fam);
	fputs("{group=\"", out);
	put_value(out, s->group);
	fprintf(out, "\",role=\"%s\"", metrics_role_name(s->role));
	if (key) {
		fprintf(out, ",%s=\"", key);
		put_value(out, val);
		fputc('"', out);
	}
	fputs("} ", out);
}

/* Sharing since fork: the two terms of SHR% per group and role, over the
 * live members with a reading and a known inheritance; and the age of the
 * oldest reading. Absent where no member has them. */
static void put_sharing(const struct metrics *m, enum metrics_format fmt, const struct macc *acc, FILE *out)
{
	static const struct family inh = { "cowtop_inherited_bytes", "gauge", "bytes",
		"Anonymous memory the live members inherited at fork (their parent's anonymous RSS then), "
		"over members with a reading whose fork cowtop saw." };
	static const struct family shr = { "cowtop_inherited_shared_bytes", "gauge", "bytes",
		"Of cowtop_inherited_bytes, what is still shared: min(inherited, Anonymous - Private_Dirty) per member. "
		"The ratio of the two is SHR%." };
	static const struct family age = { "cowtop_memory_reading_age_seconds", "gauge", "seconds",
		"Age of the oldest smaps_rollup reading of a live member: the memory figures are at most this old." };
	static const struct family fanon = { "cowtop_family_anon_bytes", "gauge", "bytes",
		"Anonymous memory present in the live members' private mappings, from pagemap, over members "
		"with a pagemap reading (the zero page and file pages left out)." };
	static const struct family fshr = { "cowtop_family_shared_bytes", "gauge", "bytes",
		"Of cowtop_family_anon_bytes, the pages another process maps too: still shared with the family "
		"(parent, siblings, children). The ratio of the two is FAM%; no fork seen by cowtop is needed." };
	int s;

	put_head(out, fmt, &fanon);
	for (s = 0; s < m->nseries; s++)
		if (acc[s].family_read) {
			put_labelled(out, &fanon, &m->series[s], NULL, NULL);
			fprintf(out, "%llu\n", acc[s].family_anon * 1024);
		}
	put_head(out, fmt, &fshr);
	for (s = 0; s < m->nseries; s++)
		if (acc[s].family_read) {
			put_labelled(out, &fshr, &m->series[s], NULL, NULL);
			fprintf(out, "%llu\n", acc[s].family_shared * 1024);
		}
	put_head(out, fmt, &inh);
	for (s = 0; s < m->nseries; s++)
		if (acc[s].fork_read) {
			put_labelled(out, &inh, &m->series[s], NULL, NULL);
			fprintf(out, "%llu\n", acc[s].inherited * 1024);
		}
	put_head(out, fmt, &shr);
	for (s = 0; s < m->nseries; s++)
		if (acc[s].fork_read) {
			put_labelled(out, &shr, &m->series[s], NULL, NULL);
			fprintf(out, "%llu\n", acc[s].inherited_shared * 1024);
		}
	put_head(out, fmt, &age);
	for (s = 0; s < m->nseries; s++)
		if (acc[s].read) {
			put_labelled(out, &age, &m->series[s], NULL, NULL);
			fprintf(out, "%.3f\n", acc[s].age);
		}
}

/* The label value of a region and of an exit cause. */
static const char *region_name(enum mregion r)
{
	static const char *const names[MREGIONS] = { [MREGION_HEAP] = "heap", [MREGION_STACK] = "stack",
						     [MREGION_ANON] = "anon", [MREGION_FILE] = "file" };

	return names[r];
}

static const char *cause_name(enum mcause c)
{
	static const char *const names[MCAUSES] = { "exit_zero", "exit_nonzero", "signal", "oom", "left",
						    "unknown" };

	return names[c];
}

/* Copies by region, forks, exits by cause and reclaim stalls per group and
 * role: every label value always, so that a rate is 0 rather than absent. */
static void put_more(const struct metrics *m, enum metrics_format fmt, const struct macc *acc, FILE *out)
{
	static const struct family region = { "cowtop_cow_region_pages", "counter", "pages",
		"Pages copied on write by where the page was: heap (brk), stack (main thread), anon (other private "
		"anonymous), file (private file mappings, all files); the rest of cowtop_cow_pages_total is not classified (yet)." };
	static const struct family forks = { "cowtop_forks", "counter", NULL,
		"Children forked by members since watched (a respawned worker is one fork of its parent)." };
	static const struct family exits = { "cowtop_exits", "counter", NULL,
		"Members that exited, by cause: exit_zero, exit_nonzero, signal, oom (chosen by the OOM killer), "
		"left (left the --cgroup), unknown." };
	static const struct family stalls = { "cowtop_reclaim_stalls", "counter", NULL,
		"Direct-reclaim stalls of the members' threads (allocations that waited for memory to be freed)." };
	static const struct family stall_s = { "cowtop_reclaim_stall_seconds", "counter", "seconds",
		"Time the members' threads spent stalled in direct reclaim." };
	int s, k;

	put_head(out, fmt, &region);
	for (s = 0; s < m->nseries; s++)
		for (k = MREGION_HEAP; k < MREGIONS; k++) {
			put_labelled(out, &region, &m->series[s], "region", region_name(k));
			fprintf(out, "%llu\n", acc[s].more.region[k]);
		}
	put_head(out, fmt, &forks);
	for (s = 0; s < m->nseries; s++) {
		put_labelled(out, &forks, &m->series[s], NULL, NULL);
		fprintf(out, "%llu\n", acc[s].more.forks);
	}
	put_head(out, fmt, &exits);
	for (s = 0; s < m->nseries; s++)
		for (k = 0; k < MCAUSES; k++) {
			put_labelled(out, &exits, &m->series[s], "cause", cause_name(k));
			fprintf(out, "%llu\n", acc[s].more.exits[k]);
		}
	put_head(out, fmt, &stalls);
	for (s = 0; s < m->nseries; s++) {
		put_labelled(out, &stalls, &m->series[s], NULL, NULL);
		fprintf(out, "%llu\n", acc[s].more.reclaims);
	}
	put_head(out, fmt, &stall_s);
	for (s = 0; s < m->nseries; s++) {
		put_labelled(out, &stall_s, &m->series[s], NULL, NULL);
		fprintf(out, "%.6f\n", acc[s].more.reclaim_s);
	}
}

/* MemAvailable, and per group how many more workers of the mean worker USS
 * it holds (workers: the child and grandchild roles, with a reading). */
static void put_headroom(const struct metrics *m, enum metrics_format fmt, const struct macc *acc, FILE *out)
{
	static const struct family avail = { "cowtop_memory_available_bytes", "gauge", "bytes",
		"MemAvailable of /proc/meminfo: memory available to new work without swapping." };
	static const struct family head = { "cowtop_headroom_workers", "gauge", NULL,
		"More workers of the group's mean worker USS that fit in MemAvailable; absent until that mean "
		"is settled (enough workers read, readings fresh)." };
	unsigned long long avail_kib = m->frame->mem_available_kib, uss, n, live, copying;
	double age;
	int s, t;

	if (!avail_kib)
		return;
	put_head(out, fmt, &avail);
	put_name(out, &avail);
	fprintf(out, " %llu\n", avail_kib * 1024);
	put_head(out, fmt, &head);
	for (s = 0; s < m->nseries; s++) {
		if (m->series[s].role != METRICS_PARENT)
			continue;
		for (uss = n = live = copying = 0, age = 0, t = 0; t < m->nseries; t++)
			if (m->series[t].role != METRICS_PARENT && strcmp(m->series[t].group, m->series[s].group) == 0) {
				uss += acc[t].sum[FIELD_USS];
				n += acc[t].read;
				live += acc[t].live;
				copying += acc[t].copying;
				age = acc[t].age > age ? acc[t].age : age;
			}
		/* the screen's rule (frame_group_settled), on the group's sums */
		if (!uss || !frame_group_settled(&(struct frame_group){ .workers = live, .workers_read = n,
									 .worker_age = age, .copying = copying }))
			continue;
		put_name(out, &head);
		fputs("{group=\"", out);
		put_value(out, m->series[s].group);
		fprintf(out, "\"} %llu\n", avail_kib / (uss / n ? uss / n : 1));
	}
}

/* Copies per USDT phase of each series (with -u only). */
static void put_phases(const struct metrics *m, enum metrics_format fmt, const struct macc *acc, FILE *out)
{
	static const struct family fam = { "cowtop_cow_phase_pages", "counter", "pages",
		"Pages copied on write during a runtime phase marked by USDT probes (-u)." };
	const struct frame *f = m->frame;
	int s, ph;

	if (!f->usdt)
		return;
	put_head(out, fmt, &fam);
	for (s = 0; s < m->nseries; s++)
		for (ph = 1; ph < frame_nlabels(f, SPLIT_PHASE) && ph < PHASE_MAX; ph++) {
			put_name(out, &fam);
			fputs("{group=\"", out);
			put_value(out, m->series[s].group);
			fprintf(out, "\",role=\"%s\",phase=\"", metrics_role_name(m->series[s].role));
			put_value(out, frame_phase_label(f, ph));
			fprintf(out, "\"} %llu\n", acc[s].phase[ph]);
		}
}

/* Copies by runtime and kind of write of each series (with --objects
 * only). Labels stay bounded: 3 runtimes x 8 kinds at most, and only the
 * pairs with copies. Object types are left out: they are the application's
 * class names, unbounded and chosen by the watched program. */
static void put_objects(const struct metrics *m, enum metrics_format fmt, const struct macc *acc,
			FILE *out)
{
	static const struct family fam = { "cowtop_cow_object_pages", "counter", "pages",
		"Pages copied on write by the runtime object part written (--objects; sampled copies scaled by the rate)." };
	int s, r, w;

	if (!m->frame->objects)
		return;
	put_head(out, fmt, &fam);
	for (s = 0; s < m->nseries; s++)
		for (r = OBJ_RT_UNKNOWN; r < OBJ_RUNTIMES; r++)
			for (w = 0; w < OBJ_WRITES; w++) {
				if (!acc[s].obj[r][w])
					continue;
				put_name(out, &fam);
				fputs("{group=\"", out);
				put_value(out, m->series[s].group);
				fprintf(out, "\",role=\"%s\",runtime=\"%s\",write=\"%s\"} %llu\n",
					metrics_role_name(m->series[s].role),
					runtime_name((enum obj_runtime)r), obj_write_name(w), acc[s].obj[r][w]);
			}
}

/* One sample of a process's series. */
static void put_pid_sample(FILE *out, const struct family *fam, const struct mseries *s,
			   const struct proc *p, unsigned long long v)
{
	char comm[PROC_COMM_MAX];

	plain_name(p->comm, sizeof(p->comm), comm, sizeof(comm));
	put_name(out, fam);
	fputs("{group=\"", out);
	put_value(out, s->group);
	fprintf(out, "\",role=\"%s\",pid=\"%d\",comm=\"", metrics_role_name(s->role), p->pid);
	put_value(out, comm);
	fprintf(out, "\"} %llu\n", v);
}

/* --metrics-by pid: the families of live processes. */
static void put_pids(const struct metrics *m, enum metrics_format fmt, FILE *out)
{
	char name[128];
	size_t i;
	int k;

	if (!m->o.by_pid)
		return;
	for (k = 0; k < FIELD_N; k++) {
		const struct field *f = &fields[k];
		struct family fam;

		if (!f->metric)
			continue;
		fam = field_family(f, true, name, sizeof(name));
		put_head(out, fmt, &fam);
		for (i = 0; i < m->ntrack; i++) {
			const struct proc *p = m->track[i].p;
			struct fval v = field_value((enum field_id)k, NULL, p);

			if (!p->exited && (f->source != FIELD_SMAPS || v.known))
				put_pid_sample(out, &fam, &m->series[m->track[i].series], p, in_unit(f, v.u));
		}
	}
}

/* --metrics-by pid: the two terms of SHR% of each live process that has
 * them. Gauges: they go with the process. */
static void put_pid_sharing(const struct metrics *m, enum metrics_format fmt, FILE *out)
{
	static const struct family fams[2] = {
		{ "cowtop_process_inherited_bytes", "gauge", "bytes",
		  "Anonymous memory a live process inherited at fork (with a reading, fork seen)." },
		{ "cowtop_process_inherited_shared_bytes", "gauge", "bytes",
		  "Of cowtop_process_inherited_bytes, what is still shared (SHR% = the ratio)." },
	};
	unsigned long long v[2];
	size_t i;
	int k;

	for (k = 0; k < 2; k++) {
		put_head(out, fmt, &fams[k]);
		for (i = 0; i < m->ntrack; i++) {
			const struct proc *p = m->track[i].p;

			if (!p->exited && sharing_of(p, &v[0], &v[1]))
				put_pid_sample(out, &fams[k], &m->series[m->track[i].series], p, v[k] * 1024);
		}
	}
}

/* cowtop's own families: build, cost, losses, the frame's time. */
static void put_self(const struct metrics *m, enum metrics_format fmt, FILE *out)
{
	static const struct family build = { "cowtop_build", "info", NULL,
		"cowtop's version, the copy detection mechanism and the fallbacks in use." };
	static const struct family cpu = { "cowtop_cpu_seconds", "counter", "seconds",
		"CPU time cowtop has used (user + system)." };
	static const struct family bpf = { "cowtop_bpf_run_seconds", "counter", "seconds",
		"Time the kernel spent running cowtop's BPF programs, counted only while kernel.bpf_stats_enabled=1." };
	static const struct family lost = { "cowtop_lost_records", "counter", NULL,
		"Records and counts the kernel side could not keep, by kind; non-zero means some figures are short." };
	static const struct family ts = { "cowtop_frame_timestamp_seconds", "gauge", "seconds",
		"Unix time of the frame these figures come from." };
	const struct frame *f = m->frame;
	int k;

	put_head(out, fmt, &build);
	put_name(out, &build);
	fputs("{version=\"", out);
	put_value(out, m->version);
	fputs("\",mechanism=\"", out);
	put_value(out, f->mechanism);
	fputs("\",fallbacks=\"", out);
	put_value(out, f->fallbacks);
	fputs("\"} 1\n", out);
	put_head(out, fmt, &cpu);
	put_name(out, &cpu);
	fprintf(out, " %.6f\n", f->cpu_seconds);
	if (f->bpf_stats) {
		put_head(out, fmt, &bpf);
		put_name(out, &bpf);
		fprintf(out, " %.9f\n", f->bpf_run_seconds);
	}
	put_head(out, fmt, &lost);
	for (k = 0; k < LOST_KINDS; k++) {
		put_name(out, &lost);
		fprintf(out, "{kind=\"%s\"} %llu\n", frame_lost_kind_name(k), f->lost_by_kind[k]);
	}
	put_head(out, fmt, &ts);
	put_name(out, &ts);
	fprintf(out, " %.3f\n", f->time);
}

/* The text of the last frame (see metrics.h). */
int metrics__render(const struct metrics *m, enum metrics_format fmt, FILE *out)
{
	struct macc *acc;

	if (!m->frame)
		return -ENODATA;
	acc = accumulate(m);
	if (!acc)
		return -ENOMEM;
	put_self(m, fmt, out);
	put_groups(m, fmt, acc, out);
	put_sharing(m, fmt, acc, out);
	put_more(m, fmt, acc, out);
	put_headroom(m, fmt, acc, out);
	put_phases(m, fmt, acc, out);
	put_objects(m, fmt, acc, out);
	put_pids(m, fmt, out);
	if (m->o.by_pid)
		put_pid_sharing(m, fmt, out);
	if (fmt == METRICS_OPENMETRICS)
		fputs("# EOF\n", out);
	free(acc);
	return 0;
}

/* The HTTP content type of a format. */
const char *metrics_content_type(enum metrics_format fmt)
{
	return fmt == METRICS_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
					  : "text/plain; version=0.0.4; charset=utf-8";
}

/* OpenMetrics when the client accepts it at all (Prometheus lists it first
 * with a higher q when it wants it); the classic text format otherwise. */
enum metrics_format metrics_format_of(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text") ? METRICS_OPENMETRICS
									 : METRICS_PROMETHEUS;
}
