/* --cgroup and --unit: which cgroup a target names, and the processes it
 * holds now. The kernel side follows them from there (fork, moves in and
 * out); this only resolves names and lists the present members once. */
#ifndef COWTOP_CGROUPS_H
#define COWTOP_CGROUPS_H

#include <limits.h>
#include <stddef.h>
#include "tracer.h"

struct cgroup_target {
	char dir[PATH_MAX];     /* the cgroup's directory */
	struct tracer_cgroup k; /* what the kernel side needs to recognise it */
};

/* Resolve --cgroup path (unit NULL) or --unit unit (path NULL) under the
 * cgroup mount root (normally /sys/fs/cgroup). A path is, in this order:
 * a directory under root given in full; "CONTROLLER/..." when root/CONTROLLER
 * is a cgroup v1 hierarchy ("memory/app"); else a cgroup v2 path, relative
 * to the v2 mount (root itself, or root/unified on a hybrid machine), as
 * /proc/PID/cgroup's "0::" line shows it. A unit is resolved with systemctl
 * to its ControlGroup, a v2 path. Returns 0, or 1 with a one-line message
 * in err: no such cgroup, a v1 hierarchy without a controller, a unit not
 * running, a machine without systemd. */
int cgroup_target_resolve(const char *root, const char *path, const char *unit,
			  struct cgroup_target *out, char *err, size_t errlen);

/* Call fn(pid, arg) for every process in the cgroup and its descendants
 * (their cgroup.procs files), depth first; stops when fn returns non-zero
 * and returns that. A cgroup removed meanwhile is skipped. */
int cgroup_target_for_each_pid(const struct cgroup_target *t, int (*fn)(int pid, void *arg), void *arg);

#endif
