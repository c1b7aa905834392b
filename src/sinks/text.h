/* Making untrusted bytes (process names, command lines: any local user
 * controls them) safe to put on a terminal, and measuring them there. */
#ifndef COWTOP_TEXT_H
#define COWTOP_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Longest UTF-8 sequence, and longest escape ("\xNN"). */
#define TEXT_UTF8_MAX 4
#define TEXT_ESCAPE_MAX 4

/* Decode one strictly valid UTF-8 sequence at s[0..len) into *cp. Returns its
 * length (1 to 4), or -1 when s does not start with one: empty input, a stray
 * continuation byte, 0xc0/0xc1/0xf5..0xff, an overlong form, a surrogate, a
 * code point above U+10FFFF, or a sequence cut short by len. Never reads
 * s[len] or beyond. */
int utf8_decode(const unsigned char *s, size_t len, unsigned *cp);

/* Copy src[0..len) to dst (capacity cap, always NUL-terminated when cap > 0)
 * as visible, harmless text: valid printable UTF-8 passes through; C0
 * controls and DEL become "\n", "\t", "\r", "\e" (ESC), else "\xNN"; every
 * byte of an invalid UTF-8 sequence becomes "\xNN"; a valid code point that
 * is a C1 control, invisible or spoofing (format characters such as U+200B,
 * U+FEFF, U+00AD, every bidi control U+061C, U+200E/F, U+202A..U+202E,
 * U+2066..U+2069, line separators, Hangul fillers, tag characters,
 * private use, noncharacters), unassigned, or a combining mark with nothing
 * before it becomes "\uXXXX" ("\UXXXXXXXX" above U+FFFF). Never splits an
 * escape or a UTF-8 character at the end: stops at the first one that does
 * not fit whole. Returns bytes written (excluding NUL). */
size_t text_sanitize(const char *src, size_t len, char *dst, size_t cap);

/* Same, ASCII only: every non-ASCII code point becomes "\uXXXX" (or
 * "\UXXXXXXXX"), invalid bytes "\xNN" (for terminals and output without
 * UTF-8). */
size_t text_sanitize_ascii(const char *src, size_t len, char *dst, size_t cap);

/* Whether a valid non-ASCII code point must be shown escaped: C1 controls,
 * the invisible and spoofing ones text_sanitize lists, noncharacters,
 * unassigned or unprintable ones (as glibc's C.UTF-8 classifies them,
 * whatever the program's locale), and a combining mark with nothing to
 * combine with (lead: at the start of the text or right after an escape). */
bool text_cp_hidden(unsigned cp, bool lead);

/* Whether the program's LC_CTYPE (setlocale) is UTF-8. */
bool locale_is_utf8(void);

/* Display width in terminal columns of a sanitized UTF-8 string: the sum of
 * wcwidth() of its code points (a negative width counts 0; a byte that is not
 * valid UTF-8 counts 1). Needs a UTF-8 LC_CTYPE for non-ASCII widths. */
int text_width(const char *s);

#endif
