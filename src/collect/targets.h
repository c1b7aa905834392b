/* What cowtop watches: the -p processes and their descendants, a command
 * started behind a gate (--, --demo), the first clone of a process, or every
 * process; the first /proc scan; the -u probes found in what they map, and
 * the rescans of freshly exec'd processes. */
#ifndef COWTOP_TARGETS_H
#define COWTOP_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include "cgroups.h"
#include "collect.h"
#include "discover.h"
#include "launch.h"
#include "options.h"

#define TARGETS_RESCAN_MAX 64

struct probes;

struct targets {
	const struct options *opt;
	struct collect *collect;
	struct probes *probes;     /* NULL without -u */
	struct launch launch;
	bool watch_all;
	bool has_cgroup;           /* --cgroup or --unit: ... */
	struct cgroup_target cgroup; /* ... resolved by targets__resolve_cgroup */
	bool cmd_reaped;           /* the launched command has been waited for */
	int cmd_status;            /* its status as a shell reports it */
	int scanfd;                /* timer: look for probes in freshly exec'd processes */
	int rescan[TARGETS_RESCAN_MAX];
	double rescan_until[TARGETS_RESCAN_MAX];
	int nrescan;
	char what[128];            /* in a few words, for the header */
	struct proc_stat roots[OPT_MAX_PIDS]; /* the -p processes, by targets__resolve_pids */
	struct discovered found;   /* what the task iterator saw at start */
};

void targets__init(struct targets *tg, const struct options *opt, struct collect *c);
int targets__setup_probes(struct targets *tg, struct model *m, char *err, size_t errlen);
int targets__attach_probes(struct targets *tg, char *err, size_t errlen);
int targets__resolve_cgroup(struct targets *tg, char *err, size_t errlen);
int targets__resolve_pids(struct targets *tg, char *err, size_t errlen);
int targets__tracer_roots(const struct targets *tg, struct tracer_root *roots);
int targets__start(struct targets *tg, bool quiet, char *err, size_t errlen);
void targets__on_exec(int pid, void *ctx);
void targets__on_mapped(int pid, void *ctx);
void targets__rescan(struct targets *tg);
void targets__tick(struct targets *tg);
void targets__reap(struct targets *tg);
void targets__end_command(struct targets *tg);
bool targets__done(const struct targets *tg);
int targets__missing_probes(const struct targets *tg, char *err, size_t errlen);
void targets__free(struct targets *tg);

#endif
