/* Sparklines: a history of rates as one row of rising glyphs, with a mark
 * where a USDT probe fired. */
#ifndef COWTOP_UI_SPARK_H
#define COWTOP_UI_SPARK_H

#include <stdbool.h>
#include <stddef.h>
#include "series.h"

int spark_level(double v, double scale, int nlevels);
size_t spark_render(const double *v, const unsigned char *marks, size_t n, double scale,
    bool utf8, char *buf, size_t cap);
size_t spark_series(const struct series *s, size_t width, double scale, bool utf8,
    char *buf, size_t cap);
double spark_scale(const struct series *s, size_t width);

#endif
