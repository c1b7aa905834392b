/* libFuzzer target for usdt_note_parse. The first byte of an input picks
 * the ELF class (bit 0 set: ELFCLASS64); the rest is the descriptor, copied
 * into a heap block of exactly its size so that a read past its end is
 * caught. Beyond not crashing, every answer is checked against what the
 * header promises: a probe that was accepted must be exactly the bytes of
 * the descriptor, and a refused one must leave out untouched. The argument
 * string of an accepted probe then goes through usdt_args_parse, whose
 * answers are checked too (sizes, kinds, the symbol NUL-terminated). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "usdt_arg.h"
#include "usdt_note.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop the run: libFuzzer saves the input that got here. */
#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

/* An address as the parser must read it: native order, class-sized. */
static unsigned long long addr_at(const uint8_t *p, bool is64)
{
	uint64_t v64;
	uint32_t v32;

	if (is64) {
		memcpy(&v64, p, sizeof(v64));
		return v64;
	}
	memcpy(&v32, p, sizeof(v32));
	return v32;
}

/* Specs in s, counted the slow way: a spec starts where a non-space
 * follows a space or the start. */
static int oracle_nargs(const char *s)
{
	int n = 0;
	bool in = false;

	for (; *s; s++) {
		if (*s != ' ' && !in)
			n++;
		in = *s != ' ';
	}
	return n;
}

/* A string of a fixed-size field: NUL-terminated inside it. */
static size_t field_len(const char *s, size_t cap)
{
	const char *nul = memchr(s, '\0', cap);

	CHECK(nul != NULL);
	return (size_t)(nul - s);
}

/* What an accepted probe must be, given the descriptor. */
static void check_accepted(const struct usdt_probe *p, const uint8_t *d, size_t len, bool is64)
{
	size_t asz = is64 ? 8 : 4, np, nn, na;
	const char *s = (const char *)d + 3 * asz;

	np = field_len(p->provider, sizeof(p->provider));
	nn = field_len(p->name, sizeof(p->name));
	na = field_len(p->args, sizeof(p->args));
	CHECK(np > 0 && nn > 0);
	CHECK(p->pc == addr_at(d, is64));
	CHECK(p->base == addr_at(d + asz, is64));
	CHECK(p->semaphore == addr_at(d + 2 * asz, is64));
	CHECK(3 * asz + np + nn + 3 <= len);
	CHECK(memcmp(s, p->provider, np + 1) == 0);
	s += np + 1;
	CHECK(memcmp(s, p->name, nn + 1) == 0);
	s += nn + 1;
	CHECK(memchr(s, '\0', len - (size_t)(s - (const char *)d)) != NULL);
	CHECK(strncmp(s, p->args, na) == 0);
	CHECK(na == strlen(s) || na == sizeof(p->args) - 1);
	CHECK(p->nargs == oracle_nargs(s));
}

/* Parse the argument specs of an accepted probe; check what comes back. */
static void check_args(const struct usdt_probe *p)
{
	struct usdt_arg a[3];
	int n, i;

	memset(a, 0, sizeof(a));
	n = usdt_args_parse(p->args, a, 3);
	CHECK(n == -EINVAL || (n >= 0 && n <= 3 && n <= p->nargs));
	for (i = 0; i < n; i++) {
		CHECK(a[i].size == 1 || a[i].size == 2 || a[i].size == 4 || a[i].size == 8);
		CHECK(a[i].kind >= USDT_ARG_NONE && a[i].kind <= USDT_ARG_GLOBAL);
		CHECK(a[i].reg_off < 168 && a[i].reg_off % 8 == 0);
		if (a[i].kind == USDT_ARG_GLOBAL)
			CHECK(memchr(a[i].sym, '\0', sizeof(a[i].sym)) && a[i].sym[0]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usdt_probe p, canary;
	uint8_t *desc;
	size_t len;
	bool is64;
	int ret;

	if (size == 0)
		return 0;
	is64 = data[0] & 1;
	len = size - 1;
	desc = malloc(len ? len : 1);
	if (!desc)
		return 0;
	memcpy(desc, data + 1, len);
	memset(&p, 0xa5, sizeof(p));
	canary = p;
	ret = usdt_note_parse(desc, len, is64, &p);
	if (ret == 0) {
		check_accepted(&p, desc, len, is64);
		check_args(&p);
	} else
		CHECK((ret == -EINVAL || ret == -ENAMETOOLONG) &&
		    memcmp(&p, &canary, sizeof(p)) == 0);
	free(desc);
	return 0;
}
