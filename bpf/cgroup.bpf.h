/* SPDX-License-Identifier: GPL-2.0 */
/* --cgroup: the processes of one cgroup subtree are watched, as they fork
 * in it and as they are moved in and out. Included by cowtop.bpf.c after
 * count.bpf.h. */
#ifndef COWTOP_CGROUP_BPF_H
#define COWTOP_CGROUP_BPF_H

/* Whether task is in the --cgroup target's subtree. */
static __always_inline bool in_target_cgroup(struct task_struct *task)
{
	struct css_set *cs = BPF_CORE_READ(task, cgroups);
	struct cgroup_subsys_state *css = NULL;
	struct cgroup *cg, *anc = NULL;

	if (!cs)
		return false;
	if (cgroup_subsys >= 0) {
		bpf_core_read(&css, sizeof(css), &cs->subsys[cgroup_subsys & 15]);
		cg = BPF_CORE_READ(css, cgroup);
	} else {
		cg = BPF_CORE_READ(cs, dfl_cgrp);
	}
	if (!cg || BPF_CORE_READ(cg, level) < (int)cgroup_level)
		return false;
	bpf_core_read(&anc, sizeof(anc), &cg->ancestors[cgroup_level & 255]);
	return anc && BPF_CORE_READ(anc, kn, id) == cgroup_id;
}

/* --cgroup: a process was moved between cgroups (the write to cgroup.procs
 * has been done). Watch it from now on if it is now in the target, stop if
 * it was watched and is not any more. */
SEC("raw_tp/cgroup_attach_task")
int on_cgroup_attach(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[2];
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct cowtop_proc *p;
	bool in;

	if (!cgroup_id)
		return 0;
	in = in_target_cgroup(task);
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (in && (!p || p->exited)) {
		p = proc_add(tgid, BPF_CORE_READ(task, real_parent, tgid), group_start_ns(task),
			     COWTOP_INHERITED_UNKNOWN, BPF_ANY);
		if (p) {
			unrefuse(tgid); /* counted from its move in, as any process entering */
			watch_bit(tgid, true);
		}
		emit(COWTOP_EV_ENTER, tgid, task, p, COWTOP_INHERITED_UNKNOWN);
	} else if (!in && p && !p->exited) {
		flush_everywhere(tgid);
		__sync_fetch_and_or(&p->flags, COWTOP_PROC_LEFT);
		p->exited = 1;
		mark_changed(tgid);
		watch_bit(tgid, false);
		emit(COWTOP_EV_LEAVE, tgid, task, p, COWTOP_INHERITED_UNKNOWN);
	}
	return 0;
}

#endif
