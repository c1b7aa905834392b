/* libFuzzer target for the pure /proc parsers: procfs_parse_stat,
 * procfs_parse_statm, procfs_parse_status_tgid and procfs_tidy_cmdline,
 * all fed every input, each in a heap block of exactly its size so that a
 * read past the end is caught. Beyond not crashing, every answer is checked
 * against what procfs.h promises. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop the run: libFuzzer saves the input that got here. */
#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

/* A heap copy of exactly size bytes (and room for extra more). */
static char *copy(const uint8_t *data, size_t size, size_t extra)
{
	char *buf = malloc(size + extra ? size + extra : 1);

	if (buf)
		memcpy(buf, data, size);
	return buf;
}

/* The comm of a stat line, the slow way: the bytes between the first '('
 * and the last ')', cut to fit (NULs included). Returns their count. */
static size_t oracle_comm(const char *buf, size_t len, char *out)
{
	const char *lp = memchr(buf, '(', len), *rp = NULL, *s;
	size_t n;

	CHECK(lp != NULL);
	for (s = buf; s < buf + len; s++) {
		if (*s == ')')
			rp = s;
	}
	CHECK(rp != NULL && rp > lp);
	n = (size_t)(rp - lp - 1);
	if (n > PROCFS_COMM_MAX - 1)
		n = PROCFS_COMM_MAX - 1;
	memcpy(out, lp + 1, n);
	out[n] = '\0';
	return n;
}

/* procfs_parse_stat: a success is a sane record, a failure touches nothing. */
static void fuzz_stat(const uint8_t *data, size_t size)
{
	char *buf = copy(data, size, 0), comm[PROCFS_COMM_MAX];
	struct proc_stat st, canary;
	int ret;

	if (!buf)
		return;
	memset(&st, 0xa5, sizeof(st));
	canary = st;
	ret = procfs_parse_stat(buf, size, &st);
	if (ret == 0) {
		CHECK(st.pid >= 1 && st.ppid >= 0 && st.num_threads >= 0);
		CHECK((st.state >= 'A' && st.state <= 'Z') || (st.state >= 'a' && st.state <= 'z'));
		CHECK(memchr(st.comm, '\0', sizeof(st.comm)) != NULL);
		CHECK(memcmp(st.comm, comm, oracle_comm(buf, size, comm) + 1) == 0);
	} else {
		CHECK(ret == -EINVAL && memcmp(&st, &canary, sizeof(st)) == 0);
	}
	free(buf);
}

/* procfs_parse_statm: the same promises. */
static void fuzz_statm(const uint8_t *data, size_t size)
{
	char *buf = copy(data, size, 0);
	struct proc_statm sm, canary;
	int ret;

	if (!buf)
		return;
	memset(&sm, 0xa5, sizeof(sm));
	canary = sm;
	ret = procfs_parse_statm(buf, size, &sm);
	CHECK(ret == 0 || (ret == -EINVAL && memcmp(&sm, &canary, sizeof(sm)) == 0));
	free(buf);
}

/* procfs_parse_status_tgid: a pid or -EINVAL, nothing else. */
static void fuzz_status(const uint8_t *data, size_t size)
{
	char *buf = copy(data, size, 0);
	int ret;

	if (!buf)
		return;
	ret = procfs_parse_status_tgid(buf, size);
	CHECK(ret == -EINVAL || ret >= 1);
	free(buf);
}

/* procfs_tidy_cmdline: trailing NULs dropped, the others made spaces, the
 * rest untouched, NUL-terminated. */
static void fuzz_cmdline(const uint8_t *data, size_t size)
{
	char *buf = copy(data, size, 1);
	size_t n, want = size, i;

	if (!buf)
		return;
	while (want > 0 && data[want - 1] == '\0')
		want--;
	n = procfs_tidy_cmdline(buf, size);
	CHECK(n == want && buf[n] == '\0');
	for (i = 0; i < n; i++)
		CHECK(buf[i] == (data[i] ? (char)data[i] : ' '));
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_stat(data, size);
	fuzz_statm(data, size);
	fuzz_status(data, size);
	fuzz_cmdline(data, size);
	return 0;
}
