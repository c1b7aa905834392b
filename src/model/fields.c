/* The field table (see fields.h): one row per per-process figure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fields.h"
#include "frame.h"

/* A whole-number figure held in one member of a process: its getter (known
 * when known is) and its setter. */
#define U64_FIGURE(name, MEMBER, KNOWN)                                                    \
	static void get_##name(const struct frame *fr, const struct proc *p, struct fval *v) \
	{                                                                                     \
		(void)fr;                                                                     \
		v->known = (KNOWN);                                                           \
		v->u = (MEMBER);                                                              \
	}                                                                                     \
	static void set_##name(struct proc *p, const struct fval *v, double time)          \
	{                                                                                     \
		(void)time;                                                                   \
		(MEMBER) = v->u;                                                              \
	}

U64_FIGURE(cow, p->counts.cow, true)
U64_FIGURE(cow_kernel, p->counts.cow_kernel, true)
U64_FIGURE(reuse, p->counts.reuse, true)
U64_FIGURE(zero_fill, p->counts.zero_fill, true)
U64_FIGURE(vsz, p->vsz_kib, proc_mem_known(p))
U64_FIGURE(pte, p->smaps.pte, p->smaps_time != 0)
U64_FIGURE(pss_anon, p->smaps.pss_anon, p->smaps_time != 0)
U64_FIGURE(shared_clean, p->smaps.shared_clean, p->smaps_time != 0)
U64_FIGURE(shared_dirty, p->smaps.shared_dirty, p->smaps_time != 0)
U64_FIGURE(private_dirty, p->smaps.private_dirty, p->smaps_time != 0)
U64_FIGURE(anon, p->smaps.anon, p->smaps_time != 0)
U64_FIGURE(swap, p->smaps.swap, p->smaps_time != 0)

/* RSS; a recording's null RSS means /proc was never read for the process:
 * RSS and VSZ unknown, not 0. */
static void get_rss(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->known = proc_mem_known(p);
	v->u = p->rss_kib;
}

static void set_rss(struct proc *p, const struct fval *v, double time)
{
	(void)time;
	p->rss_kib = v->u;
	if (!v->known)
		p->state = 0;
}

/* PSS: the first figure of a smaps reading (gate: null, none was read). */
static void get_pss(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->known = p->smaps_time != 0;
	v->u = p->smaps.pss;
}

static void set_pss(struct proc *p, const struct fval *v, double time)
{
	(void)time;
	p->smaps.pss = v->u;
}

/* USS: private clean + private dirty; put back once private dirty is. */
static void get_uss(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->known = p->smaps_time != 0;
	v->u = proc_uss_kib(p);
}

static void set_uss(struct proc *p, const struct fval *v, double time)
{
	(void)time;
	p->smaps.private_clean = v->u > p->smaps.private_dirty ? v->u - p->smaps.private_dirty : 0;
}

/* Copies per second over the last interval. */
static void get_cow_rate(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->known = true;
	v->d = p->cow_rate;
}

static void set_cow_rate(struct proc *p, const struct fval *v, double time)
{
	(void)time;
	p->cow_rate = v->known ? v->d : 0;
}

/* The age of the smaps reading at the frame's time. */
static void get_smaps_age(const struct frame *fr, const struct proc *p, struct fval *v)
{
	v->d = fr ? frame_smaps_age(fr, p) : -1;
	v->known = v->d >= 0;
}

static void set_smaps_age(struct proc *p, const struct fval *v, double time)
{
	double age = v->known ? v->d : 0;

	p->smaps_time = time - age > 0 ? time - age : 1e-9;
}

/* The anonymous memory inherited at fork; negative: unknown. */
static void get_inherited(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->known = p->inherited_kib >= 0;
	v->u = (unsigned long long)p->inherited_kib;
}

static void set_inherited(struct proc *p, const struct fval *v, double time)
{
	(void)time;
	p->inherited_kib = v->known ? (long long)v->u : -1;
}

/* Shared%: derived from anon, private dirty and inherited. */
static void get_shared(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->d = proc_shared_pct(p);
	v->known = v->d >= 0;
}

/* The family reading (pagemap): its two sizes, known when it was read. */
static void get_family_shared(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->known = p->family_time != 0;
	v->u = p->family.shared_kib;
}

static void set_family_shared(struct proc *p, const struct fval *v, double time)
{
	(void)time;
	p->family.shared_kib = v->u;
}

static void get_family_anon(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->known = p->family_time != 0;
	v->u = p->family.anon_kib;
}

static void set_family_anon(struct proc *p, const struct fval *v, double time)
{
	(void)time;
	p->family.anon_kib = v->u;
}

/* FAM%: derived from the two sizes. */
static void get_family(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->d = proc_family_pct(p);
	v->known = v->d >= 0;
}

/* The age of the family reading at the frame's time; null: none, and the
 * sizes put back before it are dropped. */
static void get_family_age(const struct frame *fr, const struct proc *p, struct fval *v)
{
	v->known = fr && p->family_time;
	v->d = v->known ? (fr->time > p->family_time ? fr->time - p->family_time : 0) : -1;
}

static void set_family_age(struct proc *p, const struct fval *v, double time)
{
	struct family_mem fam = p->family;

	if (!v->known) {
		model__family_unknown(p, FAMILY_UNREAD);
		return;
	}
	model__set_family(p, &fam, time - v->d > 0 ? time - v->d : 1e-9);
}

/* Pages copied since the memory reading: how far it may be behind (the
 * settled rule of headroom reads it); put back after the copies. */
static void get_cow_since_reading(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->known = p->smaps_time != 0;
	v->u = p->counts.cow > p->smaps_cow ? p->counts.cow - p->smaps_cow : 0;
}

static void set_cow_since_reading(struct proc *p, const struct fval *v, double time)
{
	(void)time;
	p->smaps_cow = p->counts.cow > v->u ? p->counts.cow - v->u : 0;
}

/* The sort value of the identities (the tree sorts them itself). */
static void get_pid(const struct frame *fr, const struct proc *p, struct fval *v)
{
	(void)fr;
	v->known = true;
	v->u = (unsigned long long)p->pid;
}

const struct field fields[FIELD_N] = {
	[FIELD_PID] = {
		.type = FIELD_IDENTITY, .source = FIELD_KERNEL, .title = "PID", .width = 7, .column = 1,
		.desc = "process id; tree lines show which process forked which",
		.sort_name = "pid", .sort_key = "N", .sort_help = "sort by PID", .order = FIELD_ASC,
		.get = get_pid,
	},
	[FIELD_STATE] = {
		.type = FIELD_IDENTITY, .source = FIELD_STAT, .title = "S", .width = 1, .column = 2, .drop = 6, .left = true,
		.desc = "state: R running, S sleeping, D disk wait, Z zombie, X exited, L left the --cgroup",
	},
	[FIELD_COMM] = {
		.type = FIELD_IDENTITY, .source = FIELD_KERNEL, .title = "COMMAND",
		.desc = "the process name (p: its command line), with the tree lines of\n"
			"its ancestry; kernel threads are hidden until K",
		.sort_name = "comm", .sort_key = "A", .sort_help = "sort by command name", .order = FIELD_ASC,
	},
	[FIELD_COW] = {
		.type = FIELD_U64, .json = "cow_pages", .source = FIELD_KERNEL, .unit = FIELD_PAGES,
		.title = "COW", .title_bytes = "COW B", .width = 7, .column = 4, .drop = 2,
		.desc = "pages copied on write since cowtop began watching the process",
		.sort_name = "cow", .sort_key = "T", .sort_help = "sort by COW, total copies",
		.metric = "cow_pages", .counter = true,
		.metric_help = "Pages copied on write because they were shared (sharing lost), 4 KiB base pages; "
			       "exited members included.",
		.metric_pid_help = "Pages copied on write by a live process.",
		.get = get_cow, .set = set_cow,
	},
	[FIELD_COW_RATE] = {
		.type = FIELD_REAL, .json = "cow_rate", .decimals = 1, .source = FIELD_KERNEL,
		.unit = FIELD_PER_SEC, .title = "CoW/s", .title_bytes = "CoW B/s", .width = 7, .column = 3,
		.drop = 1,
		.desc = "pages copied on write per second over the last interval (after b:\n"
			"CoW B/s, bytes per second, and COW B in bytes; K M G are KiB MiB GiB)",
		.sort_name = "cow-rate", .sort_key = "C", .sort_help = "sort by CoW/s, copies per second (default)",
		.get = get_cow_rate, .set = set_cow_rate,
	},
	[FIELD_COW_KERNEL] = {
		.type = FIELD_U64, .json = "cow_kernel", .source = FIELD_KERNEL, .unit = FIELD_PAGES,
		.get = get_cow_kernel, .set = set_cow_kernel,
	},
	[FIELD_REUSE] = {
		.type = FIELD_U64, .json = "reuse", .source = FIELD_KERNEL, .unit = FIELD_PAGES,
		.metric = "reuse_pages", .counter = true,
		.metric_help = "Write-protect faults resolved without a copy, pages; exited members included.",
		.metric_pid_help = "Write-protect faults of a live process resolved without a copy, pages.",
		.get = get_reuse, .set = set_reuse,
	},
	[FIELD_ZERO_FILL] = {
		.type = FIELD_U64, .json = "zero_fill", .source = FIELD_KERNEL, .unit = FIELD_PAGES,
		.metric = "zero_fill_pages", .counter = true,
		.metric_help = "Writes that replaced the shared zero page (no sharing lost), pages; "
			       "exited members included.",
		.metric_pid_help = "Zero-page fills of a live process, pages.",
		.get = get_zero_fill, .set = set_zero_fill,
	},
	[FIELD_RSS] = {
		.type = FIELD_U64, .json = "rss_kib", .source = FIELD_STAT, .unit = FIELD_KIB,
		.title = "RSS", .width = 6, .column = 5, .drop = 8, .desc = "resident memory size",
		.sort_name = "rss", .sort_key = "M", .sort_help = "sort by RSS, resident memory",
		.metric = "rss_bytes", .metric_help = "Resident set size summed over live members.",
		.metric_pid_help = "Resident set size of a live process.",
		.get = get_rss, .set = set_rss,
	},
	[FIELD_VSZ] = {
		.type = FIELD_U64, .json = "vsz_kib", .source = FIELD_STAT, .unit = FIELD_KIB,
		.title = "VSZ", .width = 6, .column = 10, .drop = 10, .desc = "virtual memory size",
		.sort_name = "vsz", .sort_key = "V", .sort_help = "sort by VSZ, virtual memory",
		.get = get_vsz, .set = set_vsz,
	},
	[FIELD_PTE] = {
		.type = FIELD_U64, .json = "pte_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.title = "PTE", .width = 6, .column = 11, .drop = 9,
		.desc = "page tables (VmPTE): never shared after fork, each worker pays its own",
		.sort_name = "pte", .sort_key = "E", .sort_help = "sort by PTE, the size of its page tables",
		.metric = "pte_bytes",
		.metric_help = "Page tables (VmPTE) summed over live members with a memory reading.",
		.metric_pid_help = "Page tables (VmPTE) of a live process (with a memory reading).",
		.get = get_pte, .set = set_pte,
	},
	[FIELD_PSS] = {
		.type = FIELD_U64, .json = "pss_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.title = "PSS", .width = 6, .column = 9, .drop = 5,
		.desc = "its fair share: each page divided among the processes mapping it",
		.sort_name = "pss", .sort_key = "P", .sort_help = "sort by PSS, its share of all the memory it maps",
		.metric = "pss_bytes",
		.metric_help = "Proportional set size summed over live members with a smaps_rollup reading.",
		.metric_pid_help = "Proportional set size of a live process (with a smaps_rollup reading).",
		.get = get_pss, .set = set_pss, .gate = true,
	},
	[FIELD_PSS_ANON] = {
		.type = FIELD_U64, .json = "pss_anon_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.get = get_pss_anon, .set = set_pss_anon,
	},
	[FIELD_USS] = {
		.type = FIELD_U64, .json = "uss_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.title = "USS", .width = 6, .column = 8, .drop = 4,
		.desc = "memory the process alone holds (its private pages)",
		.sort_name = "uss", .sort_key = "U", .sort_help = "sort by USS, memory the process alone holds",
		.metric = "uss_bytes",
		.metric_help = "Unique set size (Private_Clean + Private_Dirty) summed over live members with a reading.",
		.metric_pid_help = "Unique set size of a live process (with a smaps_rollup reading).",
		.get = get_uss, .set = set_uss, .late = true,
	},
	[FIELD_SHARED_CLEAN] = {
		.type = FIELD_U64, .json = "shared_clean_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.get = get_shared_clean, .set = set_shared_clean,
	},
	[FIELD_SHARED_DIRTY] = {
		.type = FIELD_U64, .json = "shared_dirty_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.get = get_shared_dirty, .set = set_shared_dirty,
	},
	[FIELD_PRIVATE_DIRTY] = {
		.type = FIELD_U64, .json = "private_dirty_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.get = get_private_dirty, .set = set_private_dirty,
	},
	[FIELD_ANON] = {
		.type = FIELD_U64, .json = "anon_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.get = get_anon, .set = set_anon,
	},
	[FIELD_SWAP] = {
		.type = FIELD_U64, .json = "swap_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.get = get_swap, .set = set_swap,
	},
	[FIELD_SMAPS_AGE] = {
		.type = FIELD_REAL, .json = "smaps_age", .decimals = 3, .source = FIELD_SMAPS, .unit = FIELD_SECONDS,
		.get = get_smaps_age, .set = set_smaps_age,
	},
	[FIELD_INHERITED] = {
		.type = FIELD_U64, .json = "inherited_kib", .source = FIELD_KERNEL, .unit = FIELD_KIB,
		.get = get_inherited, .set = set_inherited,
	},
	[FIELD_SHARED] = {
		.type = FIELD_REAL, .json = "shared_pct", .decimals = 2, .source = FIELD_DERIVED,
		.unit = FIELD_PERCENT, .title = "SHR%", .width = 5, .column = 6, .drop = 3,
		.desc = "share of the memory inherited at fork still shared (- unknown)",
		.sort_name = "shared", .sort_key = "S", .sort_help = "sort by SHR%, least shared first",
		.order = FIELD_LEAST,
		.get = get_shared,
	},
	[FIELD_FAMILY_SHARED] = {
		.type = FIELD_U64, .json = "family_shared_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.get = get_family_shared, .set = set_family_shared,
	},
	[FIELD_FAMILY_ANON] = {
		.type = FIELD_U64, .json = "family_anon_kib", .source = FIELD_SMAPS, .unit = FIELD_KIB,
		.get = get_family_anon, .set = set_family_anon,
	},
	[FIELD_FAMILY] = {
		.type = FIELD_REAL, .json = "family_pct", .decimals = 2, .source = FIELD_DERIVED,
		.unit = FIELD_PERCENT, .title = "FAM%", .width = 5, .column = 7, .drop = 6,
		.desc = "share of its anonymous memory still shared with its family (parent,\n"
			"siblings, children), page by page from pagemap: no fork baseline needed",
		.sort_name = "family", .sort_key = "Y", .sort_help = "sort by FAM%, least shared with its family first",
		.order = FIELD_LEAST,
		.get = get_family,
	},
	[FIELD_FAMILY_AGE] = {
		.type = FIELD_REAL, .json = "family_age", .decimals = 3, .source = FIELD_SMAPS, .unit = FIELD_SECONDS,
		.get = get_family_age, .set = set_family_age, .late = true,
	},
	[FIELD_COW_SINCE_READING] = {
		.type = FIELD_U64, .json = "cow_since_reading", .source = FIELD_SMAPS, .unit = FIELD_PAGES,
		.get = get_cow_since_reading, .set = set_cow_since_reading, .late = true,
	},
};

/* Parse a sort key name as given on the command line. */
int sort_key_parse(const char *s, enum field_id *out)
{
	int k;

	for (k = 0; k < FIELD_N; k++) {
		if (fields[k].sort_name && strcmp(s, fields[k].sort_name) == 0) {
			*out = (enum field_id)k;
			return 0;
		}
	}
	return -EINVAL;
}

/* The command-line names of the sort keys, joined by ", " into buf (cut
 * short if it is too small): first, then the figures in the order of the
 * sort cycle, then the identities (pid, command). What --help and a bad -s
 * list. */
void fields_sort_names(enum field_id first, char *buf, size_t len)
{
	enum field_id cycle[FIELD_N];
	size_t n = fields_sort_cycle(cycle), i, at;
	int pass;

	if (!len)
		return;
	at = (size_t)snprintf(buf, len, "%s", sort_key_name(first));
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n && at < len; i++)
			if (cycle[i] != first && (fields[cycle[i]].type == FIELD_IDENTITY) == pass)
				at += (size_t)snprintf(buf + at, len - at, ", %s",
						       sort_key_name(cycle[i]));
}

/* The command-line name of a sort key. */
const char *sort_key_name(enum field_id k)
{
	return (unsigned)k < FIELD_N && fields[k].sort_name ? fields[k].sort_name : "?";
}

/* The field whose sort key is ch, or -1. */
int field_by_sort_key(int ch)
{
	int k;

	for (k = 0; k < FIELD_N; k++)
		if (fields[k].sort_key && fields[k].sort_key[0] == ch && !fields[k].sort_key[1])
			return k;
	return -1;
}

/* The columns, left to right. */
size_t fields_columns(enum field_id *out)
{
	size_t n = 0;
	int col, k;

	for (col = 1; col <= FIELD_N; col++)
		for (k = 0; k < FIELD_N; k++)
			if (fields[k].column == col)
				out[n++] = (enum field_id)k;
	return n;
}

/* The sort keys in column order, then the others (the command last). */
size_t fields_sort_cycle(enum field_id *out)
{
	enum field_id cols[FIELD_N];
	size_t n = 0, nc = fields_columns(cols), i;
	int k;

	for (i = 0; i < nc; i++)
		if (fields[cols[i]].sort_name)
			out[n++] = cols[i];
	for (k = 0; k < FIELD_N; k++)
		if (fields[k].sort_name && !fields[k].column)
			out[n++] = (enum field_id)k;
	return n;
}
