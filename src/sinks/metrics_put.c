/* The text of a scrape (see metrics.h): each family's header and samples,
 * from the sums metrics.c keeps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fields.h"
#include "metrics.h"
#include "metrics_int.h"
#include "runtime.h"

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

/* With --stacks (once turned on): the captures lost, by reason, and how
 * many of the kernel's stack ids the counters hold. */
static void put_stacks(const struct metrics *m, enum metrics_format fmt, FILE *out)
{
	static const struct family failed = { "cowtop_stack_capture_failures", "counter", NULL,
		"Stack captures lost (--stacks), by reason: collision (no room for a new stack in the kernel's "
		"stack map: grows as it fills), walk (the user stack could not be walked), uncounted (no room "
		"for its process and stack counter)." };
	static const struct family used = { "cowtop_stack_ids", "gauge", NULL,
		"Ids the kernel's stack map holds after the last read (--stacks)." };
	static const struct family limit = { "cowtop_stack_ids_limit", "gauge", NULL,
		"Ids the kernel's stack map has (--stacks)." };
	static const char *const reasons[3] = { "collision", "walk", "uncounted" };
	const struct stacks_snap *sn = m->frame->stacks;
	unsigned long long n[3];
	int i;

	if (!sn)
		return;
	n[0] = sn->capture.collided;
	n[1] = sn->capture.unwalked;
	n[2] = sn->capture.uncounted;
	put_head(out, fmt, &failed);
	for (i = 0; i < 3; i++) {
		put_name(out, &failed);
		fprintf(out, "{reason=\"%s\"} %llu\n", reasons[i], n[i]);
	}
	if (!sn->capture.ids)
		return;
	put_head(out, fmt, &used);
	put_name(out, &used);
	fprintf(out, " %u\n", sn->capture.ids_used);
	put_head(out, fmt, &limit);
	put_name(out, &limit);
	fprintf(out, " %u\n", sn->capture.ids);
}

/* One sample of a process's series. */
static void put_pid_sample(FILE *out, const struct family *fam, const struct mseries *s,
			   const struct proc *p, unsigned long long v)
{
	char comm[PROC_COMM_MAX];

	metrics_plain_name(p->comm, sizeof(p->comm), comm, sizeof(comm));
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

			if (!p->exited && metrics_sharing_of(p, &v[0], &v[1]))
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
	acc = metrics__accumulate(m);
	if (!acc)
		return -ENOMEM;
	put_self(m, fmt, out);
	put_groups(m, fmt, acc, out);
	put_sharing(m, fmt, acc, out);
	put_more(m, fmt, acc, out);
	put_headroom(m, fmt, acc, out);
	put_phases(m, fmt, acc, out);
	put_objects(m, fmt, acc, out);
	put_stacks(m, fmt, out);
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
