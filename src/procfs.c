/* Readers of /proc/PID files: bounded reads, pure parsers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "objset.h"
#include "procfs.h"

/* Read buffers. A stat line is about 52 numbers and a comm of at most 64
 * bytes; Tgid is the fourth line of status, after an escaped comm. */
#define STAT_BUF 4096
#define STATUS_BUF 4096
#define PATH_BUF 32
#define SMAPS_BUF 4096
#define MEMINFO_BUF 8192
#define CGROUP_BUF 16384
#define MEMCG_VALUE_BUF 64

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Room for the longest maps line, its newline and a NUL. */
#define MAPS_BUF (PROCFS_MAPS_LINE_MAX + 2)
#define DELETED_SUFFIX " (deleted)"

/* Fields of a stat line, numbered as in proc(5), that are skipped. */
#define STAT_SKIP_PGRP_TO_CMAJFLT 9   /* fields 5..13 */
#define STAT_SKIP_CUTIME_TO_NICE 4    /* fields 16..19 */
#define STAT_SKIP_ITREALVALUE 1       /* field 21 */

/* Where a parser is in its buffer. */
struct cursor {
	const char *p;
	const char *end;
};

static atomic_long clock_ticks;
static atomic_long page_kib;

/* Parse an unsigned decimal at the cursor, without reading past its end.
 * Returns 0, or -EINVAL when there is no digit or the value overflows. */
static int parse_ull(struct cursor *c, unsigned long long *out)
{
	unsigned long long v = 0;
	const char *s = c->p;
	unsigned d;

	if (s >= c->end || *s < '0' || *s > '9')
		return -EINVAL;
	for (; s < c->end && *s >= '0' && *s <= '9'; s++) {
		d = (unsigned)(*s - '0');
		if (v > (ULLONG_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	c->p = s;
	*out = v;
	return 0;
}

/* Parse a decimal with an optional '-' at the cursor, as parse_ull. */
static int parse_ll(struct cursor *c, long long *out)
{
	unsigned long long v;
	bool neg = false;
	struct cursor t = *c;

	if (t.p < t.end && *t.p == '-') {
		neg = true;
		t.p++;
	}
	if (parse_ull(&t, &v) < 0)
		return -EINVAL;
	if (v > (unsigned long long)LLONG_MAX + neg)
		return -EINVAL;
	if (neg)
		*out = v ? -(long long)(v - 1) - 1 : 0;
	else
		*out = (long long)v;
	*c = t;
	return 0;
}

/* Check that a field just parsed is followed by a separator inside the
 * buffer, so that a field cut short by the end is never taken as whole. */
static int field_end(const struct cursor *c)
{
	if (c->p >= c->end || (*c->p != ' ' && *c->p != '\n'))
		return -EINVAL;
	return 0;
}

/* Move past the spaces that must come before the next field. */
static int field_start(struct cursor *c)
{
	if (c->p >= c->end || *c->p != ' ')
		return -EINVAL;
	while (c->p < c->end && *c->p == ' ')
		c->p++;
	return 0;
}

/* Parse the next space-separated unsigned field. */
static int field_ull(struct cursor *c, unsigned long long *out)
{
	if (field_start(c) < 0 || parse_ull(c, out) < 0)
		return -EINVAL;
	return field_end(c);
}

/* Parse the next space-separated signed field. */
static int field_ll(struct cursor *c, long long *out)
{
	if (field_start(c) < 0 || parse_ll(c, out) < 0)
		return -EINVAL;
	return field_end(c);
}

/* Parse the next signed field, which must lie in [min, INT_MAX]. */
static int field_int(struct cursor *c, int min, int *out)
{
	long long v;

	if (field_ll(c, &v) < 0 || v < min || v > INT_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* Skip n signed numeric fields, checking each. */
static int field_skip(struct cursor *c, int n)
{
	long long v;

	while (n-- > 0) {
		if (field_ll(c, &v) < 0)
			return -EINVAL;
	}
	return 0;
}

/* Take the comm that starts at lparen: it runs to the last ')' of the
 * buffer, since the name itself may hold ')', spaces and newlines. Leaves
 * the cursor just after that ')'. */
static int stat_comm(struct cursor *c, const char *lparen,
    struct proc_stat *st)
{
	const char *rparen;
	size_t n;

	rparen = memrchr(lparen + 1, ')', (size_t)(c->end - lparen - 1));
	if (!rparen)
		return -EINVAL;
	n = (size_t)(rparen - lparen - 1);
	if (n > PROCFS_COMM_MAX - 1)
		n = PROCFS_COMM_MAX - 1;
	memcpy(st->comm, lparen + 1, n);
	st->comm[n] = '\0';
	c->p = rparen + 1;
	return 0;
}

/* Parse "PID (COMM) S" at the start of a stat line, leaving the cursor just
 * after the state letter. */
static int stat_head(struct cursor *c, struct proc_stat *st)
{
	long long pid;
	char s;

	if (parse_ll(c, &pid) < 0 || pid < 1 || pid > INT_MAX)
		return -EINVAL;
	if (c->end - c->p < 2 || c->p[0] != ' ' || c->p[1] != '(')
		return -EINVAL;
	if (stat_comm(c, c->p + 1, st) < 0)
		return -EINVAL;
	if (c->end - c->p < 2 || c->p[0] != ' ')
		return -EINVAL;
	s = c->p[1];
	if (!((s >= 'A' && s <= 'Z') || (s >= 'a' && s <= 'z')))
		return -EINVAL;
	st->pid = (int)pid;
	st->state = s;
	c->p += 2;
	return 0;
}

/* Parse the numeric fields 4 (ppid) to 24 (rss) of a stat line. */
static int stat_fields(struct cursor *c, struct proc_stat *st)
{
	if (field_int(c, 0, &st->ppid) < 0 ||
	    field_skip(c, STAT_SKIP_PGRP_TO_CMAJFLT) < 0 ||
	    field_ull(c, &st->utime) < 0 ||
	    field_ull(c, &st->stime) < 0 ||
	    field_skip(c, STAT_SKIP_CUTIME_TO_NICE) < 0 ||
	    field_int(c, 0, &st->num_threads) < 0 ||
	    field_skip(c, STAT_SKIP_ITREALVALUE) < 0 ||
	    field_ull(c, &st->start_time) < 0 ||
	    field_ull(c, &st->vsize) < 0 ||
	    field_ll(c, &st->rss) < 0)
		return -EINVAL;
	return 0;
}

/* Parse the text of a stat file; see procfs.h. */
int procfs_parse_stat(const char *buf, size_t len, struct proc_stat *out)
{
	struct cursor c = { buf, buf + len };
	struct proc_stat st;

	memset(&st, 0, sizeof(st));
	if (stat_head(&c, &st) < 0 || stat_fields(&c, &st) < 0)
		return -EINVAL;
	*out = st;
	return 0;
}

/* Parse the text of a statm file; see procfs.h. */
int procfs_parse_statm(const char *buf, size_t len, struct proc_statm *out)
{
	struct cursor c = { buf, buf + len };
	struct proc_statm sm;

	if (parse_ull(&c, &sm.size) < 0 || field_end(&c) < 0 ||
	    field_ull(&c, &sm.resident) < 0 ||
	    field_ull(&c, &sm.shared) < 0)
		return -EINVAL;
	*out = sm;
	return 0;
}

/* Parse the value of a "Tgid:" line, the cursor just past the colon. */
static int status_tgid_value(struct cursor *c)
{
	unsigned long long v;

	while (c->p < c->end && (*c->p == '\t' || *c->p == ' '))
		c->p++;
	if (parse_ull(c, &v) < 0 || v < 1 || v > INT_MAX)
		return -EINVAL;
	if (c->p >= c->end || *c->p != '\n')
		return -EINVAL;
	return (int)v;
}

/* Find the "Tgid:" line of a status file; see procfs.h. The kernel escapes
 * newlines in the name on the first line, so a name cannot forge a line. */
int procfs_parse_status_tgid(const char *buf, size_t len)
{
	static const char key[] = "Tgid:";
	struct cursor c = { buf, buf + len };
	const char *nl;

	while (c.p < c.end) {
		if ((size_t)(c.end - c.p) >= sizeof(key) - 1 &&
		    memcmp(c.p, key, sizeof(key) - 1) == 0) {
			c.p += sizeof(key) - 1;
			return status_tgid_value(&c);
		}
		nl = memchr(c.p, '\n', (size_t)(c.end - c.p));
		if (!nl)
			break;
		c.p = nl + 1;
	}
	return -EINVAL;
}

/* Make one line of the raw bytes of a cmdline file; see procfs.h. */
size_t procfs_tidy_cmdline(char *buf, size_t len)
{
	size_t i;

	while (len > 0 && buf[len - 1] == '\0')
		len--;
	for (i = 0; i < len; i++) {
		if (buf[i] == '\0')
			buf[i] = ' ';
	}
	buf[len] = '\0';
	return len;
}

/* A "Key:  N kB" line a parser looks for, and where its value goes. */
struct kb_field {
	const char *key;
	size_t off;     /* offset of an unsigned long long in the output */
	bool required;
};

#define SMAPS_FIELD(key, field, required) \
	{ key, offsetof(struct smaps, field), required }

/* The fields of smaps_rollup. Pss_Anon, Pss_File and Pss_Shmem came with
 * Linux 5.9 and swap may be absent: those read 0 when missing. */
static const struct kb_field smaps_fields[] = {
	SMAPS_FIELD("Rss", rss, true),
	SMAPS_FIELD("Pss", pss, true),
	SMAPS_FIELD("Pss_Anon", pss_anon, false),
	SMAPS_FIELD("Pss_File", pss_file, false),
	SMAPS_FIELD("Pss_Shmem", pss_shmem, false),
	SMAPS_FIELD("Shared_Clean", shared_clean, true),
	SMAPS_FIELD("Shared_Dirty", shared_dirty, true),
	SMAPS_FIELD("Private_Clean", private_clean, true),
	SMAPS_FIELD("Private_Dirty", private_dirty, true),
	SMAPS_FIELD("Anonymous", anon, true),
	SMAPS_FIELD("Swap", swap, false),
	SMAPS_FIELD("SwapPss", swap_pss, false),
};

static const struct kb_field meminfo_fields[] = {
	{ "MemAvailable", 0, true },
};

/* Parse the value of a "Key:  N kB" line, the cursor just past the colon
 * and its end at the newline. */
static int kb_value(struct cursor *c, unsigned long long *out)
{
	static const char unit[] = " kB";

	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
	if (parse_ull(c, out) < 0)
		return -EINVAL;
	if ((size_t)(c->end - c->p) != sizeof(unit) - 1 ||
	    memcmp(c->p, unit, sizeof(unit) - 1) != 0)
		return -EINVAL;
	return 0;
}

/* The index of the field named by key[0..len), or -1. */
static int kb_find(const struct kb_field *f, size_t n, const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strlen(f[i].key) == len && memcmp(f[i].key, key, len) == 0)
			return (int)i;
	}
	return -1;
}

/* Parse the "Key:  N kB" lines of buf that fields[0..n) name (n <= 32) into
 * the unsigned long longs at their offsets in out. Only whole lines count,
 * so a file cut short loses its last line, never a digit of it; the first
 * of two lines with one key wins. A missing optional field reads 0. Returns
 * 0, or -EINVAL for a required field missing or a named one malformed; out
 * is written only on success. */
static int parse_kb_fields(const char *buf, size_t len,
    const struct kb_field *fields, size_t n, void *out, size_t size)
{
	const char *p = buf, *end = buf + len, *nl, *colon;
	unsigned long long v[32] = { 0 };
	unsigned found = 0;
	struct cursor c;
	size_t i;
	int k;

	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
		colon = memchr(p, ':', (size_t)(nl - p));
		k = colon ? kb_find(fields, n, p, (size_t)(colon - p)) : -1;
		if (k < 0 || (found & 1u << k))
			continue;
		c = (struct cursor){ colon + 1, nl };
		if (kb_value(&c, &v[k]) < 0)
			return -EINVAL;
		found |= 1u << k;
	}
	for (i = 0; i < n; i++) {
		if (fields[i].required && !(found & 1u << i))
			return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (fields[i].off + sizeof(v[i]) <= size)
			memcpy((char *)out + fields[i].off, &v[i], sizeof(v[i]));
	}
	return 0;
}

/* Parse the text of a smaps_rollup file; see procfs.h. */
int procfs_parse_smaps_rollup(const char *buf, size_t len, struct smaps *out)
{
	return parse_kb_fields(buf, len, smaps_fields, ARRAY_LEN(smaps_fields),
	    out, sizeof(*out));
}

/* Find MemAvailable in the text of /proc/meminfo; see procfs.h. */
int procfs_parse_meminfo_available(const char *buf, size_t len,
    unsigned long long *kib)
{
	return parse_kb_fields(buf, len, meminfo_fields,
	    ARRAY_LEN(meminfo_fields), kib, sizeof(*kib));
}

/* Whether the controller list s[0..len) ("cpu,cpuacct") holds name. */
static bool list_has(const char *s, size_t len, const char *name)
{
	const char *end = s + len, *comma;
	size_t n = strlen(name);

	for (; s < end; s = comma + 1) {
		comma = memchr(s, ',', (size_t)(end - s));
		if (!comma)
			comma = end;
		if ((size_t)(comma - s) == n && memcmp(s, name, n) == 0)
			return true;
	}
	return false;
}

/* Whether a cgroup path is absolute, fits, and has no empty, "." or ".."
 * component (the kernel writes none; a path that had one could climb out of
 * the cgroup directory). "/" alone is the root. */
static bool cgroup_path_ok(const char *p, size_t len)
{
	const char *end = p + len, *s, *slash;

	if (len == 0 || len >= PROCFS_CGROUP_PATH_MAX || p[0] != '/' ||
	    memchr(p, '\0', len))
		return false;
	for (s = p + 1; s < end; s = slash + 1) {
		slash = memchr(s, '/', (size_t)(end - s));
		if (!slash)
			slash = end;
		if (slash == s || (slash - s == 1 && s[0] == '.') ||
		    (slash - s == 2 && s[0] == '.' && s[1] == '.'))
			return false;
	}
	return true;
}

/* Parse one line "ID:CONTROLLERS:PATH" of a cgroup file, without its
 * newline. Returns 1 for a v1 memory line, 2 for the v2 line, 0 for any
 * other line, -EINVAL for a memory line with a bad path. */
static int cgroup_line(const char *p, const char *end, const char **path)
{
	const char *c1, *c2;
	int kind;

	c1 = memchr(p, ':', (size_t)(end - p));
	c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
	if (!c2)
		return 0;
	if (list_has(c1 + 1, (size_t)(c2 - c1 - 1), "memory"))
		kind = 1;
	else if (c1 - p == 1 && p[0] == '0' && c2 == c1 + 1)
		kind = 2;
	else
		return 0;
	if (!cgroup_path_ok(c2 + 1, (size_t)(end - c2 - 1)))
		return -EINVAL;
	*path = c2 + 1;
	return kind;
}

/* Find the memory cgroup in the text of a cgroup file; see procfs.h. */
int procfs_parse_cgroup(const char *buf, size_t len, struct procfs_cgroup *out)
{
	const char *p = buf, *end = buf + len, *nl, *path, *best = NULL;
	size_t n = 0;
	int kind, best_kind = 0;

	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
		kind = cgroup_line(p, nl, &path);
		if (kind < 0)
			return kind;
		if (kind == 1 || (kind == 2 && !best)) {
			best = path;
			best_kind = kind;
			n = (size_t)(nl - path);
		}
	}
	if (!best)
		return -ENOENT;
	out->v1 = best_kind == 1;
	memcpy(out->path, best, n);
	out->path[n] = '\0';
	return 0;
}

/* Build "PID/name" in path. Returns 0, or -EINVAL for a pid that cannot be
 * a process. */
static int pid_path(char *path, size_t cap, int pid, const char *name)
{
	int n;

	if (pid <= 0)
		return -EINVAL;
	n = snprintf(path, cap, "%d/%s", pid, name);
	if (n < 0 || (size_t)n >= cap)
		return -EINVAL;
	return 0;
}

/* Open /proc/PID/name for reading. Returns the fd or -errno. */
static int pid_open(int procfd, int pid, const char *name)
{
	char path[PATH_BUF];
	int fd, err;

	err = pid_path(path, sizeof(path), pid, name);
	if (err < 0)
		return err;
	fd = openat(procfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

/* Read up to cap bytes of the file at path relative to dirfd, whatever its
 * size. Returns the bytes read or -errno. */
static ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;
	int fd, err = 0;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	while (n < cap) {
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return err < 0 ? err : (ssize_t)n;
}

/* Read up to cap bytes of /proc/PID/name, whatever its size. Returns the
 * bytes read or -errno. */
static ssize_t read_pid_file(int procfd, int pid, const char *name,
    char *buf, size_t cap)
{
	char path[PATH_BUF];
	int err;

	err = pid_path(path, sizeof(path), pid, name);
	if (err < 0)
		return err;
	return read_file_at(procfd, path, buf, cap);
}

/* Read and parse /proc/PID/stat; see procfs.h. */
int procfs_read_stat(int procfd, int pid, struct proc_stat *out)
{
	char buf[STAT_BUF];
	ssize_t n;

	n = read_pid_file(procfd, pid, "stat", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return procfs_parse_stat(buf, (size_t)n, out);
}

/* Read the tgid of a pid from /proc/PID/status; see procfs.h. */
int procfs_read_tgid(int procfd, int pid)
{
	char buf[STATUS_BUF];
	ssize_t n;

	n = read_pid_file(procfd, pid, "status", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return procfs_parse_status_tgid(buf, (size_t)n);
}

/* Read and parse /proc/PID/smaps_rollup; see procfs.h. */
int procfs_read_smaps_rollup(int procfd, int pid, struct smaps *out)
{
	char buf[SMAPS_BUF];
	ssize_t n;

	n = read_pid_file(procfd, pid, "smaps_rollup", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return procfs_parse_smaps_rollup(buf, (size_t)n, out);
}

/* Read MemAvailable from /proc/meminfo; see procfs.h. */
int procfs_read_meminfo_available(int procfd, unsigned long long *kib)
{
	char buf[MEMINFO_BUF];
	ssize_t n;

	n = read_file_at(procfd, "meminfo", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return procfs_parse_meminfo_available(buf, (size_t)n, kib);
}

/* Read a memory cgroup figure in bytes from dir/name under cgroupfd: a
 * decimal, or "max" (v2's no limit), which reads as ULLONG_MAX. */
static int memcg_value(int cgroupfd, const char *dir, const char *name,
    unsigned long long *bytes)
{
	char path[PROCFS_CGROUP_PATH_MAX + 64], buf[MEMCG_VALUE_BUF];
	struct cursor c = { buf, buf };
	ssize_t n;
	int len;

	len = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	n = read_file_at(cgroupfd, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	c.end = buf + n;
	if (n == 4 && memcmp(buf, "max\n", 4) == 0) {
		*bytes = ULLONG_MAX;
		return 0;
	}
	if (parse_ull(&c, bytes) < 0 || c.p >= c.end || *c.p != '\n')
		return -EINVAL;
	return 0;
}

/* Read the limit and usage of one memory cgroup directory. v1 has no "max":
 * its unlimited is the largest page-aligned signed 64-bit value. */
static int memcg_level(int cgroupfd, const char *dir, bool v1, struct memcg *out)
{
	unsigned long long limit, usage;
	int err;

	err = memcg_value(cgroupfd, dir, v1 ? "memory.limit_in_bytes" : "memory.max", &limit);
	if (err == 0)
		err = memcg_value(cgroupfd, dir, v1 ? "memory.usage_in_bytes" : "memory.current", &usage);
	if (err < 0)
		return err;
	out->limit_kib = limit >= PROCFS_MEMCG_V1_NONE ? 0 : limit / 1024;
	out->usage_kib = usage / 1024;
	return 0;
}

/* Room left under a cgroup's limit, KiB; ULLONG_MAX without a limit. */
static unsigned long long memcg_room(const struct memcg *cg)
{
	if (!cg->limit_kib)
		return ULLONG_MAX;
	return cg->limit_kib > cg->usage_kib ? cg->limit_kib - cg->usage_kib : 0;
}

/* Where v2 is mounted under cgroupfd: cgroupfd itself when it is a cgroup2
 * file system (unified mode), else its "unified" directory (hybrid). */
static const char *memcg_v2_root(int cgroupfd)
{
	struct statfs sfs;

	if (fstatfs(cgroupfd, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC)
		return ".";
	return "unified";
}

/* Take the cgroup with the least room from dir (under cgroupfd) up to, not
 * including, its first root_len bytes, the hierarchy's root: a service's own
 * cgroup is often unlimited inside a limited slice. Levels that cannot be
 * read (no memory controller there) count as unlimited. */
static void memcg_tightest(int cgroupfd, char *dir, size_t root_len, bool v1,
    struct memcg *out)
{
	struct memcg best = { 0, 0 }, level;
	bool have = false;
	char *slash;

	while (strlen(dir) > root_len) {
		if (memcg_level(cgroupfd, dir, v1, &level) == 0 &&
		    (!have || memcg_room(&level) < memcg_room(&best))) {
			best = level;
			have = true;
		}
		slash = strrchr(dir, '/');
		*slash = '\0';
	}
	*out = best;
}

/* Read the memory cgroup of pid; see procfs.h. */
int procfs_read_memcg(int procfd, int cgroupfd, int pid, struct memcg *out)
{
	char dir[PROCFS_CGROUP_PATH_MAX + 16];
	struct procfs_cgroup *cg;
	const char *root;
	char *buf;
	ssize_t n;
	int err, len;

	buf = malloc(CGROUP_BUF);
	cg = malloc(sizeof(*cg));
	n = buf && cg ? read_pid_file(procfd, pid, "cgroup", buf, CGROUP_BUF) : -ENOMEM;
	err = n < 0 ? (int)n : procfs_parse_cgroup(buf, (size_t)n, cg);
	if (err < 0)
		goto out;
	root = cg->v1 ? "memory" : memcg_v2_root(cgroupfd);
	len = snprintf(dir, sizeof(dir), "%s%s", root, strcmp(cg->path, "/") ? cg->path : "");
	if (len < 0 || (size_t)len >= sizeof(dir))
		err = -ENAMETOOLONG;
	else
		memcg_tightest(cgroupfd, dir, strlen(root), cg->v1, out);
out:
	free(cg);
	free(buf);
	return err;
}

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

	if (sscanf(line, "%*x-%*x %4s %*x %x:%x %llu%n", perms, &major,
	    &minor, &inode, &n) != 4 || n < 0)
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

/* Call fn for every executable file pid maps; see procfs.h. */
int procfs_for_each_object(int procfd, int pid,
    int (*fn)(const char *path, void *arg), void *arg)
{
	struct maps_reader *r;
	struct objset *seen;
	struct maps_entry e;
	char *line;
	int ret;

	r = calloc(1, sizeof(*r));
	seen = objset__new();
	ret = r && seen ? pid_open(procfd, pid, "maps") : -ENOMEM;
	if (ret < 0)
		goto out;
	r->fd = ret;
	while ((ret = maps_next(r, &line)) > 0) {
		if (maps_parse(line, &e) < 0 || objset__has(seen, e.dev, e.inode))
			continue;
		(void)objset__add(seen, e.dev, e.inode); /* full: may report twice */
		ret = fn(e.path, arg);
		if (ret != 0)
			break;
	}
	close(r->fd);
out:
	objset__free(seen);
	free(r);
	return ret;
}

/* The pid a /proc entry name stands for, or -1 when it is not a pid: only
 * canonical decimals (no sign, no leading zero) that fit an int. */
static int entry_pid(const char *name)
{
	struct cursor c = { name, name + strlen(name) };
	unsigned long long v;

	if (name[0] == '0' || parse_ull(&c, &v) < 0 || c.p != c.end)
		return -1;
	if (v > INT_MAX)
		return -1;
	return (int)v;
}

/* Call fn for every process in /proc; see procfs.h. */
int procfs_for_each_pid(int procfd, int (*fn)(int pid, void *arg), void *arg)
{
	struct dirent *de;
	DIR *dir;
	int fd, pid, ret = 0;

	/* A new open file description: the caller's fd offset is untouched. */
	fd = openat(procfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		ret = -errno;
		close(fd);
		return ret;
	}
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			ret = errno ? -errno : 0;
			break;
		}
		pid = entry_pid(de->d_name);
		if (pid <= 0)
			continue;
		ret = fn(pid, arg);
		if (ret != 0)
			break;
	}
	closedir(dir);
	return ret;
}

/* Clock ticks per second, cached; see procfs.h. */
long procfs_clock_ticks(void)
{
	long v = atomic_load_explicit(&clock_ticks, memory_order_relaxed);

	if (v > 0)
		return v;
	v = sysconf(_SC_CLK_TCK);
	if (v <= 0)
		v = 100;
	atomic_store_explicit(&clock_ticks, v, memory_order_relaxed);
	return v;
}

/* Page size in KiB, cached; see procfs.h. */
long procfs_page_kib(void)
{
	long v = atomic_load_explicit(&page_kib, memory_order_relaxed);

	if (v > 0)
		return v;
	v = sysconf(_SC_PAGESIZE) / 1024;
	if (v <= 0)
		v = 4;
	atomic_store_explicit(&page_kib, v, memory_order_relaxed);
	return v;
}
