/* Test helper: put a process in a model the way the collector does. */
#ifndef COWTOP_TESTS_PROCS_H
#define COWTOP_TESTS_PROCS_H

#include <string.h>
#include "model.h"

/* Add (pid, start) under ppid, named comm, with cow copies. */
static inline struct proc *add(struct model *m, int pid, int ppid, unsigned long long start,
			       const char *comm, unsigned long long cow)
{
	struct proc *p = model__add(m, pid, start);
	struct cow_counts c = { .cow = cow };

	assert_non_null(p);
	model__set_parent(p, ppid);
	model__set_comm(p, comm, strlen(comm));
	model__set_counts(p, &c);
	return p;
}

#endif
