/* Where the copies were: a process's copies per region (heap, stack,
 * anonymous memory, each file mapped privately), read from the kernel's
 * region counters into the model, files named once by device and inode. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "collect.h"
#include "loop.h"

/* The slot of the file dev:ino in the collector's table, or the empty
 * slot where it goes; NULL when the table is full. */
static struct collect_file *file_entry(struct collect *c, unsigned long long dev,
				       unsigned long long ino)
{
	size_t h = (size_t)((dev * 0x9e3779b97f4a7c15ULL) ^ ino) % COLLECT_FILES, i;

	for (i = 0; i < COLLECT_FILES; i++) {
		struct collect_file *f = &c->files[(h + i) % COLLECT_FILES];

		if (!f->used || (f->dev == dev && f->ino == ino))
			return f;
	}
	return NULL;
}

/* The name /proc/PID/maps gives the file dev:ino in a "file:" label, into
 * buf; false when pid does not map it (or has gone). Only the last path
 * component is kept, and maps' " (deleted)" suffix is dropped. */
static bool file_label(struct collect *c, int pid, unsigned long long dev,
		       unsigned long long ino, char *buf, size_t len)
{
	char path[32], *line = NULL, *name;
	size_t cap = 0;
	unsigned maj, min;
	unsigned long long inode;
	bool found = false;
	int fd, n;
	FILE *fp;

	snprintf(path, sizeof(path), "%d/maps", pid);
	fd = openat(c->procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	fp = fdopen(fd, "r");
	if (!fp) {
		close(fd);
		return false;
	}
	while (!found && getline(&line, &cap, fp) > 0) {
		n = -1;
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu %n", &maj, &min, &inode, &n) != 3 ||
		    n < 0 || inode != ino || makedev(maj, min) != dev)
			continue;
		name = line + n;
		name[strcspn(name, "\n")] = '\0';
		if (strlen(name) > 10 && strcmp(name + strlen(name) - 10, " (deleted)") == 0)
			name[strlen(name) - 10] = '\0';
		if (strrchr(name, '/'))
			name = strrchr(name, '/') + 1;
		snprintf(buf, len, "file:%s", *name ? name : "?");
		found = true;
	}
	free(line);
	fclose(fp);
	return found;
}

/* The SPLIT_REGION slot of a file copies were made in by p: from the
 * table, else named from the maps of p or of its nearest ancestors (a
 * process that has exited has no maps any more; its parent most often
 * maps the same file), at most once a tick per file, and for exited
 * processes only less and less often while it fails. Returns 0 ("other")
 * when the slots ran out, -1 when the file cannot be named now. */
static int file_slot(struct collect *c, struct proc *p, unsigned long long dev,
		     unsigned long long ino)
{
	struct collect_file *f = file_entry(c, dev, ino);
	char label[LABEL_MAX];
	int depth, pid = p->pid, slot;
	unsigned backoff;

	if (!f)
		return 0; /* more files than the table holds: "other" */
	if (f->used && (f->slot >= 0 || f->tried == c->ticks))
		return f->slot;
	/* Short-lived processes (a shell loop running awk) bring the same
	 * file every tick, with no maps left and ancestors that do not map
	 * it: their tries back off. A live process's copies try every tick. */
	if (f->used && p->exited && c->ticks < f->retry)
		return -1;
	backoff = f->used ? f->backoff * 2 : 1;
	*f = (struct collect_file){ .dev = dev, .ino = ino, .slot = -1, .tried = c->ticks, .used = true,
				    .backoff = backoff < COLLECT_FILE_BACKOFF ? backoff : COLLECT_FILE_BACKOFF };
	f->retry = c->ticks + f->backoff;
	/* The name the kernel side kept: it outlives every process mapping
	 * the file (a worker that copied and exited within a tick), and costs
	 * no read of a maps file. */
	if (c->tracer && tracer__file_name(c->tracer, dev, ino, label + 5, sizeof(label) - 5) == 0 &&
	    label[5]) {
		memcpy(label, "file:", 5);
		slot = model__add_label(c->model, SPLIT_REGION, label);
		f->slot = slot > 0 ? slot : 0;
		return f->slot;
	}
	for (depth = 0; depth < 4 && pid > 0; depth++) {
		struct proc *q = model__find(c->model, pid, 0);

		if (file_label(c, pid, dev, ino, label, sizeof(label))) {
			slot = model__add_label(c->model, SPLIT_REGION, label);
			f->slot = slot > 0 ? slot : 0;
			break;
		}
		pid = q ? q->ppid : 0;
	}
	return f->slot;
}

/* Copies of one process in one slot, as the region walk finds them. */
struct region_part {
	struct proc *p;
	int slot;
	unsigned long long pages;
};

struct region_walk {
	struct collect *c;
	struct region_part *v;
	size_t n, cap;
	bool read; /* the map was read (not skipped: nothing changed) */
};

/* One (process, region) counter: find its process (live, or exited this
 * frame; the one of its start time, on a reused pid) and its slot. Files
 * unnamed yet are left to "other". */
static void on_region(const struct tracer_region *r, void *ctx)
{
	static const int fixed[] = {
		[REGION_HEAP] = SPLIT_REGION_HEAP, [REGION_STACK] = SPLIT_REGION_STACK,
		[REGION_ANON] = SPLIT_REGION_ANON,
	};
	struct region_walk *w = ctx;
	struct proc *p = model__find(w->c->model, r->pid, r->start);
	int slot = 0;

	if (!p || r->kind == REGION_OTHER)
		return;
	w->read = true;
	if (r->kind == REGION_FILE)
		slot = file_slot(w->c, p, r->dev, r->ino);
	else if ((size_t)r->kind < sizeof(fixed) / sizeof(*fixed))
		slot = fixed[r->kind];
	if (slot < 0)
		p->track.unnamed_now += r->pages; /* in no slot, not "other" either */
	if (slot <= 0)
		return;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		struct region_part *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = (struct region_part){ .p = p, .slot = slot, .pages = r->pages };
}

/* Order region parts by process (pid, start), then slot. */
static int cmp_part(const void *x, const void *y)
{
	const struct region_part *a = x, *b = y;

	if (a->p->pid != b->p->pid)
		return a->p->pid < b->p->pid ? -1 : 1;
	if (a->p->start_time != b->p->start_time)
		return a->p->start_time < b->p->start_time ? -1 : 1;
	return (a->slot > b->slot) - (a->slot < b->slot);
}

/* Read the copies per region into the model (with changed_only, of the
 * processes whose counters changed). Several files may share a label
 * (same name, other directory): their counts add up in its slot. */
void collect__regions(struct collect *c, bool changed_only)
{
	struct region_walk w = { .c = c };
	size_t i, j;

	struct proc *p;
	int e;

	/* Unless this tick reads everything, none when nothing changed. */
	e = tracer__for_each_region(c->tracer, changed_only, on_region, &w);
	if (w.n > 1) /* qsort wants an array, even an empty one */
		qsort(w.v, w.n, sizeof(*w.v), cmp_part);
	for (i = 0; i < w.n; i = j) {
		unsigned long long sum = 0;

		for (j = i; j < w.n && cmp_part(&w.v[i], &w.v[j]) == 0; j++)
			sum += w.v[j].pages;
		model__set_split(w.v[i].p, SPLIT_REGION, w.v[i].slot, sum);
	}
	free(w.v);
	/* A read is of every counter: the unnamed copies as it counted them
	 * (a skipped read changed none). A read that failed in part (a slot
	 * read refused) settles nothing: what it missed may still pend. */
	for (i = 0; (p = model__at(c->model, i)); i++) {
		if (w.read)
			p->track.unnamed = p->track.unnamed_now;
		p->track.unnamed_now = 0;
		if (!e)
			model__settle_regions(p, p->track.unnamed);
	}
}
