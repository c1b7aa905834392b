/* A frame's groups: the figures of each watched root's subtree (workers'
 * USS, headroom), summed from the frame's processes. */
#include <errno.h>
#include <stdlib.h>
#include "frame.h"
#include "frame_int.h"

/* Seconds since p's smaps reading, as of the frame; -1 never read. */
double frame_smaps_age(const struct frame *f, const struct proc *p)
{
	if (!p->smaps_time)
		return -1;
	return f->time > p->smaps_time ? f->time - p->smaps_time : 0;
}

/* How many of size fit in room; -1 when size is unknown. */
static long long fit(unsigned long long room, unsigned long long size)
{
	return size ? (long long)(room / size) : -1;
}

/* Count one live member of a group: its reading, or that it has none. */
static void group_member(const struct frame *f, const struct proc *p, bool worker,
			 struct frame_group *g, double *oldest)
{
	unsigned long long uss = proc_uss_kib(p);

	g->workers += worker;
	if (!p->smaps_time) {
		g->unread++;
		return;
	}
	g->pss_kib += p->smaps.pss;
	g->uss_kib += uss;
	if (*oldest < 0 || frame_smaps_age(f, p) > *oldest)
		*oldest = frame_smaps_age(f, p);
	if (!worker)
		return;
	if (g->worker_age < 0 || frame_smaps_age(f, p) > g->worker_age)
		g->worker_age = frame_smaps_age(f, p);
	/* copies are 4 KiB base pages */
	if (p->counts.cow > p->smaps_cow && (p->counts.cow - p->smaps_cow) * 4 * FRAME_SETTLE_COPIED > uss)
		g->copying++;
	g->workers_read++;
	g->worker_uss_mean_kib += uss; /* a sum until the end */
	if (uss > g->worker_uss_max_kib)
		g->worker_uss_max_kib = uss;
}

/* Whether the mean worker USS of g is settled; see FRAME_SETTLE_SAMPLE. */
bool frame_group_settled(const struct frame_group *g)
{
	if (!g->workers_read || (g->workers_read < g->workers && g->workers_read < FRAME_SETTLE_SAMPLE))
		return false;
	return g->worker_age <= FRAME_SETTLE_AGE && !g->copying;
}

/* The figures of a subtree laid out as rows, rows[0] its root. */
static void group_sum(const struct frame *f, const struct row *rows, size_t n, struct frame_group *g)
{
	const struct proc *root = rows[0].p;
	const struct memcg *cg = &root->memcg;
	double oldest = -1;
	size_t i;

	*g = (struct frame_group){ .root_pid = root->pid, .root_start = root->start_time,
				   .root_rss_kib = root->rss_kib, .root_mem_known = proc_mem_known(root),
				   .forked = root->forked, .reaped = root->reaped, .worker_age = -1 };
	for (i = 0; i < n; i++) {
		g->cow += rows[i].p->counts.cow;
		g->rate += rows[i].p->cow_rate;
		if (!rows[i].p->exited)
			group_member(f, rows[i].p, i > 0, g, &oldest);
	}
	if (g->workers_read)
		g->worker_uss_mean_kib /= g->workers_read;
	g->headroom = f->mem_available_kib ? fit(f->mem_available_kib, g->worker_uss_mean_kib) : -1;
	g->headroom_cgroup = -1;
	g->memcg = *cg;
	if (cg->limit_kib)
		g->headroom_cgroup = fit(cg->limit_kib > cg->usage_kib ? cg->limit_kib - cg->usage_kib : 0,
					 g->worker_uss_mean_kib);
	g->smaps_age = oldest;
	g->settled = frame_group_settled(g);
}

/* The frame's processes laid out as a tree by pid, only the subtree of
 * focus_pid when not 0; *rows to free. Returns the number of rows. */
static long tree_of(const struct frame *f, int focus_pid, struct row **rows)
{
	struct view_opts vo = { .sort = FIELD_PID, .tree = true, .focus_pid = focus_pid };
	long n;

	*rows = frame_array(f->nprocs, sizeof(**rows));
	if (!*rows)
		return -ENOMEM;
	n = tree_layout(f->procs, f->nprocs, &vo, *rows);
	if (n < 0) {
		free(*rows);
		*rows = NULL;
	}
	return n;
}

/* The end of the subtree whose root is rows[i]. */
static size_t subtree_end(const struct row *rows, size_t n, size_t i)
{
	for (i++; i < n && rows[i].depth > 0; i++)
		;
	return i;
}

/* A group for each watched root with at least one live descendant. */
int take_groups(struct frame *f)
{
	struct row *rows;
	long n = tree_of(f, 0, &rows);
	size_t i, end;

	if (n < 0)
		return (int)n;
	f->groups = frame_array((size_t)n, sizeof(*f->groups));
	if (!f->groups) {
		free(rows);
		return -ENOMEM;
	}
	for (i = 0; i < (size_t)n; i = end) {
		end = subtree_end(rows, (size_t)n, i);
		group_sum(f, rows + i, end - i, &f->groups[f->ngroups]);
		f->ngroups += f->groups[f->ngroups].workers > 0;
	}
	free(rows);
	f->grouped = f->ngroups > 0;
	return 0;
}

/* Sum the groups of a frame built without them; see frame.h. */
int frame__groups(struct frame *f)
{
	return f->groups ? 0 : take_groups(f);
}

/* Whether some watched root has a live descendant, from the tree: a live
 * process below a root. */
int grouped_by_tree(struct frame *f)
{
	struct row *rows;
	long n = tree_of(f, 0, &rows), i;

	if (n < 0)
		return (int)n;
	for (i = 0; i < n && !f->grouped; i++)
		f->grouped = rows[i].depth > 0 && !rows[i].p->exited;
	free(rows);
	return 0;
}

/* Whether some watched root has a live descendant, without summing the
 * groups: a live process whose parent is held. The model's pid index
 * answers at once, usually at the first process; only when the process it
 * finds under a parent's pid cannot be the parent (it started later: the
 * pid was reused) does the answer take the tree. */
int take_grouped(struct frame *f, struct model *m)
{
	bool unsure = false;
	const struct proc *p, *q;
	size_t i;

	for (i = 0; i < f->nprocs; i++) {
		p = &f->procs[i];
		if (p->exited || !(q = model__find(m, p->ppid, 0)))
			continue;
		if (q->pid != p->pid && q->start_time <= p->start_time) {
			f->grouped = true;
			return 0;
		}
		unsure = true;
	}
	return unsure ? grouped_by_tree(f) : 0;
}

/* The group of focus_pid's subtree, or of member's watched root. */
int frame_group_of(const struct frame *f, int focus_pid, const struct proc *member,
		   struct frame_group *out)
{
	struct row *rows;
	long n = tree_of(f, focus_pid, &rows);
	size_t k;

	if (n <= 0) {
		free(rows);
		return n < 0 ? (int)n : -ENOENT;
	}
	for (k = 0; member && k < (size_t)n && rows[k].p != member; k++)
		;
	if (!member || k == (size_t)n)
		k = 0;
	while (rows[k].depth > 0)
		k--;
	group_sum(f, rows + k, subtree_end(rows, (size_t)n, k) - k, out);
	free(rows);
	return 0;
}
