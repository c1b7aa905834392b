/* What the kernel has, chosen in user space before load: the mechanism
 * that detects copies, the fallbacks, the memory programs, the tunables
 * set through the skeleton's rodata, and the --cgroup target. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "tracer.h"
#include "tracer_int.h"

/* A way to detect copies. The seam for kernels that need another one: add an
 * entry with its programs; the first whose tracepoints exist is used. */
struct mechanism {
	const char *name;
	const char *tracepoints[4];
	void (*autoload)(struct cowtop_bpf *skel, bool on);
};

/* Turn the fault+alloc programs on or off before load. */
static void fault_alloc_autoload(struct cowtop_bpf *skel, bool on)
{
	bpf_program__set_autoload(skel->progs.on_page_fault_user, on);
	bpf_program__set_autoload(skel->progs.on_page_fault_kernel, on);
	bpf_program__set_autoload(skel->progs.on_mm_page_alloc, on);
}

static const struct mechanism mechanisms[] = {
	{
		.name = "raw_tp:page_fault_user+page_fault_kernel+mm_page_alloc",
		.tracepoints = { "page_fault_user", "page_fault_kernel", "mm_page_alloc" },
		.autoload = fault_alloc_autoload,
	},
};

static const char *const follow_tracepoints[] = {
	"sched_process_fork", "sched_process_exec", "sched_process_exit",
};

/* Whether the running kernel has raw tracepoint name (from its BTF). */
static bool has_tracepoint(const struct btf *vmlinux, const char *name)
{
	char type[128];

	snprintf(type, sizeof(type), "btf_trace_%s", name);
	return btf__find_by_name_kind(vmlinux, type, BTF_KIND_TYPEDEF) >= 0;
}

/* The value of enumerator name in the kernel's BTF, or -1. */
long btf_enum_value(const struct btf *btf, const char *name)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;
		__u16 i;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (i = 0; i < btf_vlen(t); i++, e++)
			if (strcmp(btf__name_by_offset(btf, e->name_off), name) == 0)
				return e->val;
	}
	return -1;
}

/* The type of member name of struct sname in the kernel's BTF, modifiers
 * and typedefs skipped, looking into anonymous members too; NULL if none. */
static const struct btf_type *btf_member_type(const struct btf *btf, const char *sname,
					      const char *name)
{
	__s32 id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_type *stack[8];
	int depth = 0;

	while (t) {
		const struct btf_member *m = btf_members(t);
		const struct btf_type *inner = NULL;
		__u16 i;

		for (i = 0; i < btf_vlen(t); i++, m++) {
			const char *mn = btf__name_by_offset(btf, m->name_off);
			const struct btf_type *mt = btf__type_by_id(btf, m->type);

			while (mt && (btf_is_typedef(mt) || btf_is_mod(mt)))
				mt = btf__type_by_id(btf, mt->type);
			if (mn && strcmp(mn, name) == 0)
				return mt;
			if ((!mn || !*mn) && mt && btf_is_composite(mt) && depth < 8)
				stack[depth++] = mt;
		}
		inner = depth ? stack[--depth] : NULL;
		t = inner;
	}
	return NULL;
}

/* The name of a BTF type, "" when it has none. */
static const char *btf_type_name(const struct btf *btf, const struct btf_type *t)
{
	const char *n = t ? btf__name_by_offset(btf, t->name_off) : NULL;

	return n ? n : "";
}

/* Which layout of mm->rss_stat this kernel has. */
static enum cowtop_rss_layout rss_layout_of(const struct btf *btf)
{
	const struct btf_type *t = btf_member_type(btf, "mm_struct", "rss_stat");

	if (t && btf_is_array(t) && btf_array(t)->nelems == 4) {
		t = btf__type_by_id(btf, btf_array(t)->type);
		if (t && strcmp(btf_type_name(btf, t), "percpu_counter") == 0)
			return COWTOP_RSS_PERCPU;
	} else if (t && btf_is_struct(t) && strcmp(btf_type_name(btf, t), "mm_rss_stat") == 0 &&
		   t->size == 4 * 8) {
		return COWTOP_RSS_ATOMIC;
	}
	return COWTOP_RSS_NONE;
}

/* Add a fallback in use: word goes in the header and the JSON's
 * "fallbacks", why in one line on stderr at start. */
void tracer__fallback(struct tracer *t, const char *word, const char *why)
{
	size_t n = strlen(t->fallbacks);

	snprintf(t->fallbacks + n, sizeof(t->fallbacks) - n, "%s%s", n ? "," : "", word);
	n = strlen(t->notes);
	snprintf(t->notes + n, sizeof(t->notes) - n, "%s%s: %s", n ? "\n" : "", word, why);
}

/* Choose, from the kernel's BTF, how to read what not every kernel has:
 * the RSS counters' layout and the end of a fault. COWTOP_NO_IN_USER_FAULT=1
 * takes the way of kernels without in_user_fault on any (for tests). */
void tracer__pick_fallbacks(struct tracer *t, const struct btf *vmlinux)
{
	bool flag = btf_member_type(vmlinux, "task_struct", "in_user_fault") != NULL &&
		    !getenv("COWTOP_NO_IN_USER_FAULT");

	t->rss = rss_layout_of(vmlinux);
	if (t->rss == COWTOP_RSS_ATOMIC)
		tracer__fallback(t, "rss:atomic", "RSS read from mm_struct's atomic counters "
				"(the layout before 6.2)");
	else if (t->rss == COWTOP_RSS_NONE)
		tracer__fallback(t, "rss:/proc", "this kernel's mm_struct.rss_stat layout is not "
				"known: RSS comes from /proc, fork baselines (inherited, SHR%) are unknown");
	t->fault_end = flag ? COWTOP_FAULT_END_FLAG : COWTOP_FAULT_END_COUNT;
	if (!flag)
		tracer__fallback(t, "fault-end:count", "no task_struct.in_user_fault (a kernel without "
				"cgroup-v1 memory): a copy's fault is followed by the task's count of "
				"ended faults");
}

/* Load the programs for OOM kills and reclaim stalls only where the kernel
 * has their tracepoints: cowtop works without them, and says so. */
void tracer__pick_memory_programs(struct tracer *t, const struct btf *vmlinux)
{
	struct cowtop_bpf *s = t->skel;

	bool oom = has_tracepoint(vmlinux, "mark_victim");
	bool reclaim = has_tracepoint(vmlinux, "mm_vmscan_direct_reclaim_begin") &&
		       has_tracepoint(vmlinux, "mm_vmscan_direct_reclaim_end") &&
		       has_tracepoint(vmlinux, "mm_vmscan_memcg_reclaim_begin") &&
		       has_tracepoint(vmlinux, "mm_vmscan_memcg_reclaim_end");

	if (!oom && !t->oom_out)
		tracer__fallback(t, "no-oom", "the kernel has no oom:mark_victim tracepoint: "
				"OOM kills are not seen");
	if (!reclaim && !t->reclaim_out)
		tracer__fallback(t, "no-reclaim", "the kernel lacks vmscan's reclaim tracepoints: "
				"reclaim stalls are not seen");
	t->oom_out = t->oom_out || !oom;
	t->reclaim_out = t->reclaim_out || !reclaim;
	t->oom = !t->oom_out;
	t->reclaim = !t->reclaim_out;
	bpf_program__set_autoload(s->progs.on_oom_victim, t->oom);
	bpf_program__set_autoload(s->progs.on_direct_reclaim_begin, t->reclaim);
	bpf_program__set_autoload(s->progs.on_direct_reclaim_end, t->reclaim);
	bpf_program__set_autoload(s->progs.on_memcg_reclaim_begin, t->reclaim);
	bpf_program__set_autoload(s->progs.on_memcg_reclaim_end, t->reclaim);
}

/* Whether the classic tracepoint syscalls:sys_exit_mmap can be attached:
 * libbpf reads its id in tracefs, where it looks for it (debugfs's
 * tracing directory first). */
static bool have_mmap_exit_event(void)
{
	const char *dir = access("/sys/kernel/debug/tracing", F_OK) == 0 ?
			  "/sys/kernel/debug/tracing" : "/sys/kernel/tracing";
	char path[128];

	snprintf(path, sizeof(path), "%s/events/syscalls/sys_exit_mmap/id", dir);
	return access(path, R_OK) == 0 && !getenv("COWTOP_NO_TRACEFS");
}

/* Load a program that sees new executable mappings only when the -u
 * probes are looked for in what processes map (wanted): attached, every
 * system call of the machine takes the kernel's slow exit path. The
 * classic syscalls:sys_exit_mmap where tracefs is mounted (the kernel
 * filters by call number), else raw_syscalls:sys_exit (a program run at
 * every call's exit). Without either, a process's maps are read again
 * when its size changes, and cowtop says so. */
void tracer__pick_mapped(struct tracer *t, bool wanted, const struct btf *vmlinux)
{
	bool raw = has_tracepoint(vmlinux, "sys_exit");
	bool classic = wanted && have_mmap_exit_event();

	if (wanted && !raw && !classic && !t->mapped_out)
		tracer__fallback(t, "maps:size", "the kernel has no raw_syscalls:sys_exit tracepoint: "
				"libraries loaded later are found when a process's size changes");
	t->mapped_out = t->mapped_out || (!raw && !classic);
	t->mapped = wanted && !t->mapped_out;
	t->skel->rodata->mmap_nr = SYS_mmap;
	bpf_program__set_autoload(t->skel->progs.on_mmap_exit, t->mapped && classic);
	bpf_program__set_autoload(t->skel->progs.on_sys_exit, t->mapped && !classic);
}

/* Choose the mechanism and check the follow tracepoints exist. */
int tracer__pick_mechanism(struct tracer *t, const struct btf *vmlinux, char *err, size_t errlen)
{
	size_t i, j;

	for (i = 0; i < sizeof(follow_tracepoints) / sizeof(*follow_tracepoints); i++) {
		if (!has_tracepoint(vmlinux, follow_tracepoints[i])) {
			snprintf(err, errlen, "kernel has no %s tracepoint", follow_tracepoints[i]);
			return -ENOENT;
		}
	}
	for (i = 0; i < sizeof(mechanisms) / sizeof(*mechanisms); i++) {
		const struct mechanism *m = &mechanisms[i];
		bool ok = true;

		for (j = 0; j < 4 && m->tracepoints[j]; j++)
			ok = ok && has_tracepoint(vmlinux, m->tracepoints[j]);
		if (ok && !t->mech)
			t->mech = m;
		m->autoload(t->skel, t->mech == m);
	}
	if (!t->mech) {
		snprintf(err, errlen, "no way to detect copies on this kernel: it lacks the "
			 "exceptions:page_fault_user and kmem:mm_page_alloc tracepoints");
		return -ENOENT;
	}
	return 0;
}

/* The integer in file path (a sysctl), or -1. */
static long read_sysctl(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* How many processes the process map holds: as many tasks as the machine
 * can run at once (kernel.threads-max; not pid_max, often raised while
 * running), at least COWTOP_PROCS_MIN, at most the largest pid_max there
 * is. Its entries are allocated as processes come: until then it costs its
 * buckets only. COWTOP_PROCS_MAX=N in the environment sets it (for tests:
 * a small map fills). */
static __u32 procs_capacity(void)
{
	const char *env = getenv("COWTOP_PROCS_MAX");
	long n;

	if (env && *env) {
		n = strtol(env, NULL, 10);
		return n >= 1 && n <= 4194304 ? (__u32)n : COWTOP_PROCS_MIN;
	}
	n = read_sysctl("/proc/sys/kernel/threads-max");
	if (n < COWTOP_PROCS_MIN)
		return COWTOP_PROCS_MIN;
	return n > 4194304 ? 4194304 : (__u32)n;
}

/* Set the tunables of the BPF side from the options and the kernel. */
void tracer__configure(struct tracer *t, const struct tracer_opts *o, const struct btf *vmlinux)
{
	struct cowtop_bpf *s = t->skel;
	long movable = btf_enum_value(vmlinux, "___GFP_MOVABLE_BIT");
	long zero = btf_enum_value(vmlinux, "___GFP_ZERO_BIT");
	long anon = btf_enum_value(vmlinux, "MM_ANONPAGES");

	s->rodata->watch_all = o->watch_all;
	s->rodata->first_clone_of = o->first_clone_of;
	if (movable >= 0 && movable < 32)
		s->rodata->gfp_movable = 1u << movable;
	if (zero >= 0 && zero < 32)
		s->rodata->gfp_zero = 1u << zero;
	if (anon >= 0 && anon < 4) /* rss_stat has 4 counters in every layout */
		s->rodata->mm_anonpages = anon;
	s->rodata->rss_layout = t->rss;
	s->rodata->fault_end = t->fault_end;
	if (o->ringbuf_kib)
		bpf_map__set_max_entries(s->maps.events, o->ringbuf_kib * 1024);
	t->procs_max = procs_capacity();
	bpf_map__set_max_entries(s->maps.procs, t->procs_max);
	/* Copies by region: a process's counters in each region it copies in */
	if (t->procs_max > bpf_map__max_entries(s->maps.region_cow))
		bpf_map__set_max_entries(s->maps.region_cow, t->procs_max);
	s->rodata->usdt_enabled = o->usdt;
	if (!o->usdt) { /* nothing ever goes in: no room kept (2.7 MB preallocated) */
		bpf_map__set_max_entries(s->maps.thread_phase, 1);
		bpf_map__set_max_entries(s->maps.phase_cow, 1);
	} else if (t->procs_max > bpf_map__max_entries(s->maps.thread_phase)) {
		/* A phase open in every thread the machine can run, and copies in
		 * a phase of as many processes: allocated as they come. */
		bpf_map__set_max_entries(s->maps.thread_phase, t->procs_max);
		bpf_map__set_map_flags(s->maps.thread_phase, BPF_F_NO_PREALLOC);
		bpf_map__set_max_entries(s->maps.phase_cow, t->procs_max);
		bpf_map__set_map_flags(s->maps.phase_cow, BPF_F_NO_PREALLOC);
	}
	s->rodata->regions_enabled = !o->no_regions;
	s->rodata->objects_enabled = o->objects;
	if (!o->objects) /* nothing ever goes in */
		bpf_map__set_max_entries(s->maps.obj_rt, 1);
	else if (t->procs_max > bpf_map__max_entries(s->maps.obj_rt)) {
		bpf_map__set_max_entries(s->maps.obj_rt, t->procs_max);
		bpf_map__set_map_flags(s->maps.obj_rt, BPF_F_NO_PREALLOC);
	}
	s->rodata->nr_cpus = t->ncpus > 0 ? t->ncpus : 1;
	s->rodata->ns_per_tick = t->ns_per_tick;
	bpf_program__set_autoload(s->progs.on_usdt, o->usdt);
	tracer__usdt_prepare(t, o->usdt);
}

/* A map size from environment variable name, in [16, max]: 0 when unset,
 * else 1 with *n set, or -EINVAL with the reason in err. */
static int size_from_env(const char *name, unsigned long max, unsigned long *n, char *err,
			 size_t errlen)
{
	const char *v = getenv(name);
	char *end;

	if (!v)
		return 0;
	errno = 0;
	*n = strtoul(v, &end, 10);
	if (!*v || *end || errno || *n < 16 || *n > max || *v == '-' || *v == '+') {
		snprintf(err, errlen, "%s: '%s' is not a number from 16 to %lu", name, v, max);
		return -EINVAL;
	}
	return 1;
}

/* The sizes of the stack map and of its (process, stack) counters, for
 * tests of their pruning: COWTOP_STACK_ENTRIES in the environment (else
 * COWTOP_STACKS), COWTOP_STACK_COUNTERS (else 4 per stack). */
int tracer__size_stacks(struct tracer *t, char *err, size_t errlen)
{
	unsigned long n = COWTOP_STACKS, c;
	int e = size_from_env("COWTOP_STACK_ENTRIES", 1048576, &n, err, errlen), f;

	if (e < 0)
		return e;
	f = size_from_env("COWTOP_STACK_COUNTERS", 4194304, &c, err, errlen);
	if (f < 0)
		return f;
	if (e)
		bpf_map__set_max_entries(t->skel->maps.stack_map, (__u32)n);
	if (e || f)
		bpf_map__set_max_entries(t->skel->maps.stack_pages, (__u32)(f ? c : 4 * n));
	return 0;
}

/* Point the kernel side at the --cgroup target, checked against the kernel:
 * its attach tracepoint, and the id of a v1 controller. Without a target
 * the attach program is not loaded (the kernel formats a path at every
 * cgroup move while it is attached). */
int tracer__configure_cgroup(struct tracer *t, const struct tracer_cgroup *cg,
			    const struct btf *vmlinux, char *err, size_t errlen)
{
	struct cowtop_bpf *s = t->skel;
	char name[64];
	long id = -1;

	bpf_program__set_autoload(s->progs.on_cgroup_attach, cg != NULL);
	if (!cg)
		return 0;
	if (!has_tracepoint(vmlinux, "cgroup_attach_task")) {
		snprintf(err, errlen, "--cgroup: the kernel has no cgroup:cgroup_attach_task tracepoint");
		return -ENOENT;
	}
	if (cg->controller[0]) {
		snprintf(name, sizeof(name), "%s_cgrp_id", cg->controller);
		id = btf_enum_value(vmlinux, name);
		if (id < 0 || id >= 16) {
			snprintf(err, errlen, "--cgroup: the kernel has no cgroup controller '%s'",
				 cg->controller);
			return -ENOENT;
		}
	}
	s->rodata->cgroup_id = cg->id;
	s->rodata->cgroup_level = (__u32)cg->level;
	s->rodata->cgroup_subsys = (__s32)id;
	return 0;
}

/* The name of the detection mechanism in use. */
const char *tracer__mechanism(const struct tracer *t)
{
	return t->mech ? t->mech->name : "none";
}
