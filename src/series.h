/* A fixed-size history of per-interval values (CoW rates), newest last. */
#ifndef COWTOP_SERIES_H
#define COWTOP_SERIES_H

#include <stddef.h>

#define SERIES_CAP 128 /* two minutes at the default refresh; two series a process, in every frame */

struct series {
	float v[SERIES_CAP]; /* float: enough for a rate or a percentage, half the memory */
	unsigned char mark[SERIES_CAP]; /* per interval: 0, or 1 + the first probe id that fired */
	size_t head; /* index of the next slot to write */
	size_t len;  /* number of values held, <= SERIES_CAP */
};

void series__push_marked(struct series *s, double v, unsigned char mark);
void series__set_last(struct series *s, double v, unsigned char mark);
unsigned char series__mark(const struct series *s, size_t i);
size_t series__len(const struct series *s);
double series__get(const struct series *s, size_t i);
double series__max_last(const struct series *s, size_t n);

#endif
