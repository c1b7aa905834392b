/* A tiny JSON writer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdbool.h>
#include <stdio.h>
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

/* Write a JSON string literal; see json.h. */
void json_string(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[JSON_ESCAPE_MAX];
	size_t i = 0, run = 0, n;
	bool lead = true;

	fputc('"', f);
	while (i < len) {
		n = json_classify(p + i, len - i, esc, &lead);
		if (esc[0] == '\0') {
			i += n;
			continue;
		}
		if (i > run)
			fwrite(p + run, 1, i - run, f);
		fputs(esc, f);
		i += n;
		run = i;
	}
	if (i > run)
		fwrite(p + run, 1, i - run, f);
	fputc('"', f);
}
