/* -u specs: find each probe in the ELF objects watched processes map (or in
 * the object named), attach it once per object, and name it in the model. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "model.h"
#include "objset.h"
#include "probes.h"
#include "procfs.h"
#include "tracer.h"
#include "usdt.h"
#include "usdt_note.h"

#define SPECS_MAX 32

struct spec {
	struct usdt_spec u;
	int probe;   /* id in the model */
	enum usdt_kind kind; /* a marker, or it opens or closes phase */
	int phase;
	bool implied; /* the partner of a probe given: fine if it is nowhere */
	bool found;
	bool provider_seen; /* some object examined has probes of its provider */
};

struct probes {
	struct model *model;
	struct spec specs[SPECS_MAX];
	int n;
	struct objset *examined;    /* objects, by device and inode */
	int looked;                 /* objects examined, for error messages */
};

/* Create an empty set of specs over model m. */
struct probes *probes__new(struct model *m)
{
	struct probes *pr = calloc(1, sizeof(*pr));

	if (!pr)
		return NULL;
	pr->model = m;
	pr->examined = objset__new();
	if (!pr->examined) {
		free(pr);
		return NULL;
	}
	return pr;
}

/* Free pr; NULL is fine. */
void probes__free(struct probes *pr)
{
	if (pr)
		objset__free(pr->examined);
	free(pr);
}

/* Whether a spec for the same path, provider and name is already held. */
static bool have_spec(const struct probes *pr, const struct usdt_spec *u)
{
	int i;

	for (i = 0; i < pr->n; i++)
		if (!strcmp(pr->specs[i].u.path, u->path) &&
		    !strcmp(pr->specs[i].u.provider, u->provider) &&
		    !strcmp(pr->specs[i].u.name, u->name))
			return true;
	return false;
}

/* Add one parsed spec, registering its probe (and phase) in the model. */
static int add_parsed(struct probes *pr, const struct usdt_spec *u, bool implied)
{
	char phase[USDT_STR_MAX], label[LABEL_MAX];
	enum usdt_kind kind = usdt_classify(u->name, phase, sizeof(phase));
	struct spec *s;

	if (have_spec(pr, u))
		return 0;
	if (pr->n == SPECS_MAX)
		return -ENOSPC;
	s = &pr->specs[pr->n];
	memset(s, 0, sizeof(*s));
	s->u = *u;
	s->implied = implied;
	s->kind = kind;
	if (kind != USDT_MARKER) {
		snprintf(label, sizeof(label), "%s:%s", u->provider, phase);
		s->phase = model__add_phase(pr->model, label);
		if (s->phase < 0)
			return s->phase;
	}
	snprintf(label, sizeof(label), "%s:%s", u->provider, u->name);
	s->probe = model__add_probe(pr->model, label);
	if (s->probe < 0)
		return s->probe;
	pr->n++;
	return 0;
}

/* Add a -u SPEC ([PATH:]PROVIDER:NAME) and, for a phase edge, its partner. */
int probes__add_spec(struct probes *pr, const char *spec, char *err, size_t errlen)
{
	struct usdt_spec u, partner;
	int e;

	if (usdt_spec_parse(spec, &u)) {
		snprintf(err, errlen, "invalid probe '%s' (expected [PATH:]PROVIDER:NAME)", spec);
		return -EINVAL;
	}
	e = add_parsed(pr, &u, false);
	partner = u;
	if (!e && usdt_partner(u.name, partner.name, sizeof(partner.name)) == 0)
		e = add_parsed(pr, &partner, true);
	if (e)
		snprintf(err, errlen, "too many probes (at most %d, and %d phases)",
			 SPECS_MAX, PHASE_MAX - 1);
	return e;
}

/* Attach spec s in the object at path. */
static int attach(struct tracer *t, struct spec *s, const char *path)
{
	int e = tracer__attach_usdt(t, path, s->u.provider, s->u.name, s->probe, s->kind, s->phase);

	if (!e)
		s->found = true;
	return e;
}

/* Probe-walk step: does the object have the probe named by the spec? */
static int has_probe(const struct usdt_probe *p, void *arg)
{
	const struct spec *s = arg;

	return !strcmp(s->u.provider, p->provider) && !strcmp(s->u.name, p->name);
}

/* Check that the object a spec names holds its probe; say why not. */
static int check_named_object(const struct spec *s, char *err, size_t errlen)
{
	int e = usdt_note_for_each_probe(s->u.path, has_probe, (void *)s);

	if (e == 1)
		return 0;
	if (e == -ENODATA)
		snprintf(err, errlen, "usdt: %s has no USDT probes (.note.stapsdt missing)", s->u.path);
	else if (e == -ENOEXEC)
		snprintf(err, errlen, "usdt: %s is not an ELF file", s->u.path);
	else if (e < 0)
		snprintf(err, errlen, "usdt: %s: %s", s->u.path, strerror(-e));
	else
		snprintf(err, errlen, "usdt: probe %s:%s not found in %s", s->u.provider,
			 s->u.name, s->u.path);
	return -ENOENT;
}

/* Attach every spec that names its object; the first failure is an error. */
int probes__attach_paths(struct probes *pr, struct tracer *t, char *err, size_t errlen)
{
	int i, e;

	for (i = 0; i < pr->n; i++) {
		struct spec *s = &pr->specs[i];

		if (!s->u.path[0])
			continue;
		if (check_named_object(s, err, errlen)) {
			if (s->implied)
				continue;
			return -ENOENT;
		}
		e = attach(t, s, s->u.path);
		if (e && !s->implied) {
			snprintf(err, errlen, "usdt: cannot attach %s:%s in %s: %s", s->u.provider,
				 s->u.name, s->u.path, strerror(-e));
			return e;
		}
	}
	return 0;
}

struct match {
	struct probes *pr;
	struct tracer *t;
	const char *path;
	bool done[SPECS_MAX]; /* attached in this object already */
};

/* One probe site of an object: attach every path-less spec it satisfies.
 * libbpf attaches all sites of a provider:name at once, so only the first
 * site of each counts. */
static int on_probe(const struct usdt_probe *p, void *arg)
{
	struct match *mt = arg;
	int i;

	for (i = 0; i < mt->pr->n; i++) {
		struct spec *s = &mt->pr->specs[i];

		if (!strcmp(s->u.provider, p->provider))
			s->provider_seen = true;
		if (mt->done[i] || s->u.path[0] || strcmp(s->u.provider, p->provider) ||
		    strcmp(s->u.name, p->name))
			continue;
		mt->done[i] = true;
		attach(mt->t, s, mt->path);
	}
	return 0;
}

/* Whether the file at path was examined already (else remember it). Files
 * are told apart by device and inode: "./prog" on the command line and
 * "/abs/prog" in the maps are one object, attached once (twice would report
 * every hit twice). */
static bool seen_object(struct probes *pr, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return true; /* nothing to examine */
	if (objset__has(pr->examined, st.st_dev, st.st_ino))
		return true;
	(void)objset__add(pr->examined, st.st_dev, st.st_ino); /* full: may examine twice */
	return false;
}

/* Examine one ELF object (once) for the path-less specs. */
int probes__scan_file(struct probes *pr, struct tracer *t, const char *path)
{
	struct match mt = { .pr = pr, .t = t, .path = path };
	int e;

	if (!pr->n || seen_object(pr, path))
		return 0;
	pr->looked++;
	e = usdt_note_for_each_probe(path, on_probe, &mt);
	return e < 0 && e != -ENODATA && e != -ENOEXEC ? e : 0;
}

/* Object-walk step for probes__scan_pid. */
static int scan_object(const char *path, void *arg)
{
	struct match *mt = arg;

	probes__scan_file(mt->pr, mt->t, path);
	return 0;
}

/* Examine every ELF object pid maps. */
int probes__scan_pid(struct probes *pr, struct tracer *t, int procfd, int pid)
{
	struct match mt = { .pr = pr, .t = t };

	if (!pr->n)
		return 0;
	return procfs_for_each_object(procfd, pid, scan_object, &mt);
}

/* Describe the first probe given that was found nowhere; returns how many. */
int probes__missing(const struct probes *pr, char *err, size_t errlen)
{
	int i, missing = 0;

	for (i = 0; i < pr->n; i++) {
		const struct spec *s = &pr->specs[i];

		if (s->found || s->implied)
			continue;
		if (missing++)
			continue;
		if (s->provider_seen)
			snprintf(err, errlen, "usdt: probe %s:%s not found: provider %s has no probe "
				 "%s in the %d ELF objects mapped by the watched processes",
				 s->u.provider, s->u.name, s->u.provider, s->u.name, pr->looked);
		else
			snprintf(err, errlen, "usdt: probe %s:%s not found: none of the %d ELF objects "
				 "mapped by the watched processes has probes of provider %s",
				 s->u.provider, s->u.name, pr->looked, s->u.provider);
	}
	return missing;
}
