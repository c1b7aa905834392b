/* --diff A B. Each recording is read frame by frame (never whole) into one
 * summary per process: its copies at the end and by 1, 10 and 60 s after
 * its fork (interpolated between frames; the fork time is its start time
 * when the header gives the boot time, else when it was first seen), its
 * shared% at those ages, its copies by kind of write (recorded with
 * --objects), its copies per phase, its peak RSS and USS. A
 * process's role is its name and depth in the tree (the root is depth 0);
 * the processes of a role in A and in B are matched in fork order, and for
 * each figure the medians of A and B and the median and range of the B/A
 * ratios of the matched pairs are shown: eight workers a side give a spread,
 * not one noisy number. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "json.h"
#include "recording.h"
#include "text.h"

#define NAGES 3
static const double ages[NAGES] = { 1, 10, 60 };

/* What one process did over the recording. */
struct dproc {
	int pid, depth;
	unsigned long long start;
	char comm[PROC_COMM_MAX];
	double fork, last_age;            /* unix s; age at the last frame */
	unsigned long long prev_cow, cow;
	double cow_at[NAGES], shared_at[NAGES]; /* NAN unknown */
	unsigned long long peak_rss, peak_uss;
	bool exited;
	unsigned long long phase[SPLIT_SLOTS];
	bool has_obj;                     /* recorded with --objects and sampled */
	unsigned long long obj[OBJ_WRITES]; /* copies by kind of write (cow_objects) */
};

/* A recording summed up. */
struct side {
	const char *path;
	struct recording *rec;           /* while it is read */
	struct recording_info info;
	size_t frames;
	struct dproc *p;
	size_t n, cap, hint;
	char phases[SPLIT_SLOTS][LABEL_MAX];
	int nphases;
};

/* One figure compared. */
struct figure {
	char name[LABEL_MAX + 16];
	double a_med, b_med, r_med, r_min, r_max; /* NAN unknown */
	size_t pairs;
	bool optional; /* left out when neither side has any */
};

/* The summary of (pid, start), made when new; NULL out of memory. */
static struct dproc *find(struct side *s, const struct proc *p, int depth, double first_seen)
{
	const struct recording_info *in = &s->info;
	struct dproc *d;
	size_t i, k;

	for (k = 0; k < s->n; k++) {
		i = (s->hint + k) % s->n;
		if (s->p[i].pid == p->pid && s->p[i].start == p->start_time) {
			s->hint = i + 1;
			return &s->p[i];
		}
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		void *q = realloc(s->p, cap * sizeof(*s->p));

		if (!q)
			return NULL;
		s->p = q;
		s->cap = cap;
	}
	d = &s->p[s->n++];
	*d = (struct dproc){ .pid = p->pid, .depth = depth, .start = p->start_time };
	memcpy(d->comm, p->comm, sizeof(d->comm));
	d->fork = in->btime > 0 && in->clk_tck > 0 ? in->btime + (double)p->start_time / (double)in->clk_tck
						    : first_seen;
	for (i = 0; i < NAGES; i++)
		d->cow_at[i] = d->shared_at[i] = NAN;
	return d;
}

/* Take one frame's values of a process: copies by each age (interpolated
 * from the frame before), shared% at each age, peaks, phases. */
static void take(struct side *s, struct dproc *d, const struct frame *f, const struct proc *p)
{
	double age = f->time - d->fork, pct = proc_shared_pct(p);
	const struct objects_proc *op;
	int i;

	for (i = 0; i < NAGES; i++) {
		if (age >= ages[i] && isnan(d->cow_at[i])) {
			double span = age - d->last_age, grew = (double)p->counts.cow - (double)d->prev_cow;

			d->cow_at[i] = (double)p->counts.cow;
			if (span > 0)
				d->cow_at[i] = (double)d->prev_cow + grew * (ages[i] - d->last_age) / span;
		}
		if (age >= ages[i] && isnan(d->shared_at[i]) && pct >= 0)
			d->shared_at[i] = pct;
	}
	d->last_age = age;
	d->prev_cow = d->cow = p->counts.cow;
	d->exited = p->exited;
	if (p->rss_kib > d->peak_rss)
		d->peak_rss = p->rss_kib;
	if (p->smaps_time && proc_uss_kib(p) > d->peak_uss)
		d->peak_uss = proc_uss_kib(p);
	op = objects_snap__of(f->objects, p->pid, p->start_time);
	if (op) {
		d->has_obj = true;
		memcpy(d->obj, op->by_write, sizeof(d->obj));
	}
	for (i = 1; i < frame_nlabels(f, SPLIT_PHASE) && i < SPLIT_SLOTS; i++) {
		d->phase[i] = p->split[SPLIT_PHASE].v[i];
		snprintf(s->phases[i], LABEL_MAX, "%s", frame_label(f, SPLIT_PHASE, i));
		if (i >= s->nphases)
			s->nphases = i + 1;
	}
}

/* Read every frame of a side into its summaries. */
static int read_side(struct side *s, char *err, size_t errlen)
{
	static const struct view_opts vo = { .sort = FIELD_PID, .tree = true };
	size_t k, i, n;
	struct frame *f;
	int e = recording__open(&s->rec, s->path, err, errlen);

	if (e)
		return e;
	if (recording__warning(s->rec)[0])
		fprintf(stderr, "cowtop: warning: %s\n", recording__warning(s->rec));
	s->info = *recording__info(s->rec);
	n = s->frames = recording__frames(s->rec);
	for (k = 0; k < n; k++) {
		e = recording__frame(s->rec, k, &vo, &f, err, errlen);
		if (e)
			return e;
		for (i = 0; i < f->nrows; i++) {
			const struct proc *p = f->rows[i].p;
			struct dproc *d = find(s, p, f->rows[i].depth, f->time - f->interval);

			if (!d) {
				frame__free(f);
				snprintf(err, errlen, "%s", strerror(ENOMEM));
				return -ENOMEM;
			}
			take(s, d, f, p);
		}
		frame__free(f);
	}
	/* let its histories and buffers go before the other side is read */
	recording__free(s->rec);
	s->rec = NULL;
	/* an exited process copies no more: its copies by a later age are its last */
	for (i = 0; i < s->n; i++)
		for (k = 0; k < NAGES; k++)
			if (isnan(s->p[i].cow_at[k]) && s->p[i].exited)
				s->p[i].cow_at[k] = (double)s->p[i].cow;
	return 0;
}

/* Fork order: start time, then pid. */
static int by_fork(const void *x, const void *y)
{
	const struct dproc *a = *(const struct dproc *const *)x, *b = *(const struct dproc *const *)y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* The processes of role (comm, depth) in fork order; returns how many. */
static size_t members(const struct side *s, const char *comm, int depth, const struct dproc **out)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		if (s->p[i].depth == depth && strcmp(s->p[i].comm, comm) == 0)
			out[n++] = &s->p[i];
	qsort(out, n, sizeof(*out), by_fork);
	return n;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median of the n known values of v (sorted in place); NAN for none. */
static double median(double *v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[k++] = v[i];
	if (!k)
		return NAN;
	qsort(v, k, sizeof(*v), by_value);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* The value of figure i of a process (see figure_name); NAN unknown. */
static double value(const struct dproc *d, int i)
{
	if (i == 0)
		return (double)d->cow;
	if (i <= NAGES)
		return d->cow_at[i - 1] / ages[i - 1];
	if (i <= 2 * NAGES)
		return d->shared_at[i - 1 - NAGES];
	if (i == 2 * NAGES + 1)
		return d->peak_rss ? (double)d->peak_rss : NAN;
	if (i == 2 * NAGES + 2)
		return d->peak_uss ? (double)d->peak_uss : NAN;
	if (i < 2 * NAGES + 3 + OBJ_WRITES)
		return d->has_obj ? (double)d->obj[i - 2 * NAGES - 3] : NAN;
	return (double)d->phase[i - 2 * NAGES - 2 - OBJ_WRITES];
}

#define FIXED_FIGURES (2 * NAGES + 3)
#define OBJ_FIGURES (FIXED_FIGURES + OBJ_WRITES) /* the figures before the phases' */

/* The name of figure i. */
static void figure_name(const struct side *a, int i, char *buf, size_t cap)
{
	static const char *const fixed[FIXED_FIGURES] = {
		"copies", "cow/s 0-1s", "cow/s 0-10s", "cow/s 0-60s",
		"shared% at 1s", "shared% at 10s", "shared% at 60s", "peak RSS KiB", "peak USS KiB",
	};

	if (i < FIXED_FIGURES)
		snprintf(buf, cap, "%s", fixed[i]);
	else if (i < OBJ_FIGURES)
		snprintf(buf, cap, "objects: %s writes", obj_write_name(i - FIXED_FIGURES));
	else
		snprintf(buf, cap, "copies in %s", a->phases[i - OBJ_FIGURES + 1]);
}

/* Compare figure i over n matched pairs (and all members of each side). */
static void compare(const struct dproc **pa, size_t na, const struct dproc **pb, size_t nb, int i,
		    struct figure *fg)
{
	size_t n = na < nb ? na : nb, k, m = 0;
	double *va = calloc(na + 1, sizeof(double)), *vb = calloc(nb + 1, sizeof(double));
	double *r = calloc(n + 1, sizeof(double));

	fg->a_med = fg->b_med = fg->r_med = fg->r_min = fg->r_max = NAN;
	fg->pairs = 0;
	if (!va || !vb || !r)
		goto out;
	for (k = 0; k < na; k++)
		va[k] = value(pa[k], i);
	for (k = 0; k < nb; k++)
		vb[k] = value(pb[k], i);
	for (k = 0; k < n; k++) {
		double x = value(pa[k], i), y = value(pb[k], i);

		if (isnan(x) || isnan(y) || x == 0)
			continue; /* no ratio: 0 vs 0 is no change, but no "1" either */
		r[m] = y / x;
		if (m == 0 || r[m] < fg->r_min)
			fg->r_min = r[m];
		if (m == 0 || r[m] > fg->r_max)
			fg->r_max = r[m];
		m++;
	}
	fg->pairs = m;
	fg->a_med = median(va, na);
	fg->b_med = median(vb, nb);
	fg->r_med = median(r, m);
out:
	free(va);
	free(vb);
	free(r);
}

/* A number for the table, "-" when unknown. */
static const char *num(double v, char *buf, size_t cap)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else if (fabs(v) >= 100 || v == floor(v))
		snprintf(buf, cap, "%.0f", v);
	else if (fabs(v) < 0.1)
		snprintf(buf, cap, "%.2g", v); /* a small ratio keeps its digits */
	else
		snprintf(buf, cap, "%.2f", v);
	return buf;
}

/* A number for JSON, null when unknown. */
static void jnum(FILE *f, const char *name, double v, bool comma)
{
	if (isnan(v))
		fprintf(f, "%s\"%s\":null", comma ? "," : "", name);
	else
		fprintf(f, "%s\"%s\":%.4g", comma ? "," : "", name, v);
}

/* A side's line at the top of the text. */
static void text_side(FILE *f, const char *which, const struct side *s)
{
	const struct recording_info *in = &s->info;
	char safe[1024], host[1024];

	/* a recording is outside text: no escape sequence reaches the terminal */
	text_sanitize_ascii(s->path, strlen(s->path), safe, sizeof(safe));
	text_sanitize_ascii(in->host, strlen(in->host), host, sizeof(host));
	fprintf(f, "%s: %s (host %s, %zu frames, %zu processes)\n", which, safe, host,
		s->frames, s->n);
}

/* Whether a figure is left out: nothing known, or an optional one that
 * neither side has. */
static bool skipped(const struct figure *fg)
{
	return (isnan(fg->a_med) && isnan(fg->b_med)) ||
	       (fg->optional && !(fg->a_med > 0) && !(fg->b_med > 0));
}

/* One role in text: who was matched, then a line per figure. */
static void text_role(FILE *f, const char *comm, int depth, size_t na, size_t nb, const struct figure *fg,
		      int nfig)
{
	char name[4 * PROC_COMM_MAX + 1], a[32], b[32], m[32], lo[32], hi[32];
	int i;

	text_sanitize_ascii(comm, strlen(comm), name, sizeof(name));
	fprintf(f, "\nrole %s %s: %zu in A, %zu in B, %zu matched by fork order\n", depth ? "child" : "root",
		name, na, nb, na < nb ? na : nb);
	if (depth > 1)
		fprintf(f, "  (depth %d in the tree)\n", depth);
	fprintf(f, "  %-28s %12s %12s %10s %19s\n", "figure (per process)", "A median", "B median", "B/A med",
		"B/A range");
	for (i = 0; i < nfig; i++) {
		char range[64];

		if (skipped(&fg[i]))
			continue;
		snprintf(range, sizeof(range), "%s..%s", num(fg[i].r_min, lo, sizeof(lo)),
			 num(fg[i].r_max, hi, sizeof(hi)));
		fprintf(f, "  %-28s %12s %12s %10s %19s\n", fg[i].name, num(fg[i].a_med, a, sizeof(a)),
			num(fg[i].b_med, b, sizeof(b)), num(fg[i].r_med, m, sizeof(m)),
			fg[i].pairs ? range : "-");
	}
}

/* One role in JSON. */
static void json_role(FILE *f, bool first, const char *comm, int depth, size_t na, size_t nb,
		      const struct figure *fg, int nfig)
{
	int i, k;

	fprintf(f, "%s{\"role\":\"%s\",\"comm\":", first ? "" : ",", depth ? "child" : "root");
	json_string(f, comm, strlen(comm));
	fprintf(f, ",\"depth\":%d,\"a\":%zu,\"b\":%zu,\"matched\":%zu,\"figures\":[", depth, na, nb,
		na < nb ? na : nb);
	for (i = 0, k = 0; i < nfig; i++) {
		if (fg[i].optional && skipped(&fg[i]))
			continue;
		fprintf(f, "%s{\"name\":", k++ ? "," : "");
		json_string(f, fg[i].name, strlen(fg[i].name));
		jnum(f, "a_median", fg[i].a_med, true);
		jnum(f, "b_median", fg[i].b_med, true);
		jnum(f, "ratio_median", fg[i].r_med, true);
		jnum(f, "ratio_min", fg[i].r_min, true);
		jnum(f, "ratio_max", fg[i].r_max, true);
		fprintf(f, ",\"pairs\":%zu}", fg[i].pairs);
	}
	fputs("]}", f);
}

/* Whether role (comm, depth) was already met among a's first k processes. */
static bool seen_before(const struct side *a, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (a->p[i].depth == a->p[k].depth && strcmp(a->p[i].comm, a->p[k].comm) == 0)
			return true;
	return false;
}

/* Compare every role of A that B has too; returns how many. */
static size_t compare_roles(FILE *f, bool json, struct side *a, struct side *b)
{
	const struct dproc **pa = calloc(a->n + 1, sizeof(*pa)), **pb = calloc(b->n + 1, sizeof(*pb));
	struct figure fg[OBJ_FIGURES + SPLIT_SLOTS];
	int nfig = OBJ_FIGURES + (a->nphases > 1 ? a->nphases - 1 : 0), i;
	size_t k, na, nb, roles = 0;

	for (k = 0; pa && pb && k < a->n; k++) {
		if (seen_before(a, k))
			continue;
		na = members(a, a->p[k].comm, a->p[k].depth, pa);
		nb = members(b, a->p[k].comm, a->p[k].depth, pb);
		if (!nb)
			continue;
		for (i = 0; i < nfig; i++) {
			compare(pa, na, pb, nb, i, &fg[i]);
			fg[i].optional = i >= FIXED_FIGURES && i < OBJ_FIGURES;
			figure_name(a, i, fg[i].name, sizeof(fg[i].name));
		}
		if (json)
			json_role(f, roles == 0, a->p[k].comm, a->p[k].depth, na, nb, fg, nfig);
		else
			text_role(f, a->p[k].comm, a->p[k].depth, na, nb, fg, nfig);
		roles++;
	}
	free(pa);
	free(pb);
	return roles;
}

/* The names of a side's roots, for the message when nothing matches. */
static void roots(const struct side *s, char *buf, size_t cap)
{
	char name[4 * PROC_COMM_MAX + 1];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < s->n && len + 1 < cap; i++) {
		if (s->p[i].depth)
			continue;
		text_sanitize_ascii(s->p[i].comm, strnlen(s->p[i].comm, PROC_COMM_MAX), name, sizeof(name));
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", name);
	}
	if (!buf[0])
		snprintf(buf, cap, "none");
}

/* The comparison, in text or JSON, in memory; NULL when nothing matched. */
static char *report(struct side *a, struct side *b, bool json, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	size_t roles;

	if (!f)
		return NULL;
	if (json) {
		fputs("{\"a\":", f);
		json_string(f, a->path, strlen(a->path));
		fputs(",\"b\":", f);
		json_string(f, b->path, strlen(b->path));
		fputs(",\"roles\":[", f);
	} else {
		text_side(f, "A", a);
		text_side(f, "B", b);
	}
	roles = compare_roles(f, json, a, b);
	if (json)
		fputs("]}\n", f);
	if (fclose(f) || !roles) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* --diff A B; returns the exit status. */
int diff_run(const struct options *opt)
{
	struct side a = { .path = opt->diff[0] }, b = { .path = opt->diff[1] };
	char err[1024], ra[256], rb[256];
	int status = 1;
	size_t len;
	char *out = NULL;

	if (read_side(&a, err, sizeof(err)) || read_side(&b, err, sizeof(err))) {
		fprintf(stderr, "cowtop: %s\n", err);
		goto done;
	}
	out = report(&a, &b, opt->format == FORMAT_JSON, &len);
	if (!out) {
		roots(&a, ra, sizeof(ra));
		roots(&b, rb, sizeof(rb));
		fprintf(stderr, "cowtop: --diff found nothing to match: A's roots are %s, B's are %s "
			"(no process with the same name at the same depth)\n", ra, rb);
		goto done;
	}
	fwrite(out, 1, len, stdout);
	status = 0;
done:
	free(out);
	recording__free(a.rec);
	recording__free(b.rec);
	free(a.p);
	free(b.p);
	return status;
}
