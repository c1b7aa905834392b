/* Sparklines as pure functions: values in, glyphs out. */
#include <string.h>
#include "glyphs.h"
#include "spark.h"

/* The glyph index of v when scale fills the top of nlevels glyphs: 0 for
 * zero (and negative or NaN), else 1 .. nlevels - 1, rounding up so any
 * activity rises above the baseline. */
int spark_level(double v, double scale, int nlevels)
{
	double x;
	int l;

	if (!(v > 0) || nlevels < 2)
		return 0;
	if (!(scale > 0) || v >= scale)
		return nlevels - 1;
	x = v / scale * (nlevels - 1);
	l = (int)x;
	if (l < x)
		l++;
	if (l < 1)
		l = 1;
	return l < nlevels - 1 ? l : nlevels - 1;
}

/* Append one glyph if it fits whole (leaving room for the NUL). */
static bool put_glyph(const char *g, char *buf, size_t cap, size_t *len)
{
	size_t gl = strlen(g);

	if (*len + gl + 1 > cap)
		return false;
	memcpy(buf + *len, g, gl);
	*len += gl;
	return true;
}

/* The glyph of one interval: its level, or a probe mark when marked; a
 * blank where the value is unknown (negative). */
static const char *cell_glyph(const struct glyphs *g, double v, bool marked, double scale)
{
	int level = spark_level(v, scale, g->nspark);

	if (v < 0 && !marked)
		return " ";
	if (marked)
		return level ? g->mark : g->mark_idle;
	return g->spark[level];
}

/* Draw v[0..n), oldest first, one glyph per value, a full block meaning
 * scale, a blank for a negative value (unknown); where marks (NULL: none)
 * is non-zero a USDT probe fired, and the interval shows a mark instead. buf is always NUL-terminated (when cap > 0)
 * and never ends in a partial glyph. Returns the bytes written. */
size_t spark_render(const double *v, const unsigned char *marks, size_t n, double scale,
    bool utf8, char *buf, size_t cap)
{
	const struct glyphs *g = glyphs_pick(utf8);
	size_t i, len = 0;

	if (cap == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!put_glyph(cell_glyph(g, v[i], marks && marks[i], scale), buf, cap, &len))
			break;
	buf[len] = '\0';
	return len;
}

/* Draw the newest width values of s and their marks, right-aligned in width
 * columns: time before the process was seen is blank. */
size_t spark_series(const struct series *s, size_t width, double scale, bool utf8,
    char *buf, size_t cap)
{
	double v[SERIES_CAP];
	unsigned char mk[SERIES_CAP];
	size_t n = series__len(s), i, pad, len;

	if (cap == 0)
		return 0;
	if (n > width)
		n = width;
	for (i = 0; i < n; i++) {
		v[i] = series__get(s, series__len(s) - n + i);
		mk[i] = series__mark(s, series__len(s) - n + i);
	}
	pad = width - n;
	if (pad > cap - 1)
		pad = cap - 1;
	memset(buf, ' ', pad);
	len = pad + spark_render(v, mk, n, scale, utf8, buf + pad, cap - pad);
	buf[len] = '\0';
	return len;
}

/* The rate a full block stands for in a width-wide history of s. */
double spark_scale(const struct series *s, size_t width)
{
	return series__max_last(s, width);
}
