/* Making untrusted bytes (process names, command lines: any local user
 * controls them) safe to put on a terminal, and measuring them there. */
#ifndef COWTOP_TEXT_H
#define COWTOP_TEXT_H

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
 * controls, DEL, C1 controls (U+0080..U+009F, and raw 0x80..0x9f bytes),
 * invisible direction and line-separator marks (U+061C, U+200E, U+200F,
 * U+2028..U+202E, U+2066..U+2069) and every byte of an invalid UTF-8 sequence
 * become visible escapes: "\n", "\t", "\r", "\e" (ESC), else "\xNN" for each
 * byte. Never splits an escape or a UTF-8 character at the end: stops at the
 * first one that does not fit whole. Returns bytes written (excluding NUL). */
size_t text_sanitize(const char *src, size_t len, char *dst, size_t cap);

/* Same, ASCII only: every non-ASCII byte becomes "\xNN" (for terminals
 * without UTF-8). */
size_t text_sanitize_ascii(const char *src, size_t len, char *dst, size_t cap);

/* Display width in terminal columns of a sanitized UTF-8 string: the sum of
 * wcwidth() of its code points (a negative width counts 0; a byte that is not
 * valid UTF-8 counts 1). Needs a UTF-8 LC_CTYPE for non-ASCII widths. */
int text_width(const char *s);

#endif
