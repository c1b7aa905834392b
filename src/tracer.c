/* Loading and attaching cowtop's BPF side, and decoding its ring buffer;
 * the readers of its maps are in tracer_maps.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <time.h>
#include "procfs.h"
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
void tracer_fallback(struct tracer *t, const char *word, const char *why)
{
	size_t n = strlen(t->fallbacks);

	snprintf(t->fallbacks + n, sizeof(t->fallbacks) - n, "%s%s", n ? "," : "", word);
	n = strlen(t->notes);
	snprintf(t->notes + n, sizeof(t->notes) - n, "%s%s: %s", n ? "\n" : "", word, why);
}

/* Choose, from the kernel's BTF, how to read what not every kernel has:
 * the RSS counters' layout and the end of a fault. COWTOP_NO_IN_USER_FAULT=1
 * takes the way of kernels without in_user_fault on any (for tests). */
static void pick_fallbacks(struct tracer *t, const struct btf *vmlinux)
{
	bool flag = btf_member_type(vmlinux, "task_struct", "in_user_fault") != NULL &&
		    !getenv("COWTOP_NO_IN_USER_FAULT");

	t->rss = rss_layout_of(vmlinux);
	if (t->rss == COWTOP_RSS_ATOMIC)
		tracer_fallback(t, "rss:atomic", "RSS read from mm_struct's atomic counters "
				"(the layout before 6.2)");
	else if (t->rss == COWTOP_RSS_NONE)
		tracer_fallback(t, "rss:/proc", "this kernel's mm_struct.rss_stat layout is not "
				"known: RSS comes from /proc, fork baselines (inherited, SHR%) are unknown");
	t->fault_end = flag ? COWTOP_FAULT_END_FLAG : COWTOP_FAULT_END_COUNT;
	if (!flag)
		tracer_fallback(t, "fault-end:count", "no task_struct.in_user_fault (a kernel without "
				"cgroup-v1 memory): a copy's fault is followed by the task's count of "
				"ended faults");
}

/* Load the programs for OOM kills and reclaim stalls only where the kernel
 * has their tracepoints: cowtop works without them, and says so. */
static void pick_memory_programs(struct tracer *t, const struct btf *vmlinux)
{
	struct cowtop_bpf *s = t->skel;

	bool oom = has_tracepoint(vmlinux, "mark_victim");
	bool reclaim = has_tracepoint(vmlinux, "mm_vmscan_direct_reclaim_begin") &&
		       has_tracepoint(vmlinux, "mm_vmscan_direct_reclaim_end") &&
		       has_tracepoint(vmlinux, "mm_vmscan_memcg_reclaim_begin") &&
		       has_tracepoint(vmlinux, "mm_vmscan_memcg_reclaim_end");

	if (!oom && !t->oom_out)
		tracer_fallback(t, "no-oom", "the kernel has no oom:mark_victim tracepoint: "
				"OOM kills are not seen");
	if (!reclaim && !t->reclaim_out)
		tracer_fallback(t, "no-reclaim", "the kernel lacks vmscan's reclaim tracepoints: "
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

/* Choose the mechanism and check the follow tracepoints exist. */
static int pick_mechanism(struct tracer *t, const struct btf *vmlinux, char *err, size_t errlen)
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
static void configure(struct tracer *t, const struct tracer_opts *o, const struct btf *vmlinux)
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
	s->rodata->nr_cpus = t->ncpus > 0 ? t->ncpus : 1;
	s->rodata->ns_per_tick = t->ns_per_tick;
	bpf_program__set_autoload(s->progs.on_usdt, o->usdt);
	tracer_usdt_prepare(t, o->usdt);
}

/* Point the kernel side at the --cgroup target, checked against the kernel:
 * its attach tracepoint, and the id of a v1 controller. Without a target
 * the attach program is not loaded (the kernel formats a path at every
 * cgroup move while it is attached). */
static int configure_cgroup(struct tracer *t, const struct tracer_cgroup *cg,
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

_Static_assert(PHASE_MAX == COWTOP_PHASE_MAX, "phase slots differ between kernel and model");
_Static_assert(TRACER_COMM_LEN == COWTOP_COMM_LEN, "task name lengths differ");
_Static_assert(TRACER_USDT_ARGS == COWTOP_USDT_ARGS, "probe argument counts differ");

/* Decode a fork, exec or exit record and hand it on. */
static void decode_event(struct tracer *t, const struct cowtop_event *r)
{
	struct tracer_event e = {
		.pid = (int)r->pid, .ppid = (int)r->ppid, .start = ticks_of(t, r->start_ns),
		.exit_status = r->exit_code, .counts = counts_of(&r->counts),
		.oom = r->flags & COWTOP_PROC_OOM,
		.reclaims = r->reclaims, .reclaim_s = r->reclaim_ns / 1e9,
		.unheld = r->flags & COWTOP_PROC_UNHELD,
	};
	size_t n = strnlen(r->comm, COWTOP_COMM_LEN);

	if (r->type == COWTOP_EV_FORK)
		e.kind = TRACER_FORK;
	else if (r->type == COWTOP_EV_EXEC)
		e.kind = TRACER_EXEC;
	else if (r->type == COWTOP_EV_EXIT)
		e.kind = TRACER_EXIT;
	else if (r->type == COWTOP_EV_ENTER)
		e.kind = TRACER_ENTER;
	else if (r->type == COWTOP_EV_LEAVE)
		e.kind = TRACER_LEAVE;
	else
		return;
	if (e.kind == TRACER_FORK) /* the kernel reads it at every fork */
		e.inherited_kib = kib_of(t, r->inherited);
	memcpy(e.comm, r->comm, n < TRACER_COMM_LEN ? n : TRACER_COMM_LEN - 1);
	if (t->on.event)
		t->on.event(&e, t->on.ctx);
}

/* Decode a USDT probe hit and hand it on. */
static void decode_hit(struct tracer *t, const struct cowtop_usdt_event *r)
{
	struct tracer_hit h = {
		.time = unix_of(t, r->time_ns), .pid = (int)r->pid,
		.probe = (int)r->probe,
		.nargs = COWTOP_HIT_NARGS(r->nargs) > COWTOP_USDT_ARGS ? COWTOP_USDT_ARGS :
			 (int)COWTOP_HIT_NARGS(r->nargs),
		.unavail = COWTOP_HIT_UNAVAIL(r->nargs),
	};
	int i;

	for (i = 0; i < COWTOP_USDT_ARGS; i++)
		h.args[i] = r->args[i];
	if (t->on.hit)
		t->on.hit(&h, t->on.ctx);
}

/* Decode an OOM kill or a reclaim stall and hand it on. */
static void decode_mem(struct tracer *t, const struct cowtop_mem_event *r)
{
	struct tracer_mem m = {
		.kind = r->type == COWTOP_EV_OOM ? TRACER_OOM : TRACER_RECLAIM,
		.time = unix_of(t, r->time_ns), .pid = (int)r->pid, .tid = (int)r->tid,
	};

	if (m.kind == TRACER_OOM) {
		m.anon_kib = kib_of(t, r->value);
	} else {
		m.memcg = r->kind == COWTOP_RECLAIM_MEMCG;
		m.stall = r->value / 1e9;
	}
	if (t->on.mem)
		t->on.mem(&m, t->on.ctx);
}

/* Ring-buffer callback: decode one record by its type. */
static int on_record(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;
	const __u32 *type = data;

	if (size < sizeof(__u32))
		return 0;
	if (*type == COWTOP_EV_USDT && size >= sizeof(struct cowtop_usdt_event))
		decode_hit(t, data);
	else if ((*type == COWTOP_EV_OOM || *type == COWTOP_EV_RECLAIM) &&
		 size >= sizeof(struct cowtop_mem_event))
		decode_mem(t, data);
	else if ((*type <= COWTOP_EV_EXIT || *type == COWTOP_EV_ENTER || *type == COWTOP_EV_LEAVE) &&
		 size >= sizeof(struct cowtop_event))
		decode_event(t, data);
	return 0;
}

/* Seconds to add to a CLOCK_BOOTTIME reading of cowtop's time namespace
 * (the kernel side's plus timens_ns, see unix_of) to make it unix time. */
static double boot_offset(void)
{
	struct timespec real, boot;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return (real.tv_sec - boot.tv_sec) + (real.tv_nsec - boot.tv_nsec) / 1e9;
}

/* Watch the roots given before the fork program runs: a child forked once
 * it runs is followed, never only looked for in /proc later, where one
 * that has exited meanwhile is not. */
static int watch_roots(struct tracer *t, const struct tracer_opts *o, char *err, size_t errlen)
{
	int i, e;

	for (i = 0; i < o->nroots; i++) {
		e = tracer__watch(t, o->roots[i].pid, o->roots[i].ppid, o->roots[i].start);
		if (e) {
			snprintf(err, errlen, "bpf: cannot watch PID %d: %s", o->roots[i].pid, strerror(-e));
			return e;
		}
	}
	return 0;
}

/* Attach the loaded programs; the ring buffer joins the caller's loop. */
static int attach(struct tracer *t, char *err, size_t errlen)
{
	int e;

	/* Exits first: every process the other programs start counting (a fork
	 * seen, a first fault in watch-all) must have its exit seen too, or it
	 * would stay on screen after it has gone, its entry never flagged. */
	t->skel->links.on_process_exit = bpf_program__attach(t->skel->progs.on_process_exit);
	if (!t->skel->links.on_process_exit) {
		e = -errno;
		snprintf(err, errlen, "bpf: cannot attach the exit program: %s", strerror(errno));
		return e;
	}
	bpf_program__set_autoattach(t->skel->progs.on_process_exit, false);
	/* The USDT program is attached per probe later, not here. */
	e = cowtop_bpf__attach(t->skel);
	if (e) {
		snprintf(err, errlen, "bpf: cannot attach the programs: %s", strerror(-e));
		return e;
	}
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), on_record, t, NULL);
	if (!t->rb) {
		e = -errno;
		snprintf(err, errlen, "bpf: cannot open the ring buffer: %s", strerror(errno));
		return e;
	}
	return 0;
}

/* The program libbpf last said it could not load (its name), "" if none. */
static char rejected_prog[64];

/* Silence libbpf's own chatter; errors are reported once, by us. Note the
 * name of a program the kernel rejects: it may be one cowtop can do without. */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[256], name[64];
	va_list copy;

	if (level != LIBBPF_WARN)
		return 0;
	va_copy(copy, ap);
	vsnprintf(line, sizeof(line), fmt, copy);
	va_end(copy);
	if (sscanf(line, "libbpf: prog '%63[^']': failed to load", name) == 1)
		snprintf(rejected_prog, sizeof(rejected_prog), "%s", name);
	if (!getenv("COWTOP_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* The programs cowtop can run without, and what is lost with them. */
static const struct optional_prog {
	const char *prog, *word, *what;
	size_t out; /* offset of the tracer's bool that leaves them out */
} optional_progs[] = {
	{ "on_oom_victim", "no-oom", "OOM kills are not seen", offsetof(struct tracer, oom_out) },
	{ "on_direct_reclaim_begin", "no-reclaim", "reclaim stalls are not seen",
	  offsetof(struct tracer, reclaim_out) },
	{ "on_direct_reclaim_end", "no-reclaim", "reclaim stalls are not seen",
	  offsetof(struct tracer, reclaim_out) },
	{ "on_memcg_reclaim_begin", "no-reclaim", "reclaim stalls are not seen",
	  offsetof(struct tracer, reclaim_out) },
	{ "on_memcg_reclaim_end", "no-reclaim", "reclaim stalls are not seen",
	  offsetof(struct tracer, reclaim_out) },
};

/* The load failed: if the kernel rejected a program cowtop can do without,
 * leave it (and its kind) out of the next try, and say so. */
static bool leave_out_rejected(struct tracer *t)
{
	char why[160];
	size_t i;

	for (i = 0; i < sizeof(optional_progs) / sizeof(*optional_progs); i++) {
		const struct optional_prog *o = &optional_progs[i];
		bool *out = (bool *)((char *)t + o->out);

		if (strcmp(rejected_prog, o->prog) != 0 || *out)
			continue;
		*out = true;
		snprintf(why, sizeof(why), "the kernel rejected the program %s: %s", o->prog,
			 o->what);
		tracer_fallback(t, o->word, why);
		return true;
	}
	return false;
}

/* Open the programs, set them up for this kernel and the options, load
 * them; a program the kernel rejects that cowtop can do without is left
 * out, and the whole tried again. */
static int open_load(struct tracer *t, const struct tracer_opts *o, const struct btf *vmlinux,
		     char *err, size_t errlen)
{
	int e, tries;

	for (tries = 0;; tries++) {
		t->skel = cowtop_bpf__open();
		if (!t->skel) {
			e = -errno;
			snprintf(err, errlen, "bpf: cannot open the programs: %s", strerror(errno));
			return e;
		}
		e = pick_mechanism(t, vmlinux, err, errlen);
		if (e)
			return e;
		pick_memory_programs(t, vmlinux);
		configure(t, o, vmlinux);
		e = configure_cgroup(t, o->cgroup, vmlinux, err, errlen);
		if (e)
			return e;
		rejected_prog[0] = '\0';
		e = cowtop_bpf__load(t->skel);
		if (!e)
			return 0;
		if (tries > 8 || !leave_out_rejected(t))
			break;
		cowtop_bpf__destroy(t->skel);
		t->skel = NULL;
		t->mech = NULL;
	}
	if (rejected_prog[0])
		snprintf(err, errlen, "bpf: the kernel rejected the program %s: %s (COWTOP_DEBUG=1 "
			 "shows why)", rejected_prog, strerror(-e));
	else
		snprintf(err, errlen, "bpf: cannot load the programs: %s", strerror(-e));
	return e;
}

/* Open, configure, load and attach (see tracer.h). */
int tracer__open(struct tracer **out, const struct tracer_opts *o, char *err, size_t errlen)
{
	struct tracer *t = calloc(1, sizeof(*t));
	struct btf *vmlinux = NULL;
	int e;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	libbpf_set_print(libbpf_quiet);
	t->on = o->on;
	t->ns_per_tick = 1000000000ULL / (unsigned long long)procfs_clock_ticks();
	t->page_kib = (unsigned long long)procfs_page_kib();
	t->timens_ns = procfs_timens_boottime_ns();
	t->boot_to_unix = boot_offset();
	t->ncpus = libbpf_num_possible_cpus();
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		e = -errno;
		snprintf(err, errlen, "kernel BTF unreadable: %s", strerror(errno));
		goto fail;
	}
	pick_fallbacks(t, vmlinux);
	e = open_load(t, o, vmlinux, err, errlen);
	if (e)
		goto fail;
	e = watch_roots(t, o, err, errlen);
	if (e)
		goto fail;
	e = attach(t, err, errlen);
	if (e)
		goto fail;
	tracer_tasks_open(t, vmlinux);
	btf__free(vmlinux);
	*out = t;
	return 0;
fail:
	btf__free(vmlinux);
	tracer__free(t);
	return e;
}

/* Detach and free everything; NULL is fine. */
void tracer__free(struct tracer *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nlinks; i++)
		bpf_link__destroy(t->links[i]);
	free(t->links);
	tracer_usdt_free(t);
	free(t->drop);
	free(t->region_slots);
	ring_buffer__free(t->rb);
	tracer_tasks_free(t);
	cowtop_bpf__destroy(t->skel);
	free(t);
}

/* Whether OOM kills are seen. */
bool tracer__sees_oom(const struct tracer *t)
{
	return t->oom;
}

/* Whether reclaim stalls are seen. */
bool tracer__sees_reclaim(const struct tracer *t)
{
	return t->reclaim;
}

/* The name of the detection mechanism in use. */
const char *tracer__mechanism(const struct tracer *t)
{
	return t->mech ? t->mech->name : "none";
}

/* Start counting pid (keeps the counters it may already have). A process
 * the kernel's map has no room for is refused for its life, and counted
 * once: -E2BIG. */
int tracer__watch(struct tracer *t, int pid, int ppid, unsigned long long start)
{
	struct cowtop_proc p = {
		.start_ns = ns_of(t, start), .ppid = ppid,
		.inherited = COWTOP_INHERITED_UNKNOWN, /* its fork was before ours */
	};
	__u32 key = pid;
	__u64 *refused = &t->skel->bss->refused_bits[(key / 64) % COWTOP_WATCH_WORDS];
	__u64 bit = 1ULL << (key % 64);

	if (__atomic_load_n(refused, __ATOMIC_SEQ_CST) & bit)
		return -E2BIG;
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.procs), &key, &p, BPF_NOEXIST) &&
	    errno != EEXIST) {
		int e = -errno;

		if ((e == -E2BIG || e == -ENOMEM) &&
		    !(__atomic_fetch_or(refused, bit, __ATOMIC_SEQ_CST) & bit))
			t->refused++;
		return e;
	}
	/* The BPF side updates the same words atomically: do likewise. */
	__atomic_fetch_or(&t->skel->bss->watch_bits[(key / 64) % COWTOP_WATCH_WORDS],
			  1ULL << (key % 64), __ATOMIC_SEQ_CST);
	__atomic_fetch_or(&t->skel->bss->changed_bits[(key / 64) % COWTOP_WATCH_WORDS],
			  1ULL << (key % 64), __ATOMIC_SEQ_CST);
	return 0;
}

/* Drop the per-phase counters of pid's process that started at start. */
static void forget_phases(struct tracer *t, __u32 pid, __u64 start)
{
	struct cowtop_phase_key k = { .tgid = pid, .start = start };
	int fd = bpf_map__fd(t->skel->maps.phase_cow);

	if (!t->skel->rodata->usdt_enabled)
		return;
	for (k.phase = 1; k.phase < COWTOP_PHASE_MAX; k.phase++)
		bpf_map_delete_elem(fd, &k);
}

/* Put no copies of pid in regions until it execs (see tracer.h). */
void tracer__hold_regions(struct tracer *t, int pid)
{
	__atomic_store_n(&t->skel->bss->region_hold, (__u32)pid, __ATOMIC_SEQ_CST);
}

/* Queue the region counters of pid's process that started at start to go
 * after the next region walk: their keys are only found by walking the
 * whole map, once a tick for every process. */
static void forget_regions(struct tracer *t, __u32 pid, __u64 start)
{
	if (t->ndrop == t->drop_cap) {
		size_t cap = t->drop_cap ? t->drop_cap * 2 : 64;
		struct tracer_gone *v = realloc(t->drop, cap * sizeof(*v));

		if (!v)
			return; /* they stay; the next forget of a pid tries again */
		t->drop = v;
		t->drop_cap = cap;
	}
	t->drop[t->ndrop++] = (struct tracer_gone){ pid, start };
}

/* Drop the counters of pid's process that started at start (clock ticks).
 * Its phase and region counters carry its start time: they go whoever
 * holds the pid now. The kernel side drops the process entry itself at an
 * exit whose record went out; an entry with another start time is a new
 * process's on the reused pid, and stays. */
int tracer__forget(struct tracer *t, int pid, unsigned long long start)
{
	int fd = bpf_map__fd(t->skel->maps.procs);
	struct cowtop_proc p;
	__u32 key = pid;
	bool held = bpf_map_lookup_elem(fd, &key, &p) == 0;

	if (!held && errno != ENOENT)
		return -errno;
	forget_phases(t, key, start);
	forget_regions(t, key, start);
	if (!held || ticks_of(t, p.start_ns) != start)
		return 0;
	/* Only an entry kept because its exit record was lost (the ring was
	 * full), or one of a process that left the --cgroup target (alive, so
	 * its pid is not free), gets here. In the first case a fork on the
	 * same pid between the lookup and the delete still loses the new
	 * process's entry: that takes a full ring and a pid reuse at once. */
	return bpf_map_delete_elem(fd, &key) ? -errno : 0;
}

/* The fd to wait on for ring-buffer records. */
int tracer__epoll_fd(struct tracer *t)
{
	return ring_buffer__epoll_fd(t->rb);
}

/* Decode every pending record and hand it to the handlers. */
int tracer__drain(struct tracer *t)
{
	int n = ring_buffer__consume(t->rb);

	return n < 0 ? n : 0;
}


/* Whether copies are counted per phase (-u given). */
bool tracer__has_phases(const struct tracer *t)
{
	return t->skel->rodata->usdt_enabled;
}


/* Turn the capture of user stacks on (1 copy in every) or off (0), live:
 * the kernel reads the flag at each copy. */
void tracer__set_stacks(struct tracer *t, unsigned every)
{
	__atomic_store_n(&t->skel->bss->stacks_every, every, __ATOMIC_RELAXED);
}

/* 0 when stacks are off, else N of 1 copy in N. */
unsigned tracer__stacks(const struct tracer *t)
{
	return __atomic_load_n(&t->skel->bss->stacks_every, __ATOMIC_RELAXED);
}

/* The fallbacks in use, comma-separated words; "" when none. */
const char *tracer__fallbacks(const struct tracer *t)
{
	return t->fallbacks;
}

/* Why each fallback is in use: one line each, "" when none. */
const char *tracer__fallback_notes(const struct tracer *t)
{
	return t->notes;
}
