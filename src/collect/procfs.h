/* Readers of /proc/PID files. Every reader works relative to a directory fd
 * of /proc that the caller opened once (O_RDONLY|O_DIRECTORY|O_CLOEXEC),
 * reads into a bounded buffer whatever the file's size, and hands the bytes to
 * a pure parser that can be tested on captured files. Everything read is
 * untrusted: names and command lines are raw bytes, to sanitize before
 * showing them. */
#ifndef COWTOP_PROCFS_H
#define COWTOP_PROCFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "mem.h"

#define PROCFS_COMM_MAX 64

/* The fields of /proc/PID/stat that cowtop uses. */
struct proc_stat {
	int pid;
	/* Raw bytes between the first '(' and the last ')', NUL-terminated,
	 * truncated to fit. */
	char comm[PROCFS_COMM_MAX];
	char state;                      /* R, S, D, Z, T, t, X, I, ... */
	int ppid;
	unsigned long long flags;        /* PF_* (field 9): PROCFS_PF_KTHREAD */
	unsigned long long utime, stime; /* clock ticks */
	unsigned long long start_time;   /* clock ticks since boot (field 22) */
	unsigned long long vsize;        /* bytes (field 23) */
	long long rss;                   /* pages (field 24) */
	int num_threads;
};

/* The flag of a kernel thread in stat's field 9 (PF_KTHREAD). */
#define PROCFS_PF_KTHREAD 0x00200000ULL

/* Parse the text of a stat file. Every field up to rss must be present, well
 * formed, in range and followed by a space or a newline inside buf[0..len),
 * else -EINVAL (so a truncated or empty file is -EINVAL). out is written only
 * on success. */
int procfs_parse_stat(const char *buf, size_t len, struct proc_stat *out);

/* Find the "Tgid:" line of the text of a status file. Returns the tgid, or
 * -EINVAL when there is no well-formed one. */
int procfs_parse_status_tgid(const char *buf, size_t len);

/* The pid in the innermost PID namespace of the process (the last number of
 * the "NSpid:" line, Linux 4.1 and later): its pid inside its container.
 * Returns it, -ENOENT without the line, -EINVAL when it is malformed. */
int procfs_parse_status_nspid(const char *buf, size_t len);

/* Turn the raw bytes of a cmdline file in buf[0..len) into one line: trailing
 * NULs are dropped, the other NULs become spaces; buf must have room for
 * len + 1 bytes and is NUL-terminated. Returns the new length. */
size_t procfs_tidy_cmdline(char *buf, size_t len);

/* Parse the text of a smaps_rollup file: "Key:  N kB" lines after a header
 * line. Rss, Pss, Shared_*, Private_* and Anonymous must be there; Pss_Anon,
 * Pss_File, Pss_Shmem (Linux 5.9 and later), Swap and SwapPss read 0 when
 * missing. Only whole lines count, so a file cut short loses its last line
 * rather than a digit of it. Returns 0, or -EINVAL for a required field
 * missing or a field malformed or too large; out is written only on
 * success. */
int procfs_parse_smaps_rollup(const char *buf, size_t len, struct smaps *out);

/* Find "MemAvailable:  N kB" in the text of /proc/meminfo (Linux 3.14 and
 * later), as procfs_parse_smaps_rollup reads its fields. */
int procfs_parse_meminfo_available(const char *buf, size_t len,
    unsigned long long *kib);

/* Find "VmPTE:  N kB", the size of a process's page tables, in the text of
 * /proc/PID/status, as procfs_parse_smaps_rollup reads its fields; -EINVAL
 * when missing (a kernel thread has none). */
int procfs_parse_status_pte(const char *buf, size_t len, unsigned long long *kib);

/* The memory cgroup of a process, as /proc/PID/cgroup names it. */
#define PROCFS_CGROUP_PATH_MAX PATH_MAX
struct procfs_cgroup {
	bool v1;                             /* on v1's memory hierarchy, else v2 */
	char path[PROCFS_CGROUP_PATH_MAX];   /* absolute in the hierarchy: "/" the root */
};

/* Find the memory cgroup in the text of a cgroup file: the v1 line whose
 * controller list holds "memory" ("4:memory:/a", "7:cpu,memory:/a"), else
 * the v2 line ("0::/a"); in a hybrid setup memory is on v1. Returns 0,
 * -ENOENT when there is neither, or -EINVAL when its path is not absolute
 * or has an empty, "." or ".." component. */
int procfs_parse_cgroup(const char *buf, size_t len, struct procfs_cgroup *out);

/* A v1 memory limit at or above this (the largest page-aligned signed
 * 64-bit value) means none. */
#define PROCFS_MEMCG_V1_NONE 9223372036854771712ULL

/* Read and parse /proc/PID/stat. Returns 0, -ENOENT or -ESRCH when the
 * process is gone, -EINVAL for pid <= 0 or a malformed file, or -errno.
 * When the main thread has exited but others run (pthread_exit in main),
 * state, vsize and rss are a live thread's: the process lives. State Z with
 * num_threads <= 1 is a zombie. */
int procfs_read_stat(int procfd, int pid, struct proc_stat *out);

/* Read /proc/PID/cmdline into buf as one line (procfs_tidy_cmdline): at
 * most cap - 1 bytes of it, NUL-terminated, raw bytes otherwise (sanitize
 * before showing). Empty for a kernel thread or a zombie. Returns its
 * length or -errno (buf is then ""); -EINVAL for cap 0 or pid <= 0. */
ssize_t procfs_read_cmdline(int procfd, int pid, char *buf, size_t cap);

/* Tgid of a pid (the "Tgid:" line of /proc/PID/status), to tell a thread id
 * from a process id. Returns the tgid or -errno. */
int procfs_read_tgid(int procfd, int pid);

/* The PID namespace link of procfd's /proc itself ("self/ns/pid"), read
 * once by procfs_read_nspid: it never changes. len 0: not read yet. */
struct procfs_pidns {
	char link[64];
	ssize_t len;
};

/* The pid of pid in its own PID namespace: pid itself when it shares the
 * namespace of procfd's /proc (self, cached in self), else from
 * /proc/PID/status (see procfs_parse_status_nspid). Returns it or -errno. */
int procfs_read_nspid(int procfd, int pid, struct procfs_pidns *self);

/* Read and parse /proc/PID/smaps_rollup. Returns 0, -ENOENT or -ESRCH when
 * the process is gone (-ESRCH also for a kernel thread or a zombie: no
 * memory to read), -EINVAL for pid <= 0 or a malformed file, or -errno.
 * Its cost grows with the process's mapped size: the kernel walks every
 * page table. */
int procfs_read_smaps_rollup(int procfd, int pid, struct smaps *out);
/* Read VmPTE of /proc/PID/status (see procfs_parse_status_pte). Returns 0
 * or -errno. */
int procfs_read_pte(int procfd, int pid, unsigned long long *kib);

/* Read MemAvailable from /proc/meminfo, KiB. Returns 0 or -errno. */
int procfs_read_meminfo_available(int procfd, unsigned long long *kib);

/* Read the limit and usage of the memory cgroup of pid. cgroupfd is the
 * directory the hierarchies are mounted under (/sys/fs/cgroup): v1's memory
 * controller in memory/, v2 in unified/ (hybrid) or cgroupfd itself when it
 * is a cgroup2 file system. Of the cgroup and its ancestors (the root
 * excluded), the one with the least room under its limit counts; limit_kib
 * is 0 when none has a limit, and both are 0 when none can be read. Returns
 * 0, -ENOENT when the process is gone or has no memory cgroup, -EINVAL for
 * a malformed cgroup file, or -errno. */
int procfs_read_memcg(int procfd, int cgroupfd, int pid, struct memcg *out);

/* Call fn(pid, arg) for every numeric entry of /proc: processes, not threads.
 * Returns 0 or -errno; stops early when fn returns non-zero and returns that
 * value. */
int procfs_for_each_pid(int procfd, int (*fn)(int pid, void *arg), void *arg);

/* Call fn(path, at, arg) once per distinct file (device and inode) that pid
 * maps executable, from /proc/PID/maps. Paths are as maps shows them (a
 * newline in a name shows as "\012"); pseudo-files such as "[vdso]",
 * anonymous mappings and deleted files are skipped. Memory is bounded
 * however long maps is: a line longer than PROCFS_MAPS_LINE_MAX bytes (none
 * the kernel writes) is skipped whole, and past OBJSET_MAX distinct files a
 * file may be reported twice. Returns 0, -EINVAL for pid <= 0, -ENOENT or
 * -ESRCH when the process is gone, -errno, or the non-zero value of fn that
 * stopped it. */
/* at is where the object can be opened relative to procfd
 * ("PID/map_files/START-END": the very file mapped, in whatever mount
 * namespace the process lives; the path is only what maps shows). */
#define PROCFS_MAPS_LINE_MAX (PATH_MAX + 256)
int procfs_for_each_object_at(int procfd, int pid,
    int (*fn)(const char *path, const char *at, void *arg), void *arg);
/* The same, passing over (and adding to known) the objects known holds, by
 * the device and inode maps shows: a process's maps read again cost no
 * opens for what an earlier read met (struct objset, objset.h). */
struct objset;
int procfs_for_each_new_object_at(int procfd, int pid, struct objset *known,
    int (*fn)(const char *path, const char *at, void *arg), void *arg);

/* Pages of private mappings the walk without PAGEMAP_SCAN reads at most in
 * a process (32 GiB of 4 KiB pages: 64 MiB of pagemap); more gives -E2BIG. */
#define PROCFS_FAMILY_MAX_PAGES (1ULL << 23)

/* Walk pid's anonymous memory page by page (see struct family_mem): for each
 * private mapping in /proc/PID/maps that may hold some, its entries in
 * /proc/PID/pagemap; a present page that is no file's page nor the zero
 * page (zero_pfn; 0: the kernel has none) is anonymous, and shared unless
 * pagemap marks it mapped by this process alone. Pages on swap are not
 * counted. Where the kernel has the PAGEMAP_SCAN ioctl (Linux 6.7), a
 * mapping's entries are read in chunks while they are dense, and past the
 * first sparse chunk only those of the ranges PAGEMAP_SCAN finds present:
 * the cost grows with the memory present. Without it (learnt once) every
 * page mapped is read, present or not (8 bytes of pagemap a page), so a
 * process mapping more than PROCFS_FAMILY_MAX_PAGES is not walked. Returns 0, -EPERM when pagemap hides frame numbers (without
 * CAP_SYS_ADMIN: the zero page cannot be told apart), -ENOENT or -ESRCH
 * when the process is gone, or -errno; -E2BIG past PROCFS_FAMILY_MAX_PAGES
 * without PAGEMAP_SCAN. */
int procfs_read_family(int procfd, int pid, unsigned long long zero_pfn, struct family_mem *out);
/* How procfs_read_family_way finds the pages it reads; the counts are the
 * same every way. */
enum procfs_family_way {
	PROCFS_FAMILY_AUTO,	/* procfs_read_family's: SCAN where the kernel has it, else WALK */
	PROCFS_FAMILY_SCAN,	/* dense chunks, then PAGEMAP_SCAN's ranges: -EOPNOTSUPP without it */
	PROCFS_FAMILY_WALK,	/* every page mapped, within PROCFS_FAMILY_MAX_PAGES */
	PROCFS_FAMILY_WALK_ALL,	/* every page mapped, however many (to compare) */
};
int procfs_read_family_way(int procfd, int pid, unsigned long long zero_pfn,
    enum procfs_family_way way, struct family_mem *out);
/* The frame number of the kernel's shared zero page, as this process sees
 * two fresh pages it only read; *pfn 0 when the kernel maps none (each page
 * gets a frame of its own). Returns 0, -EPERM when frame numbers are
 * hidden, or -errno. */
int procfs_zero_pfn(int procfd, unsigned long long *pfn);

/* Find "some avg10=X" and "full avg10=Y" in the text of a PSI file
 * (/proc/pressure/memory). Returns 0 (a missing "full" line reads as -1),
 * or -EINVAL when there is no "some" line or a value is malformed. */
int procfs_parse_psi(const char *buf, size_t len, struct psi *out);

/* Read the machine's memory pressure from /proc/pressure/memory. Returns 0
 * or -errno (-ENOENT: a kernel without PSI, or booted with psi=0). */
int procfs_read_psi_memory(int procfd, struct psi *out);

/* The boot time offset of a time namespace, in ns, from the text of
 * /proc/PID/timens_offsets ("boottime SECS NSECS"); 0 when there is none. */
long long procfs_parse_timens_boottime(const char *buf, size_t len);

/* The boot time offset of cowtop's own time namespace, in ns (0 on a kernel
 * without time namespaces). /proc's start times include it; the kernel's
 * own clock does not. */
long long procfs_timens_boottime_ns(void);

/* Whether cowtop runs in the initial PID namespace (true when it cannot
 * tell): the kernel side sees pids only as the initial namespace does. */
bool procfs_pidns_is_initial(void);

/* Clock ticks per second (sysconf(_SC_CLK_TCK)), cached. */
long procfs_clock_ticks(void);

/* Page size in KiB, cached. */
long procfs_page_kib(void);

#endif
