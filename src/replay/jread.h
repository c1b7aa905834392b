/* Checked reading of JSON members (json-c) as cowtop writes them: a member
 * of the wrong type or out of range is noted (the first one, in why) and
 * read as absent, so that a reader refuses the record whole. */
#ifndef COWTOP_JREAD_H
#define COWTOP_JREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

struct jread {
	char why[160]; /* the first thing wrong ("" none) */
};

/* Member k of object o, or NULL. */
json_object *jread_get(json_object *o, const char *k);
/* Note what is wrong, unless something already is. */
void jread_bad(struct jread *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A count member: 0 when absent or null; *known says which. Anything but
 * a whole number from 0 to 2^63 is bad. */
unsigned long long jread_count(struct jread *j, json_object *o, const char *k, bool *known);
/* A count member that must lie in [lo, hi] when present. */
long long jread_bounded(struct jread *j, json_object *o, const char *k, long long lo, long long hi,
			bool *known);
/* A real member; dflt when absent or null. A finite number, not below
 * min, or bad. */
double jread_real(struct jread *j, json_object *o, const char *k, double dflt, double min);
/* A string member into buf ("" when absent or null; bad when another type). */
void jread_string(struct jread *j, json_object *o, const char *k, char *buf, size_t cap);

#endif
