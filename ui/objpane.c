/* The objects pane, built off-screen. */
#include <stdio.h>
#include <string.h>
#include "objpane.h"
#include "row.h"

#define TYPE_COLS 40 /* the type, and a Ruby object's class after it */
#define WRITE_COLS 10
#define COUNT_COLS 9
#define SHARE_COLS 5

/* What each kind of write is, and what helps against it (README "Reading
 * the numbers" says more), for the kinds a process shows. */
static const char *const write_help[OBJ_WRITES] = {
	[OBJ_W_OUTSIDE] = "outside  not in the runtime's object heap (malloc'd buffers, GC bitmaps, stack)",
	[OBJ_W_REFCNT] = "refcount ob_refcnt: any use of the object; immortal objects (PEP 683)",
	[OBJ_W_GC] = "gc_header PyGC_Head: the cyclic collector; gc.freeze() before fork",
	[OBJ_W_HEADER] = "header   ob_type, dict pointers, pool header",
	[OBJ_W_PAYLOAD] = "payload  the object's data: the application's own writes",
	[OBJ_W_FLAGS] = "flags    Ruby's flags word: age and cached bits; nakayoshi_fork, Process.warmup",
	[OBJ_W_SLOT] = "slot     the rest of the Ruby slot (lengths, embedded data): application writes",
	[OBJ_W_UNKNOWN] = "unknown  unknown runtime layout",
};

/* "N%" of part in total into buf, "<1%" for a sliver. */
static const char *share(char *buf, size_t len, unsigned long long part, unsigned long long total)
{
	double pct = total ? 100.0 * (double)part / (double)total : 0;

	if (part && pct < 0.5)
		snprintf(buf, len, "<1%%");
	else
		snprintf(buf, len, "%.0f%%", pct);
	return buf;
}

/* The title: the process, its runtime, the sampled total and the rate. */
static void title(struct line *l, const struct frame *f, const struct proc *p,
		  const struct objects_proc *op, bool utf8)
{
	const struct objects_snap *sn = f->objects;
	char name[ROW_NAME_MAX];

	row_name(p, utf8, name, sizeof(name));
	line_add(l, ROLE_PLAIN, "pid %d %s", p->pid, name);
	if (op)
		line_add(l, ROLE_PLAIN, ", %s: %llu of its %llu copies by object (1 in %u read",
			 op->runtime, op->pages, p->counts.cow, sn->every);
	else
		line_add(l, ROLE_PLAIN, ": no copy read yet (1 in %u read", sn->every);
	if (sn->us_per_sample >= 0)
		line_add(l, ROLE_PLAIN, ", %.1f us each", sn->us_per_sample);
	line_add(l, ROLE_PLAIN, ")");
}

/* One (type, class, write) row with its share of the process's read copies. */
static void obj_line(struct line *l, const struct objects_row *r, unsigned long long total,
		     bool utf8)
{
	char type[2 * OBJECTS_NAME_MAX + 2], pct[8];

	snprintf(type, sizeof(type), "%s%s%s", r->type, r->cls[0] ? " " : "", r->cls);
	line_add(l, ROLE_PLAIN, "  ");
	row_put_cell_safe(l, ROLE_LABEL, type, strlen(type), utf8, TYPE_COLS);

	line_add(l, ROLE_PLAIN, " %-*s%*llu ", WRITE_COLS, obj_write_name(r->write), COUNT_COLS,
		 r->pages);
	line_add(l, ROLE_VALUE, "%*s", SHARE_COLS, share(pct, sizeof(pct), r->pages, total));
}

/* Fill out (room for max lines, OBJPANE_LINES is enough) with the pane of p
 * in frame f, cols wide: a title, the heaviest (type, write) rows, the
 * totals by write kind, what the kinds shown mean. Returns the lines used. */
size_t objpane_build(const struct frame *f, const struct proc *p, int cols, bool utf8,
		     struct line *out, size_t max)
{
	const struct objects_proc *op;
	struct line *l;
	size_t n = 0, i;
	char pct[8];
	int w;

	if (!(l = line_next(out, max, &n)))
		return n;
	line_add(l, ROLE_VALUE, "copies by object: ");
	if (!f || !f->objects) {
		line_add(l, ROLE_PLAIN, "not read (start cowtop with --objects)");
		return n;
	}
	if (!p) {
		line_add(l, ROLE_PLAIN, "no process selected");
		return n;
	}
	op = objects_snap__of(f->objects, p->pid, p->start_time);
	title(l, f, p, op, utf8);
	line_fit(l, cols);
	if (!op)
		return n;
	line_next(out, max, &n);
	if ((l = line_next(out, max, &n))) {
		line_add(l, ROLE_COLHDR, "  %-*s %-*s%*s %*s", TYPE_COLS, "TYPE", WRITE_COLS, "WRITE",
			 COUNT_COLS, "PAGES", SHARE_COLS, "SHARE");
		line_fit(l, cols);
	}
	for (i = 0; i < op->ntop && (l = line_next(out, max, &n)); i++) {
		obj_line(l, &op->top[i], op->pages, utf8);
		line_fit(l, cols);
	}
	if (!(l = line_next(out, max, &n)))
		return n;
	line_add(l, ROLE_LABEL, "  by write:");
	for (w = 0; w < OBJ_WRITES; w++)
		if (op->by_write[w])
			line_add(l, ROLE_PLAIN, "  %s %llu (%s)", obj_write_name(w), op->by_write[w],
				 share(pct, sizeof(pct), op->by_write[w], op->pages));
	line_fit(l, cols);
	line_next(out, max, &n);
	for (w = 0; w < OBJ_WRITES; w++)
		if (op->by_write[w] && (l = line_next(out, max, &n))) {
			line_add(l, ROLE_DIM, "  %s", write_help[w]);
			line_fit(l, cols);
		}
	return n;
}
