/* A tiny JSON writer, and the text buffer the batch lines are made in. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <math.h> /* isfinite, signbit: macros, no libm */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "text.h"

/* Longest escape written: a surrogate pair "\uXXXX\uXXXX" and its NUL. */
#define JSON_ESCAPE_MAX 13

/* Write the \uXXXX escape of a code point below U+10000 into esc. */
static void json_escape_unit(unsigned cp, char *esc)
{
	static const char hex[] = "0123456789abcdef";

	esc[0] = '\\';
	esc[1] = 'u';
	esc[2] = hex[(cp >> 12) & 0xf];
	esc[3] = hex[(cp >> 8) & 0xf];
	esc[4] = hex[(cp >> 4) & 0xf];
	esc[5] = hex[cp & 0xf];
	esc[6] = '\0';
}

/* Write the escape of any code point into esc: above U+FFFF as a UTF-16
 * surrogate pair, as JSON spells those. */
static void json_escape_cp(unsigned cp, char *esc)
{
	if (cp <= 0xffff) {
		json_escape_unit(cp, esc);
		return;
	}
	cp -= 0x10000;
	json_escape_unit(0xd800 + (cp >> 10), esc);
	json_escape_unit(0xdc00 + (cp & 0x3ff), esc + 6);
}

/* Decide how the sequence at s[0..len) is written: returns how many input
 * bytes it covers and leaves its escape in esc, or "" to copy it as is.
 * Invisible and spoofing code points are escaped as text_sanitize escapes
 * them, so the raw line shows them; a JSON reader gets them back as they
 * were. lead: nothing visible came before (see text_cp_hidden). */
static size_t json_classify(const unsigned char *s, size_t len, char *esc, bool *lead)
{
	unsigned cp;
	int n;

	esc[0] = '\0';
	if (s[0] == '"' || s[0] == '\\') {
		esc[0] = '\\';
		esc[1] = (char)s[0];
		esc[2] = '\0';
		return 1;
	}
	if (s[0] < 0x20 || s[0] == 0x7f) {
		json_escape_cp(s[0], esc);
		return 1;
	}
	if (s[0] < 0x80) {
		*lead = false;
		return 1;
	}
	n = utf8_decode(s, len, &cp);
	if (n < 0) {
		json_escape_cp(0xfffd, esc);
		return 1;
	}
	*lead = text_cp_hidden(cp, *lead);
	if (*lead)
		json_escape_cp(cp, esc);
	return (size_t)n;
}

/* Make room for n more bytes in b (and a NUL); false when out of memory. */
static bool jbuf_room(struct jbuf *b, size_t n)
{
	size_t cap;
	char *s;

	if (b->failed)
		return false;
	if (b->cap - b->len > n)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap - b->len <= n) {
		if (cap > SIZE_MAX / 2) {
			b->failed = true;
			return false;
		}
		cap *= 2;
	}
	s = realloc(b->s, cap);
	if (!s) {
		b->failed = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

/* Grow b and append n bytes to it; see json.h. */
void jbuf_put_grow(struct jbuf *b, const char *s, size_t n)
{
	if (!jbuf_room(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Empty b, keeping its memory. */
void jbuf_reset(struct jbuf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->s)
		b->s[0] = '\0';
}

/* Let b's memory go; b is then empty. */
void jbuf_free(struct jbuf *b)
{
	free(b->s);
	*b = (struct jbuf){ 0 };
}

/* Where a string literal goes: put(ctx, bytes, n). */
typedef void (*json_put_fn)(void *ctx, const char *s, size_t n);

/* Write the literal of s[0..len) through put, in runs of bytes that need
 * no escape and escapes. */
static void string_to(json_put_fn put, void *ctx, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[JSON_ESCAPE_MAX];
	size_t i = 0, run = 0, n;
	bool lead = true;

	put(ctx, "\"", 1);
	while (i < len) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\') {
			lead = false; /* json_classify's answer for printable ASCII, inline */
			i++;
			continue;
		}
		n = json_classify(p + i, len - i, esc, &lead);
		if (esc[0] == '\0') {
			i += n;
			continue;
		}
		if (i > run)
			put(ctx, s + run, i - run);
		put(ctx, esc, strlen(esc));
		i += n;
		run = i;
	}
	if (i > run)
		put(ctx, s + run, i - run);
	put(ctx, "\"", 1);
}

/* string_to's put for a jbuf. */
static void put_jbuf(void *ctx, const char *s, size_t n)
{
	jbuf_put(ctx, s, n);
}

/* string_to's put for a stdio stream. */
static void put_file(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, ctx);
}

/* Append a JSON string literal to b; see json.h. */
void jbuf_string(struct jbuf *b, const char *s, size_t len)
{
	string_to(put_jbuf, b, s, len);
}

/* Write a JSON string literal; see json.h. */
void json_string(FILE *f, const char *s, size_t len)
{
	string_to(put_file, f, s, len);
}

/* v in decimal into buf; see json.h. Two digits a division: half the
 * divisions of a digit at a time. */
size_t json_fmt_u64(char *buf, unsigned long long v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[JSON_INT_MAX];
	size_t n = sizeof(tmp), len;

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		tmp[--n] = pairs[d + 1];
		tmp[--n] = pairs[d];
	}
	if (v >= 10) {
		tmp[--n] = pairs[v * 2 + 1];
		tmp[--n] = pairs[v * 2];
	} else {
		tmp[--n] = (char)('0' + v);
	}
	len = sizeof(tmp) - n;
	memcpy(buf, tmp + n, len);
	buf[len] = '\0';
	return len;
}

/* v in decimal into buf, with its sign; see json.h. */
size_t json_fmt_i64(char *buf, long long v)
{
	if (v >= 0)
		return json_fmt_u64(buf, (unsigned long long)v);
	buf[0] = '-';
	/* -(v + 1) + 1: LLONG_MIN has no positive long long */
	return 1 + json_fmt_u64(buf + 1, (unsigned long long)(-(v + 1)) + 1);
}

#ifdef __SIZEOF_INT128__
/* v * 10^decimals rounded half to even, exactly, for a finite v >= 0 below
 * 2^64 whose binary exponent the 128-bit product can take; false if not.
 * The double is taken apart by its IEEE 754 bits: no libm, no rounding. */
static bool scaled(double v, int decimals, unsigned __int128 *out)
{
	unsigned __int128 n, rest, half, p10 = 1;
	unsigned long long bits, m;
	int exp, shift, i;

	for (i = 0; i < decimals; i++)
		p10 *= 10;
	memcpy(&bits, &v, sizeof(bits));
	exp = (int)((bits >> 52) & 0x7ff);
	m = bits & ((1ULL << 52) - 1);
	if (exp)
		m |= 1ULL << 52;
	else
		exp = 1; /* subnormal */
	shift = 1075 - exp; /* v = m / 2^shift */
	if (shift <= 0) {
		*out = (unsigned __int128)(m << -shift) * p10;
		return true;
	}
	if (shift > 120)
		return m == 0 ? (*out = 0, true) : false; /* below 2^-67: left to printf */
	n = (unsigned __int128)m * p10;
	rest = n & (((unsigned __int128)1 << shift) - 1);
	half = (unsigned __int128)1 << (shift - 1);
	n >>= shift;
	if (rest > half || (rest == half && (n & 1)))
		n++;
	*out = n;
	return true;
}
#endif

/* v with exactly decimals digits after the point; see json.h. */
size_t json_fmt_fixed(char *buf, size_t cap, double v, int decimals)
{
#ifdef __SIZEOF_INT128__
	char tmp[JSON_INT_MAX * 2 + 2];
	unsigned __int128 q, p10 = 1;
	unsigned long long frac;
	size_t n;
	int i;

	if (decimals >= 0 && decimals <= 9 && isfinite(v) && !signbit(v) && v < 0x1p64 &&
	    cap >= sizeof(tmp) && scaled(v, decimals, &q)) {
		for (i = 0; i < decimals; i++)
			p10 *= 10;
		n = json_fmt_u64(tmp, (unsigned long long)(q / p10));
		if (decimals) {
			frac = (unsigned long long)(q % p10);
			tmp[n++] = '.';
			for (i = decimals - 1; i >= 0; i--, frac /= 10)
				tmp[n + (size_t)i] = (char)('0' + frac % 10);
			n += (size_t)decimals;
		}
		tmp[n] = '\0';
		memcpy(buf, tmp, n + 1);
		return n;
	}
#endif
	{
		int r = snprintf(buf, cap, "%.*f", decimals, v);

		return r > 0 ? (size_t)r : 0;
	}
}

/* Append v in decimal to b. */
void jbuf_u64(struct jbuf *b, unsigned long long v)
{
	if (jbuf_room(b, JSON_INT_MAX))
		b->len += json_fmt_u64(b->s + b->len, v);
}

/* Append v in decimal, with its sign, to b. */
void jbuf_i64(struct jbuf *b, long long v)
{
	if (jbuf_room(b, JSON_INT_MAX))
		b->len += json_fmt_i64(b->s + b->len, v);
}

/* Append v with the given decimals to b, as "%.*f" writes it. */
void jbuf_fixed(struct jbuf *b, double v, int decimals)
{
	char buf[512]; /* %f of the largest double is 309 digits, and the decimals */
	size_t n = json_fmt_fixed(buf, sizeof(buf), v, decimals);

	jbuf_put(b, buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
}
