/* Test helper: the oracle the UTF-8 checks of the text and JSON writers are
 * held against. */
#ifndef COWTOP_TESTS_UTF8_ORACLE_H
#define COWTOP_TESTS_UTF8_ORACLE_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s[0..len), straight from the
 * table of well-formed byte sequences of the Unicode standard (3.9), or 0. */
static inline int oracle_len(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (len == 0)
		return 0;
	if (s[0] <= 0x7f)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if ((size_t)n > len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return n;
}

#endif
