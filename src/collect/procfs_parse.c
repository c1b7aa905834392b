/* The parsers of /proc text: a stat line, the lines of a status file, a
 * command line, the time namespace's offsets. Pure functions over a bounded
 * buffer, no file read here (procfs.c reads the files), so that the unit
 * tests and the fuzzer can feed them any bytes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "procfs.h"
#include "procfs_int.h"

/* Fields of a stat line, numbered as in proc(5), that are skipped. */
#define STAT_SKIP_PGRP_TO_TPGID 4     /* fields 5..8 */
#define STAT_SKIP_MINFLT_TO_CMAJFLT 4 /* fields 10..13 */
#define STAT_SKIP_CUTIME_TO_NICE 4    /* fields 16..19 */
#define STAT_SKIP_ITREALVALUE 1       /* field 21 */

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
	    field_skip(c, STAT_SKIP_PGRP_TO_TPGID) < 0 ||
	    field_ull(c, &st->flags) < 0 ||
	    field_skip(c, STAT_SKIP_MINFLT_TO_CMAJFLT) < 0 ||
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

/* Move c just past key at the start of a line of a status file; -EINVAL
 * when there is no such line. The kernel escapes newlines in the name on
 * the first line, so a name cannot forge a line. */
static int status_find(struct cursor *c, const char *key)
{
	size_t klen = strlen(key);
	const char *nl;

	while (c->p < c->end) {
		if ((size_t)(c->end - c->p) >= klen && memcmp(c->p, key, klen) == 0) {
			c->p += klen;
			return 0;
		}
		nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
		if (!nl)
			break;
		c->p = nl + 1;
	}
	return -EINVAL;
}

/* Find the "Tgid:" line of a status file; see procfs.h. */
int procfs_parse_status_tgid(const char *buf, size_t len)
{
	struct cursor c = { buf, buf + len };

	if (status_find(&c, "Tgid:"))
		return -EINVAL;
	return status_tgid_value(&c);
}

/* The last pid of the "NSpid:" line of a status file; see procfs.h. */
int procfs_parse_status_nspid(const char *buf, size_t len)
{
	struct cursor c = { buf, buf + len };
	unsigned long long v = 0;
	int n = 0;

	if (status_find(&c, "NSpid:"))
		return -ENOENT;
	for (;;) {
		while (c.p < c.end && (*c.p == '\t' || *c.p == ' '))
			c.p++;
		if (c.p >= c.end || *c.p == '\n')
			break;
		if (parse_ull(&c, &v) < 0 || v < 1 || v > INT_MAX)
			return -EINVAL;
		n++;
	}
	if (!n || c.p >= c.end)
		return -EINVAL;
	return (int)v;
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

/* The boot time offset in the text of timens_offsets; see procfs.h. */
long long procfs_parse_timens_boottime(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	long long secs, nsecs;
	char line[128];
	size_t n;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		n = (size_t)(nl - p) < sizeof(line) - 1 ? (size_t)(nl - p) : sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		if (sscanf(line, "boottime %lld %lld", &secs, &nsecs) == 2 ||
		    sscanf(line, "7 %lld %lld", &secs, &nsecs) == 2) /* CLOCK_BOOTTIME's id */
			return secs * 1000000000LL + nsecs;
	}
	return 0;
}
