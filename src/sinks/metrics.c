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

/* One group and role: the counts of its members that left the frames. */
struct mseries {
	char group[GROUP_MAX];
	enum metrics_role role;
	unsigned long long folded[FIELD_N]; /* the counter figures of members gone */
	unsigned long long folded_phase[PHASE_MAX];
	unsigned long long folded_obj[OBJ_RUNTIMES][OBJ_WRITES]; /* --objects */
};

/* A process of the last frame: its series and its last counts. */
struct mtrack {
	int pid;
	unsigned long long start;
	int series;
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
	unsigned long long obj[OBJ_RUNTIMES][OBJ_WRITES]; /* sampled copies by runtime, write kind */
	unsigned long long shared;        /* KiB, live members */
	unsigned live, read;              /* live members, those with a smaps reading */
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

/* Add a process's counts (sn: its frame's objects) to a series' folded counts. */
static void fold(struct mseries *s, const struct proc *p, const struct objects_snap *sn)
{
	int i;

	add_objects(s->folded_obj, sn, p);
	for (i = 0; i < FIELD_N; i++)
		if (fields[i].metric && fields[i].counter)
			s->folded[i] += field_value((enum field_id)i, NULL, p).u;
	for (i = 1; i < PHASE_MAX; i++)
		s->folded_phase[i] += p->split[SPLIT_PHASE].v[i];
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

		t[i] = (struct mtrack){ .pid = p->pid, .start = p->start_time, .p = p };
		t[i].series = old ? old->series : place(m, &rows[i], up);
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
			fold(&m->series[m->track[i].series], m->track[i].p,
			     m->frame ? m->frame->objects : NULL);
	free(m->track);
	m->track = t;
	m->ntrack = n;
	frame__free(m->frame);
	m->frame = frame__hold(f);
	return 0;
}

/* Add a member of the frame (sn: its objects) to its series' sums. */
static void add_member(struct macc *a, const struct proc *p, const struct objects_snap *sn)
{
	int i;

	add_objects(a->obj, sn, p);
	for (i = 0; i < FIELD_N; i++)
		if (fields[i].metric && fields[i].counter)
			a->sum[i] += field_value((enum field_id)i, NULL, p).u;
	for (i = 1; i < PHASE_MAX; i++)
		a->phase[i] += p->split[SPLIT_PHASE].v[i];
	if (p->exited)
		return;
	a->live++;
	for (i = 0; i < FIELD_N; i++)
		if (fields[i].metric && !fields[i].counter && (fields[i].source != FIELD_SMAPS || p->smaps_time))
			a->sum[i] += field_value((enum field_id)i, NULL, p).u;
	if (!p->smaps_time)
		return;
	a->read++;
	a->shared += p->smaps.shared_clean + p->smaps.shared_dirty;
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
		memcpy(acc[s].obj, m->series[s].folded_obj, sizeof(acc[s].obj));
	}
	for (i = 0; i < m->ntrack; i++)
		add_member(&acc[m->track[i].series], m->track[i].p, m->frame->objects);
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
	put_phases(m, fmt, acc, out);
	put_objects(m, fmt, acc, out);
	put_pids(m, fmt, out);
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
