/* Untrusted bytes made visible and harmless, and their width on screen. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>
#include <wctype.h>
#include "text.h"

/* One rendered unit: a sequence, a code point's escape ("\U0001f600", and
 * the NUL snprintf writes) or a byte's escape. */
#define UNIT_MAX 16

/* Output being filled: stops for good at the first unit that does not fit. */
struct sink {
	char *dst;
	size_t cap; /* bytes available for text, the NUL excluded */
	size_t n;
	bool full;
};

/* Length of the sequence a lead byte starts, with its payload bits and the
 * smallest code point that may use that length; 0 for no valid lead. */
static int utf8_lead(unsigned char c, unsigned *bits, unsigned *min)
{
	if (c < 0x80) {
		*bits = c;
		*min = 0;
		return 1;
	}
	if (c < 0xc2)
		return 0; /* continuation byte, or overlong 0xc0/0xc1 */
	if (c < 0xe0) {
		*bits = c & 0x1f;
		*min = 0x80;
		return 2;
	}
	if (c < 0xf0) {
		*bits = c & 0x0f;
		*min = 0x800;
		return 3;
	}
	if (c < 0xf5) {
		*bits = c & 0x07;
		*min = 0x10000;
		return 4;
	}
	return 0;
}

/* Decode one strictly valid UTF-8 sequence; see text.h. */
int utf8_decode(const unsigned char *s, size_t len, unsigned *cp)
{
	unsigned c, min;
	int n, i;

	if (len == 0)
		return -1;
	n = utf8_lead(s[0], &c, &min);
	if (n == 0 || (size_t)n > len)
		return -1;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return -1;
	*cp = c;
	return n;
}

/* Code points that show nothing, or a blank, yet are text: format
 * characters (soft hyphen, zero-width space and joiners, the byte order
 * mark, Arabic and other number signs), every bidi control (Trojan Source,
 * CVE-2021-42574), line and paragraph separators, Hangul fillers, Mongolian
 * and Khmer invisible marks, interlinear annotations, tag characters,
 * private use and noncharacters. A name holding one can pose as another. */
static const struct { unsigned lo, hi; } invisible[] = {
	{ 0x00ad, 0x00ad }, { 0x034f, 0x034f }, { 0x0600, 0x0605 }, { 0x061c, 0x061c },
	{ 0x06dd, 0x06dd }, { 0x070f, 0x070f }, { 0x0890, 0x0891 }, { 0x08e2, 0x08e2 },
	{ 0x115f, 0x1160 }, { 0x17b4, 0x17b5 }, { 0x180b, 0x180f }, { 0x200b, 0x200f },
	{ 0x2028, 0x202e }, { 0x2060, 0x206f }, { 0x3164, 0x3164 }, { 0xe000, 0xf8ff },
	{ 0xfdd0, 0xfdef }, { 0xfeff, 0xfeff }, { 0xffa0, 0xffa0 }, { 0xfff0, 0xfffb },
	{ 0x110bd, 0x110bd }, { 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 },
	{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe007f }, { 0xf0000, 0x10ffff },
};

/* A UTF-8 locale to classify code points with, whatever the program's own
 * locale is (batch output may run under "C"); (locale_t)0 when there is none. */
static locale_t utf8_ctype(void)
{
	static locale_t loc;
	static bool tried;

	if (!tried) {
		tried = true;
		loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	}
	return loc;
}

/* wcwidth() of cp in the UTF-8 locale: -1 for unassigned and unprintable
 * code points, 0 for combining marks; 1 when no UTF-8 locale is at hand. */
static int utf8_width(unsigned cp)
{
	locale_t loc = utf8_ctype(), old;
	int w;

	if (!loc)
		return 1;
	old = uselocale(loc);
	w = iswprint((wint_t)cp) ? wcwidth((wchar_t)cp) : -1;
	uselocale(old);
	return w;
}

/* Whether a valid non-ASCII code point must be shown escaped; see text.h. */
bool text_cp_hidden(unsigned cp, bool lead)
{
	size_t i;
	int w;

	if (cp <= 0x9f || (cp & 0xfffe) == 0xfffe)
		return true;
	for (i = 0; i < sizeof(invisible) / sizeof(*invisible); i++)
		if (cp >= invisible[i].lo && cp <= invisible[i].hi)
			return true;
	w = utf8_width(cp);
	return w < 0 || (w == 0 && lead);
}

/* Write the visible escape of a code point, "\uXXXX" or "\UXXXXXXXX",
 * into out; returns its length. */
static size_t escape_cp(unsigned cp, char *out)
{
	if (cp <= 0xffff) {
		snprintf(out, 7, "\\u%04x", cp);
		return 6;
	}
	snprintf(out, 11, "\\U%08x", cp);
	return 10;
}

/* Write the visible escape of one byte into out; returns its length. */
static size_t escape_byte(unsigned char c, char *out)
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	switch (c) {
	case '\n':
		out[1] = 'n';
		return 2;
	case '\t':
		out[1] = 't';
		return 2;
	case '\r':
		out[1] = 'r';
		return 2;
	case 0x1b:
		out[1] = 'e';
		return 2;
	}
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 0xf];
	return 4;
}

/* Render one byte read as ASCII: itself when printable, else its escape. */
static size_t render_byte(unsigned char c, char *out)
{
	if (c >= 0x20 && c < 0x7f) {
		out[0] = (char)c;
		return 1;
	}
	return escape_byte(c, out);
}

/* Render the unit starting at s[0..len) into out (UNIT_MAX bytes): sets
 * *outlen, and *lead for the next unit (whether this one was an escape or
 * nothing came before), and returns how many input bytes it covers. In
 * ASCII (utf8 false) every non-ASCII code point is escaped. */
static size_t render_unit(const unsigned char *s, size_t len, bool utf8,
    char *out, size_t *outlen, bool *lead)
{
	unsigned cp;
	int n;

	if (s[0] < 0x80) {
		*outlen = render_byte(s[0], out);
		*lead = *outlen > 1;
		return 1;
	}
	n = utf8_decode(s, len, &cp);
	if (n < 0) {
		*outlen = escape_byte(s[0], out);
		*lead = true;
		return 1;
	}
	if (utf8 && !text_cp_hidden(cp, *lead)) {
		memcpy(out, s, (size_t)n);
		*outlen = (size_t)n;
		*lead = false;
		return (size_t)n;
	}
	*outlen = escape_cp(cp, out);
	*lead = true;
	return (size_t)n;
}

/* Append a unit to the sink whole, or mark the sink full. */
static void sink_put(struct sink *k, const char *s, size_t n)
{
	if (k->full || n > k->cap - k->n) {
		k->full = true;
		return;
	}
	memcpy(k->dst + k->n, s, n);
	k->n += n;
}

/* The sanitizers' common loop. */
static size_t sanitize(const char *src, size_t len, char *dst, size_t cap,
    bool utf8)
{
	const unsigned char *s = (const unsigned char *)src;
	struct sink k = { .dst = dst, .n = 0, .full = false };
	char unit[UNIT_MAX];
	size_t i = 0, used, ulen;
	bool lead = true;

	if (cap == 0)
		return 0;
	k.cap = cap - 1;
	while (i < len && !k.full) {
		used = render_unit(s + i, len - i, utf8, unit, &ulen, &lead);
		sink_put(&k, unit, ulen);
		i += used;
	}
	dst[k.n] = '\0';
	return k.n;
}

/* Copy untrusted bytes as visible UTF-8 text; see text.h. */
size_t text_sanitize(const char *src, size_t len, char *dst, size_t cap)
{
	return sanitize(src, len, dst, cap, true);
}

/* Copy untrusted bytes as visible ASCII text; see text.h. */
size_t text_sanitize_ascii(const char *src, size_t len, char *dst, size_t cap)
{
	return sanitize(src, len, dst, cap, false);
}

/* Terminal columns taken by one code point. */
static int cp_width(unsigned cp)
{
	int w;

	if (cp >= 0x20 && cp < 0x7f)
		return 1;
	w = wcwidth((wchar_t)cp);
	return w > 0 ? w : 0;
}

/* Display width of a sanitized UTF-8 string; see text.h. */
int text_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;
	unsigned cp;
	int n, w = 0;

	while (i < len && w < INT_MAX - 2) {
		n = utf8_decode(p + i, len - i, &cp);
		if (n < 0) {
			w++;
			i++;
			continue;
		}
		w += cp_width(cp);
		i += (size_t)n;
	}
	return w;
}

/* Whether the program's LC_CTYPE is UTF-8; see text.h. */
bool locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}
