/* A tiny JSON writer: the pieces that must be right whatever the bytes. */
#ifndef COWTOP_JSON_H
#define COWTOP_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Write s[0..len) as a JSON string literal (quotes included) that is valid
 * JSON and valid UTF-8 whatever the bytes: '"' and '\' are escaped, control
 * characters below 0x20 and 0x7f become \u00XX, valid UTF-8 passes through
 * except U+0080..U+009F (written \u00XX) and U+2028/U+2029 (written \u2028,
 * \u2029, so the output is also a valid JavaScript literal), and each byte of
 * an invalid UTF-8 sequence (overlong, surrogate, above U+10FFFF, cut short,
 * stray continuation) becomes \ufffd. Errors are left in f's error flag. */
void json_string(FILE *f, const char *s, size_t len);

#endif
