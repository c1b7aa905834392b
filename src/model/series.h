/* A history of per-interval values (CoW rates, shared%), newest last: a
 * ring over storage its owner provides. The model keeps SERIES_CAP values
 * of each process; a frame keeps only the newest values the views draw
 * (often none: batch output and the exporter draw no sparklines). */
#ifndef COWTOP_SERIES_H
#define COWTOP_SERIES_H

#include <stddef.h>

#define SERIES_CAP 128 /* values the model keeps: two minutes at the default refresh */

struct series {
	float *v;             /* float: enough for a rate or a percentage, half the memory */
	unsigned char *mark;  /* per interval: 0, or 1 + the first probe id that fired */
	unsigned short cap;   /* values v and mark have room for; 0: none (pushes are lost) */
	unsigned short head;  /* index of the next slot to write */
	unsigned short len;   /* number of values held, <= cap */
	unsigned short same;  /* of the newest, how many are the last value, unmarked: a
	                         run, kept as last and its length, not in v and mark
	                         until a different or marked value ends it */
	float last;           /* the newest value (len > 0) */
};

/* Storage for one full series, for owners that keep it inline. */
struct series_store {
	float v[SERIES_CAP];
	unsigned char mark[SERIES_CAP];
};

void series__init(struct series *s, float *v, unsigned char *mark, size_t cap);
void series__init_store(struct series *s, struct series_store *st);
/* Storage a copy of the newest n values of s needs: none when it holds
 * none, or when they are all the same and unmarked (an idle process's
 * rates: most processes; the run is kept in the series itself); else one
 * a value. */
size_t series__tail_room(const struct series *s, size_t n);
/* dst gets the newest n values of src (fewer when src holds fewer), in
 * storage v and mark with room for series__tail_room(src, n) values. A
 * copy kept without storage is for reading: pushing onto it loses values. */
void series__copy_tail(struct series *dst, const struct series *src, float *v, unsigned char *mark,
		       size_t n);
void series__push_marked(struct series *s, double v, unsigned char mark);
void series__set_last(struct series *s, double v, unsigned char mark);
unsigned char series__mark(const struct series *s, size_t i);
size_t series__len(const struct series *s);
double series__get(const struct series *s, size_t i);
double series__max_last(const struct series *s, size_t n);

#endif
