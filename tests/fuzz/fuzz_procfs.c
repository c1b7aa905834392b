/* libFuzzer target for the pure /proc parsers: procfs_parse_stat,
 * procfs_parse_status_tgid and procfs_tidy_cmdline,
 * and for what makes the names they return safe to show: text_sanitize,
 * text_sanitize_ascii and json_string. All are fed every input (the names
 * also the comm a stat line gives), each in a heap block of exactly its
 * size so that a read past the end is caught. Beyond not crashing, every
 * answer is checked against what procfs.h, text.h and json.h promise. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "json.h"
#include "procfs.h"
#include "text.h"

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

/* Check sanitized text: NUL-terminated within cap, only well-formed UTF-8
 * (ASCII in ASCII mode), no control byte, no C1, invisible, unassigned or
 * private-use code point passed through. */
static void check_sanitized(const char *out, size_t n, size_t cap, bool ascii)
{
	const unsigned char *p = (const unsigned char *)out;
	unsigned cp;
	size_t i;
	int k;

	CHECK(n < cap && out[n] == '\0' && strlen(out) == n);
	for (i = 0; i < n; i += (size_t)k) {
		k = utf8_decode(p + i, n - i, &cp);
		CHECK(k > 0);
		CHECK(!ascii || k == 1);
		CHECK(cp >= 0x20 && cp != 0x7f);
		CHECK(cp < 0x80 || !text_cp_hidden(cp, false));
	}
}

/* The sanitizers, at a capacity that fits everything and at one that cuts. */
static void fuzz_sanitize(const char *src, size_t len)
{
	size_t cap = 4 * len + 1, small = len / 2 + 1, n;
	char *out = malloc(cap);

	if (!out)
		return;
	n = text_sanitize(src, len, out, cap);
	check_sanitized(out, n, cap, false);
	n = text_sanitize_ascii(src, len, out, cap);
	check_sanitized(out, n, cap, true);
	n = text_sanitize(src, len, out, small);
	check_sanitized(out, n, small, false);
	free(out);
}

/* json_string: one literal, quotes at both ends only, no raw control byte,
 * C1 control or invisible code point, only well-formed UTF-8. */
static void fuzz_json(const char *src, size_t len)
{
	char *out = NULL;
	size_t n = 0, i;
	FILE *f = open_memstream(&out, &n);
	const unsigned char *p;
	unsigned cp;
	int k;

	if (!f)
		return;
	json_string(f, src, len);
	if (fclose(f) || !out) {
		free(out);
		return;
	}
	p = (const unsigned char *)out;
	CHECK(n >= 2 && out[0] == '"' && out[n - 1] == '"');
	for (i = 1; i < n - 1; i += (size_t)k) {
		k = utf8_decode(p + i, n - 1 - i, &cp);
		CHECK(k > 0 && cp >= 0x20 && cp != 0x7f);
		CHECK(cp < 0x80 || !text_cp_hidden(cp, false));
		if (cp == '\\') {
			CHECK(i + 1 < n - 1);
			k = 2; /* the escaped character */
		} else {
			CHECK(cp != '"');
		}
	}
	free(out);
}

/* A name from the input: the whole of it, and the comm of a stat line. */
static void fuzz_names(const uint8_t *data, size_t size)
{
	char *buf = copy(data, size, 0);
	struct proc_stat st;

	if (!buf)
		return;
	fuzz_sanitize(buf, size);
	fuzz_json(buf, size);
	if (procfs_parse_stat(buf, size, &st) == 0) {
		fuzz_sanitize(st.comm, strlen(st.comm));
		fuzz_json(st.comm, strlen(st.comm));
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_names(data, size);
	fuzz_stat(data, size);
	fuzz_status(data, size);
	fuzz_cmdline(data, size);
	return 0;
}
