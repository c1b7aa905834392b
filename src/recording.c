/* Recordings read back. Opening reads the file once, in chunks, and keeps
 * per frame only its offset, time and whether it holds probe hits or exits
 * (a cheap look at the line's bytes; the whole line is parsed only when the
 * frame is shown). A frame is rebuilt from its line with json-c into the
 * same struct frame the tracer's frames are, its processes one at a time
 * (the tree of a whole line of thousands would cost several times the
 * frame); the histories the sparklines show are carried from frame to
 * frame, and rebuilt from the frames before it after a jump. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "record.h"
#include "recording.h"

#define CHUNK (1u << 20)
#define HIST_WINDOW SERIES_CAP /* frames read back after a jump to rebuild the histories */
#define FRAME_PREFIX "{\"time\":"
#define FRAME_SCHEMA_PREFIX "{\"schema\":"
#define HEADER_PREFIX "{\"recording\":" /* frames start {"schema": too */
#define EXITED "\"state\":\"exited\""
#define PROCS_KEY "\"processes\":["
#define PID_LIMIT 4194304 /* the kernel's PID_MAX_LIMIT: no pid is larger */
#define TOK_DEPTH 64
/* a process is two levels down in its line: the frame, its array */
#define PROC_DEPTH (TOK_DEPTH - 2)

/* Whether p[0..len) starts with the literal prefix s. */
#define STARTS(p, len, s) ((len) >= sizeof(s) - 1 && memcmp(p, s, sizeof(s) - 1) == 0)

struct rec_index {
	off_t off;
	unsigned len;   /* without the newline */
	unsigned line;  /* from 1 */
	double time;
	bool marked;
};

/* The rate and sharing histories of one process across frames (the series
 * over the stores of the same entry: see hist_rebase). */
struct hist {
	int pid;
	unsigned long long start;
	struct series rate, shared;
	struct series_store rate_store, shared_store;
};

struct recording {
	int fd;
	char *path;
	struct recording_info info;
	char warning[512];
	struct rec_index *idx;
	size_t n, cap;
	/* labels, stable across frames: probes and each breakdown's slots */
	char (*probes)[LABEL_MAX];
	int nprobes;
	char labels[SPLIT_KINDS][SPLIT_SLOTS][LABEL_MAX];
	int nlabels[SPLIT_KINDS];
	/* histories: entries, and an open-addressing table of 1 + entry index */
	struct hist *hist;
	size_t nhist, histcap;
	size_t *slots;
	size_t nslots;
	size_t hist_next;            /* the frame whose values come next; SIZE_MAX none */
	bool hist_series;            /* ... pushed onto the series too (a view draws them) */
	struct frame_mark log[FRAME_LOG]; /* the newest probe hits, a ring */
	size_t log_total;
	char *line;                  /* the line being parsed */
	size_t linecap;
	json_tokener *tok;
	json_tokener *etok;          /* one process of a line at a time */
	char why[160];               /* the first thing wrong in the frame being read ("" none) */
};

/* Say why, with the file's name, and return -e. */
static int __attribute__((format(printf, 4, 5)))
fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

/* Member k of object o, or NULL. */
static json_object *get(json_object *o, const char *k)
{
	json_object *v;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* Note the first member found not as cowtop writes it (a frame with one
 * is refused whole: see take_line_frame). */
static void __attribute__((format(printf, 2, 3))) bad(struct recording *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

/* A count member: 0 when absent or null; *known says which. Anything but
 * a whole number from 0 to 2^63 is bad. */
static unsigned long long count(struct recording *r, json_object *o, const char *k, bool *known)
{
	json_object *v = get(o, k);
	bool have = v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
	double d;

	if (known)
		*known = have;
	if (v && !have)
		bad(r, "%s is not a number", k);
	if (!have)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			bad(r, "%s is negative", k);
		return json_object_get_int64(v) < 0 ? 0 : (unsigned long long)json_object_get_int64(v);
	}
	d = json_object_get_double(v);
	if (!(d >= 0 && d <= 0x1p63) || d != (double)(unsigned long long)d) {
		bad(r, "%s is not a whole number from 0 to 2^63", k);
		return 0;
	}
	return (unsigned long long)d;
}

/* A count member that must lie in [lo, hi] when present. */
static long long bounded(struct recording *r, json_object *o, const char *k, long long lo, long long hi,
			 bool *known)
{
	bool have;
	unsigned long long v;
	json_object *j = get(o, k);

	/* a negative integer is a value out of range here, not of another type */
	if (j && json_object_is_type(j, json_type_int) && json_object_get_int64(j) < lo) {
		bad(r, "%s %lld out of range %lld-%lld", k, (long long)json_object_get_int64(j), lo, hi);
		if (known)
			*known = false;
		return lo;
	}
	v = count(r, o, k, &have);
	if (known)
		*known = have;
	if (have && (v > (unsigned long long)hi || (long long)v < lo)) {
		bad(r, "%s %llu out of range %lld-%lld", k, v, lo, hi);
		return lo;
	}
	return have ? (long long)v : 0;
}

/* A real member; dflt when absent or null. A finite number, not below
 * min, or bad. */
static double real(struct recording *r, json_object *o, const char *k, double dflt, double min)
{
	json_object *v = get(o, k);
	double d;

	if (!v)
		return dflt;
	if (!(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))) {
		bad(r, "%s is not a number", k);
		return dflt;
	}
	d = json_object_get_double(v);
	if (!isfinite(d) || d < min) {
		bad(r, "%s %g out of range", k, d);
		return dflt;
	}
	return d;
}

/* A string member into buf ("" when absent or null; bad when another type). */
static void string(struct recording *r, json_object *o, const char *k, char *buf, size_t cap)
{
	json_object *v = get(o, k);
	const char *s = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";

	if (v && !json_object_is_type(v, json_type_string))
		bad(r, "%s is not a string", k);
	snprintf(buf, cap, "%s", s);
}

/* Parse len bytes as one JSON object; NULL with the reason in why. */
static json_object *parse(struct recording *r, const char *p, size_t len, char *why, size_t whylen)
{
	json_object *o;

	json_tokener_reset(r->tok);
	o = json_tokener_parse_ex(r->tok, p, (int)len);
	if (!o || json_tokener_get_error(r->tok) != json_tokener_success ||
	    json_tokener_get_parse_end(r->tok) != len || !json_object_is_type(o, json_type_object)) {
		enum json_tokener_error je = json_tokener_get_error(r->tok);

		snprintf(why, whylen, "%s", je == json_tokener_success || je == json_tokener_continue
					  ? "not one JSON object" : json_tokener_error_desc(je));
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Read a header line; refuse a newer schema. */
static int take_header(struct recording *r, const char *p, size_t len, unsigned line,
		       char *err, size_t errlen)
{
	struct recording_info *in = &r->info;
	char why[128];
	json_object *o = parse(r, p, len, why, sizeof(why));
	bool known;
	int schema;

	r->why[0] = '\0';
	if (!o || !get(o, "recording") || !get(o, "schema")) {
		json_object_put(o);
		return fail(err, errlen, EINVAL, "%s: not a cowtop recording (line %u is not its header)",
			    r->path, line);
	}
	schema = (int)bounded(r, o, "schema", 1, INT_MAX, &known);
	if (!known || r->why[0]) {
		json_object_put(o);
		return fail(err, errlen, EINVAL, "%s:%u: invalid schema in the header", r->path, line);
	}
	if (schema > RECORD_SCHEMA) {
		json_object_put(o);
		return fail(err, errlen, EPROTO,
			    "%s was recorded by a newer cowtop (schema %d; this one reads schema %d)",
			    r->path, schema, RECORD_SCHEMA);
	}
	if (line == 1) {
		in->schema = schema;
		string(r, o, "host", in->host, sizeof(in->host));
		string(r, o, "kernel", in->kernel, sizeof(in->kernel));
		string(r, o, "cowtop", in->version, sizeof(in->version));
		string(r, o, "boot_id", in->boot_id, sizeof(in->boot_id));
		string(r, o, "mechanism", in->mechanism, sizeof(in->mechanism));
		string(r, o, "target", in->target, sizeof(in->target));
		in->start = real(r, o, "start", 0, 0);
		in->delay = real(r, get(o, "options"), "delay", 0, 0);
		in->btime = real(r, o, "btime", 0, 0);
		in->clk_tck = (long)bounded(r, o, "clk_tck", 0, 1000000, NULL);
	}
	json_object_put(o);
	if (r->why[0])
		return fail(err, errlen, EINVAL, "%s:%u: invalid header: %s", r->path, line, r->why);
	return 0;
}

/* How many processes of the line are shown exited. */
static unsigned exited_in(const char *p, size_t len)
{
	const char *end = p + len, *hit;
	unsigned n = 0;

	while ((hit = memmem(p, (size_t)(end - p), EXITED, sizeof(EXITED) - 1))) {
		n++;
		p = hit + sizeof(EXITED) - 1;
	}
	return n;
}

/* Where a frame line's time begins, or NULL when it is no frame. Frames
 * start {"schema":N,"host":...,"time": (older ones {"time":); a quote in a
 * string is escaped, so the first ,"time": is the field. */
static const char *frame_time_at(const char *p, size_t len)
{
	static const char key[] = ",\"time\":";
	const char *t;

	if (STARTS(p, len, FRAME_PREFIX))
		return p + sizeof(FRAME_PREFIX) - 1;
	if (!STARTS(p, len, FRAME_SCHEMA_PREFIX))
		return NULL;
	t = memmem(p, len, key, sizeof(key) - 1);
	return t ? t + sizeof(key) - 1 : NULL;
}

/* Index a frame line: a cheap check of its shape, its time, whether it is marked. */
static int take_frame_line(struct recording *r, const char *p, size_t len, off_t off, unsigned line,
			   unsigned *exited, char *err, size_t errlen)
{
	struct rec_index *e;
	unsigned now;
	const char *at = frame_time_at(p, len);
	char *end;

	if (!at || at >= p + len || p[len - 1] != '}')
		return fail(err, errlen, EINVAL, "%s:%u: corrupt line (not a frame)", r->path, line);
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		void *q = realloc(r->idx, cap * sizeof(*r->idx));

		if (!q)
			return fail(err, errlen, ENOMEM, "%s: %s", r->path, strerror(ENOMEM));
		r->idx = q;
		r->cap = cap;
	}
	e = &r->idx[r->n++];
	e->off = off;
	e->len = (unsigned)len;
	e->line = line;
	e->time = strtod(at, &end);
	if (end == at || !isfinite(e->time) || e->time < 0)
		return fail(err, errlen, EINVAL, "%s:%u: corrupt line (no time)", r->path, line);
	now = exited_in(p, len);
	/* a frame with probe hits has a non-empty "markers":[{...}] (a quote in
	 * a string is escaped, so this is the field); an exit shows as one more
	 * "exited" */
	e->marked = memmem(p, len, "\"markers\":[{", 12) != NULL || now > *exited;
	*exited = now;
	return 0;
}

/* Index one whole line (without its newline) at off. */
static int take_line(struct recording *r, const char *p, size_t len, off_t off, unsigned line,
		     unsigned *exited, char *err, size_t errlen)
{
	if (len > RECORDING_LINE_MAX)
		return fail(err, errlen, EFBIG, "%s:%u: line longer than %u MiB: not a cowtop frame",
			    r->path, line, RECORDING_LINE_MAX >> 20);
	if (line == 1 || STARTS(p, len, HEADER_PREFIX))
		return take_header(r, p, len, line, err, errlen);
	return take_frame_line(r, p, len, off, line, exited, err, errlen);
}

/* Read the file once in chunks, indexing each whole line; a cut last line
 * is left out with a warning. */
static int build_index(struct recording *r, char *err, size_t errlen)
{
	size_t cap = CHUNK, have = 0, at;
	char *buf = malloc(cap), *nl;
	off_t base = 0;
	unsigned line = 0, exited = 0;
	ssize_t got;
	int e = 0;

	if (!buf)
		return fail(err, errlen, ENOMEM, "%s: %s", r->path, strerror(ENOMEM));
	for (;;) {
		if (have == cap) {
			/* room for the longest line and a chunk */
			char *q = cap > RECORDING_LINE_MAX ? NULL : realloc(buf, 2 * cap);

			if (!q) {
				e = fail(err, errlen, EFBIG, "%s:%u: line longer than %u MiB: not a cowtop frame",
					 r->path, line + 1, RECORDING_LINE_MAX >> 20);
				break;
			}
			buf = q;
			cap *= 2;
		}
		got = read(r->fd, buf + have, cap - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = fail(err, errlen, errno, "%s: %s", r->path, strerror(errno));
			break;
		}
		if (got == 0)
			break;
		have += (size_t)got;
		for (at = 0; !e && (nl = memchr(buf + at, '\n', have - at)); at = (size_t)(nl - buf) + 1)
			e = take_line(r, buf + at, (size_t)(nl - buf) - at, base + (off_t)at, ++line, &exited,
				      err, errlen);
		if (e)
			break;
		if (have - at > RECORDING_LINE_MAX) {
			e = fail(err, errlen, EFBIG, "%s:%u: line longer than %u MiB: not a cowtop frame",
				 r->path, line + 1, RECORDING_LINE_MAX >> 20);
			break;
		}
		memmove(buf, buf + at, have - at);
		base += (off_t)at;
		have -= at;
	}
	if (!e && have && line == 0)
		e = take_header(r, buf, have, 1, err, errlen); /* a header alone, cut or not */
	if (!e && have)
		snprintf(r->warning, sizeof(r->warning),
			 "%s: line %u is cut short (the recorder stopped mid-line): "
			 "replaying the %zu frames before it", r->path, line + 1, r->n);
	free(buf);
	if (!e && line == 0 && !have)
		e = fail(err, errlen, ENODATA, "%s is empty: not a cowtop recording", r->path);
	if (!e && r->n == 0)
		e = fail(err, errlen, ENODATA, "%s holds no frames", r->path);
	return e;
}

/* The fixed labels every recording starts with, as the model names them. */
static void init_labels(struct recording *r)
{
	static const char *const region[] = { "other", "heap", "stack", "anon" };
	int i;

	snprintf(r->labels[SPLIT_PHASE][0], LABEL_MAX, "none");
	r->nlabels[SPLIT_PHASE] = 1;
	for (i = 0; i < SPLIT_REGION_FILES; i++)
		snprintf(r->labels[SPLIT_REGION][i], LABEL_MAX, "%s", region[i]);
	r->nlabels[SPLIT_REGION] = SPLIT_REGION_FILES;
}

/* Open and index path (see recording.h). */
int recording__open(struct recording **out, const char *path, char *err, size_t errlen)
{
	struct recording *r = calloc(1, sizeof(*r));
	struct stat st;
	int e;

	*out = NULL;
	if (!r || !(r->path = strdup(path)) || !(r->tok = json_tokener_new_ex(TOK_DEPTH)) ||
	    !(r->etok = json_tokener_new_ex(PROC_DEPTH))) {
		recording__free(r);
		return fail(err, errlen, ENOMEM, "%s: %s", path, strerror(ENOMEM));
	}
	r->hist_next = SIZE_MAX;
	init_labels(r);
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (r->fd < 0)
		e = fail(err, errlen, errno, "cannot read %s: %s", path, strerror(errno));
	else if (fstat(r->fd, &st) || !S_ISREG(st.st_mode))
		e = fail(err, errlen, EINVAL, "cannot read %s: not a regular file", path);
	else
		e = build_index(r, err, errlen);
	if (e) {
		recording__free(r);
		return e;
	}
	*out = r;
	return 0;
}

/* Let go of the recording; NULL is fine. */
void recording__free(struct recording *r)
{
	if (!r)
		return;
	if (r->fd > 0)
		close(r->fd);
	if (r->tok)
		json_tokener_free(r->tok);
	if (r->etok)
		json_tokener_free(r->etok);
	free(r->path);
	free(r->idx);
	free(r->probes);
	free(r->hist);
	free(r->slots);
	free(r->line);
	free(r);
}

size_t recording__frames(const struct recording *r)
{
	return r->n;
}

const struct recording_info *recording__info(const struct recording *r)
{
	return &r->info;
}

const char *recording__warning(const struct recording *r)
{
	return r->warning;
}

double recording__time(const struct recording *r, size_t k)
{
	return k < r->n ? r->idx[k].time : 0;
}

bool recording__marked(const struct recording *r, size_t k)
{
	return k < r->n && r->idx[k].marked;
}

/* The frame a user names: #FRAME (from 1; past the end, the last),
 * +SECONDS after the first frame, or HH:MM[:SS] on the first frame's day
 * (local time); the first frame at or after that time. -1 when it does not
 * parse. */
long recording__find(const struct recording *r, const char *when)
{
	double first = recording__time(r, 0), v;
	int h, m, sec = 0, used = 0;
	char *end;

	if (when[0] == '#') {
		long k = strtol(when + 1, &end, 10);

		if (end == when + 1 || *end || k < 1)
			return -1;
		return k <= (long)r->n ? k - 1 : (long)r->n - 1;
	}
	if (when[0] == '+') {
		v = strtod(when + 1, &end);
		return end != when + 1 && !*end && v >= 0 ? (long)recording__at_time(r, first + v) : -1;
	}
	if ((sscanf(when, "%d:%d:%d%n", &h, &m, &sec, &used) == 3 ||
	     sscanf(when, "%d:%d%n", &h, &m, &used) == 2) &&
	    !when[used] && h >= 0 && h < 24 && m >= 0 && m < 60 && sec >= 0 && sec < 61) {
		time_t t0 = (time_t)first;
		struct tm tm;

		localtime_r(&t0, &tm);
		tm.tm_hour = h;
		tm.tm_min = m;
		tm.tm_sec = sec;
		tm.tm_isdst = -1;
		return (long)recording__at_time(r, (double)mktime(&tm));
	}
	return -1;
}

/* The first frame at or after t (the last when none): frames are in time order. */
size_t recording__at_time(const struct recording *r, double t)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->idx[mid].time < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n ? lo : r->n - 1;
}

/* Point h's series at its own stores again, after the entries moved. */
static void hist_rebase(struct hist *h)
{
	h->rate.v = h->rate_store.v;
	h->rate.mark = h->rate_store.mark;
	h->shared.v = h->shared_store.v;
	h->shared.mark = h->shared_store.mark;
}

/* The history of (pid, start), made when new; NULL out of memory. */
static struct hist *hist_of(struct recording *r, int pid, unsigned long long start)
{
	size_t h, i;

	if (2 * (r->nhist + 1) > r->nslots) { /* grow the table: at most half full */
		size_t n = r->nslots ? 2 * r->nslots : 256, *s = calloc(n, sizeof(*s));

		if (!s)
			return NULL;
		for (i = 0; i < r->nhist; i++) {
			for (h = ((size_t)r->hist[i].pid * 31 + r->hist[i].start) % n; s[h]; h = (h + 1) % n)
				;
			s[h] = i + 1;
		}
		free(r->slots);
		r->slots = s;
		r->nslots = n;
	}
	for (h = ((size_t)pid * 31 + start) % r->nslots; r->slots[h]; h = (h + 1) % r->nslots) {
		struct hist *e = &r->hist[r->slots[h] - 1];

		if (e->pid == pid && e->start == start)
			return e;
	}
	if (r->nhist == r->histcap) {
		size_t cap = r->histcap ? 2 * r->histcap : 64;
		void *q = realloc(r->hist, cap * sizeof(*r->hist));

		if (!q)
			return NULL;
		r->hist = q;
		r->histcap = cap;
		for (i = 0; i < r->nhist; i++) /* the stores moved */
			hist_rebase(&r->hist[i]);
	}
	r->slots[h] = ++r->nhist;
	r->hist[r->nhist - 1] = (struct hist){ .pid = pid, .start = start };
	series__init_store(&r->hist[r->nhist - 1].rate, &r->hist[r->nhist - 1].rate_store);
	series__init_store(&r->hist[r->nhist - 1].shared, &r->hist[r->nhist - 1].shared_store);
	return &r->hist[r->nhist - 1];
}

/* Forget the histories and the probe log: a jump rebuilds them. */
static void hist_reset(struct recording *r)
{
	r->nhist = 0;
	if (r->slots)
		memset(r->slots, 0, r->nslots * sizeof(*r->slots));
	r->log_total = 0;
}

/* The slot of label in breakdown k, added when new (SPLIT_SLOTS at most). */
static int label_slot(struct recording *r, enum split_kind k, const char *label)
{
	int i;

	for (i = 0; i < r->nlabels[k]; i++)
		if (strcmp(r->labels[k][i], label) == 0)
			return i;
	if (r->nlabels[k] == SPLIT_SLOTS)
		return -1;
	snprintf(r->labels[k][r->nlabels[k]], LABEL_MAX, "%s", label);
	return r->nlabels[k]++;
}

/* The id of a probe label, added when new; -1 out of memory. */
static int probe_id(struct recording *r, const char *label)
{
	void *q;
	int i;

	for (i = 0; i < r->nprobes; i++)
		if (strcmp(r->probes[i], label) == 0)
			return i;
	q = realloc(r->probes, (size_t)(r->nprobes + 1) * sizeof(*r->probes));
	if (!q)
		return -1;
	r->probes = q;
	snprintf(r->probes[r->nprobes], LABEL_MAX, "%s", label);
	return r->nprobes++;
}

/* A process's copies by kind k, as the frame wrote them (slot 0 is computed). */
static void take_split(struct recording *r, json_object *o, enum split_kind k, struct proc *p)
{
	json_object *s = get(o, k == SPLIT_REGION ? "cow_by_region" : "cow_by_phase");

	if (!s || !json_object_is_type(s, json_type_object))
		return;
	json_object_object_foreach(s, key, val) {
		int slot = label_slot(r, k, key);

		if (slot > 0)
			p->split[k].v[slot] = count(r, s, key, NULL);
	}
}

/* A process's smaps figures: none read when pss_kib is null. */
static void take_smaps(struct recording *r, json_object *o, double time, struct proc *p)
{
	struct smaps *s = &p->smaps;
	bool read;
	unsigned long long uss;
	double age;

	s->pss = count(r, o, "pss_kib", &read);
	if (!read)
		return;
	s->pss_anon = count(r, o, "pss_anon_kib", NULL);
	s->shared_clean = count(r, o, "shared_clean_kib", NULL);
	s->shared_dirty = count(r, o, "shared_dirty_kib", NULL);
	s->private_dirty = count(r, o, "private_dirty_kib", NULL);
	s->anon = count(r, o, "anon_kib", NULL);
	s->swap = count(r, o, "swap_kib", NULL);
	uss = count(r, o, "uss_kib", NULL);
	s->private_clean = uss > s->private_dirty ? uss - s->private_dirty : 0;
	age = real(r, o, "smaps_age", 0, 0);
	p->smaps_time = time - age > 0 ? time - age : 1e-9;
}

/* One process of a frame line. */
/* A signal's number from its name as JSON gives it ("SIGKILL", or the
 * number as a string); 0 when unknown. */
static int signal_number(const char *name)
{
	int sig;

	for (sig = 1; sig < 65; sig++)
		if (proc_signal_name(sig) && strcmp(proc_signal_name(sig), name) == 0)
			return sig;
	sig = atoi(name);
	return sig > 0 && sig < 128 ? sig : 0;
}

/* How p ended, from "exit": {"code": N|null, "signal": NAME|null, "core",
 * "oom"} (null while it runs, or when it left the --cgroup target). */
static void take_exit(struct recording *r, json_object *o, struct proc *p)
{
	json_object *e = get(o, "exit"), *v;
	char name[32];
	bool known;
	unsigned long long code;

	if (!e || !json_object_is_type(e, json_type_object))
		return;
	v = get(e, "oom");
	p->exit.oom = v && json_object_get_boolean(v);
	code = (unsigned long long)bounded(r, e, "code", 0, 255, &known);
	if (known) {
		p->exit.known = true;
		p->exit.status = (int)(code & 0xff) << 8;
		return;
	}
	string(r, e, "signal", name, sizeof(name));
	if (!name[0] || !signal_number(name))
		return;
	v = get(e, "core");
	p->exit.known = true;
	p->exit.status = signal_number(name) | (v && json_object_get_boolean(v) ? 0x80 : 0);
}

/* The fields added to a process since the first recordings: command line,
 * namespace pid, exit, reclaim stalls, children forked and exited. */
static void take_proc_more(struct recording *r, json_object *o, struct proc *p)
{
	json_object *rc = get(o, "reclaim");
	bool known;

	string(r, o, "cmdline", p->cmdline, sizeof(p->cmdline));
	p->nspid = (int)bounded(r, o, "nspid", 1, PID_LIMIT, &known);
	if (!known)
		p->nspid = -1;
	take_exit(r, o, p);
	if (rc && json_object_is_type(rc, json_type_object)) {
		p->reclaims = count(r, rc, "stalls", NULL);
		p->reclaim_s = real(r, rc, "seconds", 0, 0);
	}
	p->forked = count(r, o, "children_forked", NULL);
	p->reaped = count(r, o, "children_exited", NULL);
}

static int take_proc(struct recording *r, json_object *o, double time, struct proc *p)
{
	char state[16];
	bool known;

	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	p->pid = (int)bounded(r, o, "pid", 1, PID_LIMIT, &known);
	if (!known)
		bad(r, "a process without a pid");
	p->ppid = (int)bounded(r, o, "ppid", 0, PID_LIMIT, NULL);
	if (p->ppid == p->pid)
		bad(r, "process %d is its own parent", p->pid);
	p->start_time = count(r, o, "start_time", NULL);
	string(r, o, "comm", p->comm, sizeof(p->comm));
	string(r, o, "state", state, sizeof(state));
	p->exited = strcmp(state, "exited") == 0;
	p->state = p->exited ? 'Z' : state[0] == '?' ? 0 : state[0];
	p->counts.cow = count(r, o, "cow_pages", NULL);
	p->counts.cow_kernel = count(r, o, "cow_kernel", NULL);
	p->counts.reuse = count(r, o, "reuse", NULL);
	p->counts.zero_fill = count(r, o, "zero_fill", NULL);
	p->cow_rate = real(r, o, "cow_rate", 0, 0);
	p->rss_kib = count(r, o, "rss_kib", &known);
	if (!known)
		p->state = 0; /* never read: RSS and VSZ unknown, not 0 */
	p->vsz_kib = count(r, o, "vsz_kib", NULL);
	take_proc_more(r, o, p);
	take_smaps(r, o, time, p);
	p->inherited_kib = (long long)count(r, o, "inherited_kib", &known);
	if (!known)
		p->inherited_kib = -1;
	take_split(r, o, SPLIT_REGION, p);
	take_split(r, o, SPLIT_PHASE, p);
	return 0;
}

/* The probe hits of a frame line, in order. */
static int take_marks(struct recording *r, json_object *o, struct frame *f)
{
	json_object *a = get(o, "markers"), *m, *args;
	size_t i, n;
	bool known;
	int k;

	f->usdt = a != NULL;
	f->marks_lost = count(r, o, "markers_lost", NULL);
	n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	f->marks = calloc(n ? n : 1, sizeof(*f->marks));
	if (!f->marks)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct marker *mk = &f->marks[f->nmarks];
		char label[LABEL_MAX];

		m = json_object_array_get_idx(a, i);
		string(r, m, "probe", label, sizeof(label));
		mk->time = real(r, m, "time", 0, 0);
		mk->pid = (int)bounded(r, m, "pid", 1, PID_LIMIT, &known);
		if (!known)
			bad(r, "a probe hit without a pid");
		mk->probe = probe_id(r, label);
		if (mk->probe < 0)
			return -ENOMEM;
		args = get(m, "args");
		for (k = 0; args && json_object_is_type(args, json_type_array) &&
			    k < MARK_ARGS && k < (int)json_object_array_length(args); k++) {
			json_object *v = json_object_array_get_idx(args, (size_t)k);

			if (!v) /* null: cowtop could not read it */
				mk->unavail |= 1u << k;
			else if (!json_object_is_type(v, json_type_int))
				bad(r, "a probe argument is not an integer");
			else
				mk->args[k] = json_object_get_int64(v);
		}
		mk->nargs = k;
		f->nmarks++;
	}
	return 0;
}

/* The probe hit's process name in f, for the log. */
static void log_mark(struct recording *r, const struct frame *f, const struct marker *mk)
{
	struct frame_mark *e = &r->log[r->log_total++ % FRAME_LOG];
	size_t i;

	*e = (struct frame_mark){ .mk = *mk };
	for (i = 0; i < f->nprocs; i++)
		if (f->procs[i].pid == mk->pid)
			memcpy(e->comm, f->procs[i].comm, sizeof(e->comm));
}

/* Log the probe hits; with series, push every process's values onto its
 * history and give it the history (frame__finish copies what the view
 * draws of it). */
static int take_history(struct recording *r, struct frame *f, bool series)
{
	size_t i, k, *at = NULL;

	if (series && f->nprocs && !(at = malloc(f->nprocs * sizeof(*at))))
		return -ENOMEM;
	for (i = 0; series && i < f->nprocs; i++) {
		struct proc *p = &f->procs[i];
		struct hist *h = hist_of(r, p->pid, p->start_time);
		unsigned char mark = 0;

		if (!h) {
			free(at);
			return -ENOMEM;
		}
		for (k = 0; k < f->nmarks && !mark; k++)
			if (f->marks[k].pid == p->pid)
				mark = (unsigned char)(1 + f->marks[k].probe);
		series__push_marked(&h->rate, p->cow_rate, mark);
		series__push_marked(&h->shared, proc_shared_pct(p), mark);
		at[i] = (size_t)(h - r->hist);
	}
	/* Only now: a new entry may have moved the others. */
	for (i = 0; series && i < f->nprocs; i++) {
		f->procs[i].rate = r->hist[at[i]].rate;
		f->procs[i].shared = r->hist[at[i]].shared;
	}
	free(at);
	for (k = 0; k < f->nmarks; k++)
		log_mark(r, f, &f->marks[k]);
	return 0;
}

/* The labels and the probe log as they stand, copied into the frame. */
static int take_labels(struct recording *r, struct frame *f)
{
	size_t kept = r->log_total < FRAME_LOG ? r->log_total : FRAME_LOG, i;
	int k;

	f->nprobes = r->nprobes;
	f->probe_labels = calloc((size_t)r->nprobes + 1, sizeof(*f->probe_labels));
	f->log = calloc(kept + 1, sizeof(*f->log));
	if (!f->probe_labels || !f->log)
		return -ENOMEM;
	if (r->nprobes) /* r->probes is NULL before the first probe */
		memcpy(f->probe_labels, r->probes, (size_t)r->nprobes * sizeof(*r->probes));
	for (k = 0; k < SPLIT_KINDS; k++) {
		f->nlabels[k] = r->nlabels[k];
		f->labels[k] = calloc((size_t)r->nlabels[k], sizeof(*f->labels[k]));
		if (!f->labels[k])
			return -ENOMEM;
		memcpy(f->labels[k], r->labels[k], (size_t)r->nlabels[k] * sizeof(*f->labels[k]));
	}
	for (i = r->log_total - kept; i < r->log_total; i++)
		f->log[f->nlog++] = r->log[i % FRAME_LOG];
	f->log_kept = r->log_total;
	return 0;
}

/* Give each group's root its memory cgroup, as the group line wrote it. */
/* Memory pressure {"some_avg10": X|null, "full_avg10": Y|null}; -1 unknown. */
static void take_psi(struct recording *r, json_object *o, struct psi *psi)
{
	psi->some_avg10 = psi->full_avg10 = -1;
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	psi->some_avg10 = real(r, o, "some_avg10", -1, 0);
	psi->full_avg10 = real(r, o, "full_avg10", -1, 0);
}

static void take_groups(struct recording *r, json_object *o, struct frame *f)
{
	json_object *a = get(o, "groups");
	size_t i, j, n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	for (i = 0; i < n; i++) {
		json_object *g = json_object_array_get_idx(a, i);
		int root = (int)bounded(r, g, "root", 1, PID_LIMIT, NULL);

		for (j = 0; j < f->nprocs; j++)
			if (f->procs[j].pid == root && !f->procs[j].exited) {
				f->procs[j].memcg.limit_kib = count(r, g, "cgroup_limit_kib", NULL);
				f->procs[j].memcg.usage_kib = count(r, g, "cgroup_usage_kib", NULL);
				take_psi(r, get(g, "cgroup_psi_memory"), &f->procs[j].memcg.psi);
				f->procs[j].memcg.psi_known = f->procs[j].memcg.psi.some_avg10 >= 0;
			}
	}
}

/* The frame's own figures (all but its processes, groups and probe hits). */
static void take_head(struct recording *r, json_object *o, struct frame *f)
{
	f->refs = 1;
	f->time = real(r, o, "time", 0, 0);
	f->interval = real(r, o, "interval", 0, 0);
	string(r, o, "mechanism", f->mechanism, sizeof(f->mechanism));
	string(r, o, "fallbacks", f->fallbacks, sizeof(f->fallbacks));
	string(r, o, "host", f->host, sizeof(f->host));
	take_psi(r, get(o, "psi_memory"), &f->psi);
	snprintf(f->target, sizeof(f->target), "%s", r->info.target);
	f->lost = count(r, o, "lost", NULL);
	f->lost_by_kind[LOST_MAP_FULL] = count(r, o, "lost_processes", NULL);
	f->mem_available_kib = count(r, o, "mem_available_kib", NULL);
}

/* The frame's own figures and its processes, from the tree of its whole line. */
static int take_body(struct recording *r, json_object *o, struct frame *f)
{
	json_object *a = get(o, "processes");
	size_t i, n;

	if (!a || !json_object_is_type(a, json_type_array))
		return -EINVAL;
	take_head(r, o, f);
	n = json_object_array_length(a);
	f->procs = calloc(n ? n : 1, sizeof(*f->procs));
	if (!f->procs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (take_proc(r, json_object_array_get_idx(a, i), f->time, &f->procs[i]))
			return -EINVAL;
		f->nprocs++;
	}
	take_groups(r, o, f);
	return take_marks(r, o, f);
}

/* Where json-c stands after some text of a line: how deep, whether in a
 * string (it also takes single-quoted ones) and how many keys the frame's
 * own object has had; comments (json-c takes them too) are not followed. */
struct lex {
	int depth;
	char quote;
	bool escape, comment;
	unsigned keys;
};

/* Move x over p[0..n). */
static void lex(struct lex *x, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = p[i];

		if (x->escape) {
			x->escape = false;
		} else if (x->quote) {
			if (c == '\\')
				x->escape = true;
			else if (c == x->quote)
				x->quote = 0;
		} else if (c == '"' || c == '\'') {
			x->quote = c;
		} else if (c == '{' || c == '[') {
			x->depth++;
		} else if (c == '}' || c == ']') {
			x->depth--;
		} else if (c == ':' && x->depth == 1) {
			x->keys++;
		} else if (c == '/') {
			x->comment = true;
		}
	}
}

/* The first index from i on that is not a blank between JSON values. */
static size_t blanks(const char *p, size_t i, size_t len)
{
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
		i++;
	return i;
}

/* Room for the processes of the array p[i..len): as many as it has
 * objects starting {"pid": (the recorder writes each so); more later if
 * that was too few. */
static int procs_alloc(const char *p, size_t i, size_t len, struct frame *f, size_t *cap)
{
	static const char start[] = "{\"pid\":";
	const char *q = p + i, *end = p + len;
	size_t n = 0;

	while ((q = memmem(q, (size_t)(end - q), start, sizeof(start) - 1))) {
		n++;
		q += sizeof(start) - 1;
	}
	*cap = n ? n : 1;
	f->procs = calloc(*cap, sizeof(*f->procs));
	return f->procs ? 0 : -ENOMEM;
}

/* Room for one more process in f. */
static int proc_room(struct frame *f, size_t *cap)
{
	size_t n = *cap + *cap / 2 + 16;
	struct proc *q;

	if (f->nprocs < *cap)
		return 0;
	q = realloc(f->procs, n * sizeof(*q));
	if (!q)
		return -ENOMEM;
	memset(q + *cap, 0, (n - *cap) * sizeof(*q));
	f->procs = q;
	*cap = n;
	return 0;
}

/* The processes of the array whose elements start at p[*at], one at a
 * time: each parsed alone, taken, let go, so that the tree of thousands of
 * processes is never built. *at ends on the array's ']'. 1 when the text
 * is not an array of processes as the recorder writes it. */
static int take_procs(struct recording *r, const char *p, size_t len, size_t *at, double time,
		      struct frame *f)
{
	size_t i = blanks(p, *at, len), cap;
	json_object *o;
	int e;

	if (procs_alloc(p, i, len, f, &cap))
		return -ENOMEM;
	if (i < len && p[i] == ']') {
		*at = i;
		return 0;
	}
	for (;;) {
		json_tokener_reset(r->etok);
		o = json_tokener_parse_ex(r->etok, p + i, (int)(len - i));
		if (!o || json_tokener_get_error(r->etok) != json_tokener_success) {
			json_object_put(o);
			return 1;
		}
		e = proc_room(f, &cap);
		if (!e)
			e = take_proc(r, o, time, &f->procs[f->nprocs]) ? 1 : 0;
		json_object_put(o);
		if (e)
			return e;
		f->nprocs++;
		i = blanks(p, i + json_tokener_get_parse_end(r->etok), len);
		if (i < len && p[i] == ']') {
			*at = i;
			return 0;
		}
		if (i >= len || p[i] != ',')
			return 1;
		i = blanks(p, i + 1, len);
	}
}

/* The line without its processes: the text up to the array's '[', then
 * from its ']' on, fed to the parser in two pieces (no copy); NULL when
 * that is not one JSON object whose "processes" is that empty array. */
static json_object *parse_rest(struct recording *r, const char *p, size_t len, size_t open,
			       size_t close)
{
	json_object *o, *a;

	json_tokener_reset(r->tok);
	o = json_tokener_parse_ex(r->tok, p, (int)open);
	if (o || json_tokener_get_error(r->tok) != json_tokener_continue) {
		json_object_put(o);
		return NULL;
	}
	o = json_tokener_parse_ex(r->tok, p + close, (int)(len - close));
	a = get(o, "processes");
	if (!o || json_tokener_get_error(r->tok) != json_tokener_success ||
	    json_tokener_get_parse_end(r->tok) != len - close || !json_object_is_type(o, json_type_object) ||
	    !a || !json_object_is_type(a, json_type_array) || json_object_array_length(a)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Frame k from its line in r->line, the processes one by one (see
 * take_procs). 1 when the line is not as the recorder writes it: then the
 * caller parses it whole, which gives the same frame or the exact error. */
static int take_line_procs_apart(struct recording *r, size_t k, struct frame *f)
{
	const char *p = r->line, *key;
	size_t len = r->idx[k].len, open, close;
	double time = r->idx[k].time; /* the same text as "time" (checked below) */
	struct lex x = { 0 };
	json_object *o;
	int e;

	key = memmem(p, len, PROCS_KEY, sizeof(PROCS_KEY) - 1);
	if (!key)
		return 1;
	/* the frame's own key, not text in a string or a key further down */
	lex(&x, p, (size_t)(key - p));
	if (x.depth != 1 || x.quote || x.escape || x.comment)
		return 1;
	open = (size_t)(key - p) + sizeof(PROCS_KEY) - 1;
	lex(&x, key, sizeof(PROCS_KEY) - 1);
	close = open;
	e = take_procs(r, p, len, &close, time, f);
	if (e)
		return e;
	lex(&x, p + close, len - close);
	o = x.comment ? NULL : parse_rest(r, p, len, open, close);
	/* a key twice (json-c keeps the last) would make fewer members than
	 * keys: the array read apart might not be the frame's "processes" */
	if (!o || json_object_object_length(o) != (int)x.keys || real(r, o, "time", 0, 0) != time) {
		json_object_put(o);
		return 1;
	}
	take_head(r, o, f);
	take_groups(r, o, f);
	e = take_marks(r, o, f);
	json_object_put(o);
	return e;
}

/* Order processes by pid, then start time. */
static int cmp_pid_start(const void *x, const void *y)
{
	const struct proc *a = *(const struct proc *const *)x, *b = *(const struct proc *const *)y;

	if (a->pid != b->pid)
		return (a->pid > b->pid) - (a->pid < b->pid);
	return (a->start_time > b->start_time) - (a->start_time < b->start_time);
}

/* The parent of p among the processes sorted by pid (the running one of
 * its pid, else the first), or -1 when the frame does not hold it. */
static long parent_in(struct proc **by, size_t n, const struct proc *p)
{
	size_t lo = 0, hi = n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (by[mid]->pid < p->ppid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < n && by[i]->pid == p->ppid; i++)
		if (!by[i]->exited)
			return (long)i;
	return lo < n && by[lo]->pid == p->ppid ? (long)lo : -1;
}

/* The processes of f make a tree: no (pid, start time) twice, and no
 * process its own ancestor (a ppid the frame does not hold makes a root,
 * as a -p target's parent does). */
static int check_tree(struct recording *r, const struct frame *f)
{
	size_t n = f->nprocs, i, j;
	struct proc **by = malloc((n ? n : 1) * sizeof(*by));
	long *up = malloc((n ? n : 1) * sizeof(*up));
	unsigned char *seen = calloc(n ? n : 1, 1); /* 1: on the walk now, 2: reaches a root */

	if (!by || !up || !seen) {
		free(by), free(up), free(seen);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		by[i] = &f->procs[i];
	qsort(by, n, sizeof(*by), cmp_pid_start);
	for (i = 0; i < n; i++) {
		if (i && cmp_pid_start(&by[i - 1], &by[i]) == 0)
			bad(r, "process %d (start %llu) is in the frame twice", by[i]->pid, by[i]->start_time);
		up[i] = parent_in(by, n, by[i]);
	}
	for (i = 0; i < n && !r->why[0]; i++) {
		for (j = i; up[j] >= 0 && !seen[j]; j = (size_t)up[j])
			seen[j] = 1;
		if (up[j] >= 0 && seen[j] == 1)
			bad(r, "process %d is its own ancestor", by[j]->pid);
		for (j = i; seen[j] == 1; j = (size_t)up[j])
			seen[j] = 2;
	}
	free(by), free(up), free(seen);
	return 0;
}

/* Frame k from its line in r->line into the empty frame f; -EINVAL with
 * the reason in why, or -ENOMEM. */
static int take_line_frame(struct recording *r, size_t k, struct frame *f, char *why, size_t whylen)
{
	json_object *o;
	int e;

	r->why[0] = '\0';
	e = take_line_procs_apart(r, k, f);
	snprintf(why, whylen, "not a frame");
	if (e > 0) {
		free(f->procs);
		memset(f, 0, sizeof(*f));
		r->why[0] = '\0';
		o = parse(r, r->line, r->idx[k].len, why, whylen);
		if (!o)
			return -EINVAL;
		e = take_body(r, o, f);
		json_object_put(o);
	}
	if (!e && !r->why[0])
		e = check_tree(r, f);
	if (!e && r->why[0]) {
		snprintf(why, whylen, "%s", r->why);
		e = -EINVAL;
	}
	return e;
}

/* Read frame k's line into r->line. */
static int read_line(struct recording *r, size_t k, char *err, size_t errlen)
{
	const struct rec_index *e = &r->idx[k];
	ssize_t got;

	if (e->len + 1 > r->linecap) {
		char *q = realloc(r->line, e->len + 1);

		if (!q)
			return fail(err, errlen, ENOMEM, "%s: %s", r->path, strerror(ENOMEM));
		r->line = q;
		r->linecap = e->len + 1;
	}
	got = pread(r->fd, r->line, e->len, e->off);
	if (got != (ssize_t)e->len)
		return fail(err, errlen, EIO, "%s:%u: cannot read the line: %s", r->path, e->line,
			    got < 0 ? strerror(errno) : "the file shrank");
	return 0;
}

/* Frame k rebuilt from its line, its values pushed onto the histories
 * when series. */
static int rebuild(struct recording *r, size_t k, bool series, struct frame **out, char *err,
		   size_t errlen)
{
	struct frame *f = calloc(1, sizeof(*f));
	char why[256];
	int e;

	*out = NULL;
	if (!f)
		return fail(err, errlen, ENOMEM, "%s: %s", r->path, strerror(ENOMEM));
	e = read_line(r, k, err, errlen);
	if (e) {
		free(f);
		return e;
	}
	e = take_line_frame(r, k, f, why, sizeof(why));
	if (!e)
		e = take_history(r, f, series);
	if (e) {
		f->refs = 1;
		frame__free(f);
		return fail(err, errlen, -e, "%s:%u: corrupt line: %s", r->path, r->idx[k].line,
			    e == -ENOMEM ? strerror(ENOMEM) : why);
	}
	*out = f;
	return 0;
}

/* Frame k (see recording.h): after a jump, the frames before it are read
 * first for the histories. */
int recording__frame(struct recording *r, size_t k, const struct view_opts *vo, struct frame **out,
		     char *err, size_t errlen)
{
	bool series = vo && vo->hist > 0; /* else no view draws a history */
	struct frame *f;
	size_t j;
	int e;

	*out = NULL;
	err[0] = '\0';
	if (k >= r->n)
		return fail(err, errlen, ERANGE, "%s: no frame %zu", r->path, k + 1);
	if (r->hist_next != k || r->hist_series != series) {
		hist_reset(r);
		/* As many frames back as the view draws; a corrupt line
		 * before k only leaves a gap in the histories. */
		size_t back = series ? (size_t)(vo->hist < HIST_WINDOW ? vo->hist : HIST_WINDOW) : 0;

		for (j = k > back ? k - back : 0; j < k; j++) {
			rebuild(r, j, series, &f, err, errlen);
			frame__free(f);
		}
		err[0] = '\0';
	}
	r->hist_next = SIZE_MAX;
	r->hist_series = series;
	e = rebuild(r, k, series, &f, err, errlen);
	if (!e)
		e = take_labels(r, f);
	if (!e)
		e = frame__finish(f, vo);
	if (e) {
		frame__free(f);
		return e < 0 && err[0] ? e : fail(err, errlen, -e, "%s: %s", r->path, strerror(-e));
	}
	r->hist_next = k + 1;
	*out = f;
	return 0;
}
