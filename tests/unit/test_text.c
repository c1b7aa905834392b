/* Unit tests of the UTF-8 decoder and the text sanitizers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "text.h"
#include "utf8_oracle.h"

#define S(lit) (lit), (sizeof(lit) - 1)

/* The oracle's answer in utf8_decode's terms: a length, or -1. */
static int oracle_ret(const unsigned char *s, size_t len)
{
	int n = oracle_len(s, len);

	return n > 0 ? n : -1;
}

/* Encode a code point as UTF-8 the textbook way; returns its length. */
static int encode(unsigned cp, unsigned char *out)
{
	if (cp < 0x80) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | (cp >> 6));
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | (cp >> 12));
		out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (unsigned char)(0xf0 | (cp >> 18));
	out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Call utf8_decode on an exactly sized heap copy, so that any read past len
 * is caught by the address sanitizer. */
static int decode_exact(const void *s, size_t len, unsigned *cp)
{
	unsigned char *copy = malloc(len ? len : 1);
	int n;

	assert_non_null(copy);
	memcpy(copy, s, len);
	n = utf8_decode(copy, len, cp);
	free(copy);
	return n;
}

/* Known sequences at every boundary of the encoding. */
static void test_decode_boundaries(void **state)
{
	static const struct {
		const char *s;
		size_t len;
		int n;
		unsigned cp;
	} cases[] = {
		{ S("A"), 1, 0x41 },
		{ S("\x7f"), 1, 0x7f },
		{ S("\xc2\x80"), 2, 0x80 },
		{ S("\xdf\xbf"), 2, 0x7ff },
		{ S("\xe0\xa0\x80"), 3, 0x800 },
		{ S("\xed\x9f\xbf"), 3, 0xd7ff },
		{ S("\xee\x80\x80"), 3, 0xe000 },
		{ S("\xef\xbf\xbf"), 3, 0xffff },
		{ S("\xf0\x90\x80\x80"), 4, 0x10000 },
		{ S("\xf4\x8f\xbf\xbf"), 4, 0x10ffff },
		{ S("\xc3\xa9x"), 2, 0xe9 },
		{ S(""), -1, 0 },
		{ S("\x80"), -1, 0 },           /* stray continuation */
		{ S("\xbf"), -1, 0 },
		{ S("\xc0\x80"), -1, 0 },       /* overlong NUL */
		{ S("\xc1\xbf"), -1, 0 },       /* overlong */
		{ S("\xe0\x9f\xbf"), -1, 0 },   /* overlong */
		{ S("\xf0\x8f\xbf\xbf"), -1, 0 }, /* overlong */
		{ S("\xed\xa0\x80"), -1, 0 },   /* surrogate D800 */
		{ S("\xed\xbf\xbf"), -1, 0 },   /* surrogate DFFF */
		{ S("\xf4\x90\x80\x80"), -1, 0 }, /* U+110000 */
		{ S("\xf5\x80\x80\x80"), -1, 0 },
		{ S("\xff"), -1, 0 },
		{ S("\xc3"), -1, 0 },           /* cut short */
		{ S("\xe2\x82"), -1, 0 },
		{ S("\xf0\x9f\x98"), -1, 0 },
		{ S("\xc3\x41"), -1, 0 },       /* bad continuation */
		{ S("\xe2\x82\x41"), -1, 0 },
		{ S("\xe2\xc2\xac"), -1, 0 },
	};
	size_t i;
	unsigned cp;
	int n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cp = 0xdeadbeef;
		n = decode_exact(cases[i].s, cases[i].len, &cp);
		assert_int_equal(n, cases[i].n);
		if (n > 0)
			assert_int_equal(cp, cases[i].cp);
	}
}

/* Every code point round-trips; every surrogate is refused. */
static void test_decode_every_code_point(void **state)
{
	unsigned char buf[4];
	unsigned cp, got;
	int len;

	(void)state;
	for (cp = 0; cp <= 0x10ffff; cp++) {
		len = encode(cp, buf);
		got = 0xdeadbeef;
		if (cp >= 0xd800 && cp <= 0xdfff) {
			assert_int_equal(utf8_decode(buf, (size_t)len, &got), -1);
			continue;
		}
		assert_int_equal(utf8_decode(buf, (size_t)len, &got), len);
		assert_int_equal(got, cp);
		/* The same bytes cut short are never a character. */
		if (len > 1)
			assert_int_equal(decode_exact(buf, (size_t)len - 1, &got), -1);
	}
}

/* Agrees with the standard's table on every 1-, 2- and 3-byte input, and on
 * 4-byte inputs around every boundary. */
static void test_decode_matches_table(void **state)
{
	static const unsigned char edge[] = {
		0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff,
	};
	unsigned char b[4];
	unsigned a, c, d, e, cp;
	size_t i, j;

	(void)state;
	for (a = 0; a < 256; a++) {
		for (c = 0; c < 256; c++) {
			for (d = 0; d < 256; d++) {
				b[0] = (unsigned char)a;
				b[1] = (unsigned char)c;
				b[2] = (unsigned char)d;
				if (utf8_decode(b, 3, &cp) != oracle_ret(b, 3))
					fail_msg("%02x %02x %02x", a, c, d);
			}
		}
	}
	for (a = 0xf0; a <= 0xf7; a++) {
		for (c = 0; c < 256; c++) {
			for (i = 0; i < sizeof(edge); i++) {
				for (j = 0; j < sizeof(edge); j++) {
					e = edge[j];
					b[0] = (unsigned char)a;
					b[1] = (unsigned char)c;
					b[2] = edge[i];
					b[3] = (unsigned char)e;
					if (utf8_decode(b, 4, &cp) != oracle_ret(b, 4))
						fail_msg("%02x %02x %02x %02x", a, c,
						    edge[i], e);
				}
			}
		}
	}
}

/* Sanitize src[0..len) into a big buffer and compare with want. */
static void check_sanitize(bool ascii, const char *src, size_t len,
    const char *want)
{
	char out[512];
	size_t n;

	memset(out, 'Z', sizeof(out));
	if (ascii)
		n = text_sanitize_ascii(src, len, out, sizeof(out));
	else
		n = text_sanitize(src, len, out, sizeof(out));
	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
}

/* What passes through and what is escaped, in UTF-8 mode. */
static void test_sanitize_cases(void **state)
{
	static const struct {
		const char *src;
		size_t len;
		const char *want;
	} cases[] = {
		{ S(""), "" },
		{ S("bash"), "bash" },
		{ S("a) R 1 2 (b"), "a) R 1 2 (b" },
		{ S("back\\slash"), "back\\slash" },
		{ S("evil\nTgid:\t1\r"), "evil\\nTgid:\\t1\\r" },
		{ S("\x1b[2J\x1b[31mred"), "\\e[2J\\e[31mred" },
		{ S("nul\0byte"), "nul\\x00byte" },
		{ S("\x01\x07\x08\x1f"), "\\x01\\x07\\x08\\x1f" },
		{ S("del\x7f"), "del\\x7f" },
		{ S("caf\xc3\xa9"), "caf\xc3\xa9" },
		{ S("\xe6\x97\xa5\xe6\x9c\xac"), "\xe6\x97\xa5\xe6\x9c\xac" },
		{ S("\xf0\x9f\x98\x80!"), "\xf0\x9f\x98\x80!" },
		{ S("\xc2\xa0"), "\xc2\xa0" },                 /* NBSP is printable */
		{ S("\xc2\x85"), "\\u0085" },                  /* C1 NEL */
		{ S("\xc2\x9b" "31m"), "\\u009b31m" },         /* C1 CSI */
		{ S("\xc2\x80\xc2\x9f"), "\\u0080\\u009f" },
		{ S("\x9b" "31m"), "\\x9b31m" },              /* raw C1 byte */
		{ S("\x80\x9f"), "\\x80\\x9f" },
		{ S("\xc0\xaf"), "\\xc0\\xaf" },              /* overlong '/' */
		{ S("\xed\xa0\x80"), "\\xed\\xa0\\x80" },     /* surrogate */
		{ S("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80" },
		{ S("\xe2\x82"), "\\xe2\\x82" },              /* cut at the end */
		{ S("\xe2\x82" "A"), "\\xe2\\x82A" },         /* cut in the middle */
		{ S("\xff\xfe"), "\\xff\\xfe" },
		{ S("\xe2\x80\xae" "exe.txt"), "\\u202eexe.txt" }, /* RLO */
		{ S("\xe2\x80\xa8"), "\\u2028" },             /* line separator */
		{ S("\xe2\x81\xa6" "x"), "\\u2066x" },        /* LRI */
		{ S("\xe2\x81\xa9"), "\\u2069" },             /* PDI */
		{ S("\xe2\x80\xaa"), "\\u202a" },             /* LRE */
		{ S("\xd8\x9c"), "\\u061c" },                  /* ALM */
		{ S("a\xe2\x80\x8b" "b"), "a\\u200bb" },      /* zero-width space */
		{ S("\xef\xbb\xbf" "x"), "\\ufeffx" },        /* BOM */
		{ S("s\xc2\xad" "y"), "s\\u00ady" },           /* soft hyphen */
		{ S("\xe3\x85\xa4"), "\\u3164" },             /* Hangul filler */
		{ S("\xcc\x81" "x"), "\\u0301x" },             /* leading combining mark */
		{ S("e\xcc\x81"), "e\xcc\x81" },              /* combining after e stays */
		{ S("\x01\xcc\x81"), "\\x01\\u0301" },       /* after an escape: leading */
		{ S("\xf3\xa0\x81\x81"), "\\U000e0041" },     /* tag A */
		{ S("\xf3\xa0\x80\x81"), "\\U000e0001" },     /* language tag */
		{ S("\xee\x80\x80"), "\\ue000" },             /* private use */
		{ S("\xf3\xb0\x80\x80"), "\\U000f0000" },     /* supplementary private use */
		{ S("\xcd\xb8"), "\\u0378" },                  /* unassigned */
		{ S("\xef\xb7\x90"), "\\ufdd0" },             /* noncharacter */
		{ S("\xef\xbf\xbe"), "\\ufffe" },             /* noncharacter */
		{ S("w\xc3\xb6rker-\xe6\x97\xa5\xe6\x9c\xac"), "w\xc3\xb6rker-\xe6\x97\xa5\xe6\x9c\xac" },
		{ S("\xe2\x80\xaf"), "\xe2\x80\xaf" },        /* narrow NBSP stays */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_sanitize(false, cases[i].src, cases[i].len, cases[i].want);
}

/* In ASCII mode every non-ASCII code point is escaped, invalid bytes too. */
static void test_sanitize_ascii_cases(void **state)
{
	(void)state;
	check_sanitize(true, S("bash -c ls"), "bash -c ls");
	check_sanitize(true, S("caf\xc3\xa9"), "caf\\u00e9");
	check_sanitize(true, S("\x1b]0;t\x07"), "\\e]0;t\\x07");
	check_sanitize(true, S("\xf0\x9f\x98\x80"), "\\U0001f600");
	check_sanitize(true, S("r\xe2\x80\xae" "x"), "r\\u202ex");
	check_sanitize(true, S("\n\t\r\x7f\x80\xff"), "\\n\\t\\r\\x7f\\x80\\xff");
}

/* The longest run of whole units of a rendering that fits in cap - 1. */
static void expect_prefix(const char *const *units, char *out, size_t cap)
{
	size_t n = 0, u;

	out[0] = '\0';
	for (; *units; units++) {
		u = strlen(*units);
		if (n + u + 1 > cap)
			break;
		memcpy(out + n, *units, u);
		n += u;
		out[n] = '\0';
	}
}

/* At every capacity the output is the longest whole-unit prefix: no escape
 * and no character is ever split, and the NUL always fits. */
static void check_truncation(bool ascii, const char *src, size_t len,
    const char *const *units)
{
	char out[128], want[128];
	size_t cap, n, full = 0;
	const char *const *u;

	for (u = units; *u; u++)
		full += strlen(*u);
	for (cap = 0; cap <= full + 2; cap++) {
		memset(out, 'Z', sizeof(out));
		if (ascii)
			n = text_sanitize_ascii(src, len, out, cap);
		else
			n = text_sanitize(src, len, out, cap);
		if (cap == 0) {
			assert_int_equal(n, 0);
			assert_int_equal(out[0], 'Z');
			continue;
		}
		expect_prefix(units, want, cap);
		assert_string_equal(out, want);
		assert_int_equal(n, strlen(want));
		assert_true(n < cap);
		assert_int_equal(out[cap], 'Z'); /* nothing written past cap */
	}
}

/* Truncation keeps escapes and characters whole. */
static void test_sanitize_truncation(void **state)
{
	static const char *const mixed[] = {
		"a", "\\n", "\xc3\xa9", "\\x01", "\xe6\x97\xa5", "\\e",
		"\xf0\x9f\x98\x80", "\\u0085", "\\xff", "z", NULL,
	};
	static const char *const ascii[] = {
		"a", "\\u00e9", "\\t", "b", "\\xc3", NULL,
	};

	(void)state;
	check_truncation(false,
	    S("a\n\xc3\xa9\x01\xe6\x97\xa5\x1b\xf0\x9f\x98\x80\xc2\x85\xffz"),
	    mixed);
	check_truncation(true, S("a\xc3\xa9\tb\xc3"), ascii);
}

/* Whatever the bytes, the output holds no control byte, no C1 code point and
 * only well-formed UTF-8 (ASCII only in ASCII mode), and is NUL-terminated
 * inside cap. */
static void test_sanitize_random(void **state)
{
	unsigned char src[64];
	char out[300];
	unsigned seed = 12345;
	size_t i, j, n, cap, len;
	unsigned cp;
	int k;

	(void)state;
	for (i = 0; i < 20000; i++) {
		len = i % sizeof(src);
		for (j = 0; j < len; j++) {
			seed = seed * 1103515245u + 12345u;
			src[j] = (unsigned char)(seed >> 16);
			if (i % 3 == 0 && src[j] < 0x80)
				src[j] |= 0x80; /* mostly non-ASCII */
		}
		cap = 1 + (i * 7) % sizeof(out);
		memset(out, 'Z', sizeof(out));
		n = (i & 1) ? text_sanitize_ascii((char *)src, len, out, cap)
			    : text_sanitize((char *)src, len, out, cap);
		assert_true(n < cap);
		assert_int_equal(out[n], '\0');
		assert_int_equal(strlen(out), n);
		for (j = 0; j < n; j += (size_t)k) {
			k = oracle_len((unsigned char *)out + j, n - j);
			assert_true(k > 0);
			assert_true((i & 1) == 0 || k == 1);
			utf8_decode((unsigned char *)out + j, n - j, &cp);
			assert_true(cp >= 0x20 && cp != 0x7f);
			assert_false(cp >= 0x80 && cp <= 0x9f);
			assert_false(cp >= 0x80 && text_cp_hidden(cp, false));
		}
	}
}

/* Widths of ASCII, wide, combining and escaped text in a UTF-8 locale. */
static void test_width(void **state)
{
	char out[64];

	(void)state;
	if (!setlocale(LC_CTYPE, "C.UTF-8") && !setlocale(LC_CTYPE, "en_US.UTF-8"))
		skip();
	assert_int_equal(text_width(""), 0);
	assert_int_equal(text_width("bash"), 4);
	assert_int_equal(text_width("caf\xc3\xa9"), 4);
	assert_int_equal(text_width("\xe6\x97\xa5\xe6\x9c\xac"), 4);
	assert_int_equal(text_width("e\xcc\x81"), 1);          /* combining */
	assert_int_equal(text_width("\xf0\x9f\x98\x80"), 2);   /* emoji */
	assert_int_equal(text_width("\x01"), 0);               /* never negative */
	assert_int_equal(text_width("\xff"), 1);               /* stray byte */
	text_sanitize(S("\x1b[31m\xe6\x97\xa5"), out, sizeof(out));
	assert_string_equal(out, "\\e[31m\xe6\x97\xa5");
	assert_int_equal(text_width(out), 8);
	setlocale(LC_CTYPE, "C");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_boundaries),
		cmocka_unit_test(test_decode_every_code_point),
		cmocka_unit_test(test_decode_matches_table),
		cmocka_unit_test(test_sanitize_cases),
		cmocka_unit_test(test_sanitize_ascii_cases),
		cmocka_unit_test(test_sanitize_truncation),
		cmocka_unit_test(test_sanitize_random),
		cmocka_unit_test(test_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
