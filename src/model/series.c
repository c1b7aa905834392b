/* A ring of per-interval values over its owner's storage. The newest
 * values, when they are the same and unmarked (an idle process's rate, tick
 * after tick: most processes), are a run kept in the series itself (last,
 * same): pushing one more touches no storage, and a copy of them needs
 * none. The run is written into the storage when a different or marked
 * value ends it, each value once. */
#include <stdbool.h>
#include "series.h"

/* An empty series over v and mark, room for cap values (at most 65535). */
void series__init(struct series *s, float *v, unsigned char *mark, size_t cap)
{
	*s = (struct series){ .v = v, .mark = mark, .cap = (unsigned short)(cap < 65535 ? cap : 65535) };
	if (!v || !mark)
		s->cap = 0;
}

/* An empty series over a full store. */
void series__init_store(struct series *s, struct series_store *st)
{
	series__init(s, st->v, st->mark, SERIES_CAP);
}

/* The storage index of the i-th value, 0 being the oldest held (i below
 * len, cap not 0). With len <= cap that is below twice cap, so one
 * subtraction wraps it, not a division. */
static size_t slot(const struct series *s, size_t i)
{
	size_t k = (size_t)s->head + s->cap - s->len + i;

	return k >= s->cap ? k - s->cap : k;
}

/* Whether the i-th value is in the run (the newest same values). */
static bool in_run(const struct series *s, size_t i)
{
	return i + s->same >= s->len;
}

/* Write the run into the storage: it is about to end, or be rewritten. */
static void write_run(struct series *s)
{
	size_t i;

	if (!s->cap)
		return;
	for (i = s->len - s->same; i < s->len; i++) {
		s->v[slot(s, i)] = s->last;
		s->mark[slot(s, i)] = 0;
	}
}

size_t series__tail_room(const struct series *s, size_t n)
{
	if (n > s->len)
		n = s->len;
	if (!n || s->same >= n)
		return 0;
	return n;
}

/* Copy the newest n values of src, oldest first, into dst's new storage
 * (dst may be src: a copy that gets storage of its own). A tail inside the
 * run needs no storage: the copy is that run. */
void series__copy_tail(struct series *dst, const struct series *src, float *v, unsigned char *mark,
		       size_t n)
{
	const struct series from = *src;
	size_t len = from.len < n ? from.len : n, room = series__tail_room(&from, n), i;

	series__init(dst, v, mark, room);
	if (!len || (room && !dst->cap))
		return;
	for (i = 0; i < room; i++) {
		v[i] = (float)series__get(&from, from.len - len + i);
		mark[i] = series__mark(&from, from.len - len + i);
	}
	dst->len = (unsigned short)len;
	dst->head = room ? (unsigned short)(len % room) : 0;
	dst->same = (unsigned short)(from.same < len ? from.same : len);
	dst->last = from.last;
}

/* Append v with a marker (0: none) for its interval, dropping the oldest
 * value when full. */
void series__push_marked(struct series *s, double v, unsigned char mark)
{
	float f = (float)v;
	bool run = s->len && !mark && s->same && s->last == f;

	if (!s->cap)
		return;
	if (!run)
		write_run(s); /* it ends here */
	if (mark) {
		s->v[s->head] = f;
		s->mark[s->head] = mark;
	}
	s->head = (unsigned short)(s->head + 1u == s->cap ? 0 : s->head + 1u);
	if (s->len < s->cap)
		s->len++;
	s->same = mark ? 0 : run ? s->same + 1 : 1;
	if (s->same > s->len)
		s->same = s->len;
	s->last = f;
}

/* Count again the newest values equal to the last, unmarked (the storage
 * holds every value). */
static void count_same(struct series *s)
{
	size_t i = s->len;

	s->last = s->v[slot(s, s->len - 1u)];
	while (i > 0 && !s->mark[slot(s, i - 1)] && s->v[slot(s, i - 1)] == s->last)
		i--;
	s->same = (unsigned short)(s->len - i);
}

/* Replace the newest value and its marker; append when there is none. */
void series__set_last(struct series *s, double v, unsigned char mark)
{
	if (!s->len) {
		series__push_marked(s, v, mark);
		return;
	}
	if (!s->cap)
		return;
	write_run(s);
	s->v[slot(s, s->len - 1u)] = (float)v;
	s->mark[slot(s, s->len - 1u)] = mark;
	count_same(s);
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
	return in_run(s, i) ? s->last : s->v[slot(s, i)];
}

/* The marker of the i-th interval, 0 being the oldest held (0: none). */
unsigned char series__mark(const struct series *s, size_t i)
{
	if (i >= s->len || in_run(s, i))
		return 0;
	return s->mark[slot(s, i)];
}

/* The largest of the newest n values (0.0 when empty). */
double series__max_last(const struct series *s, size_t n)
{
	double max = 0.0;
	size_t i;

	if (n > s->len)
		n = s->len;
	if (n && s->same >= n) /* one value: an idle process's */
		return s->last > 0 ? s->last : 0.0;
	for (i = s->len - n; i < s->len; i++)
		if (series__get(s, i) > max)
			max = series__get(s, i);
	return max;
}
