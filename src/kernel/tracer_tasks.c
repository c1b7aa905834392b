/* The task iterator: every watched process's /proc/PID/stat figures in one
 * read. Best effort: a kernel that cannot load or attach it leaves
 * t->iter NULL and the collector reads /proc as before. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "procfs.h"
#include "tracer_int.h"

/* Set the iterator's rss_stat indexes from the kernel's enum (all three or
 * none: the defaults are the layout of every kernel since 4.x). */
static void set_counters(struct iter_bpf *it, const struct btf *vmlinux)
{
	long file = btf_enum_value(vmlinux, "MM_FILEPAGES");
	long anon = btf_enum_value(vmlinux, "MM_ANONPAGES");
	long shmem = btf_enum_value(vmlinux, "MM_SHMEMPAGES");

	if (file < 0 || file >= 4 || anon < 0 || anon >= 4 || shmem < 0 || shmem >= 4)
		return;
	it->rodata->mm_filepages = file;
	it->rodata->mm_anonpages = anon;
	it->rodata->mm_shmempages = shmem;
}

/* Without the iterator: /proc is read per process instead; say why. */
static void tasks_from_proc(struct tracer *t, struct iter_bpf *it, const char *why)
{
	iter_bpf__destroy(it);
	tracer__fallback(t, "tasks:/proc", why);
}

void tracer__tasks_open(struct tracer *t, const struct btf *vmlinux)
{
	struct iter_bpf *it;

	if (t->rss == COWTOP_RSS_NONE)
		return; /* it would say RSS 0: /proc says what it is (see rss:/proc) */
	it = iter_bpf__open();
	if (!it) {
		tasks_from_proc(t, NULL, "the task iterator cannot be opened");
		return;
	}
	set_counters(it, vmlinux);
	it->rodata->rss_layout = t->rss;
	if (bpf_map__reuse_fd(it->maps.procs, bpf_map__fd(t->skel->maps.procs)) ||
	    iter_bpf__load(it)) {
		tasks_from_proc(t, it, "the kernel rejected the task iterator (bpf iter/task)");
		return;
	}
	t->iter_link = bpf_program__attach_iter(it->progs.dump_procs, NULL);
	if (!t->iter_link) {
		tasks_from_proc(t, it, "the task iterator cannot be attached");
		return;
	}
	t->iter = it;
	/* The innermost pid is the one cowtop's /proc shows only when cowtop
	 * sees every namespace from the initial one. */
	t->nspid_ok = procfs_pidns_is_initial();
}

void tracer__tasks_free(struct tracer *t)
{
	bpf_link__destroy(t->iter_link);
	t->iter_link = NULL;
	iter_bpf__destroy(t->iter);
	t->iter = NULL;
	free(t->tasks_buf);
	t->tasks_buf = NULL;
	t->tasks_cap = 0;
}

/* Run the iterator once: its whole output into t->tasks_buf. The length,
 * or -errno. */
static ssize_t read_tasks(struct tracer *t)
{
	int fd = bpf_iter_create(bpf_link__fd(t->iter_link));
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return fd;
	for (;;) {
		if (t->tasks_cap - n < 4096) {
			size_t cap = t->tasks_cap ? t->tasks_cap * 2 : 65536;
			char *b = realloc(t->tasks_buf, cap);

			if (!b) {
				close(fd);
				return -ENOMEM;
			}
			t->tasks_buf = b;
			t->tasks_cap = cap;
		}
		r = read(fd, t->tasks_buf + n, t->tasks_cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return r < 0 ? -errno : (ssize_t)n;
}

/* A record in cowtop's own type. */
static struct tracer_task task_of(const struct tracer *t, const struct cowtop_task_rec *k)
{
	struct tracer_task tt = {
		.pid = (int)k->tgid, .ppid = (int)k->ppid, .start = ticks_of(t, k->start_ns),
		.state = k->state, .rss_kib = k->rss * t->page_kib, .vsz_kib = k->vm * t->page_kib,
		.thread = k->flags & COWTOP_TASK_THREAD, .kthread = k->flags & COWTOP_TASK_KTHREAD,
		.changed = k->flags & COWTOP_TASK_CHANGED, .unwatched = k->flags & COWTOP_TASK_UNWATCHED,
		.nspid = t->nspid_ok ? (int)k->nspid : 0,
	};

	memcpy(tt.comm, k->comm, sizeof(tt.comm));
	tt.comm[sizeof(tt.comm) - 1] = '\0';
	return tt;
}

/* Hand the len bytes of records read to fn. Leaders first: a thread
 * record then overrides what its leader, gone, could not give, whatever
 * the order the kernel walked them in. */
static void hand_out(struct tracer *t, size_t len, tracer_task_fn fn, void *ctx)
{
	const struct cowtop_task_rec *v = (const struct cowtop_task_rec *)t->tasks_buf;
	size_t n = len / sizeof(*v), i;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (!!(v[i].flags & COWTOP_TASK_THREAD) == pass) {
				struct tracer_task tt = task_of(t, &v[i]);

				fn(&tt, ctx);
			}
}

int tracer__for_each_task(struct tracer *t, bool changed_only, tracer_task_fn fn, void *ctx)
{
	ssize_t len;

	if (!t->iter)
		return -ENOTSUP;
	t->iter->bss->changed_only = changed_only;
	len = read_tasks(t);
	if (len < 0)
		return (int)len;
	hand_out(t, (size_t)len, fn, ctx);
	return 0;
}

/* What tracer__watch does besides the map update, for the processes the
 * iterator added (the watched and changed bits), or counts a process it
 * had no room for once. */
static void mark_added(struct tracer *t, size_t len)
{
	const struct cowtop_task_rec *v = (const struct cowtop_task_rec *)t->tasks_buf;
	size_t n = len / sizeof(*v), i;

	for (i = 0; i < n; i++) {
		__u32 key = v[i].tgid, w = (key / 64) % COWTOP_WATCH_WORDS;
		__u64 bit = 1ULL << (key % 64);

		if (v[i].flags & COWTOP_TASK_THREAD)
			continue;
		if (v[i].flags & COWTOP_TASK_REFUSED) {
			if (!(__atomic_fetch_or(&t->skel->bss->refused_bits[w], bit, __ATOMIC_SEQ_CST) & bit))
				t->refused++;
			continue;
		}
		__atomic_fetch_or(&t->skel->bss->watch_bits[w], bit, __ATOMIC_SEQ_CST);
		__atomic_fetch_or(&t->skel->bss->changed_bits[w], bit, __ATOMIC_SEQ_CST);
	}
}

int tracer__discover(struct tracer *t, bool add, tracer_task_fn fn, void *ctx)
{
	ssize_t len;

	if (!t->iter)
		return -ENOTSUP;
	t->iter->bss->changed_only = false;
	t->iter->bss->discover = true;
	t->iter->bss->discover_add = add;
	len = read_tasks(t);
	t->iter->bss->discover = t->iter->bss->discover_add = false;
	if (len < 0)
		return (int)len;
	if (add)
		mark_added(t, (size_t)len);
	hand_out(t, (size_t)len, fn, ctx);
	return 0;
}
