/* Unit tests of the JSON string writer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "json.h"
#include "utf8_oracle.h"

#define S(lit) (lit), (sizeof(lit) - 1)

/* Output of json_string on s[0..len), in a malloc'd NUL-terminated string;
 * the input is an exactly sized heap copy so over-reads are caught. */
static char *render(const char *s, size_t len, size_t *outlen)
{
	char *copy = malloc(len ? len : 1), *out = NULL;
	size_t n = 0;
	FILE *f;

	assert_non_null(copy);
	memcpy(copy, s, len);
	f = open_memstream(&out, &n);
	assert_non_null(f);
	json_string(f, copy, len);
	assert_false(ferror(f));
	assert_int_equal(fclose(f), 0);
	free(copy);
	if (outlen)
		*outlen = n;
	return out;
}

/* Render s and compare with want. */
static void check(const char *s, size_t len, const char *want)
{
	size_t n;
	char *out = render(s, len, &n);

	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
	free(out);
}

/* Exact output for plain, escaped, C1 and invalid input. */
static void test_cases(void **state)
{
	static const struct {
		const char *s;
		size_t len;
		const char *want;
	} cases[] = {
		{ S(""), "\"\"" },
		{ S("bash"), "\"bash\"" },
		{ S("say \"hi\""), "\"say \\\"hi\\\"\"" },
		{ S("a\\b"), "\"a\\\\b\"" },
		{ S("/"), "\"/\"" },
		{ S("\n\t\r"), "\"\\u000a\\u0009\\u000d\"" },
		{ S("nul\0x"), "\"nul\\u0000x\"" },
		{ S("\x1b[31m"), "\"\\u001b[31m\"" },
		{ S("\x1f\x20\x7e\x7f"), "\"\\u001f ~\\u007f\"" },
		{ S("caf\xc3\xa9"), "\"caf\xc3\xa9\"" },
		{ S("\xe6\x97\xa5"), "\"\xe6\x97\xa5\"" },
		{ S("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"" },
		{ S("\xc2\x80"), "\"\\u0080\"" },
		{ S("\xc2\x85"), "\"\\u0085\"" },
		{ S("\xc2\x9f"), "\"\\u009f\"" },
		{ S("\xc2\xa0"), "\"\xc2\xa0\"" },
		{ S("\xe2\x80\xa8\xe2\x80\xa9"), "\"\\u2028\\u2029\"" },
		{ S("\x80"), "\"\\ufffd\"" },
		{ S("\x9b"), "\"\\ufffd\"" },
		{ S("\xff\xfe"), "\"\\ufffd\\ufffd\"" },
		{ S("\xc0\xaf"), "\"\\ufffd\\ufffd\"" },              /* overlong */
		{ S("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\"" },
		{ S("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"" },   /* surrogate */
		{ S("\xf4\x90\x80\x80"),
		  "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },               /* > U+10FFFF */
		{ S("\xe2\x82"), "\"\\ufffd\\ufffd\"" },              /* cut short */
		{ S("\xe2\x82\"x"), "\"\\ufffd\\ufffd\\\"x\"" },
		{ S("ok\xc3"), "\"ok\\ufffd\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(cases[i].s, cases[i].len, cases[i].want);
}

static int hexval(unsigned char c);

/* Growing byte string for the oracle and the reader below. */
struct bytes {
	unsigned char b[1024];
	size_t n;
};

/* Append bytes to a byte string. */
static void put(struct bytes *o, const void *s, size_t n)
{
	assert_true(o->n + n <= sizeof(o->b));
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

/* Append the UTF-8 encoding of a code point. */
static void put_cp(struct bytes *o, unsigned cp)
{
	unsigned char e[4];

	if (cp < 0x80) {
		e[0] = (unsigned char)cp;
		put(o, e, 1);
	} else if (cp < 0x800) {
		e[0] = (unsigned char)(0xc0 | (cp >> 6));
		e[1] = (unsigned char)(0x80 | (cp & 0x3f));
		put(o, e, 2);
	} else if (cp < 0x10000) {
		e[0] = (unsigned char)(0xe0 | (cp >> 12));
		e[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		e[2] = (unsigned char)(0x80 | (cp & 0x3f));
		put(o, e, 3);
	} else {
		e[0] = (unsigned char)(0xf0 | (cp >> 18));
		e[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		e[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		e[3] = (unsigned char)(0x80 | (cp & 0x3f));
		put(o, e, 4);
	}
}

/* The code unit of the \uXXXX escape at s (6 bytes, checked). */
static unsigned read_unit(const unsigned char *s)
{
	unsigned cp = 0;
	int j, d;

	assert_true(s[0] == '\\' && s[1] == 'u');
	for (j = 2; j < 6; j++) {
		d = hexval(s[j]);
		assert_true(d >= 0);
		cp = cp << 4 | (unsigned)d;
	}
	return cp;
}

/* The string value the output must denote: the input with each byte that
 * does not begin a well-formed sequence replaced by U+FFFD. */
static void expected_value(const unsigned char *s, size_t len, struct bytes *o)
{
	size_t i = 0;
	int k;

	o->n = 0;
	while (i < len) {
		k = oracle_len(s + i, len - i);
		if (k == 0) {
			put_cp(o, 0xfffd);
			i++;
		} else {
			put(o, s + i, (size_t)k);
			i += (size_t)k;
		}
	}
}

/* Value of a hex digit, or -1. */
static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Read a JSON string literal as RFC 8259 defines it, the whole text being
 * the literal, into its value. Fails the test on anything not allowed: a raw
 * control character, a bad escape, a lone surrogate escape, ill-formed UTF-8,
 * a raw C1 control or U+2028/U+2029, or text after the closing quote. */
static void json_read(const unsigned char *s, size_t len, struct bytes *v)
{
	size_t i = 1;
	unsigned cp;
	int k;

	v->n = 0;
	assert_true(len >= 2);
	assert_int_equal(s[0], '"');
	while (i < len - 1) {
		assert_true(s[i] >= 0x20);
		assert_true(s[i] != 0x7f);
		assert_true(s[i] != '"');
		if (s[i] != '\\') {
			k = oracle_len(s + i, len - 1 - i);
			assert_true(k > 0);
			/* No raw C1 control (C2 80..C2 9F), no raw U+2028 or
			 * U+2029 (E2 80 A8/A9). */
			assert_false(k == 2 && s[i] == 0xc2 && s[i + 1] <= 0x9f);
			assert_false(k == 3 && s[i] == 0xe2 && s[i + 1] == 0x80 &&
			    (s[i + 2] == 0xa8 || s[i + 2] == 0xa9));
			put(v, s + i, (size_t)k);
			i += (size_t)k;
			continue;
		}
		assert_true(i + 1 < len - 1);
		switch (s[i + 1]) {
		case '"':
		case '\\':
		case '/':
			put(v, s + i + 1, 1);
			i += 2;
			continue;
		case 'u':
			break;
		default:
			fail_msg("unexpected escape \\%c", s[i + 1]);
		}
		assert_true(i + 6 <= len - 1);
		cp = read_unit(s + i);
		i += 6;
		assert_false(cp >= 0xdc00 && cp <= 0xdfff); /* a low half alone */
		if (cp >= 0xd800 && cp <= 0xdbff) { /* a high half: its low half follows */
			unsigned lo;

			assert_true(i + 6 <= len - 1);
			lo = read_unit(s + i);
			assert_true(lo >= 0xdc00 && lo <= 0xdfff);
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			i += 6;
		}
		put_cp(v, cp);
	}
	assert_int_equal(i, len - 1);
	assert_int_equal(s[len - 1], '"');
}

/* Random bytes, biased to the tricky ranges, always give one valid JSON
 * string whose value is the input with invalid bytes made U+FFFD. */
static void test_random_round_trip(void **state)
{
	static const unsigned char pool[] = {
		0x00, 0x1f, 0x20, '"', '\\', 'a', 0x7f, 0x80, 0x85, 0x9f, 0xa0,
		0xa8, 0xa9, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe2, 0xed,
		0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x8f, 0x90,
	};
	unsigned char src[48];
	struct bytes want, got;
	unsigned seed = 777;
	size_t i, j, len, n;
	char *out;

	(void)state;
	for (i = 0; i < 50000; i++) {
		len = i % sizeof(src);
		for (j = 0; j < len; j++) {
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 8) & 1)
				src[j] = pool[(seed >> 16) % sizeof(pool)];
			else
				src[j] = (unsigned char)(seed >> 16);
		}
		out = render((char *)src, len, &n);
		json_read((unsigned char *)out, n, &got);
		expected_value(src, len, &want);
		assert_int_equal(got.n, want.n);
		assert_memory_equal(got.b, want.b, want.n);
		free(out);
	}
}

/* Every code point below U+10000 (surrogates aside) and a sample above it
 * come back unchanged. */
static void test_code_points_round_trip(void **state)
{
	struct bytes in, got;
	unsigned cp;
	size_t n;
	char *out;

	(void)state;
	for (cp = 0; cp <= 0x10ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		in.n = 0;
		put_cp(&in, cp);
		out = render((char *)in.b, in.n, &n);
		json_read((unsigned char *)out, n, &got);
		assert_int_equal(got.n, in.n);
		assert_memory_equal(got.b, in.b, in.n);
		free(out);
	}
	check(S("\xf0\x90\x80\x80\xf0\x9f\x98\x80"),
	    "\"\xf0\x90\x80\x80\xf0\x9f\x98\x80\"");
}

/* Invisible and spoofing code points are escaped, so a raw line shows them,
 * and decode back to themselves; printable text passes as it is. */
static void test_invisible_escaped(void **state)
{
	static const struct { const char *s; size_t len; const char *want; } cases[] = {
		{ S("r\xe2\x80\xaex"), "\"r\\u202ex\"" },         /* RLO */
		{ S("a\xe2\x80\x8b" "b"), "\"a\\u200bb\"" },         /* zero-width space */
		{ S("\xef\xbb\xbfx"), "\"\\ufeffx\"" },           /* BOM */
		{ S("s\xc2\xady"), "\"s\\u00ady\"" },              /* soft hyphen */
		{ S("\xe3\x85\xa4"), "\"\\u3164\"" },             /* Hangul filler */
		{ S("\xcc\x81x"), "\"\\u0301x\"" },                /* leading combining */
		{ S("e\xcc\x81"), "\"e\xcc\x81\"" },                /* combining after e */
		{ S("\xf3\xa0\x81\x81"), "\"\\udb40\\udc41\"" },   /* tag A */
		{ S("\xee\x80\x80"), "\"\\ue000\"" },             /* private use */
		{ S("\xcd\xb8"), "\"\\u0378\"" },                  /* unassigned */
		{ S("w\xc3\xb6rker-\xe6\x97\xa5\xe6\x9c\xac"), "\"w\xc3\xb6rker-\xe6\x97\xa5\xe6\x9c\xac\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(cases[i].s, cases[i].len, cases[i].want);
}

/* The integer formatters write what printf writes, edges included. */
static void test_fmt_int(void **state)
{
	static const unsigned long long u[] = {
		0, 1, 9, 10, 99, 100, 4294967295ULL, 4294967296ULL, 9999999999999999999ULL,
		10000000000000000000ULL, 18446744073709551615ULL,
	};
	static const long long s[] = {
		0, 1, -1, -9, -10, 2147483647LL, -2147483648LL, 9223372036854775807LL,
		-9223372036854775807LL - 1,
	};
	char got[JSON_INT_MAX], want[64];
	unsigned long long x = 88172645463325252ULL;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		n = json_fmt_u64(got, u[i]);
		snprintf(want, sizeof(want), "%llu", u[i]);
		assert_string_equal(got, want);
		assert_int_equal(n, strlen(want));
	}
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		n = json_fmt_i64(got, s[i]);
		snprintf(want, sizeof(want), "%lld", s[i]);
		assert_string_equal(got, want);
		assert_int_equal(n, strlen(want));
	}
	for (i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		json_fmt_u64(got, x >> (i % 64));
		snprintf(want, sizeof(want), "%llu", x >> (i % 64));
		assert_string_equal(got, want);
		json_fmt_i64(got, (long long)x);
		snprintf(want, sizeof(want), "%lld", (long long)x);
		assert_string_equal(got, want);
	}
}

/* json_fmt_fixed of v with d decimals is what snprintf's "%.*f" gives. */
static void check_fixed(double v, int d)
{
	char got[512], want[512];
	size_t n = json_fmt_fixed(got, sizeof(got), v, d);

	snprintf(want, sizeof(want), "%.*f", d, v);
	if (strcmp(got, want) != 0)
		fail_msg("%.17g with %d decimals: got %s, printf says %s", v, d, got, want);
	assert_int_equal(n, strlen(want));
}

/* Fixed-point doubles: zeros, exact ties (half to even), integers,
 * the largest values, subnormals, NaN and infinities, and random ones. */
static void test_fmt_fixed(void **state)
{
	static const double v[] = {
		0.0, -0.0, 0.5, 1.5, 2.5, 0.125, 0.375, 0.05, 0.15, 0.25, 0.35, 1e-7, 5e-7,
		0.0005, 0.0015, 0.9999995, 9.95, 99.995, 1.0, 123456789.0, 4503599627370495.5,
		9007199254740993.0, 18446744073709549568.0, 18446744073709551616.0, 1e300,
		-1.5, -0.001, 4.9406564584124654e-324, 2.2250738585072014e-308, 1e-20, 3e-19,
		NAN, -NAN, INFINITY, -INFINITY, 1.7976931348623157e308,
	};
	unsigned long long x = 2463534242ULL, bits;
	size_t i;
	int d;
	double r;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (d = 0; d <= 9; d++)
			check_fixed(v[i], d);
	for (i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* rates, ages, percents and seconds; ties on a grid of 2^-k */
		r = (double)(x % 100000000) / (double)(1ULL << (x >> 59));
		check_fixed(r, (int)(i % 10));
		bits = x >> 2; /* any positive double below 2^64, by its bits */
		memcpy(&r, &bits, sizeof(r));
		if (r < 0x1p64)
			check_fixed(r, (int)(i % 10));
	}
}

/* The text buffer grows, keeps every byte, and empties for reuse. */
static void test_jbuf(void **state)
{
	struct jbuf b = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < 10000; i++) {
		jbuf_u64(&b, i);
		jbuf_putc(&b, ',');
	}
	assert_false(b.failed);
	assert_int_equal(b.len, strlen(b.s));
	assert_memory_equal(b.s, "0,1,2,", 6);
	assert_memory_equal(b.s + b.len - 5, "9999,", 5);
	jbuf_reset(&b);
	assert_int_equal(b.len, 0);
	jbuf_puts(&b, "{\"x\":");
	jbuf_i64(&b, -3);
	jbuf_putc(&b, ',');
	jbuf_fixed(&b, 0.125, 2);
	jbuf_putc(&b, ',');
	jbuf_string(&b, "a\"b", 3);
	jbuf_putc(&b, '}');
	assert_string_equal(b.s, "{\"x\":-3,0.12,\"a\\\"b\"}");
	jbuf_free(&b);
	assert_null(b.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_random_round_trip),
		cmocka_unit_test(test_code_points_round_trip),
		cmocka_unit_test(test_invisible_escaped),
		cmocka_unit_test(test_fmt_int),
		cmocka_unit_test(test_fmt_fixed),
		cmocka_unit_test(test_jbuf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
