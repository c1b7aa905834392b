/* SPDX-License-Identifier: GPL-2.0 */
/* USDT: the attached probe sites (usdt_specs) open and close a phase per
 * thread, or mark a moment; each hit is sent with its arguments, and the
 * copies made inside a phase are counted per (process, phase). Named apart
 * from libbpf's <bpf/usdt.bpf.h>, which cowtop does not use. Included by
 * cowtop.bpf.c after watch.bpf.h. */
#ifndef COWTOP_PHASES_BPF_H
#define COWTOP_PHASES_BPF_H

/* The phase open in each thread of a watched process (USDT begin/end). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} thread_phase SEC(".maps");

/* The specs of the attached USDT probe sites, written by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, COWTOP_USDT_SPECS);
	__type(key, __u32);
	__type(value, struct cowtop_usdt_spec);
} usdt_specs SEC(".maps");

/* Copies made inside each phase, per process. Outside-phase copies are the
 * process's total less these. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct cowtop_phase_key);
	__type(value, __u64);
} phase_cow SEC(".maps");

/* Credit pages copied by thread tid of task's process to the phase it has
 * open, if any. */
static __always_inline void phase_count(struct task_struct *task, __u32 tgid, __u32 tid,
					__u64 pages)
{
	__u32 *phase = bpf_map_lookup_elem(&thread_phase, &tid);
	struct cowtop_phase_key key = { .tgid = tgid };
	__u64 zero = 0, *n;

	if (!phase)
		return;
	key.phase = *phase;
	key.start = task->group_leader->start_boottime / ns_per_tick;
	n = bpf_map_lookup_elem(&phase_cow, &key);
	if (!n) {
		bpf_map_update_elem(&phase_cow, &key, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&phase_cow, &key);
	}
	if (n) {
		__sync_fetch_and_add(n, pages);
		set_dirty(&phases_dirty);
	} else {
		stat_inc(COWTOP_STAT_PHASE_FULL);
	}
}

/* Open or close the calling thread's phase as the probe says. */
static __always_inline void phase_switch(__u32 tid, __u32 kind, __u32 phase)
{
	__u32 *open;

	if (kind == COWTOP_PROBE_BEGIN) {
		bpf_map_update_elem(&thread_phase, &tid, &phase, BPF_ANY);
		return;
	}
	open = bpf_map_lookup_elem(&thread_phase, &tid);
	if (open && *open == phase)
		bpf_map_delete_elem(&thread_phase, &tid);
}

/* Fetch one USDT argument as its spec says; 0 when it cannot be read. */
static __always_inline int usdt_arg(struct pt_regs *ctx, const struct cowtop_usdt_arg *a,
				    long *out)
{
	__u64 v = 0;

	if (a->type == COWTOP_ARG_CONST) {
		v = a->off;
	} else if (a->type == COWTOP_ARG_REG || a->type == COWTOP_ARG_DEREF) {
		if (bpf_probe_read_kernel(&v, sizeof(v), (void *)ctx + (a->reg_off & 0xf8)))
			return -1;
		if (a->type == COWTOP_ARG_DEREF &&
		    bpf_probe_read_user(&v, sizeof(v), (void *)(v + a->off)))
			return -1;
	} else {
		return -1;
	}
	v <<= a->shift & 63;
	if (a->is_signed)
		*out = (long)v >> (a->shift & 63);
	else
		*out = (long)(v >> (a->shift & 63));
	return 0;
}

/* Send a probe hit with up to COWTOP_USDT_ARGS integer arguments. */
static __always_inline void emit_usdt(struct pt_regs *ctx, __u32 pid,
				      const struct cowtop_usdt_spec *spec)
{
	struct cowtop_usdt_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u32 n = spec->nargs, unavail = 0;
	int i;

	if (!e) {
		stat_inc(COWTOP_STAT_RINGBUF_LOST);
		return;
	}
	e->type = COWTOP_EV_USDT;
	e->pid = pid;
	e->probe = COWTOP_COOKIE_PROBE(spec->cookie);
	e->time_ns = bpf_ktime_get_boot_ns();
	if (n > COWTOP_USDT_ARGS)
		n = COWTOP_USDT_ARGS;
	for (i = 0; i < COWTOP_USDT_ARGS; i++) {
		long v = 0;

		if (i < n && usdt_arg(ctx, &spec->args[i], &v))
			unavail |= 1u << i;
		e->args[i] = v;
	}
	e->nargs = n | unavail << 8;
	bpf_ringbuf_submit(e, 0);
}

/* Every attached USDT probe site: a phase edge or a marker, in a watched
 * process. The attachment's cookie is the site's spec in usdt_specs. User
 * space attaches all sites of a probe in an object with one multi-uprobe
 * link where the kernel has them (then this program's expected attach type
 * is set to BPF_TRACE_UPROBE_MULTI before load), else one uprobe per site. */
SEC("uprobe")
int on_usdt(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), cookie;
	const struct cowtop_usdt_spec *spec;
	__u32 tgid = id >> 32, spec_id;

	if (!watched(tgid) || !bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	spec_id = (__u32)bpf_get_attach_cookie(ctx);
	spec = bpf_map_lookup_elem(&usdt_specs, &spec_id);
	if (!spec)
		return 0;
	cookie = spec->cookie;
	if (COWTOP_COOKIE_KIND(cookie) != COWTOP_PROBE_MARKER)
		phase_switch((__u32)id, COWTOP_COOKIE_KIND(cookie), COWTOP_COOKIE_PHASE(cookie));
	emit_usdt(ctx, tgid, spec);
	return 0;
}

#endif
