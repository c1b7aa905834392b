/* The walkers of /proc/PID/maps, read through a fixed buffer: every
 * executable file a process maps, each once; and its anonymous memory page
 * by page in /proc/PID/pagemap, shared or its own, where the kernel's
 * PAGEMAP_SCAN says pages are present. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/fs.h>
#include "objset.h"
#include "procfs.h"
#include "procfs_int.h"

/* Room for the longest maps line, its newline and a NUL. */
#define MAPS_BUF (PROCFS_MAPS_LINE_MAX + 2)
#define DELETED_SUFFIX " (deleted)"

/* Lines of a maps file, read through a fixed buffer. */
struct maps_reader {
	int fd;
	bool eof;
	bool skipping; /* inside a line too long for the buffer */
	size_t start, len;
	char buf[MAPS_BUF];
};

/* One executable file mapping, as a maps line describes it. */
struct maps_entry {
	unsigned long long dev, inode;
	unsigned long long start, end;
	const char *path;
};

/* Read more of the maps file, after what is left of the current line. A
 * line that fills the whole buffer is dropped and the rest of it skipped. */
static int maps_fill(struct maps_reader *r)
{
	ssize_t n;

	memmove(r->buf, r->buf + r->start, r->len - r->start);
	r->len -= r->start;
	r->start = 0;
	if (r->len == sizeof(r->buf) - 1) {
		r->len = 0;
		r->skipping = true;
	}
	do
		n = read(r->fd, r->buf + r->len, sizeof(r->buf) - 1 - r->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		r->eof = true;
	r->len += (size_t)n;
	return 0;
}

/* The next line of the maps file, NUL-terminated in place. Returns 1, 0 at
 * the end, or -errno. */
static int maps_next(struct maps_reader *r, char **line)
{
	char *nl;
	int err;

	for (;;) {
		nl = memchr(r->buf + r->start, '\n', r->len - r->start);
		if (nl) {
			*nl = '\0';
			*line = r->buf + r->start;
			r->start = (size_t)(nl + 1 - r->buf);
			if (!r->skipping)
				return 1;
			r->skipping = false;
			continue;
		}
		if (r->eof) {
			if (r->start == r->len || r->skipping)
				return 0;
			r->buf[r->len] = '\0';
			*line = r->buf + r->start;
			r->start = r->len;
			return 1;
		}
		err = maps_fill(r);
		if (err < 0)
			return err;
	}
}

/* Whether a path names a file that is still there: maps appends
 * " (deleted)" to files unlinked since they were mapped. */
static bool path_deleted(const char *path)
{
	size_t n = strlen(path), k = sizeof(DELETED_SUFFIX) - 1;

	return n >= k && strcmp(path + n - k, DELETED_SUFFIX) == 0;
}

/* Parse a maps line "START-END PERMS OFFSET MAJ:MIN INODE   PATH". Returns
 * 0 for an executable mapping of a file that is still there, else -EINVAL. */
static int maps_parse(char *line, struct maps_entry *e)
{
	unsigned long long inode;
	unsigned major, minor;
	char perms[5];
	int n = -1;

	if (sscanf(line, "%llx-%llx %4s %*x %x:%x %llu%n", &e->start, &e->end, perms,
	    &major, &minor, &inode, &n) != 6 || n < 0)
		return -EINVAL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	if (!strchr(perms, 'x') || inode == 0 || line[0] != '/' ||
	    path_deleted(line))
		return -EINVAL;
	e->dev = (unsigned long long)major << 32 | minor;
	e->inode = inode;
	e->path = line;
	return 0;
}

/* Call fn for every executable file pid maps, with where it can be
 * opened; see procfs.h. */
int procfs_for_each_object_at(int procfd, int pid,
    int (*fn)(const char *path, const char *at, void *arg), void *arg)
{
	struct objset *seen = objset__new();
	int ret;

	if (!seen)
		return -ENOMEM;
	ret = procfs_for_each_new_object_at(procfd, pid, seen, fn, arg);
	objset__free(seen);
	return ret;
}

/* Call fn for each file-backed object pid maps that seen does not hold yet;
 * see procfs.h. */
int procfs_for_each_new_object_at(int procfd, int pid, struct objset *seen,
    int (*fn)(const char *path, const char *at, void *arg), void *arg)
{
	char at[96];
	struct maps_reader *r;
	struct maps_entry e;
	char *line;
	int ret;

	r = calloc(1, sizeof(*r));
	ret = r ? procfs_pid_open(procfd, pid, "maps") : -ENOMEM;
	if (ret < 0)
		goto out;
	r->fd = ret;
	while ((ret = maps_next(r, &line)) > 0) {
		if (maps_parse(line, &e) < 0 || objset__has(seen, e.dev, e.inode))
			continue;
		(void)objset__add(seen, e.dev, e.inode); /* full: may report twice */
		snprintf(at, sizeof(at), "%d/map_files/%llx-%llx", pid, e.start, e.end);
		ret = fn(e.path, at, arg);
		if (ret != 0)
			break;
	}
	close(r->fd);
out:
	free(r);
	return ret;
}

/* Bits of a /proc/PID/pagemap entry (Documentation/admin-guide/mm/pagemap.rst). */
#define PM_PRESENT (1ULL << 63)
#define PM_FILE (1ULL << 61)      /* a file's page, or shared anonymous (shmem) */
#define PM_EXCLUSIVE (1ULL << 56) /* mapped by this process alone */
#define PM_PFN ((1ULL << 55) - 1)
#define PM_CHUNK 4096             /* entries read at a time: 32 KiB */
#define PM_REGIONS 256            /* ranges PAGEMAP_SCAN returns at a time: 6 KiB */

/* The PAGEMAP_SCAN ioctl of /proc/PID/pagemap, from Linux 6.7's
 * include/uapi/linux/fs.h, for older headers (Debian 12's are 6.1's): the
 * ranges of pages in [start, end) whose categories match, merged. A kernel
 * without it says ENOTTY. */
#ifndef PAGEMAP_SCAN
struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_PFNZERO (1 << 5)
#endif

/* What a family walk counts, in pages. */
struct family_walk {
	int fd;
	unsigned long long zero_pfn;
	unsigned long long anon, shared;
	unsigned long long present; /* entries of present pages read, any kind */
	uint64_t buf[PM_CHUNK];
	struct page_region found[PM_REGIONS];
};

/* Whether the kernel has PAGEMAP_SCAN: 0 as far as known, -1 it said not
 * (then every family walk reads the whole of pagemap, within
 * PROCFS_FAMILY_MAX_PAGES). Learnt once, at the first scan. */
static int family_no_scan;

/* Whether a maps line's mapping may hold anonymous pages worth walking: a
 * private one that can be read or written (a PROT_NONE reservation holds
 * none), with no special kernel name ([vdso], [vvar]: not memory of the
 * process's own) but the heap, the stack and named anonymous memory. */
static bool family_mapping(const char *line, unsigned long long *start, unsigned long long *end)
{
	char perms[5];
	int n = -1;

	if (sscanf(line, "%llx-%llx %4s %*x %*x:%*x %*u%n", start, end, perms, &n) != 3 || n < 0)
		return false;
	if (perms[3] != 'p' || (perms[0] == '-' && perms[1] == '-' && perms[2] == '-'))
		return false;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return line[0] != '[' || strcmp(line, "[heap]") == 0 || strcmp(line, "[stack]") == 0 ||
	       strncmp(line, "[anon:", 6) == 0;
}

/* Count the anonymous pages of [start, end) and the shared ones among them.
 * Returns 0, -EPERM when frame numbers are hidden, or -errno. */
static int family_range(struct family_walk *w, unsigned long long start, unsigned long long end)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE), pfn;
	unsigned long long at = start / page, stop = end / page;
	size_t want, i, got;
	ssize_t n;

	while (at < stop) {
		want = stop - at < PM_CHUNK ? (size_t)(stop - at) : PM_CHUNK;
		n = pread(w->fd, w->buf, want * sizeof(w->buf[0]), (off_t)(at * sizeof(w->buf[0])));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got = (size_t)n / sizeof(w->buf[0]);
		if (!got)
			return 0; /* the mapping went away under the walk */
		for (i = 0; i < got; i++) {
			w->present += !!(w->buf[i] & PM_PRESENT);
			if ((w->buf[i] & (PM_PRESENT | PM_FILE)) != PM_PRESENT)
				continue;
			pfn = w->buf[i] & PM_PFN;
			if (!pfn)
				return -EPERM;
			if (pfn == w->zero_pfn)
				continue;
			w->anon++;
			w->shared += !(w->buf[i] & PM_EXCLUSIVE);
		}
		at += got;
	}
	return 0;
}

/* Count [start, end) as family_range does, reading pagemap only for the
 * ranges PAGEMAP_SCAN finds present and not the zero page (it cannot tell
 * shared from exclusive): the cost follows the pages present, not the size
 * mapped. File pages are left to pagemap's bit: asking the scan about them
 * makes it look up every page's struct page, which doubled the cost of
 * reading a dense heap (bench/family.sh). Returns 0, -EOPNOTSUPP when the
 * kernel has no PAGEMAP_SCAN, or as family_range. */
static int family_scan(struct family_walk *w, unsigned long long start, unsigned long long end)
{
	struct pm_scan_arg arg;
	long n, i;
	int ret;

	while (start < end) {
		arg = (struct pm_scan_arg){
			.size = sizeof(arg),
			.start = start,
			.end = end,
			.vec = (uintptr_t)w->found,
			.vec_len = PM_REGIONS,
			.category_inverted = PAGE_IS_PFNZERO,
			.category_mask = PAGE_IS_PRESENT | PAGE_IS_PFNZERO,
			.return_mask = PAGE_IS_PRESENT,
		};
		n = ioctl(w->fd, PAGEMAP_SCAN, &arg);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == ENOTTY || errno == EINVAL ? -EOPNOTSUPP : -errno;
		for (i = 0; i < n && i < PM_REGIONS; i++)
			if ((ret = family_range(w, w->found[i].start, w->found[i].end)) < 0)
				return ret;
		if (arg.walk_end <= start)
			return -EIO; /* no progress: never loop */
		start = arg.walk_end;
	}
	return 0;
}

/* Count [start, end) reading pagemap in chunks while they are dense, and
 * from PAGEMAP_SCAN's ranges for the rest once a chunk is sparse (fewer
 * than one entry in PM_DENSE present): the scan walks the page tables once
 * more, which costs a dense heap more than reading its pagemap alone (a
 * 50 MiB heap: 0.73 ms against 0.50), and saves nearly all of a sparse
 * mapping's. At most one sparse chunk (16 MiB of address) is read whole. */
#define PM_DENSE 8
static int family_chunks(struct family_walk *w, unsigned long long start, unsigned long long end)
{
	unsigned long long chunk = PM_CHUNK * (unsigned long long)sysconf(_SC_PAGESIZE), stop, before;
	int ret;

	while (start < end) {
		stop = end - start > chunk ? start + chunk : end;
		before = w->present;
		if ((ret = family_range(w, start, stop)) < 0)
			return ret;
		if (stop < end && (w->present - before) * PM_DENSE < PM_CHUNK)
			return family_scan(w, stop, end);
		start = stop;
	}
	return 0;
}

/* Count one mapping of a family walk the given way, adding its pages to
 * *pages for the limit of PROCFS_FAMILY_WALK. */
static int family_count(struct family_walk *w, enum procfs_family_way way,
    unsigned long long start, unsigned long long end, unsigned long long *pages)
{
	if (way == PROCFS_FAMILY_SCAN)
		return family_chunks(w, start, end);
	/* pagemap has an entry for every page mapped, present or not: a
	 * huge sparse mapping (a sanitizer's shadow, a runtime's reserved
	 * arena) would take seconds to walk. Unknown instead, said why. */
	*pages += (end - start) / (unsigned long long)sysconf(_SC_PAGESIZE);
	if (way == PROCFS_FAMILY_WALK && *pages > PROCFS_FAMILY_MAX_PAGES)
		return -E2BIG;
	return family_range(w, start, end);
}

/* Walk pid's anonymous memory in its pagemap the given way; see procfs.h. */
int procfs_read_family_way(int procfd, int pid, unsigned long long zero_pfn,
    enum procfs_family_way way, struct family_mem *out)
{
	unsigned long long start, end, kib = (unsigned long long)sysconf(_SC_PAGESIZE) / 1024, pages = 0;
	struct maps_reader *r;
	struct family_walk *w;
	char *line;
	int ret;

	if (way == PROCFS_FAMILY_AUTO) {
		ret = -EOPNOTSUPP;
		if (!family_no_scan)
			ret = procfs_read_family_way(procfd, pid, zero_pfn, PROCFS_FAMILY_SCAN, out);
		if (ret != -EOPNOTSUPP)
			return ret;
		family_no_scan = -1;
		way = PROCFS_FAMILY_WALK;
	}
	r = calloc(1, sizeof(*r));
	w = calloc(1, sizeof(*w));
	ret = r && w ? procfs_pid_open(procfd, pid, "maps") : -ENOMEM;
	if (ret < 0)
		goto out;
	r->fd = ret;
	w->zero_pfn = zero_pfn;
	w->fd = procfs_pid_open(procfd, pid, "pagemap");
	ret = w->fd;
	while (w->fd >= 0 && (ret = maps_next(r, &line)) > 0) {
		if (family_mapping(line, &start, &end) &&
		    (ret = family_count(w, way, start, end, &pages)) < 0)
			break;
	}
	if (ret == 0)
		*out = (struct family_mem){ w->anon * kib, w->shared * kib };
	if (w->fd >= 0)
		close(w->fd);
	close(r->fd);
out:
	free(w);
	free(r);
	return ret;
}

/* Walk pid's anonymous memory in its pagemap; see procfs.h. */
int procfs_read_family(int procfd, int pid, unsigned long long zero_pfn, struct family_mem *out)
{
	return procfs_read_family_way(procfd, pid, zero_pfn, PROCFS_FAMILY_AUTO, out);
}

/* The frame of the shared zero page; see procfs.h. */
int procfs_zero_pfn(int procfd, unsigned long long *pfn)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile unsigned char *m;
	uint64_t e[2];
	int fd, ret = 0;

	m = mmap(NULL, 2 * (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	(void)m[0];
	(void)m[page];
	fd = openat(procfd, "self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, e, sizeof(e), (off_t)((uintptr_t)m / (uintptr_t)page * sizeof(e[0]))) != sizeof(e))
		ret = fd < 0 ? -errno : -EIO;
	else if (!(e[0] & PM_PRESENT) || !(e[1] & PM_PRESENT) || (e[0] & PM_PFN) != (e[1] & PM_PFN))
		*pfn = 0; /* each fresh page a frame of its own: no zero page */
	else if (!(e[0] & PM_PFN))
		ret = -EPERM;
	else
		*pfn = e[0] & PM_PFN;
	if (fd >= 0)
		close(fd);
	munmap((void *)m, 2 * (size_t)page);
	return ret;
}
