/* Untrusted bytes made visible and harmless, and their width on screen. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <wchar.h>
#include "text.h"

/* One rendered unit: an escape for every byte of a sequence, at most. */
#define UNIT_MAX (TEXT_UTF8_MAX * TEXT_ESCAPE_MAX)

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

/* Whether a valid non-ASCII code point must be shown escaped: C1 controls,
 * and marks that are invisible yet reorder or break the line around them. */
static bool cp_hidden(unsigned cp)
{
	if (cp <= 0x9f)
		return true;
	if (cp == 0x061c || cp == 0x200e || cp == 0x200f)
		return true;
	if (cp >= 0x2028 && cp <= 0x202e)
		return true;
	return cp >= 0x2066 && cp <= 0x2069;
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
 * *outlen and returns how many input bytes it covers. */
static size_t render_unit(const unsigned char *s, size_t len, bool utf8,
    char *out, size_t *outlen)
{
	unsigned cp;
	int n, i;

	if (!utf8 || s[0] < 0x80) {
		*outlen = render_byte(s[0], out);
		return 1;
	}
	n = utf8_decode(s, len, &cp);
	if (n < 0) {
		*outlen = escape_byte(s[0], out);
		return 1;
	}
	if (!cp_hidden(cp)) {
		memcpy(out, s, (size_t)n);
		*outlen = (size_t)n;
		return (size_t)n;
	}
	*outlen = 0;
	for (i = 0; i < n; i++)
		*outlen += escape_byte(s[i], out + *outlen);
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

	if (cap == 0)
		return 0;
	k.cap = cap - 1;
	while (i < len && !k.full) {
		used = render_unit(s + i, len - i, utf8, unit, &ulen);
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
