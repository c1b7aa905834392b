/* A tiny JSON writer: the pieces that must be right whatever the bytes, and
 * a text buffer that formats numbers without printf (a frame of 5,000
 * processes has some 150,000 numbers, formatted every second). */
#ifndef COWTOP_JSON_H
#define COWTOP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Room for any unsigned or signed 64-bit decimal and its NUL. */
#define JSON_INT_MAX 21

/* A growing text buffer. Out of memory, it sets failed: a piece that did
 * not fit is lost, so the whole text must be discarded. */
struct jbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

/* Write s[0..len) as a JSON string literal (quotes included) that is valid
 * JSON and valid UTF-8 whatever the bytes: '"' and '\' are escaped, control
 * characters below 0x20 and 0x7f become \u00XX, valid UTF-8 passes through
 * except U+0080..U+009F (written \u00XX) and U+2028/U+2029 (written \u2028,
 * \u2029, so the output is also a valid JavaScript literal), and each byte of
 * an invalid UTF-8 sequence (overlong, surrogate, above U+10FFFF, cut short,
 * stray continuation) becomes \ufffd. Errors are left in f's error flag. */
void json_string(FILE *f, const char *s, size_t len);

/* The same literal appended to b. */
void jbuf_string(struct jbuf *b, const char *s, size_t len);

/* v in decimal into buf (at least JSON_INT_MAX bytes), NUL-terminated, as
 * printf's %llu and %lld write it. Returns the length. */
size_t json_fmt_u64(char *buf, unsigned long long v);
size_t json_fmt_i64(char *buf, long long v);

/* v with exactly decimals digits after the point (0..9) into buf of cap
 * bytes, NUL-terminated: the same bytes as printf's "%.*f" in the default
 * rounding mode (round half to even on the exact binary value), "nan",
 * "inf" and "-0.0" included. Returns the length, as snprintf does. */
size_t json_fmt_fixed(char *buf, size_t cap, double v, int decimals);

/* jbuf_put when b has no room left: grows it first. */
void jbuf_put_grow(struct jbuf *b, const char *s, size_t n);

/* Append n bytes to b. Always inline: a JSON line is made of some 60 short
 * pieces a process, most of them constant strings, whose length and copy
 * the compiler then works out in place. */
static inline __attribute__((always_inline)) void jbuf_put(struct jbuf *b, const char *s, size_t n)
{
	if (b->cap - b->len <= n) {
		jbuf_put_grow(b, s, n);
		return;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Append a NUL-terminated string to b. */
static inline __attribute__((always_inline)) void jbuf_puts(struct jbuf *b, const char *s)
{
	jbuf_put(b, s, strlen(s));
}

/* Append one byte to b. */
static inline __attribute__((always_inline)) void jbuf_putc(struct jbuf *b, char c)
{
	jbuf_put(b, &c, 1);
}

/* Append a number (see the formatters above) to b. */
void jbuf_u64(struct jbuf *b, unsigned long long v);
void jbuf_i64(struct jbuf *b, long long v);
void jbuf_fixed(struct jbuf *b, double v, int decimals);

/* The writers of one member, ,"name":value: always inline, as they are
 * called with a literal name whose length the compiler then knows. name is
 * a plain key (no escapes needed). */
static inline __attribute__((always_inline)) void jbuf_key(struct jbuf *b, const char *name)
{
	jbuf_put(b, ",\"", 2);
	jbuf_puts(b, name);
	jbuf_put(b, "\":", 2);
}

/* A bool as JSON. */
static inline void jbuf_bool(struct jbuf *b, bool v)
{
	jbuf_puts(b, v ? "true" : "false");
}

/* ,"name":v, or ,"name":null when not known. */
static inline __attribute__((always_inline)) void jbuf_count(struct jbuf *b, const char *name, bool known,
							     unsigned long long v)
{
	jbuf_key(b, name);
	if (known)
		jbuf_u64(b, v);
	else
		jbuf_puts(b, "null");
}

/* ,"name":v with the given decimals, or ,"name":null when v < 0 (unknown). */
static inline __attribute__((always_inline)) void jbuf_real(struct jbuf *b, const char *name, double v,
							    int decimals)
{
	jbuf_key(b, name);
	if (v < 0)
		jbuf_puts(b, "null");
	else
		jbuf_fixed(b, v, decimals);
}

/* ,"name":v for a signed v. */
static inline __attribute__((always_inline)) void jbuf_int(struct jbuf *b, const char *name, long long v)
{
	jbuf_key(b, name);
	jbuf_i64(b, v);
}

/* Empty b, keeping its memory for the next text; jbuf_free lets it go. */
void jbuf_reset(struct jbuf *b);
void jbuf_free(struct jbuf *b);

#endif
