/* A fixed-size history of per-interval values (CoW rates), newest last. */
#ifndef COWTOP_SERIES_H
#define COWTOP_SERIES_H

#include <stddef.h>

#define SERIES_CAP 256

struct series {
	double v[SERIES_CAP];
	size_t head; /* index of the next slot to write */
	size_t len;  /* number of values held, <= SERIES_CAP */
};

void series__push(struct series *s, double v);
size_t series__len(const struct series *s);
double series__get(const struct series *s, size_t i);
double series__max_last(const struct series *s, size_t n);

#endif
