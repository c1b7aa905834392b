/* Screen lines built off-screen: text, roles, and fitting to a width. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include "line.h"
#include "text.h"

/* Empty the line. */
void line_clear(struct line *l)
{
	l->text[0] = '\0';
	l->len = 0;
	l->nspan = 0;
	l->base = ROLE_PLAIN;
}

/* Start line *n of out (room for max), emptied, and count it; NULL when
 * out is full. */
struct line *line_next(struct line *out, size_t max, size_t *n)
{
	if (*n >= max)
		return NULL;
	line_clear(&out[*n]);
	return &out[(*n)++];
}

/* Remember that text[off, off + n) plays role; plain text needs no span. */
static void line_mark(struct line *l, enum role role, size_t off, size_t n)
{
	struct span *last = l->nspan ? &l->span[l->nspan - 1] : NULL;

	if (role == ROLE_PLAIN || n == 0)
		return;
	if (last && last->role == role && last->off + last->len == off) {
		last->len += n;
		return;
	}
	if (l->nspan < LINE_SPANS)
		l->span[l->nspan++] = (struct span){ off, n, role };
}

/* At most room bytes of s[0..n), not splitting a UTF-8 character. */
static size_t utf8_cut(const char *s, size_t n, size_t room)
{
	if (n <= room)
		return n;
	while (room > 0 && ((unsigned char)s[room] & 0xc0) == 0x80)
		room--;
	return room;
}

/* Append n bytes of s in role; a character that does not fit is dropped. */
void line_put(struct line *l, enum role role, const char *s, size_t n)
{
	n = utf8_cut(s, n, LINE_CAP - 1 - l->len);
	memcpy(l->text + l->len, s, n);
	line_mark(l, role, l->len, n);
	l->len += n;
	l->text[l->len] = '\0';
}

/* Append formatted text in role. */
void line_add(struct line *l, enum role role, const char *fmt, ...)
{
	char buf[LINE_CAP];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	line_put(l, role, buf, (size_t)n);
}

/* Append spaces until the line is cols columns wide. */
void line_pad(struct line *l, int cols)
{
	int w = text_width(l->text);

	while (w < cols && l->len < LINE_CAP - 1) {
		l->text[l->len++] = ' ';
		w++;
	}
	l->text[l->len] = '\0';
}

/* Columns one code point takes, as text_width counts them. */
static int cp_cols(unsigned cp)
{
	int w;

	if (cp >= 0x20 && cp < 0x7f)
		return 1;
	w = wcwidth((wchar_t)cp);
	return w > 0 ? w : 0;
}

/* Bytes of the longest prefix of s[0..len) at most cols columns wide, never
 * splitting a character; its width goes to *width when not NULL. */
size_t text_fit(const char *s, size_t len, int cols, int *width)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int w = 0, n, cw;
	unsigned cp;

	while (i < len && p[i]) {
		n = utf8_decode(p + i, len - i, &cp);
		cw = n < 0 ? 1 : cp_cols(cp);
		if (n < 0)
			n = 1;
		if (w + cw > cols)
			break;
		w += cw;
		i += (size_t)n;
	}
	if (width)
		*width = w;
	return i;
}

/* Cut the line to at most cols columns, its spans with it. */
void line_fit(struct line *l, int cols)
{
	size_t keep = text_fit(l->text, l->len, cols < 0 ? 0 : cols, NULL);
	int i, j = 0;

	l->len = keep;
	l->text[keep] = '\0';
	for (i = 0; i < l->nspan; i++) {
		struct span s = l->span[i];

		if (s.off >= keep)
			continue;
		if (s.off + s.len > keep)
			s.len = keep - s.off;
		l->span[j++] = s;
	}
	l->nspan = j;
}
