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

/* A process's anonymous memory, page by page from /proc/PID/pagemap, KiB:
 * the pages present in its private mappings that are no file's page (nor
 * the shared zero page), and of them those another process maps too. A
 * private anonymous page is shared only after a fork (or KSM merged it),
 * so that is what is still shared with the process's family: its parent,
 * siblings and children. No baseline at fork is needed. */
struct family_mem {
	unsigned long long anon_kib, shared_kib;
};

/* Why a process's family reading is unknown. */
enum family_why {
	FAMILY_UNREAD,  /* not read yet (the sampler's turn has not come) */
	FAMILY_NO_PFN,  /* pagemap hides frame numbers: not CAP_SYS_ADMIN */
	FAMILY_FAILED,  /* pagemap could not be read */
	FAMILY_TOO_BIG, /* its mappings are too large to walk (PROCFS_FAMILY_MAX_PAGES) */
	FAMILY_KNOWN,
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
