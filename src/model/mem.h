/* Memory figures read from /proc and /sys for the sharing view: plain
 * structs, so the readers and the model share them without knowing each
 * other. */
#ifndef COWTOP_MEM_H
#define COWTOP_MEM_H

#include <stdbool.h>

/* One reading of /proc/PID/smaps_rollup, KiB, and the page tables
 * (VmPTE of /proc/PID/status) read with it. */
struct smaps {
	unsigned long long rss, pss, pss_anon, pss_file, pss_shmem;
	unsigned long long shared_clean, shared_dirty, private_clean, private_dirty;
	unsigned long long anon, swap, swap_pss;
	unsigned long long pte;
};

/* Memory pressure (PSI) over the last 10 s, percent of time some or all
 * non-idle tasks stalled on memory; negative when not known. */
struct psi {
	double some_avg10, full_avg10;
};

/* The memory cgroup a process is in, as read from /sys/fs/cgroup; 0 = none
 * or no limit. psi: the memory pressure of its cgroup v2 (the one
 * /proc/PID/cgroup's "0::" line names; on a hybrid machine not the same
 * cgroup as the v1 memory one), when psi_known. */
struct memcg {
	unsigned long long limit_kib, usage_kib;
	bool psi_known;
	struct psi psi;
};

#endif
