/* What the tracer's own files share, and nobody else sees: the tracer's
 * state and the conversions of the kernel's units to cowtop's. Included
 * only by the tracer's own files (tracer*.c, the only users of
 * bpf/cowtop.h);
 * tracer.h is the public API. */
#ifndef COWTOP_TRACER_INT_H
#define COWTOP_TRACER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>
#include "tracer.h"
#include "../bpf/cowtop.h"
#include "cowtop.skel.h"
#include "iter.skel.h"

/* A process forgotten: its pid and start time (clock ticks). */
struct tracer_gone {
	__u32 pid;
	__u64 start;
};

/* The tracer's state, opaque outside its own files. */
struct tracer {
	struct cowtop_bpf *skel;
	struct ring_buffer *rb;
	const struct mechanism *mech;
	struct tracer_handlers on;
	unsigned long long ns_per_tick; /* kernel start times to /proc's unit */
	long long timens_ns;            /* boot time offset of cowtop's time namespace */
	bool oom, reclaim;              /* their programs are loaded */
	unsigned long long page_kib;    /* kernel page counts to KiB */
	double boot_to_unix;            /* add to CLOCK_BOOTTIME seconds for unix time */
	int ncpus;
	__u32 procs_max;         /* processes the kernel's process map holds */
	unsigned long long refused; /* processes found in /proc it had no room for */
	size_t nentries;         /* entries of the process map at its last whole read */
	struct bpf_link **links; /* USDT attachments, one uprobe per site */
	size_t nlinks, links_cap;
	bool uprobe_multi;       /* the kernel has multi-uprobe links: these instead */
	int *link_fds;
	size_t nfds, fds_cap;
	struct cowtop_usdt_spec *specs; /* what usdt_specs holds, [0, nspecs) */
	__u32 nspecs;
	struct tracer_gone *drop; /* forgotten processes whose region counters go at the
				     next walk */
	/* The per-CPU slots as the last read of the region map added their
	 * pending counts; that read, and the last one of the phase map, done. */
	struct cowtop_slot *region_slots;
	bool regions_read, phases_read;
	size_t ndrop, drop_cap;
	enum cowtop_rss_layout rss; /* how the kernel side reads mm->rss_stat */
	enum cowtop_fault_end fault_end; /* how it tells a fault has ended */
	bool oom_out, reclaim_out; /* their programs left out (missing, or rejected) */
	bool mapped, mapped_out;   /* the same for new executable mappings */
	char fallbacks[256];     /* words for the header and JSON (tracer__fallbacks) */
	char notes[1024];        /* why, a line each */
	struct iter_bpf *iter;   /* the task iterator; NULL when this kernel cannot run it */
	struct bpf_link *iter_link;
	char *tasks_buf;         /* its last read */
	bool nspid_ok;           /* its records' nspid is the one /proc would give */
	size_t tasks_cap;
};

/* The task iterator (tracer_tasks.c): set up after the main programs are
 * loaded, sharing their process map; on failure there is none, and /proc is
 * read instead. */
void tracer__tasks_open(struct tracer *t, const struct btf *vmlinux);
void tracer__tasks_free(struct tracer *t);
void tracer__fallback(struct tracer *t, const char *word, const char *why);
long btf_enum_value(const struct btf *btf, const char *name);
/* tracer_usdt.c: how USDT probes are attached, chosen before load. */
void tracer__usdt_prepare(struct tracer *t, bool usdt);
void tracer__usdt_free(struct tracer *t);

/* The kernel's counters in cowtop's own type. */
static inline struct cow_counts counts_of(const struct cowtop_counts *k)
{
	return (struct cow_counts){
		.cow = k->cow, .cow_kernel = k->cow_kernel, .zero_fill = k->zero_fill,
		.reuse = k->reuse,
	};
}

/* A kernel start time (ns since boot) in clock ticks, /proc's unit. */
static inline unsigned long long ticks_of(const struct tracer *t, __u64 ns)
{
	/* /proc adds the reader's time namespace offset; the kernel side sees
	 * the host's clock. Both must name a process by the same start. */
	return (ns + (__u64)t->timens_ns) / t->ns_per_tick;
}

/* A start time in clock ticks as the kernel side keeps it (ns since boot). */
static inline __u64 ns_of(const struct tracer *t, unsigned long long ticks)
{
	return ticks * t->ns_per_tick - (__u64)t->timens_ns;
}

/* A CLOCK_BOOTTIME reading of the kernel side in unix seconds. */
static inline double unix_of(const struct tracer *t, __u64 ns)
{
	return t->boot_to_unix + ((double)ns + (double)t->timens_ns) / 1e9;
}

/* A kernel page count in KiB; -1 when the kernel does not know it. */
static inline long long kib_of(const struct tracer *t, __u64 pages)
{
	return pages == COWTOP_INHERITED_UNKNOWN ? -1 : (long long)(pages * t->page_kib);
}

/* A whole hash map as read (tracer_maps.c): n entries, keys and values in
 * two arrays. dump__read reads every entry of hash map fd (keys of ksz
 * bytes, values of vsz) into d, in batches where the kernel can, key by
 * key where not; 0 or -errno. The caller frees d with dump__free. */
struct dump {
	void *keys, *vals;
	size_t n, cap;
	size_t ksz, vsz;
};
int dump__read(int fd, size_t ksz, size_t vsz, struct dump *d);
void dump__free(struct dump *d);

/* tracer_pick.c: what the kernel has, chosen before load. */
int tracer__pick_mechanism(struct tracer *t, const struct btf *vmlinux, char *err, size_t errlen);
void tracer__pick_memory_programs(struct tracer *t, const struct btf *vmlinux);
void tracer__pick_mapped(struct tracer *t, bool wanted, const struct btf *vmlinux);
void tracer__configure(struct tracer *t, const struct tracer_opts *o, const struct btf *vmlinux);
int tracer__size_stacks(struct tracer *t, char *err, size_t errlen);
int tracer__configure_cgroup(struct tracer *t, const struct tracer_cgroup *cg,
			    const struct btf *vmlinux, char *err, size_t errlen);
void tracer__pick_fallbacks(struct tracer *t, const struct btf *vmlinux);

#endif
