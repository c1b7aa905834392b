/* A fixed-size ring of per-interval values. */
#include "series.h"

/* Append v with a marker (0: none) for its interval, dropping the oldest
 * value when full. */
void series__push_marked(struct series *s, double v, unsigned char mark)
{
	s->v[s->head] = v;
	s->mark[s->head] = mark;
	s->head = (s->head + 1) % SERIES_CAP;
	if (s->len < SERIES_CAP)
		s->len++;
}

/* Replace the newest value and its marker; append when there is none. */
void series__set_last(struct series *s, double v, unsigned char mark)
{
	if (!s->len) {
		series__push_marked(s, v, mark);
		return;
	}
	s->v[(s->head + SERIES_CAP - 1) % SERIES_CAP] = v;
	s->mark[(s->head + SERIES_CAP - 1) % SERIES_CAP] = mark;
}

/* Number of values held. */
size_t series__len(const struct series *s)
{
	return s->len;
}

/* The i-th value, 0 being the oldest held; 0.0 when out of range. */
double series__get(const struct series *s, size_t i)
{
	if (i >= s->len)
		return 0.0;
	return s->v[(s->head + SERIES_CAP - s->len + i) % SERIES_CAP];
}

/* The marker of the i-th interval, 0 being the oldest held (0: none). */
unsigned char series__mark(const struct series *s, size_t i)
{
	if (i >= s->len)
		return 0;
	return s->mark[(s->head + SERIES_CAP - s->len + i) % SERIES_CAP];
}

/* The largest of the newest n values (0.0 when empty). */
double series__max_last(const struct series *s, size_t n)
{
	double max = 0.0;
	size_t i;

	if (n > s->len)
		n = s->len;
	for (i = s->len - n; i < s->len; i++)
		if (series__get(s, i) > max)
			max = series__get(s, i);
	return max;
}
