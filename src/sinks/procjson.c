/* A process as a JSON object, written and read back: the record's
 * identities (pid, name, state, exit...) here, its figures from the field
 * table. The one place that knows a process's JSON keys. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fields.h"
#include "jread.h"
#include "json.h"
#include "output.h"
#include "procjson.h"

/* A process's copies split by kind k as a JSON object under name: the
 * parts frame_split_parts gives, slot 0 last. */
static void json_split(struct jbuf *b, const char *name, const struct frame *fr, const struct proc *p,
		       enum split_kind k, bool all)
{
	struct split_part part[SPLIT_SLOTS];
	int n = frame_split_parts(fr, p, k, all, part), i;

	jbuf_key(b, name);
	jbuf_putc(b, '{');
	for (i = 0; i < n; i++) {
		if (i)
			jbuf_putc(b, ',');
		jbuf_string(b, part[i].label, strlen(part[i].label));
		jbuf_putc(b, ':');
		jbuf_u64(b, part[i].pages);
	}
	jbuf_putc(b, '}');
}

/* A process's top stacks, frames innermost first (the writing function first). */
static void json_stacks(struct jbuf *b, const struct frame *fr, const struct proc *p)
{
	const struct stacks_proc *sp = stacks_snap__of(fr->stacks, p->pid, p->start_time);
	size_t i;
	int k;

	jbuf_puts(b, ",\"cow_stacks\":[");
	for (i = 0; sp && i < sp->ntop; i++) {
		jbuf_puts(b, i ? ",{\"frames\":[" : "{\"frames\":[");
		for (k = 0; k < sp->top[i].nframes; k++) {
			if (k)
				jbuf_putc(b, ',');
			jbuf_string(b, sp->top[i].frames[k], strlen(sp->top[i].frames[k]));
		}
		jbuf_puts(b, "],\"pages\":");
		jbuf_u64(b, sp->top[i].pages);
		jbuf_putc(b, '}');
	}
	jbuf_putc(b, ']');
}

/* A process's copies by runtime object: its runtime, then (type, class
 * where one is read, write kind, pages) heaviest first; pages are sampled
 * copies scaled by the rate. */
static void json_objects(struct jbuf *b, const struct frame *fr, const struct proc *p)
{
	const struct objects_proc *op = objects_snap__of(fr->objects, p->pid, p->start_time);
	size_t i;

	if (!op)
		return;
	jbuf_puts(b, ",\"cow_objects\":{\"runtime\":");
	jbuf_string(b, op->runtime, strlen(op->runtime));
	jbuf_count(b, "pages", true, op->pages);
	jbuf_puts(b, ",\"by_write\":{");
	for (i = 0; i < OBJ_WRITES; i++) {
		const char *w = obj_write_name((int)i);

		if (i)
			jbuf_putc(b, ',');
		jbuf_string(b, w, strlen(w));
		jbuf_putc(b, ':');
		jbuf_u64(b, op->by_write[i]);
	}
	jbuf_puts(b, "},\"top\":[");
	for (i = 0; i < op->ntop; i++) {
		const char *w = obj_write_name(op->top[i].write);

		jbuf_puts(b, i ? ",{\"type\":" : "{\"type\":");
		jbuf_string(b, op->top[i].type, strlen(op->top[i].type));
		if (op->top[i].cls[0]) {
			jbuf_puts(b, ",\"class\":");
			jbuf_string(b, op->top[i].cls, strlen(op->top[i].cls));
		}
		jbuf_puts(b, ",\"write\":");
		jbuf_string(b, w, strlen(w));
		jbuf_count(b, "pages", true, op->top[i].pages);
		jbuf_putc(b, '}');
	}
	jbuf_puts(b, "]}");
}

/* How p ended: ,"exit":{"code":N|null,"signal":"SIGKILL"|null,"oom":bool},
 * null while it runs (code and signal both null when the kernel did not say). */
static void json_exit(struct jbuf *b, const struct proc *p)
{
	int sig = p->exit.status & 0x7f;
	const char *name = proc_signal_name(sig);

	if (!p->exited || p->exit.left) {
		jbuf_puts(b, ",\"exit\":null");
		return;
	}
	jbuf_puts(b, ",\"exit\":{\"code\":");
	if (p->exit.known && !sig)
		jbuf_i64(b, (p->exit.status >> 8) & 0xff);
	else
		jbuf_puts(b, "null");
	jbuf_puts(b, ",\"signal\":");
	if (p->exit.known && sig) {
		jbuf_putc(b, '"');
		if (name)
			jbuf_puts(b, name);
		else
			jbuf_i64(b, sig);
		jbuf_putc(b, '"');
	} else {
		jbuf_puts(b, "null");
	}
	jbuf_puts(b, ",\"core\":");
	jbuf_bool(b, p->exit.known && (p->exit.status & 0x80));
	jbuf_puts(b, ",\"oom\":");
	jbuf_bool(b, p->exit.oom);
	jbuf_putc(b, '}');
}

/* p's reclaim stalls, and the children it forked and saw exit. */
static void json_stalls_children(struct jbuf *b, const struct proc *p)
{
	jbuf_puts(b, ",\"reclaim\":{\"stalls\":");
	jbuf_u64(b, p->reclaims);
	jbuf_puts(b, ",\"seconds\":");
	jbuf_fixed(b, p->reclaim_s, 6);
	jbuf_puts(b, "},\"children_forked\":");
	jbuf_u64(b, p->forked);
	jbuf_puts(b, ",\"children_exited\":");
	jbuf_u64(b, p->reaped);
}

/* The figures of the field table, in its order: null until read, never a
 * stale zero. */
static void write_fields(struct jbuf *b, const struct frame *fr, const struct proc *p)
{
	int k;

	for (k = 0; k < FIELD_N; k++) {
		const struct field *f = &fields[k];
		struct fval v = { 0 };

		if (!f->json)
			continue;
		f->get(fr, p, &v);
		jbuf_key(b, f->json);
		if (!v.known)
			jbuf_puts(b, "null");
		else if (f->type == FIELD_U64)
			jbuf_u64(b, v.u);
		else
			jbuf_fixed(b, v.d, f->decimals);
	}
}

/* Why the family figures are null, or null when they are known. */
static void json_family_why(struct jbuf *b, const struct proc *p)
{
	const char *why = proc_family_why(p);

	jbuf_key(b, "family_unknown");
	if (why)
		jbuf_string(b, why, strlen(why));
	else
		jbuf_puts(b, "null");
}

/* One process as a JSON object. */
void procjson_write(struct jbuf *b, const struct frame *fr, const struct row *r)
{
	const struct proc *p = r->p;

	jbuf_puts(b, "{\"pid\":");
	jbuf_i64(b, p->pid);
	jbuf_int(b, "ppid", p->ppid);
	if (p->nspid > 0)
		jbuf_int(b, "nspid", p->nspid);
	else
		jbuf_puts(b, ",\"nspid\":null");
	jbuf_puts(b, ",\"comm\":");
	jbuf_string(b, p->comm, strnlen(p->comm, sizeof(p->comm)));
	jbuf_puts(b, ",\"cmdline\":");
	jbuf_string(b, p->cmdline, strnlen(p->cmdline, sizeof(p->cmdline)));
	jbuf_int(b, "depth", r->depth);
	jbuf_puts(b, ",\"state\":\"");
	jbuf_puts(b, output_state(p));
	jbuf_putc(b, '"');
	jbuf_count(b, "start_time", true, p->start_time);
	write_fields(b, fr, p);
	json_family_why(b, p);
	json_exit(b, p);
	json_stalls_children(b, p);
	json_split(b, "cow_by_region", fr, p, SPLIT_REGION, false);
	if (fr->usdt)
		json_split(b, "cow_by_phase", fr, p, SPLIT_PHASE, true);
	if (fr->stacks)
		json_stacks(b, fr, p);
	if (fr->objects)
		json_objects(b, fr, p);
	jbuf_putc(b, '}');
}

/* A process's copies by kind k, as the frame wrote them (the phases' slot 0
 * is computed; the regions' "other" is a figure of its own, not the rest). */
static void take_split(const struct procjson_in *in, json_object *o, enum split_kind k, struct proc *p)
{
	json_object *s = jread_get(o, k == SPLIT_REGION ? "cow_by_region" : "cow_by_phase");

	if (!s || !json_object_is_type(s, json_type_object))
		return;
	json_object_object_foreach(s, key, val) {
		int slot = in->label_slot(in->ctx, k, key);

		if (slot > 0 || (slot == 0 && k == SPLIT_REGION))
			p->split[k].v[slot] = jread_count(in->jr, s, key, NULL);
	}
}

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
static void take_exit(struct jread *jr, json_object *o, struct proc *p)
{
	json_object *e = jread_get(o, "exit"), *v;
	char name[32];
	bool known;
	unsigned long long code;

	if (!e || !json_object_is_type(e, json_type_object))
		return;
	v = jread_get(e, "oom");
	p->exit.oom = v && json_object_get_boolean(v);
	code = (unsigned long long)jread_bounded(jr, e, "code", 0, 255, &known);
	if (known) {
		p->exit.known = true;
		p->exit.status = (int)(code & 0xff) << 8;
		return;
	}
	jread_string(jr, e, "signal", name, sizeof(name));
	if (!name[0] || !signal_number(name))
		return;
	v = jread_get(e, "core");
	p->exit.known = true;
	p->exit.status = signal_number(name) | (v && json_object_get_boolean(v) ? 0x80 : 0);
}

/* Why the family figures were null, as far as a recording can say. */
static void take_family_why(struct jread *jr, json_object *o, struct proc *p)
{
	struct proc q = { .family_why = FAMILY_NO_PFN };
	json_object *v = jread_get(o, "family_unknown");
	char why[96];

	if (p->family_time || !v || json_object_is_type(v, json_type_null))
		return;
	jread_string(jr, o, "family_unknown", why, sizeof(why));
	if (strcmp(why, proc_family_why(&q)) == 0)
		p->family_why = FAMILY_NO_PFN;
	q.family_why = FAMILY_FAILED;
	if (strcmp(why, proc_family_why(&q)) == 0)
		p->family_why = FAMILY_FAILED;
	q.family_why = FAMILY_TOO_BIG;
	if (strcmp(why, proc_family_why(&q)) == 0)
		p->family_why = FAMILY_TOO_BIG;
}

/* The fields added to a process since the first recordings: command line,
 * namespace pid, exit, reclaim stalls, children forked and exited. */
static void take_proc_more(struct jread *jr, json_object *o, struct proc *p)
{
	json_object *rc = jread_get(o, "reclaim");
	bool known;

	jread_string(jr, o, "cmdline", p->cmdline, sizeof(p->cmdline));
	p->nspid = (int)jread_bounded(jr, o, "nspid", 1, PID_LIMIT, &known);
	if (!known)
		p->nspid = -1;
	take_exit(jr, o, p);
	take_family_why(jr, o, p);
	if (rc && json_object_is_type(rc, json_type_object)) {
		p->reclaims = jread_count(jr, rc, "stalls", NULL);
		p->reclaim_s = jread_real(jr, rc, "seconds", 0, 0);
	}
	p->forked = jread_count(jr, o, "children_forked", NULL);
	p->reaped = jread_count(jr, o, "children_exited", NULL);
}

/* Figure k of the field table from o into p, unless its source was never
 * read (skip, by source). */
static void read_field(const struct procjson_in *in, json_object *o, int k, struct proc *p)
{
	const struct field *f = &fields[k];
	struct fval v = { 0 };

	if (f->type == FIELD_U64) {
		v.u = jread_count(in->jr, o, f->json, &v.known);
	} else {
		v.d = jread_real(in->jr, o, f->json, -1, 0);
		v.known = v.d >= 0;
	}
	f->set(p, &v, in->time);
}

/* The figures of the field table: the gates first (a null one: none of
 * its source was read, and those are left), then the others, then those
 * derived from them. */
static void read_fields(const struct procjson_in *in, json_object *o, struct proc *p)
{
	bool unread[FIELD_DERIVED + 1] = { false };
	int k, pass;

	for (k = 0; k < FIELD_N; k++) {
		json_object *v;

		if (!fields[k].gate)
			continue;
		read_field(in, o, k, p);
		v = jread_get(o, fields[k].json);
		if (!v || json_object_is_type(v, json_type_null))
			unread[fields[k].source] = true;
	}
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < FIELD_N; k++) {
			const struct field *f = &fields[k];

			if (f->json && f->set && !f->gate && f->late == (pass == 1) && !unread[f->source])
				read_field(in, o, k, p);
		}
}

/* One process of a frame line into p (zeroed); -EINVAL when o is no
 * object. What is wrong in it is noted in in->jr. */
int procjson_read(const struct procjson_in *in, json_object *o, struct proc *p)
{
	struct jread *jr = in->jr;
	char state[16];
	bool known;

	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	p->pid = (int)jread_bounded(jr, o, "pid", 1, PID_LIMIT, &known);
	if (!known)
		jread_bad(jr, "a process without a pid");
	p->ppid = (int)jread_bounded(jr, o, "ppid", 0, PID_LIMIT, NULL);
	if (p->ppid == p->pid)
		jread_bad(jr, "process %d is its own parent", p->pid);
	p->start_time = jread_count(jr, o, "start_time", NULL);
	jread_string(jr, o, "comm", p->comm, sizeof(p->comm));
	jread_string(jr, o, "state", state, sizeof(state));
	p->exited = strcmp(state, "exited") == 0;
	p->state = p->exited ? 'Z' : state[0] == '?' ? 0 : state[0];
	read_fields(in, o, p);
	take_proc_more(jr, o, p);
	take_split(in, o, SPLIT_REGION, p);
	take_split(in, o, SPLIT_PHASE, p);
	return 0;
}
