/* A recording's line decoded into a frame: its own figures, its
 * processes one at a time (procjson.c reads each), groups, probe hits,
 * and the checks of the tree it makes. */
#include "recording_int.h"
#include "runtime.h"

/* The slot of a breakdown label (for procjson_read). */
static int take_label(void *ctx, enum split_kind k, const char *label)
{
	return rec_label_slot(ctx, k, label);
}

/* The frame's object sampler (--objects), made when first met. */
static struct objects_snap *frame_objects(struct frame *f)
{
	if (!f->objects)
		f->objects = objects_snap__new(0, -1, 0);
	return f->objects;
}

/* A process's copies by runtime object ("cow_objects"), into the frame's
 * snapshot; 0 without, -ENOMEM. Type names are kept as text: the views
 * sanitize them as they do any name from a recording. */
static int take_objects(struct recording *r, json_object *o, struct frame *f, const struct proc *p)
{
	json_object *c = jread_get(o, "cow_objects"), *bw, *top;
	struct objects_proc op = { .pid = p->pid, .start = p->start_time };
	char s[OBJECTS_NAME_MAX];
	size_t i, n;
	int w;

	if (!c)
		return 0;
	if (!frame_objects(f))
		return -ENOMEM;
	jread_string(&r->jr, c, "runtime", s, sizeof(s));
	op.runtime = runtime_name(runtime_of_label(s));
	op.pages = jread_count(&r->jr, c, "pages", NULL);
	bw = jread_get(c, "by_write");
	for (w = 0; bw && w < OBJ_WRITES; w++)
		op.by_write[w] = jread_count(&r->jr, bw, obj_write_name(w), NULL);
	top = jread_get(c, "top");
	n = top && json_object_is_type(top, json_type_array) ? json_object_array_length(top) : 0;
	for (i = 0; i < n && op.ntop < OBJECTS_TOP; i++) {
		json_object *e = json_object_array_get_idx(top, i);
		struct objects_row *row = &op.top[op.ntop++];

		jread_string(&r->jr, e, "type", row->type, sizeof(row->type));
		jread_string(&r->jr, e, "class", row->cls, sizeof(row->cls));
		jread_string(&r->jr, e, "write", s, sizeof(s));
		row->write = obj_write_of_name(s);
		row->pages = jread_count(&r->jr, e, "pages", NULL);
	}
	return objects_snap__push(f->objects, &op);
}

/* One process of a frame line, into p (of f). */
static int take_proc(struct recording *r, json_object *o, double time, struct frame *f,
		     struct proc *p)
{
	const struct procjson_in in = { .jr = &r->jr, .time = time, .label_slot = take_label, .ctx = r };
	int e = procjson_read(&in, o, p);

	return e ? e : take_objects(r, o, f, p);
}

/* The probe hits of a frame line, in order. Whether the frame was written
 * with -u (phases: 1 its processes carry their copies per phase, 0 they do
 * not, -1 it has none): markers alone do not say, the kernel's markers (OOM
 * kills, exits) come without -u too. */
static int take_marks(struct recording *r, json_object *o, struct frame *f, int phases)
{
	json_object *a = jread_get(o, "markers"), *m, *args;
	size_t i, n;
	bool known;
	int k;

	f->usdt = phases >= 0 ? phases : a != NULL;
	f->marks_lost = jread_count(&r->jr, o, "markers_lost", NULL);
	n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	f->marks = calloc(n ? n : 1, sizeof(*f->marks));
	if (!f->marks)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct marker *mk = &f->marks[f->nmarks];
		char label[LABEL_MAX];

		m = json_object_array_get_idx(a, i);
		jread_string(&r->jr, m, "probe", label, sizeof(label));
		mk->time = jread_real(&r->jr, m, "time", 0, 0);
		mk->pid = (int)jread_bounded(&r->jr, m, "pid", 1, PID_LIMIT, &known);
		if (!known)
			jread_bad(&r->jr, "a probe hit without a pid");
		mk->probe = rec_probe_id(r, label);
		if (mk->probe < 0)
			return -ENOMEM;
		args = jread_get(m, "args");
		for (k = 0; args && json_object_is_type(args, json_type_array) &&
			    k < MARK_ARGS && k < (int)json_object_array_length(args); k++) {
			json_object *v = json_object_array_get_idx(args, (size_t)k);

			if (!v) /* null: cowtop could not read it */
				mk->unavail |= 1u << k;
			else if (!json_object_is_type(v, json_type_int))
				jread_bad(&r->jr, "a probe argument is not an integer");
			else
				mk->args[k] = json_object_get_int64(v);
		}
		mk->nargs = k;
		f->nmarks++;
	}
	return 0;
}

/* Memory pressure {"some_avg10": X|null, "full_avg10": Y|null}; -1 unknown. */
static void take_psi(struct recording *r, json_object *o, struct psi *psi)
{
	psi->some_avg10 = psi->full_avg10 = -1;
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	psi->some_avg10 = jread_real(&r->jr, o, "some_avg10", -1, 0);
	psi->full_avg10 = jread_real(&r->jr, o, "full_avg10", -1, 0);
}

/* Give each group's root its memory cgroup, as the group line wrote it. */
static void take_groups(struct recording *r, json_object *o, struct frame *f)
{
	json_object *a = jread_get(o, "groups");
	size_t i, j, n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;

	for (i = 0; i < n; i++) {
		json_object *g = json_object_array_get_idx(a, i);
		int root = (int)jread_bounded(&r->jr, g, "root", 1, PID_LIMIT, NULL);

		for (j = 0; j < f->nprocs; j++)
			if (f->procs[j].pid == root && !f->procs[j].exited) {
				f->procs[j].memcg.limit_kib = jread_count(&r->jr, g, "cgroup_limit_kib", NULL);
				f->procs[j].memcg.usage_kib = jread_count(&r->jr, g, "cgroup_usage_kib", NULL);
				take_psi(r, jread_get(g, "cgroup_psi_memory"), &f->procs[j].memcg.psi);
				f->procs[j].memcg.psi_known = f->procs[j].memcg.psi.some_avg10 >= 0;
			}
	}
}

/* The frame's own figures (all but its processes, groups and probe hits). */
static void take_head(struct recording *r, json_object *o, struct frame *f)
{
	json_object *ob;

	f->refs = 1;
	f->time = jread_real(&r->jr, o, "time", 0, 0);
	f->interval = jread_real(&r->jr, o, "interval", 0, 0);
	jread_string(&r->jr, o, "mechanism", f->mechanism, sizeof(f->mechanism));
	jread_string(&r->jr, o, "fallbacks", f->fallbacks, sizeof(f->fallbacks));
	jread_string(&r->jr, o, "host", f->host, sizeof(f->host));
	take_psi(r, jread_get(o, "psi_memory"), &f->psi);
	snprintf(f->target, sizeof(f->target), "%s", r->info.target);
	f->lost = jread_count(&r->jr, o, "lost", NULL);
	f->lost_by_kind[LOST_MAP_FULL] = jread_count(&r->jr, o, "lost_processes", NULL);
	f->mem_available_kib = jread_count(&r->jr, o, "mem_available_kib", NULL);
	ob = jread_get(o, "objects");
	if (ob && frame_objects(f)) {
		f->objects->every = (unsigned)jread_bounded(&r->jr, ob, "sample", 0, UINT32_MAX, NULL);
		f->objects->failed = jread_count(&r->jr, ob, "failed", NULL);
		f->objects->us_per_sample = jread_real(&r->jr, ob, "us_per_sample", -1, -1);
	}
}

/* The frame's own figures and its processes, from the tree of its whole line. */
static int take_body(struct recording *r, json_object *o, struct frame *f)
{
	json_object *a = jread_get(o, "processes");
	size_t i, n;

	if (!a || !json_object_is_type(a, json_type_array))
		return -EINVAL;
	take_head(r, o, f);
	n = json_object_array_length(a);
	f->procs = calloc(n ? n : 1, sizeof(*f->procs));
	if (!f->procs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (take_proc(r, json_object_array_get_idx(a, i), f->time, f, &f->procs[i]))
			return -EINVAL;
		f->nprocs++;
	}
	take_groups(r, o, f);
	return take_marks(r, o, f, n ? jread_get(json_object_array_get_idx(a, 0), "cow_by_phase") != NULL : -1);
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
			e = take_proc(r, o, time, f, &f->procs[f->nprocs]) ? 1 : 0;
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

#define PHASES_KEY "\"cow_by_phase\":"

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
	a = jread_get(o, "processes");
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
	if (!o || json_object_object_length(o) != (int)x.keys || jread_real(&r->jr, o, "time", 0, 0) != time) {
		json_object_put(o);
		return 1;
	}
	take_head(r, o, f);
	take_groups(r, o, f);
	/* the key as the writer puts it: in a string its quotes are escaped */
	e = take_marks(r, o, f, f->nprocs ? memmem(p + open, close - open, PHASES_KEY, sizeof(PHASES_KEY) - 1) != NULL : -1);
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
			jread_bad(&r->jr, "process %d (start %llu) is in the frame twice", by[i]->pid, by[i]->start_time);
		up[i] = parent_in(by, n, by[i]);
	}
	for (i = 0; i < n && !r->jr.why[0]; i++) {
		for (j = i; up[j] >= 0 && !seen[j]; j = (size_t)up[j])
			seen[j] = 1;
		if (up[j] >= 0 && seen[j] == 1)
			jread_bad(&r->jr, "process %d is its own ancestor", by[j]->pid);
		for (j = i; seen[j] == 1; j = (size_t)up[j])
			seen[j] = 2;
	}
	free(by), free(up), free(seen);
	return 0;
}

/* Frame k from its line in r->line into the empty frame f; -EINVAL with
 * the reason in why, or -ENOMEM. */
int rec_take_line_frame(struct recording *r, size_t k, struct frame *f, char *why, size_t whylen)
{
	json_object *o;
	int e;

	r->jr.why[0] = '\0';
	e = take_line_procs_apart(r, k, f);
	snprintf(why, whylen, "not a frame");
	if (e > 0) {
		free(f->procs);
		objects_snap__free(f->objects);
		memset(f, 0, sizeof(*f));
		r->jr.why[0] = '\0';
		o = rec_parse(r, r->line, r->idx[k].len, why, whylen);
		if (!o)
			return -EINVAL;
		e = take_body(r, o, f);
		json_object_put(o);
	}
	if (!e && !r->jr.why[0])
		e = check_tree(r, f);
	if (!e && f->objects)
		objects_snap__sort(f->objects);
	if (!e && r->jr.why[0]) {
		snprintf(why, whylen, "%s", r->jr.why);
		e = -EINVAL;
	}
	return e;
}

