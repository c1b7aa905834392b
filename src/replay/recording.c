/* Recordings read back. Opening reads the file once, in chunks, and keeps
 * per frame only its offset, time and whether it holds probe hits or exits
 * (a cheap look at the line's bytes; the whole line is parsed only when the
 * frame is shown). A frame is rebuilt from its line with json-c into the
 * same struct frame the tracer's frames are, its processes one at a time
 * (the tree of a whole line of thousands would cost several times the
 * frame); the histories the sparklines show are carried from frame to
 * frame, and rebuilt from the frames before it after a jump. */
#include "recording_int.h"

/* Say why, with the file's name, and return -e. */
int rec_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

/* Parse len bytes as one JSON object; NULL with the reason in why. */
json_object *rec_parse(struct recording *r, const char *p, size_t len, char *why, size_t whylen)
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
	json_object *o = rec_parse(r, p, len, why, sizeof(why));
	bool known;
	int schema;

	r->jr.why[0] = '\0';
	if (!o || !jread_get(o, "recording") || !jread_get(o, "schema")) {
		json_object_put(o);
		return rec_fail(err, errlen, EINVAL, "%s: not a cowtop recording (line %u is not its header)",
			    r->path, line);
	}
	schema = (int)jread_bounded(&r->jr, o, "schema", 1, INT_MAX, &known);
	if (!known || r->jr.why[0]) {
		json_object_put(o);
		return rec_fail(err, errlen, EINVAL, "%s:%u: invalid schema in the header", r->path, line);
	}
	if (schema > RECORD_SCHEMA) {
		json_object_put(o);
		return rec_fail(err, errlen, EPROTO,
			    "%s was recorded by a newer cowtop (schema %d; this one reads schema %d)",
			    r->path, schema, RECORD_SCHEMA);
	}
	if (line == 1) {
		in->schema = schema;
		jread_string(&r->jr, o, "host", in->host, sizeof(in->host));
		jread_string(&r->jr, o, "kernel", in->kernel, sizeof(in->kernel));
		jread_string(&r->jr, o, "cowtop", in->version, sizeof(in->version));
		jread_string(&r->jr, o, "boot_id", in->boot_id, sizeof(in->boot_id));
		jread_string(&r->jr, o, "mechanism", in->mechanism, sizeof(in->mechanism));
		jread_string(&r->jr, o, "target", in->target, sizeof(in->target));
		in->start = jread_real(&r->jr, o, "start", 0, 0);
		in->delay = jread_real(&r->jr, jread_get(o, "options"), "delay", 0, 0);
		in->btime = jread_real(&r->jr, o, "btime", 0, 0);
		in->clk_tck = (long)jread_bounded(&r->jr, o, "clk_tck", 0, 1000000, NULL);
	}
	json_object_put(o);
	if (r->jr.why[0])
		return rec_fail(err, errlen, EINVAL, "%s:%u: invalid header: %s", r->path, line, r->jr.why);
	return 0;
}

/* How many processes of the line are shown exited. */
static unsigned exited_in(const char *p, size_t len)
{
	const char *end = p + len, *hit;
	unsigned n = 0;

	while ((hit = memmem(p, (size_t)(end - p), PROCJSON_EXITED, sizeof(PROCJSON_EXITED) - 1))) {
		n++;
		p = hit + sizeof(PROCJSON_EXITED) - 1;
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
		return rec_fail(err, errlen, EINVAL, "%s:%u: corrupt line (not a frame)", r->path, line);
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		void *q = realloc(r->idx, cap * sizeof(*r->idx));

		if (!q)
			return rec_fail(err, errlen, ENOMEM, "%s: %s", r->path, strerror(ENOMEM));
		r->idx = q;
		r->cap = cap;
	}
	e = &r->idx[r->n++];
	e->off = off;
	e->len = (unsigned)len;
	e->line = line;
	e->time = strtod(at, &end);
	if (end == at || !isfinite(e->time) || e->time < 0)
		return rec_fail(err, errlen, EINVAL, "%s:%u: corrupt line (no time)", r->path, line);
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
		return rec_fail(err, errlen, EFBIG, "%s:%u: line longer than %u MiB: not a cowtop frame",
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
		return rec_fail(err, errlen, ENOMEM, "%s: %s", r->path, strerror(ENOMEM));
	for (;;) {
		if (have == cap) {
			/* room for the longest line and a chunk */
			char *q = cap > RECORDING_LINE_MAX ? NULL : realloc(buf, 2 * cap);

			if (!q) {
				e = rec_fail(err, errlen, EFBIG, "%s:%u: line longer than %u MiB: not a cowtop frame",
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
			e = rec_fail(err, errlen, errno, "%s: %s", r->path, strerror(errno));
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
			e = rec_fail(err, errlen, EFBIG, "%s:%u: line longer than %u MiB: not a cowtop frame",
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
			 "reading only the %zu frames before it", r->path, line + 1, r->n);
	free(buf);
	if (!e && line == 0 && !have)
		e = rec_fail(err, errlen, ENODATA, "%s is empty: not a cowtop recording", r->path);
	if (!e && r->n == 0)
		e = rec_fail(err, errlen, ENODATA, "%s holds no frames", r->path);
	return e;
}

/* The fixed labels every recording starts with, as the model names them. */
static void init_labels(struct recording *r)
{
	static const char *const region[] = { "other", "heap", "stack", "anon" };
	int i;

	snprintf(r->labels[SPLIT_PHASE][0], LABEL_MAX, "%s", PHASE_OUTSIDE);
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
		return rec_fail(err, errlen, ENOMEM, "%s: %s", path, strerror(ENOMEM));
	}
	r->hist_next = SIZE_MAX;
	init_labels(r);
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (r->fd < 0 && errno == EACCES) /* 0600 on purpose: it holds command lines */
		e = rec_fail(err, errlen, EACCES, "cannot read %s: %s (a recording is 0600, its recorder's: "
			     "sudo chown $USER FILE, or replay with sudo)", path, strerror(EACCES));
	else if (r->fd < 0)
		e = rec_fail(err, errlen, errno, "cannot read %s: %s", path, strerror(errno));
	else if (fstat(r->fd, &st) || !S_ISREG(st.st_mode))
		e = rec_fail(err, errlen, EINVAL, "cannot read %s: not a regular file", path);
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

/* Read frame k's line into r->line. */
static int read_line(struct recording *r, size_t k, char *err, size_t errlen)
{
	const struct rec_index *e = &r->idx[k];
	ssize_t got;

	if (e->len + 1 > r->linecap) {
		char *q = realloc(r->line, e->len + 1);

		if (!q)
			return rec_fail(err, errlen, ENOMEM, "%s: %s", r->path, strerror(ENOMEM));
		r->line = q;
		r->linecap = e->len + 1;
	}
	got = pread(r->fd, r->line, e->len, e->off);
	if (got != (ssize_t)e->len)
		return rec_fail(err, errlen, EIO, "%s:%u: cannot read the line: %s", r->path, e->line,
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
		return rec_fail(err, errlen, ENOMEM, "%s: %s", r->path, strerror(ENOMEM));
	e = read_line(r, k, err, errlen);
	if (e) {
		free(f);
		return e;
	}
	e = rec_take_line_frame(r, k, f, why, sizeof(why));
	if (!e)
		e = rec_take_history(r, f, series);
	if (e) {
		f->refs = 1;
		frame__free(f);
		return rec_fail(err, errlen, -e, "%s:%u: corrupt line: %s", r->path, r->idx[k].line,
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
		return rec_fail(err, errlen, ERANGE, "%s: no frame %zu", r->path, k + 1);
	if (r->hist_next != k || r->hist_series != series) {
		rec_hist_reset(r);
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
		e = rec_take_labels(r, f);
	if (!e)
		e = frame__finish(f, vo);
	if (e) {
		frame__free(f);
		return e < 0 && err[0] ? e : rec_fail(err, errlen, -e, "%s: %s", r->path, strerror(-e));
	}
	r->hist_next = k + 1;
	*out = f;
	return 0;
}
