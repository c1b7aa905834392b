/* The memory readers of /proc and the cgroup file system: smaps_rollup,
 * MemAvailable of meminfo, and the tightest memory cgroup of a process. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "procfs.h"
#include "procfs_int.h"

/* Read buffers. */
#define SMAPS_BUF 4096
#define MEMINFO_BUF 8192
#define STATUS_BUF 4096
#define CGROUP_BUF 16384
#define MEMCG_VALUE_BUF 64

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

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

static const struct kb_field status_pte_fields[] = {
	{ "VmPTE", 0, true },
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

/* Find VmPTE in the text of /proc/PID/status; see procfs.h. */
int procfs_parse_status_pte(const char *buf, size_t len, unsigned long long *kib)
{
	return parse_kb_fields(buf, len, status_pte_fields,
	    ARRAY_LEN(status_pte_fields), kib, sizeof(*kib));
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

/* Read and parse /proc/PID/smaps_rollup; see procfs.h. */
int procfs_read_smaps_rollup(int procfd, int pid, struct smaps *out)
{
	char buf[SMAPS_BUF];
	ssize_t n;

	n = procfs_read_pid_file(procfd, pid, "smaps_rollup", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return procfs_parse_smaps_rollup(buf, (size_t)n, out);
}

/* Read VmPTE of /proc/PID/status; see procfs.h. */
int procfs_read_pte(int procfd, int pid, unsigned long long *kib)
{
	char buf[STATUS_BUF];
	ssize_t n;

	n = procfs_read_pid_file(procfd, pid, "status", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return procfs_parse_status_pte(buf, (size_t)n, kib);
}

/* Read MemAvailable from /proc/meminfo; see procfs.h. */
int procfs_read_meminfo_available(int procfd, unsigned long long *kib)
{
	char buf[MEMINFO_BUF];
	ssize_t n;

	n = procfs_read_file_at(procfd, "meminfo", buf, sizeof(buf));
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
	n = procfs_read_file_at(cgroupfd, path, buf, sizeof(buf));
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
	struct memcg best = { .limit_kib = 0 }, level;
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

/* The memory pressure of the cgroup v2 named in the text of a cgroup file
 * (not the root's: that is the machine's, in the header), into out. */
static void cgroup_psi(int cgroupfd, const char *buf, size_t len, struct memcg *out)
{
	const char *p = buf, *end = buf + len, *nl, *path = NULL;
	char file[PROCFS_CGROUP_PATH_MAX + 32], text[512];
	size_t n = 0;
	ssize_t got;

	out->psi_known = false;
	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
		if (nl - p > 3 && memcmp(p, "0::", 3) == 0 && cgroup_path_ok(p + 3, (size_t)(nl - p - 3))) {
			path = p + 3;
			n = (size_t)(nl - path);
		}
	}
	if (!path || n < 2 || (size_t)snprintf(file, sizeof(file), "%s%.*s/memory.pressure",
						  memcg_v2_root(cgroupfd), (int)n, path) >= sizeof(file))
		return;
	got = procfs_read_file_at(cgroupfd, file, text, sizeof(text));
	out->psi_known = got > 0 && procfs_parse_psi(text, (size_t)got, &out->psi) == 0;
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
	n = buf && cg ? procfs_read_pid_file(procfd, pid, "cgroup", buf, CGROUP_BUF) : -ENOMEM;
	err = n < 0 ? (int)n : procfs_parse_cgroup(buf, (size_t)n, cg);
	if (err < 0)
		goto out;
	root = cg->v1 ? "memory" : memcg_v2_root(cgroupfd);
	len = snprintf(dir, sizeof(dir), "%s%s", root, strcmp(cg->path, "/") ? cg->path : "");
	if (len < 0 || (size_t)len >= sizeof(dir))
		err = -ENAMETOOLONG;
	else
		memcg_tightest(cgroupfd, dir, strlen(root), cg->v1, out);
	if (!err)
		cgroup_psi(cgroupfd, buf, (size_t)n, out);
out:
	free(cg);
	free(buf);
	return err;
}

/* The value of "avg10=" in one PSI line, or -EINVAL. */
static int psi_avg10(const char *line, size_t len, double *out)
{
	char buf[256], *end;
	const char *v;
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;

	memcpy(buf, line, n);
	buf[n] = '\0';
	v = strstr(buf, " avg10=");
	if (!v)
		return -EINVAL;
	*out = strtod(v + 7, &end);
	if (end == v + 7 || *out < 0 || *out > 100)
		return -EINVAL;
	return 0;
}

/* Find the avg10 figures of a PSI file; see procfs.h. */
int procfs_parse_psi(const char *buf, size_t len, struct psi *out)
{
	const char *p = buf, *end = buf + len, *nl;
	struct psi v = { -1, -1 };
	bool some = false;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > 5 && memcmp(p, "some ", 5) == 0) {
			if (psi_avg10(p, (size_t)(nl - p), &v.some_avg10))
				return -EINVAL;
			some = true;
		} else if ((size_t)(nl - p) > 5 && memcmp(p, "full ", 5) == 0) {
			if (psi_avg10(p, (size_t)(nl - p), &v.full_avg10))
				return -EINVAL;
		}
	}
	if (!some)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Read the machine's memory pressure; see procfs.h. */
int procfs_read_psi_memory(int procfd, struct psi *out)
{
	char buf[512];
	ssize_t n;

	n = procfs_read_file_at(procfd, "pressure/memory", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return procfs_parse_psi(buf, (size_t)n, out);
}
