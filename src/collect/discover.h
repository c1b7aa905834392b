/* The processes running at start, found by the kernel side's task iterator
 * in one read instead of a /proc walk that opens and reads every process's
 * stat: every process is watched, or the descendants of those watched. */
#ifndef COWTOP_DISCOVER_H
#define COWTOP_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include "collect.h"

struct discovered {
	int *pid, *ppid; /* every process the iterator saw, sorted by pid */
	size_t n, cap;
};

/* Watch every process running (all), or the descendants of the processes
 * c watches; remember what was seen. -ENOTSUP without an iterator (walk
 * /proc then), or -errno. */
int discover__run(struct discovered *d, struct collect *c, bool all);
/* The parent the iterator saw of pid (0 for none), or -1 when it did not
 * see pid. */
int discover__ppid(const struct discovered *d, int pid);
void discover__free(struct discovered *d);

#endif
