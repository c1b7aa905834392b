/* The exporter's metrics: frames in, Prometheus or OpenMetrics text out.
 * Pure (no sockets): the exporter sink feeds it every frame and asks it for
 * the text of the last one at each scrape.
 *
 * Series are per group and role by default. A group is a watched root
 * (a process whose parent is not watched) with its descendants, named by
 * the root's comm or by --label group=NAME; the role is parent (the root),
 * child or grandchild (any deeper). A process keeps the group and role it
 * had when first seen, whatever happens to its parent later, and when it
 * leaves the frames its last counts are folded into its series: so the
 * group counters never go down and the number of series stays bounded,
 * whatever the churn: at most METRICS_GROUPS_MAX groups (more fold into
 * the group "(other)") times 3 roles per family; times the phases (at most
 * 15) for the per-phase family. --metrics-by pid adds one series per live
 * process per cowtop_process_* family. */
#ifndef COWTOP_METRICS_H
#define COWTOP_METRICS_H

#include <stdbool.h>
#include <stdio.h>
#include "frame.h"

#define METRICS_GROUPS_MAX 64
#define METRICS_OTHER_GROUP "(other)"

enum metrics_role { METRICS_PARENT, METRICS_CHILD, METRICS_GRANDCHILD, METRICS_ROLES };

enum metrics_format {
	METRICS_PROMETHEUS,  /* text format 0.0.4 */
	METRICS_OPENMETRICS, /* OpenMetrics 1.0.0 text */
};

struct metrics_opts {
	bool by_pid;         /* per-process series as well */
	const char *group;   /* the group label of every series; NULL: the root's name */
	const char *version; /* cowtop's, for cowtop_build_info */
};

struct metrics;

struct metrics *metrics__new(const struct metrics_opts *o);
void metrics__free(struct metrics *m);
/* Take the frame of a tick (holds it until the next one): place its new
 * processes, fold the counts of those gone. 0 or -ENOMEM (then the frame
 * before stays the one served). */
int metrics__update(struct metrics *m, struct frame *f);
/* The text of the last frame taken; 0, or -ENODATA before the first. */
int metrics__render(const struct metrics *m, enum metrics_format fmt, FILE *out);
const char *metrics_role_name(enum metrics_role r);
/* The content type of a format, for the HTTP reply. */
const char *metrics_content_type(enum metrics_format fmt);
/* The format a client's Accept header asks for (NULL: none). */
enum metrics_format metrics_format_of(const char *accept);

#endif
