/* The kernel side's lifecycle: pick a detection mechanism, load and attach
 * the BPF programs, drain the ring buffer, read and reap the counters. */
#ifndef COWTOP_TRACER_H
#define COWTOP_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "../bpf/cowtop.h"

struct tracer;

/* A ring-buffer record: data starts with a __u32 type (enum cowtop_event_type). */
typedef void (*tracer_event_fn)(const void *data, size_t size, void *ctx);
typedef void (*tracer_phase_fn)(__u32 pid, __u32 phase, __u64 pages, void *ctx);
typedef void (*tracer_proc_fn)(__u32 pid, const struct cowtop_proc *p, void *ctx);

struct tracer_opts {
	bool watch_all;
	int first_clone_of;
	unsigned ringbuf_kib; /* 0: default */
	bool usdt;            /* load the USDT program and count copies per phase */
	tracer_event_fn on_event;
	void *ctx;
};

int tracer__open(struct tracer **out, const struct tracer_opts *o, char *err, size_t errlen);
void tracer__destroy(struct tracer *t);
const char *tracer__mechanism(const struct tracer *t);
int tracer__watch(struct tracer *t, int pid, int ppid, __u64 start_ns);
int tracer__forget(struct tracer *t, int pid, __u64 start_ns, __u64 unit);
int tracer__epoll_fd(struct tracer *t);
int tracer__drain(struct tracer *t);
int tracer__for_each(struct tracer *t, tracer_proc_fn fn, void *ctx);
__u64 tracer__lost(struct tracer *t);
int tracer__attach_usdt(struct tracer *t, const char *path, const char *provider,
			const char *name, __u64 cookie);
int tracer__for_each_phase(struct tracer *t, tracer_phase_fn fn, void *ctx);
void tracer__phases_of(struct tracer *t, int pid, __u64 out[COWTOP_PHASE_MAX]);

#endif
