/* What the metrics' own files share: the series, tracks and sums of a
 * frame. Included only by metrics.c and metrics_put.c; metrics.h is the
 * API. */
#ifndef COWTOP_METRICS_INT_H
#define COWTOP_METRICS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "fields.h"
#include "metrics.h"
#include "runtime.h"


#define GROUP_MAX 64 /* bytes of a group name, with its NUL */
#define SERIES_MAX ((METRICS_GROUPS_MAX + 1) * METRICS_ROLES)

/* The region label values: the model's fixed region slots, and every file
 * in one value, so that the label stays bounded whatever files are met.
 * No "other": what is not classified yet is the rest of the copies, and
 * shrinks as the kernel side's region counts come in: no counter. */
enum mregion { MREGION_HEAP = SPLIT_REGION_HEAP, MREGION_STACK, MREGION_ANON, MREGION_FILE, MREGIONS };

/* Why a member left: the cause label values (bounded). */
enum mcause { MCAUSE_EXIT_ZERO, MCAUSE_EXIT_NONZERO, MCAUSE_SIGNAL, MCAUSE_OOM, MCAUSE_LEFT,
	      MCAUSE_UNKNOWN, MCAUSES };

/* Counters of a process besides the field table's: copies by region,
 * forks, exits by cause, reclaim stalls. */
struct mcount {
	unsigned long long region[MREGIONS];
	unsigned long long forks, exits[MCAUSES], reclaims;
	double reclaim_s;
};

/* One group and role: the counts of its members that left the frames. */
struct mseries {
	char group[GROUP_MAX];
	enum metrics_role role;
	unsigned long long folded[FIELD_N]; /* the counter figures of members gone */
	unsigned long long folded_phase[PHASE_MAX];
	struct mcount folded_more;
	unsigned long long folded_obj[OBJ_RUNTIMES][OBJ_WRITES]; /* --objects */
};

/* A process of the last frame: its series and its last counts. */
struct mtrack {
	int pid;
	unsigned long long start;
	int series;
	int cause;            /* enum mcause once seen exited, latched; else -1 */
	const struct proc *p; /* in the held frame */
};

struct metrics {
	struct metrics_opts o;
	char group[GROUP_MAX];    /* --label group=NAME, or empty */
	char version[64];
	struct mseries series[SERIES_MAX];
	int nseries, ngroups;
	struct mtrack *track;     /* sorted by (pid, start) */
	size_t ntrack;
	struct frame *frame;      /* the last frame taken, held */
};

/* Sums of a series over one frame: folded counts plus its members'. */
struct macc {
	unsigned long long sum[FIELD_N];  /* counters: every member's; gauges: live members' */
	unsigned long long phase[PHASE_MAX];
	struct mcount more;               /* every member's */
	unsigned long long obj[OBJ_RUNTIMES][OBJ_WRITES]; /* sampled copies by runtime, write kind */
	unsigned long long shared;        /* KiB, live members */
	unsigned long long inherited, inherited_shared; /* KiB, live members with both */
	unsigned long long family_anon, family_shared;  /* KiB, live members with a pagemap reading */
	unsigned family_read;                           /* ... how many */
	unsigned live, read, fork_read;   /* live members, those with a smaps reading,
					     those with one and a known inheritance */
	unsigned copying;                 /* members read that copied much since */
	double age;                       /* of the oldest reading of a live member */
};

/* A comm made a label value: printable ASCII only, so that a hostile name
 * can neither break the text format nor be invalid UTF-8. */
void metrics_plain_name(const char *comm, size_t len, char *out, size_t cap);

/* The anonymous memory p inherited at fork and, of it, what is still
 * shared, KiB: the two terms of SHR% (see proc_shared_pct). False when
 * either is unknown (no reading, or found running). */
bool metrics_sharing_of(const struct proc *p, unsigned long long *inherited, unsigned long long *shared);

/* Every series' sums over the last frame; NULL on no memory. */
struct macc *metrics__accumulate(const struct metrics *m);

#endif
