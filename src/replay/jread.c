/* Checked reading of JSON members: see jread.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include "jread.h"

/* Member k of object o, or NULL. */
json_object *jread_get(json_object *o, const char *k)
{
	json_object *v;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* Note the first member found not as cowtop writes it (a frame with one
 * is refused whole: see take_line_frame). */
void jread_bad(struct jread *j, const char *fmt, ...)
{
	va_list ap;

	if (j->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
}

/* A count member: 0 when absent or null; *known says which. Anything but
 * a whole number from 0 to 2^63 is bad. */
unsigned long long jread_count(struct jread *j, json_object *o, const char *k, bool *known)
{
	json_object *v = jread_get(o, k);
	bool have = v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
	double d;

	if (known)
		*known = have;
	if (v && !have)
		jread_bad(j, "%s is not a number", k);
	if (!have)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			jread_bad(j, "%s is negative", k);
		return json_object_get_int64(v) < 0 ? 0 : (unsigned long long)json_object_get_int64(v);
	}
	d = json_object_get_double(v);
	if (!(d >= 0 && d <= 0x1p63) || d != (double)(unsigned long long)d) {
		jread_bad(j, "%s is not a whole number from 0 to 2^63", k);
		return 0;
	}
	return (unsigned long long)d;
}

/* A count member that must lie in [lo, hi] when present. */
long long jread_bounded(struct jread *j, json_object *o, const char *k, long long lo, long long hi,
			bool *known)
{
	bool have;
	unsigned long long v;
	json_object *m = jread_get(o, k);

	/* a negative integer is a value out of range here, not of another type */
	if (m && json_object_is_type(m, json_type_int) && json_object_get_int64(m) < lo) {
		jread_bad(j, "%s %lld out of range %lld-%lld", k, (long long)json_object_get_int64(m), lo, hi);
		if (known)
			*known = false;
		return lo;
	}
	v = jread_count(j, o, k, &have);
	if (known)
		*known = have;
	if (have && (v > (unsigned long long)hi || (long long)v < lo)) {
		jread_bad(j, "%s %llu out of range %lld-%lld", k, v, lo, hi);
		return lo;
	}
	return have ? (long long)v : 0;
}

/* A real member; dflt when absent or null. A finite number, not below
 * min, or bad. */
double jread_real(struct jread *j, json_object *o, const char *k, double dflt, double min)
{
	json_object *v = jread_get(o, k);
	double d;

	if (!v)
		return dflt;
	if (!(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))) {
		jread_bad(j, "%s is not a number", k);
		return dflt;
	}
	d = json_object_get_double(v);
	if (!isfinite(d) || d < min) {
		jread_bad(j, "%s %g out of range", k, d);
		return dflt;
	}
	return d;
}

/* A string member into buf ("" when absent or null; bad when another type). */
void jread_string(struct jread *j, json_object *o, const char *k, char *buf, size_t cap)
{
	json_object *v = jread_get(o, k);
	const char *s = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";

	if (v && !json_object_is_type(v, json_type_string))
		jread_bad(j, "%s is not a string", k);
	snprintf(buf, cap, "%s", s);
}

