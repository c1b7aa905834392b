/* SPDX-License-Identifier: GPL-2.0 */
/* Memory pressure: an OOM kill of a watched process (flagged, so that its
 * exit says why) and its direct or memcg reclaim stalls, counted and logged.
 * Included by cowtop.bpf.c after follow.bpf.h. */
#ifndef COWTOP_PRESSURE_BPF_H
#define COWTOP_PRESSURE_BPF_H

/* Send an OOM kill or a reclaim stall of tgid. */
static __always_inline void emit_mem(__u32 type, __u32 tgid, __u32 tid, __u32 kind, __u64 value)
{
	struct cowtop_mem_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(COWTOP_STAT_RINGBUF_LOST);
		return;
	}
	e->type = type;
	e->pid = tgid;
	e->tid = tid;
	e->kind = kind;
	e->time_ns = bpf_ktime_get_boot_ns();
	e->value = value;
	bpf_ringbuf_submit(e, 0);
}

/* The OOM killer chose a task (not the current one): flag its process, so
 * that its exit says why, and log the kill when cowtop watches it. */
SEC("raw_tp/mark_victim")
int on_oom_victim(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[0];
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct cowtop_proc *p;

	if (!watched(tgid))
		return 0;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	__sync_fetch_and_or(&p->flags, COWTOP_PROC_OOM);
	mark_changed(tgid);
	emit_mem(COWTOP_EV_OOM, tgid, BPF_CORE_READ(task, pid), 0, anon_pages(task));
	return 0;
}

/* A reclaim stall in progress: when it began and which kind, per thread. */
struct reclaim_start {
	__u64 ns;
	__u32 kind;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct reclaim_start);
} reclaiming SEC(".maps");

/* A thread enters reclaim: remember when, if its process is watched. Only
 * the watched bit is tested for every other process in the machine. */
static __always_inline int reclaim_begin(__u32 kind)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct reclaim_start r = { .kind = kind };

	if (!watched(tgid) || !bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	r.ns = bpf_ktime_get_boot_ns();
	bpf_map_update_elem(&reclaiming, &tid, &r, BPF_ANY);
	return 0;
}

/* A thread leaves reclaim: count the stall for its process and log it. */
static __always_inline int reclaim_end(void)
{
	__u64 id = bpf_get_current_pid_tgid(), ns;
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct reclaim_start *r;
	struct cowtop_proc *p;
	__u32 kind;

	if (!watched(tgid))
		return 0;
	r = bpf_map_lookup_elem(&reclaiming, &tid);
	if (!r)
		return 0;
	ns = bpf_ktime_get_boot_ns() - r->ns;
	kind = r->kind;
	bpf_map_delete_elem(&reclaiming, &tid);
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (!p)
		return 0;
	__sync_fetch_and_add(&p->reclaims, 1);
	__sync_fetch_and_add(&p->reclaim_ns, ns);
	mark_changed(tgid);
	emit_mem(COWTOP_EV_RECLAIM, tgid, tid, kind, ns);
	return 0;
}

SEC("raw_tp/mm_vmscan_direct_reclaim_begin")
int on_direct_reclaim_begin(struct bpf_raw_tracepoint_args *ctx)
{
	return reclaim_begin(COWTOP_RECLAIM_DIRECT);
}

SEC("raw_tp/mm_vmscan_direct_reclaim_end")
int on_direct_reclaim_end(struct bpf_raw_tracepoint_args *ctx)
{
	return reclaim_end();
}

SEC("raw_tp/mm_vmscan_memcg_reclaim_begin")
int on_memcg_reclaim_begin(struct bpf_raw_tracepoint_args *ctx)
{
	return reclaim_begin(COWTOP_RECLAIM_MEMCG);
}

SEC("raw_tp/mm_vmscan_memcg_reclaim_end")
int on_memcg_reclaim_end(struct bpf_raw_tracepoint_args *ctx)
{
	return reclaim_end();
}

#endif
