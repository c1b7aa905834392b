/* Loading, attaching and reading cowtop's BPF side. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/sysmacros.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <time.h>
#include "procfs.h"
#include "tracer.h"
#include "../bpf/cowtop.h"
#include "cowtop.skel.h"

struct tracer {
	struct cowtop_bpf *skel;
	struct ring_buffer *rb;
	const struct mechanism *mech;
	struct tracer_handlers on;
	unsigned long long ns_per_tick; /* kernel start times to /proc's unit */
	unsigned long long page_kib;    /* kernel page counts to KiB */
	double boot_to_unix;            /* add to CLOCK_BOOTTIME seconds for unix time */
	int ncpus;
	struct bpf_link **links; /* USDT attachments */
	size_t nlinks, links_cap;
	__u32 *drop;             /* forgotten pids whose region counters go at the next walk */
	size_t ndrop, drop_cap;
};

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
static long btf_enum_value(const struct btf *btf, const char *name)
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
	if (o->ringbuf_kib)
		bpf_map__set_max_entries(s->maps.events, o->ringbuf_kib * 1024);
	s->rodata->usdt_enabled = o->usdt;
	s->rodata->nr_cpus = t->ncpus > 0 ? t->ncpus : 1;
	s->rodata->ns_per_tick = t->ns_per_tick;
	bpf_program__set_autoload(s->progs.on_usdt, o->usdt);
}

_Static_assert(PHASE_MAX == COWTOP_PHASE_MAX, "phase slots differ between kernel and model");
_Static_assert(TRACER_COMM_LEN == COWTOP_COMM_LEN, "task name lengths differ");
_Static_assert(TRACER_USDT_ARGS == COWTOP_USDT_ARGS, "probe argument counts differ");

/* The kernel's counters in cowtop's own type. */
static struct cow_counts counts_of(const struct cowtop_counts *k)
{
	return (struct cow_counts){
		.cow = k->cow, .cow_kernel = k->cow_kernel, .zero_fill = k->zero_fill,
		.reuse = k->reuse,
	};
}

/* A kernel start time (ns since boot) in clock ticks, /proc's unit. */
static unsigned long long ticks_of(const struct tracer *t, __u64 ns)
{
	return ns / t->ns_per_tick;
}

/* A kernel page count in KiB; -1 when the kernel does not know it. */
static long long kib_of(const struct tracer *t, __u64 pages)
{
	return pages == COWTOP_INHERITED_UNKNOWN ? -1 : (long long)(pages * t->page_kib);
}

/* Decode a fork, exec or exit record and hand it on. */
static void decode_event(struct tracer *t, const struct cowtop_event *r)
{
	struct tracer_event e = {
		.pid = (int)r->pid, .ppid = (int)r->ppid, .start = ticks_of(t, r->start_ns),
		.exit_status = r->exit_code, .counts = counts_of(&r->counts),
	};
	size_t n = strnlen(r->comm, COWTOP_COMM_LEN);

	if (r->type == COWTOP_EV_FORK)
		e.kind = TRACER_FORK;
	else if (r->type == COWTOP_EV_EXEC)
		e.kind = TRACER_EXEC;
	else if (r->type == COWTOP_EV_EXIT)
		e.kind = TRACER_EXIT;
	else
		return;
	if (e.kind == TRACER_FORK) /* the kernel reads it at every fork */
		e.inherited_kib = r->inherited * t->page_kib;
	memcpy(e.comm, r->comm, n < TRACER_COMM_LEN ? n : TRACER_COMM_LEN - 1);
	if (t->on.event)
		t->on.event(&e, t->on.ctx);
}

/* Decode a USDT probe hit and hand it on. */
static void decode_hit(struct tracer *t, const struct cowtop_usdt_event *r)
{
	struct tracer_hit h = {
		.time = t->boot_to_unix + r->time_ns / 1e9, .pid = (int)r->pid,
		.probe = (int)r->probe,
		.nargs = r->nargs > COWTOP_USDT_ARGS ? COWTOP_USDT_ARGS : (int)r->nargs,
	};
	int i;

	for (i = 0; i < COWTOP_USDT_ARGS; i++)
		h.args[i] = r->args[i];
	if (t->on.hit)
		t->on.hit(&h, t->on.ctx);
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
	else if (*type != COWTOP_EV_USDT && size >= sizeof(struct cowtop_event))
		decode_event(t, data);
	return 0;
}

/* Seconds to add to a CLOCK_BOOTTIME reading to make it unix time. */
static double boot_offset(void)
{
	struct timespec real, boot;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return (real.tv_sec - boot.tv_sec) + (real.tv_nsec - boot.tv_nsec) / 1e9;
}

/* Load the programs and attach them; the ring buffer joins the caller's loop. */
static int load_attach(struct tracer *t, char *err, size_t errlen)
{
	int e = cowtop_bpf__load(t->skel);

	if (e) {
		snprintf(err, errlen, "bpf: cannot load the programs: %s", strerror(-e));
		return e;
	}
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

/* Silence libbpf's own chatter; errors are reported once, by us. */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN || !getenv("COWTOP_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
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
	t->boot_to_unix = boot_offset();
	t->ncpus = libbpf_num_possible_cpus();
	t->skel = cowtop_bpf__open();
	if (!t->skel) {
		e = -errno;
		snprintf(err, errlen, "bpf: cannot open the programs: %s", strerror(errno));
		goto fail;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		e = -errno;
		snprintf(err, errlen, "kernel BTF unreadable: %s", strerror(errno));
		goto fail;
	}
	e = pick_mechanism(t, vmlinux, err, errlen);
	if (e)
		goto fail;
	configure(t, o, vmlinux);
	e = load_attach(t, err, errlen);
	if (e)
		goto fail;
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
	free(t->drop);
	ring_buffer__free(t->rb);
	cowtop_bpf__destroy(t->skel);
	free(t);
}

/* The name of the detection mechanism in use. */
const char *tracer__mechanism(const struct tracer *t)
{
	return t->mech ? t->mech->name : "none";
}

/* Start counting pid (keeps the counters it may already have). */
int tracer__watch(struct tracer *t, int pid, int ppid, unsigned long long start)
{
	struct cowtop_proc p = {
		.start_ns = start * t->ns_per_tick, .ppid = ppid,
		.inherited = COWTOP_INHERITED_UNKNOWN, /* its fork was before ours */
	};
	__u32 key = pid;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.procs), &key, &p, BPF_NOEXIST) &&
	    errno != EEXIST)
		return -errno;
	/* The BPF side updates the same words atomically: do likewise. */
	__atomic_fetch_or(&t->skel->bss->watch_bits[(key / 64) % COWTOP_WATCH_WORDS],
			  1ULL << (key % 64), __ATOMIC_SEQ_CST);
	return 0;
}

/* Drop the per-phase counters of pid. */
static void forget_phases(struct tracer *t, __u32 pid)
{
	struct cowtop_phase_key k = { .tgid = pid };
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

/* Queue pid's region counters to go after the next region walk: their keys
 * are only found by walking the whole map, once a tick for every pid. */
static void forget_regions(struct tracer *t, __u32 pid)
{
	if (t->ndrop == t->drop_cap) {
		size_t cap = t->drop_cap ? t->drop_cap * 2 : 64;
		__u32 *v = realloc(t->drop, cap * sizeof(*v));

		if (!v)
			return; /* they stay; the next forget of a pid tries again */
		t->drop = v;
		t->drop_cap = cap;
	}
	t->drop[t->ndrop++] = pid;
}

/* Drop pid's counters if they still belong to the process that started at
 * start (clock ticks). */
int tracer__forget(struct tracer *t, int pid, unsigned long long start)
{
	int fd = bpf_map__fd(t->skel->maps.procs);
	struct cowtop_proc p;
	__u32 key = pid;

	if (bpf_map_lookup_elem(fd, &key, &p))
		return -errno;
	if (ticks_of(t, p.start_ns) != start)
		return 0;
	forget_phases(t, key);
	forget_regions(t, key);
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

/* Copies of pid still pending in the per-CPU slots (read after the map, so a
 * flush in between can only make a frame short, never count twice). */
static __u64 pending(const struct cowtop_slot *slots, int ncpus, __u32 pid)
{
	__u64 n = 0;
	int c;

	for (c = 0; c < ncpus; c++)
		if (COWTOP_ACC_TGID(slots[c].acc) == pid)
			n += COWTOP_ACC_COUNT(slots[c].acc);
	return n;
}

struct entry {
	__u32 pid;
	struct cowtop_proc p;
};

/* Read the whole process map into a malloc'd array; returns its length or -errno. */
static ssize_t read_procs(struct tracer *t, struct entry **out)
{
	int fd = bpf_map__fd(t->skel->maps.procs);
	__u32 key, next, *prev = NULL;
	struct entry *v = NULL, *nv;
	size_t n = 0, cap = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		if (bpf_map_lookup_elem(fd, &next, &v[n].p) == 0)
			v[n++].pid = next;
	}
	*out = v;
	return n;
}

/* Call fn for every process with counters in the kernel, pending copies
 * included. The slots are read after the map: a flush in between can make
 * one frame short, never count a copy twice. */
int tracer__for_each(struct tracer *t, tracer_proc_fn fn, void *ctx)
{
	int ncpus = t->ncpus > 0 ? t->ncpus : 1;
	struct cowtop_slot *slots = calloc(ncpus, sizeof(*slots));
	struct entry *v = NULL;
	__u32 zero = 0;
	ssize_t n, i;
	bool have_slots;

	if (!slots)
		return -ENOMEM;
	n = read_procs(t, &v);
	have_slots = n > 0 &&
		     bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.slots), &zero, slots) == 0;
	for (i = 0; i < n; i++) {
		struct tracer_proc p = {
			.pid = (int)v[i].pid, .ppid = (int)v[i].p.ppid,
			.start = ticks_of(t, v[i].p.start_ns), .exited = v[i].p.exited,
			.counts = counts_of(&v[i].p.counts),
			.inherited_kib = kib_of(t, v[i].p.inherited),
		};

		if (have_slots && !p.exited)
			p.counts.cow += pending(slots, ncpus, v[i].pid);
		fn(&p, ctx);
	}
	free(v);
	free(slots);
	return n < 0 ? (int)n : 0;
}

/* One region counter as read, pending per-CPU counts added. */
struct region_count {
	struct cowtop_region_key key; /* first: compared as the whole entry's key */
	__u64 pages;
};

/* Region counters read at a walk. */
struct regions {
	struct region_count *v;
	size_t n, cap;
};

/* Append one counter; -ENOMEM when it does not fit. */
static int regions_push(struct regions *r, const struct cowtop_region_key *k, __u64 pages)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct region_count *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n].key = *k;
	r->v[r->n++].pages = pages;
	return 0;
}

/* Order region counters by every field of their key. */
static int cmp_region(const void *x, const void *y)
{
	const struct cowtop_region_key *a = x, *b = y;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return (a->ino > b->ino) - (a->ino < b->ino);
}

/* Order pids. */
static int cmp_u32(const void *x, const void *y)
{
	__u32 a = *(const __u32 *)x, b = *(const __u32 *)y;

	return (a > b) - (a < b);
}

/* Read the region map; keys of queued (forgotten) pids go to *gone too. */
static int read_regions(struct tracer *t, struct regions *r, struct regions *gone)
{
	int fd = bpf_map__fd(t->skel->maps.region_cow);
	struct cowtop_region_key key, next, *prev = NULL;
	__u64 n;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &n))
			continue;
		if (regions_push(r, &key, n))
			return -ENOMEM;
		if (t->ndrop && bsearch(&key.tgid, t->drop, t->ndrop, sizeof(*t->drop), cmp_u32) &&
		    regions_push(gone, &key, 0))
			return -ENOMEM;
	}
	return 0;
}

/* Whether the pending region count of a slot belongs to the process the
 * map counts under its tgid now (not to an exited one of a reused pid). */
static bool pending_is_current(struct tracer *t, const struct cowtop_slot *s)
{
	struct cowtop_proc p;
	__u32 key = s->rkey.tgid;

	return bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.procs), &key, &p) == 0 &&
	       ticks_of(t, p.start_ns) == ticks_of(t, s->rstart);
}

/* Add the region counts pending in the slots, read after the map (a flush
 * in between makes a frame short, never counts twice). The slots are read
 * twice: a CPU whose pending key was changing, or changed between the
 * reads, is left out rather than its count put under the wrong key. */
static int add_pending_regions(struct tracer *t, struct regions *r)
{
	int ncpus = t->ncpus > 0 ? t->ncpus : 1, fd = bpf_map__fd(t->skel->maps.slots), c, e = 0;
	struct cowtop_slot *a = calloc(ncpus, sizeof(*a)), *b = calloc(ncpus, sizeof(*b));
	size_t sorted = r->n;
	__u32 zero = 0;

	if (!a || !b || bpf_map_lookup_elem(fd, &zero, a) || bpf_map_lookup_elem(fd, &zero, b))
		goto out;
	qsort(r->v, r->n, sizeof(*r->v), cmp_region);
	for (c = 0; c < ncpus && !e; c++) {
		struct region_count *hit;

		if (!a[c].rcount || (a[c].rgen & 1) || a[c].rgen != b[c].rgen ||
		    !pending_is_current(t, &a[c]))
			continue;
		hit = bsearch(&a[c].rkey, r->v, sorted, sizeof(*r->v), cmp_region);
		if (hit)
			hit->pages += a[c].rcount;
		else
			e = regions_push(r, &a[c].rkey, a[c].rcount);
	}
out:
	free(a);
	free(b);
	return e;
}

/* A region kind of the kernel's in cowtop's own type. */
static enum region_kind kind_of(__u32 k)
{
	switch (k) {
	case COWTOP_REGION_HEAP: return REGION_HEAP;
	case COWTOP_REGION_STACK: return REGION_STACK;
	case COWTOP_REGION_ANON: return REGION_ANON;
	case COWTOP_REGION_FILE: return REGION_FILE;
	default: return REGION_OTHER;
	}
}

/* Call fn for every (process, region) counter, pending copies included,
 * then drop the counters of the pids forgotten since the last walk. */
int tracer__for_each_region(struct tracer *t, tracer_region_fn fn, void *ctx)
{
	int fd = bpf_map__fd(t->skel->maps.region_cow), e;
	struct regions r = { 0 }, gone = { 0 };
	size_t i;

	qsort(t->drop, t->ndrop, sizeof(*t->drop), cmp_u32);
	e = read_regions(t, &r, &gone);
	if (!e)
		e = add_pending_regions(t, &r);
	for (i = 0; i < r.n; i++) {
		const struct cowtop_region_key *k = &r.v[i].key;
		/* The kernel's dev_t: major << 20 | minor. */
		struct tracer_region tr = {
			.pid = (int)k->tgid, .kind = kind_of(k->kind),
			.dev = k->kind == COWTOP_REGION_FILE ? makedev(k->dev >> 20, k->dev & 0xfffff) : 0,
			.ino = k->kind == COWTOP_REGION_FILE ? k->ino : 0, .pages = r.v[i].pages,
		};

		fn(&tr, ctx);
	}
	for (i = 0; i < gone.n; i++)
		bpf_map_delete_elem(fd, &gone.v[i].key);
	if (!e)
		t->ndrop = 0; /* else a pid's counters may have been missed: try again */
	free(r.v);
	free(gone.v);
	return e;
}

/* Records and processes lost since start, all kinds summed. */
unsigned long long tracer__lost(struct tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.stats);
	__u64 total = 0, v[t->ncpus > 0 ? t->ncpus : 1];
	__u32 k;
	int c;

	for (k = 0; k < COWTOP_STAT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (c = 0; c < t->ncpus; c++)
			total += v[c];
	}
	return total;
}

/* Keep a link so it is destroyed with the tracer. */
static int keep_link(struct tracer *t, struct bpf_link *l)
{
	if (t->nlinks == t->links_cap) {
		size_t cap = t->links_cap ? t->links_cap * 2 : 8;
		struct bpf_link **v = realloc(t->links, cap * sizeof(*v));

		if (!v) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		t->links = v;
		t->links_cap = cap;
	}
	t->links[t->nlinks++] = l;
	return 0;
}

/* The kernel's kind of a probe: what it does to its phase. */
static enum cowtop_probe_kind probe_kind(enum usdt_kind k)
{
	if (k == USDT_BEGIN)
		return COWTOP_PROBE_BEGIN;
	return k == USDT_END ? COWTOP_PROBE_END : COWTOP_PROBE_MARKER;
}

/* Attach the USDT program to provider:name in the ELF object at path, for
 * every process that maps it (watched ones are picked in the kernel); hits
 * carry probe, and a BEGIN or END opens or closes phase. */
int tracer__attach_usdt(struct tracer *t, const char *path, const char *provider,
			const char *name, int probe, enum usdt_kind kind, int phase)
{
	LIBBPF_OPTS(bpf_usdt_opts, opts, .usdt_cookie = COWTOP_COOKIE(probe, probe_kind(kind), phase));
	struct bpf_link *l;

	l = bpf_program__attach_usdt(t->skel->progs.on_usdt, -1, path, provider, name, &opts);
	if (!l)
		return -errno;
	return keep_link(t, l);
}

/* Whether copies are counted per phase (-u given). */
bool tracer__has_phases(const struct tracer *t)
{
	return t->skel->rodata->usdt_enabled;
}

/* Call fn for every (process, phase) copy counter held in the kernel. */
int tracer__for_each_phase(struct tracer *t, tracer_split_fn fn, void *ctx)
{
	int fd = bpf_map__fd(t->skel->maps.phase_cow);
	struct cowtop_phase_key key, next, *prev = NULL;
	__u64 n;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, &n) == 0)
			fn((int)next.tgid, (int)next.phase, n, ctx);
		key = next;
		prev = &key;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* The per-phase copy counters of one process (zeros where none). */
void tracer__phases_of(struct tracer *t, int pid, unsigned long long out[PHASE_MAX])
{
	struct cowtop_phase_key k = { .tgid = pid };
	int fd = bpf_map__fd(t->skel->maps.phase_cow);

	memset(out, 0, COWTOP_PHASE_MAX * sizeof(*out));
	if (!t->skel->rodata->usdt_enabled)
		return;
	for (k.phase = 1; k.phase < COWTOP_PHASE_MAX; k.phase++)
		if (bpf_map_lookup_elem(fd, &k, &out[k.phase]))
			out[k.phase] = 0;
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

/* Call fn for every (process, stack) page counter held in the kernel. */
int tracer__for_each_stack(struct tracer *t, tracer_stack_fn fn, void *ctx)
{
	int fd = bpf_map__fd(t->skel->maps.stack_pages);
	struct cowtop_stack_key key, next, *prev = NULL;
	__u64 n;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, &n) == 0)
			fn((int)next.tgid, next.stack_id, n, ctx);
		key = next;
		prev = &key;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* The user addresses of a captured stack, innermost first. */
int tracer__stack_ips(struct tracer *t, unsigned stack_id, unsigned long long *ips, int max)
{
	__u64 v[COWTOP_STACK_DEPTH];
	__u32 key = stack_id;
	int i;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stack_map), &key, v))
		return 0;
	for (i = 0; i < COWTOP_STACK_DEPTH && i < max && v[i]; i++)
		ips[i] = v[i];
	return i;
}

/* The capture counters, summed over CPUs. */
void tracer__stack_stats(struct tracer *t, struct tracer_stack_stats *out)
{
	int fd = bpf_map__fd(t->skel->maps.stack_stats), ncpus = t->ncpus > 0 ? t->ncpus : 1;
	unsigned long long sum[COWTOP_STACK_STAT_MAX] = { 0 };
	__u64 v[ncpus];
	__u32 k;
	int c;

	for (k = 0; k < COWTOP_STACK_STAT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (c = 0; c < ncpus; c++)
			sum[k] += v[c];
	}
	out->taken = sum[COWTOP_STACK_TAKEN];
	out->failed = sum[COWTOP_STACK_FAILED];
	out->ns = sum[COWTOP_STACK_NS];
}

/* Drop the page counter of (pid, stack id), once read for the last time. */
void tracer__forget_stack(struct tracer *t, int pid, unsigned stack_id)
{
	struct cowtop_stack_key key = { .tgid = pid, .stack_id = stack_id };

	bpf_map_delete_elem(bpf_map__fd(t->skel->maps.stack_pages), &key);
}
