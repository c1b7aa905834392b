/* The process tree as rows: who is whose parent, in what order rows come,
 * and the lines that join them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* qsort_r */
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"

#define FOCUS_HOPS 4096 /* ancestors climbed to find the focus in a flat view */

/* A process's links while rows are laid out; -1 is none. */
struct node {
	long parent, kid, kid_tail, sib;
	bool visited;
};

/* A process's place in view order with its sort key copied out (all but
 * the command name): the sort then reads this array, not rows of the
 * processes 1 KB apart (at 5,000 processes, cache misses were most of the
 * layout's time). */
struct view_key {
	double d;             /* copy rate, SHR% */
	unsigned long long u; /* copies, a size */
	int pid;
	long idx;             /* in procs */
};

/* A process's place in (pid, start time) order, the same way. */
struct pid_key {
	int pid;
	long idx;
	unsigned long long start;
};

_Static_assert(sizeof(struct pid_key) <= sizeof(struct view_key), "by_pid's prefix fits in sorted");
_Static_assert(sizeof(struct view_key) <= sizeof(struct node), "view keys fit in the links");

/* Everything one layout works on. */
struct layout {
	const struct proc *procs;
	size_t n;
	struct node *node;
	struct view_key *sorted; /* view order */
	struct pid_key *by_pid;  /* by (pid, start time) */
	struct row *out;
	size_t nrows;
};

/* Largest first, as a comparison result. */
static int desc(unsigned long long a, unsigned long long b)
{
	return (b > a) - (b < a);
}

/* p's sort key for o: the value of its field (pid and name are read from
 * the processes). */
static struct view_key view_key_of(const struct proc *p, long idx, const struct view_opts *o)
{
	struct view_key k = { .pid = p->pid, .idx = idx };
	struct fval v;

	if ((unsigned)o->sort >= FIELD_N || fields[o->sort].type == FIELD_IDENTITY)
		return k;
	v = field_value(o->sort, NULL, p);
	if (fields[o->sort].type == FIELD_REAL)
		k.d = v.known ? v.d : -1;
	else
		k.u = v.u; /* unread: 0, last */
	return k;
}

/* Least shared first, unknown (below 0) last. */
static int shared_cmp(double a, double b)
{
	if ((a < 0) != (b < 0))
		return a < 0 ? 1 : -1;
	return (a > b) - (a < b);
}

struct sort_ctx {
	const struct proc *procs;
	const struct view_opts *o;
};

/* Two processes in the order of the view's key alone, before the ties
 * by pid and the reverse. */
static int key_order(const struct view_key *x, const struct view_key *y, const struct sort_ctx *c)
{
	if (c->o->sort == FIELD_COMM)
		return strcmp(c->procs[x->idx].comm, c->procs[y->idx].comm);
	if ((unsigned)c->o->sort >= FIELD_N || fields[c->o->sort].type == FIELD_IDENTITY)
		return 0;
	if (fields[c->o->sort].order == FIELD_LEAST)
		return shared_cmp(x->d, y->d);
	if (fields[c->o->sort].type == FIELD_REAL)
		return (y->d > x->d) - (y->d < x->d);
	return desc(x->u, y->u);
}

/* qsort_r: two processes in the view's order, ties by pid, so frames are
 * stable. */
static int view_cmp(const void *a, const void *b, void *arg)
{
	const struct view_key *x = a, *y = b;
	const struct sort_ctx *c = arg;
	int r = key_order(x, y, c);

	if (!r)
		r = (x->pid > y->pid) - (x->pid < y->pid);
	return c->o->reverse ? -r : r;
}

/* qsort: by pid, then start time. */
static int key_cmp(const void *a, const void *b)
{
	const struct pid_key *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->start > y->start) - (x->start < y->start);
}

/* The process that was i's parent: pid ppid, started no later than i,
 * latest such (pids are reused); -1 when none is held. */
static long parent_of(const struct layout *L, long i)
{
	const struct proc *p = &L->procs[i];
	const struct pid_key *q;
	size_t lo = 0, hi = L->n;
	long best = -1;

	while (lo < hi) { /* first index with pid >= ppid */
		size_t mid = lo + (hi - lo) / 2;

		if (L->by_pid[mid].pid < p->ppid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < L->n; lo++) {
		q = &L->by_pid[lo];
		if (q->pid != p->ppid || q->start > p->start_time)
			break;
		if (q->idx != i)
			best = q->idx;
	}
	return best;
}

/* Link every process under its parent, siblings in view order. */
static void link_tree(struct layout *L)
{
	size_t i;

	for (i = 0; i < L->n; i++) {
		L->node[i] = (struct node){ .kid = -1, .kid_tail = -1, .sib = -1 };
		L->node[i].parent = parent_of(L, (long)i);
	}
	for (i = 0; i < L->n; i++) {
		long k = L->sorted[i].idx, q = L->node[k].parent;

		if (q < 0)
			continue;
		if (L->node[q].kid_tail >= 0)
			L->node[L->node[q].kid_tail].sib = k;
		else
			L->node[q].kid = k;
		L->node[q].kid_tail = k;
	}
}

/* Set or clear bit d of the "more" bits, when d is a depth they keep. */
static unsigned long long more_bit(unsigned long long more, int d, bool on)
{
	if (d >= TREE_DEPTH_BITS)
		return more;
	return on ? more | 1ULL << d : more & ~(1ULL << d);
}

/* Append root and its subtree, depth first, to the rows. Iterative: fork
 * chains can be deeper than any sane recursion. */
static void walk_subtree(struct layout *L, long root)
{
	unsigned long long more = 0;
	long k = root;
	int depth = 0;

	for (;;) {
		struct node *nd = &L->node[k];

		nd->visited = true;
		L->out[L->nrows++] = (struct row){
			.p = &L->procs[k], .depth = depth, .last = nd->sib < 0 || k == root, .more = more,
		};
		if (nd->kid >= 0 && !L->node[nd->kid].visited) {
			more = more_bit(more, depth, k != root && nd->sib >= 0);
			depth++;
			k = nd->kid;
			continue;
		}
		while (k != root && L->node[k].sib < 0) {
			k = L->node[k].parent;
			more = more_bit(more, --depth, false);
		}
		if (k == root)
			return;
		k = L->node[k].sib;
	}
}

/* Whether process k is the focused process (pid and, when known, start
 * time: a pid reused is another process). */
static bool is_focus(const struct layout *L, long k, const struct view_opts *o)
{
	return L->procs[k].pid == o->focus_pid &&
	       (!o->focus_start || L->procs[k].start_time == o->focus_start);
}

/* Whether process k is the focused process or below it. */
static bool in_focus(const struct layout *L, long k, const struct view_opts *o)
{
	int hops = 0;

	for (; k >= 0 && hops < FOCUS_HOPS; k = L->node[k].parent, hops++)
		if (is_focus(L, k, o))
			return true;
	return false;
}

/* Whether process k starts rows of its own in this view. */
static bool is_root(const struct layout *L, long k, const struct view_opts *o)
{
	if (!o->focus_pid)
		return o->tree ? L->node[k].parent < 0 : true;
	if (is_focus(L, k, o))
		return true;
	return !o->tree && in_focus(L, k, o);
}

/* Fill the rows once the links are made. */
static void lay_rows(struct layout *L, const struct view_opts *o)
{
	size_t i;

	for (i = 0; i < L->n; i++) {
		long k = L->sorted[i].idx;

		if (!is_root(L, k, o) || L->node[k].visited)
			continue;
		if (o->tree) {
			walk_subtree(L, k);
		} else {
			L->node[k].visited = true;
			L->out[L->nrows++] = (struct row){ .p = &L->procs[k], .last = true };
		}
	}
	/* Processes in a parent cycle (impossible unless pids wrap oddly) still show. */
	for (i = 0; i < L->n && !o->focus_pid && o->tree; i++)
		if (!L->node[L->sorted[i].idx].visited)
			walk_subtree(L, L->sorted[i].idx);
}

/* The view order of a layout sorted by pid, from by_pid (sorted) without
 * a second sort: what qsort_r with view_cmp gives, its merge sort being
 * stable. A pid held twice (reused) keeps its processes in procs order. */
static void sorted_by_pid(struct layout *L, bool reverse)
{
	size_t i, j, n = L->n;
	struct view_key k;

	for (i = 0; i < n; i++)
		L->sorted[i] = (struct view_key){ .pid = L->by_pid[i].pid, .idx = L->by_pid[i].idx };
	for (i = 1; i < n; i++) { /* runs of one pid are short: insertion */
		k = L->sorted[i];
		for (j = i; j > 0 && L->sorted[j - 1].pid == k.pid && L->sorted[j - 1].idx > k.idx; j--)
			L->sorted[j] = L->sorted[j - 1];
		L->sorted[j] = k;
	}
	if (!reverse)
		return;
	for (i = 0; i < n / 2; i++) { /* pids descending; then each run back */
		k = L->sorted[i];
		L->sorted[i] = L->sorted[n - 1 - i];
		L->sorted[n - 1 - i] = k;
	}
	for (i = 0; i < n; i = j) {
		size_t a, b;

		for (j = i + 1; j < n && L->sorted[j].pid == L->sorted[i].pid; j++)
			;
		for (a = i, b = j - 1; a < b; a++, b--) {
			k = L->sorted[a];
			L->sorted[a] = L->sorted[b];
			L->sorted[b] = k;
		}
	}
}

/* Sort by_pid. The processes come in the model's order, which is mostly
 * by pid already (found in pid order, forks appended): only what follows
 * the sorted prefix is sorted, then merged in. This sort and the view's,
 * of every process each tick, were a tenth of cowtop's time at 10,000
 * idle processes. */
static void sort_by_pid(struct layout *L)
{
	/* the prefix aside, in the view order's array: not filled yet */
	struct pid_key *head = (struct pid_key *)(void *)L->sorted;
	size_t i = 1, a = 0, b, k = 0;

	while (i < L->n && key_cmp(&L->by_pid[i - 1], &L->by_pid[i]) <= 0)
		i++;
	if (i >= L->n)
		return;
	qsort(L->by_pid + i, L->n - i, sizeof(*L->by_pid), key_cmp);
	if (key_cmp(&L->by_pid[i - 1], &L->by_pid[i]) <= 0)
		return;
	memcpy(head, L->by_pid, i * sizeof(*head));
	for (b = i; a < i; k++) /* the prefix's elements first among equals: qsort's stable order */
		L->by_pid[k] = b < L->n && key_cmp(&L->by_pid[b], &head[a]) < 0 ? L->by_pid[b++] : head[a++];
}

/* Sort the view keys, which come in the order of their pids (the order of
 * ties): what a stable sort by view_cmp of the processes gives. The keys
 * equal to the first or the last in view order (an idle process's copy
 * rate, 0, most of them) keep that order at the front or the back; only
 * the others are sorted. */
static void sort_view(struct layout *L, const struct sort_ctx *c)
{
	/* the others aside, in the links' array: not made yet */
	struct view_key *tmp = (struct view_key *)(void *)L->node, first, last;
	size_t i, nf = 0, nm = 0, nl = 0;
	int sign = c->o->reverse ? -1 : 1;

	if (!L->n)
		return;
	first = last = L->sorted[0];
	for (i = 1; i < L->n; i++) {
		if (sign * key_order(&L->sorted[i], &first, c) < 0)
			first = L->sorted[i];
		if (sign * key_order(&L->sorted[i], &last, c) > 0)
			last = L->sorted[i];
	}
	for (i = 0; i < L->n; i++) { /* count the back's, gather the middle's behind the front's */
		if (!key_order(&L->sorted[i], &first, c))
			L->sorted[nf++] = L->sorted[i];
		else if (!key_order(&L->sorted[i], &last, c))
			tmp[L->n - 1 - nl++] = L->sorted[i];
		else
			tmp[nm++] = L->sorted[i];
	}
	qsort_r(tmp, nm, sizeof(*tmp), view_cmp, (void *)c);
	memcpy(L->sorted + nf, tmp, nm * sizeof(*tmp));
	for (i = 0; i < nl; i++)
		L->sorted[nf + nm + i] = tmp[L->n - 1 - i];
}

/* Put the view order of the processes in L->sorted. */
static void order_view(struct layout *L, const struct view_opts *o)
{
	struct sort_ctx ctx = { L->procs, o };
	size_t i;

	for (i = 0; i < L->n; i++)
		L->by_pid[i] = (struct pid_key){ L->procs[i].pid, (long)i, L->procs[i].start_time };
	sort_by_pid(L);
	sorted_by_pid(L, o->reverse); /* the order of ties */
	if (o->sort == FIELD_PID)
		return;
	for (i = 0; i < L->n; i++)
		L->sorted[i] = view_key_of(&L->procs[L->sorted[i].idx], L->sorted[i].idx, o);
	sort_view(L, &ctx);
}

/* Lay out n processes as rows, tree or flat, sorted by the view's key. */
long tree_layout(const struct proc *procs, size_t n, const struct view_opts *o, struct row *out)
{
	struct layout L = { .procs = procs, .n = n, .out = out };
	size_t cap = n ? n : 1;
	long e = 0;

	L.node = malloc(cap * sizeof(*L.node));
	L.sorted = malloc(cap * sizeof(*L.sorted));
	L.by_pid = malloc(cap * sizeof(*L.by_pid));
	if (!L.node || !L.sorted || !L.by_pid) {
		e = -ENOMEM;
	} else {
		order_view(&L, o);
		link_tree(&L);
		lay_rows(&L, o);
	}
	free(L.node);
	free(L.sorted);
	free(L.by_pid);
	return e ? e : (long)L.nrows;
}

/* Recompute last and more of rows after some were dropped: a row is last
 * when no row at its depth follows before a shallower one. */
void tree_relink(struct row *rows, size_t n)
{
	unsigned long long open = 0;
	int maxd = 0, d;
	bool *seen;
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].depth > maxd)
			maxd = rows[i].depth;
	seen = calloc((size_t)maxd + 2, sizeof(*seen));
	if (!seen)
		return;
	for (i = n; i-- > 0;) {
		d = rows[i].depth;
		rows[i].last = !seen[d];
		seen[d] = true;
		memset(seen + d + 1, 0, (size_t)(maxd - d) * sizeof(*seen));
	}
	free(seen);
	for (i = 0; i < n; i++) {
		d = rows[i].depth;
		rows[i].more = d < TREE_DEPTH_BITS ? open & ((1ULL << d) - 1) : open;
		if (d < TREE_DEPTH_BITS) {
			open &= d < TREE_DEPTH_BITS - 1 ? (1ULL << (d + 1)) - 1 : ~0ULL;
			open = more_bit(open, d, !rows[i].last);
		}
	}
}

/* Write the tree-line prefix of row r ("|  `- " or its UTF-8 drawing) into
 * buf; returns its length. Depth 0 has no prefix. */
size_t tree_prefix(const struct row *r, bool utf8, char *buf, size_t cap)
{
	const char *bar = utf8 ? "\u2502 " : "| ";
	const char *tee = utf8 ? "\u251c\u2500 " : "|- ";
	const char *elbow = utf8 ? "\u2514\u2500 " : "`- ";
	size_t len = 0;
	int d;

	if (cap)
		buf[0] = '\0';
	for (d = 1; d <= r->depth; d++) {
		const char *piece;
		size_t pl;

		if (d == r->depth)
			piece = r->last ? elbow : tee;
		else
			piece = (d < TREE_DEPTH_BITS && (r->more >> d & 1)) ? bar : "  ";
		pl = strlen(piece);
		if (len + pl + 1 > cap)
			break;
		memcpy(buf + len, piece, pl + 1);
		len += pl;
	}
	return len;
}
