/* The process tree as rows: parent links by (ppid, start time),
 * siblings in sort order, the per-row "more" bits and the tree-line prefix.
 * Pure: an array of processes in, rows out. */
#ifndef COWTOP_TREE_H
#define COWTOP_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include "fields.h"
#include "model.h"

#define TREE_DEPTH_BITS 64 /* depths whose "more" bit is kept; deeper rows draw blanks */

struct view_opts {
	enum field_id sort; /* a field with a sort key */
	bool reverse;
	bool tree;
	int focus_pid; /* 0: everything; else only this process's subtree */
	unsigned long long focus_start; /* ... that process's start time (0: any) */
	int hist;      /* newest history values a frame keeps of each process (0: none) */
	bool no_rows;  /* a frame lays out no rows: its views lay out their own */
	bool no_groups; /* a frame sums no groups: frame__groups does when a view needs them */
};

/* One line of a view: a process with its place in the tree. */
struct row {
	const struct proc *p;
	int depth;
	bool last;                 /* last among its siblings */
	unsigned long long more;   /* bit d: the ancestor at depth d has siblings below */
};

/* Lay out n processes as rows (room for n rows in out); returns the number
 * of rows, or -ENOMEM. */
long tree_layout(const struct proc *procs, size_t n, const struct view_opts *o, struct row *out);
/* Recompute the tree bits (last, more) of rows laid out as a tree after some
 * were dropped (a filter keeps matches and their ancestors). */
void tree_relink(struct row *rows, size_t n);
/* The tree-line prefix of a row ("|  `- " or its UTF-8 drawing); returns its length. */
size_t tree_prefix(const struct row *r, bool utf8, char *buf, size_t cap);


#endif
