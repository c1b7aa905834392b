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

/* A new executable mapping of a watched process: hand it on. */
static void decode_mapped(struct tracer *t, const struct cowtop_map_event *r)
{
	if (t->on.mapped)
		t->on.mapped((int)r->pid, t->on.ctx);
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
	else if (*type == COWTOP_EV_MAPPED && size >= sizeof(struct cowtop_map_event))
		decode_mapped(t, data);
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
 * that has exited meanwhile is not; and it inherits the root's runtime,
 * when the object sampler reads one. */
static int watch_roots(struct tracer *t, const struct tracer_opts *o, char *err, size_t errlen)
{
	int i, e;

	for (i = 0; i < o->nroots; i++) {
		e = tracer__watch(t, o->roots[i].pid, o->roots[i].ppid, o->roots[i].start);
		if (e) {
			snprintf(err, errlen, "bpf: cannot watch PID %d: %s", o->roots[i].pid, strerror(-e));
			return e;
		}
		if (o->objects && o->roots[i].runtime)
			tracer__set_runtime(t, o->roots[i].pid, o->roots[i].runtime,
					    o->roots[i].type_type);
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
	{ "on_sys_exit", "maps:size", "libraries loaded later are found when a process's size changes",
	  offsetof(struct tracer, mapped_out) },
	{ "on_mmap_exit", "maps:size", "libraries loaded later are found when a process's size changes",
	  offsetof(struct tracer, mapped_out) },
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
		tracer__fallback(t, o->word, why);
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
		e = tracer__pick_mechanism(t, vmlinux, err, errlen);
		if (e)
			return e;
		tracer__pick_memory_programs(t, vmlinux);
		tracer__pick_mapped(t, o->mapped, vmlinux);
		tracer__configure(t, o, vmlinux);
		e = tracer__size_stacks(t, err, errlen);
		if (e)
			return e;
		e = tracer__configure_cgroup(t, o->cgroup, vmlinux, err, errlen);
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
	tracer__pick_fallbacks(t, vmlinux);
	e = open_load(t, o, vmlinux, err, errlen);
	if (e)
		goto fail;
	e = watch_roots(t, o, err, errlen);
	if (e)
		goto fail;
	/* Copies are read, and their stacks captured, from the first one
	 * counted, not once the rest of the start-up (the task iterator's
	 * load, ...) is over: a child forked then is read whole. */
	if (o->objects)
		tracer__set_objects(t, o->objects_every ? o->objects_every : 1);
	tracer__set_stacks(t, o->stacks_every);
	e = attach(t, err, errlen);
	if (e)
		goto fail;
	tracer__tasks_open(t, vmlinux);
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
	tracer__usdt_free(t);
	free(t->drop);
	free(t->region_slots);
	ring_buffer__free(t->rb);
	tracer__tasks_free(t);
	cowtop_bpf__destroy(t->skel);
	free(t);
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


/* Whether new executable mappings are reported (see tracer.h). */
bool tracer__sees_mappings(const struct tracer *t)
{
	return t->mapped;
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

/* The kernel's allowance per window (allow.h): budget_pct% of one CPU. */
void tracer__set_sample_budget(struct tracer *t, double budget_pct)
{
	__u64 ns = budget_pct > 0 ? (__u64)(budget_pct / 100 * COWTOP_ALLOW_WINDOW_NS + 0.5) : 0;

	__atomic_store_n(&t->skel->bss->sample_allow_ns, ns ? ns : budget_pct > 0, __ATOMIC_RELAXED);
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
