/* -u specs: find each probe in the ELF objects watched processes map (or in
 * the object named), attach it once per object, and name it in the model. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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
	bool implied; /* the partner of a probe given, added for its phase */
	int partner;  /* the other end of a phase, or -1 */
	bool found;   /* attached in some object */
	bool provider_seen; /* some object examined has probes of its provider */
	int err;      /* the last attach that failed, and where */
	char err_where[256];
	size_t sites; /* attached, in all objects */
	int unavailable; /* arguments that cannot be read, in all sites */
};

struct probes {
	struct model *model;
	struct spec specs[SPECS_MAX];
	int n;
	struct objset *examined;    /* objects, by device and inode */
	struct objset *mapped;      /* objects met in maps, by the device and inode maps shows */
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
	pr->mapped = objset__new();
	if (!pr->examined || !pr->mapped) {
		probes__free(pr);
		return NULL;
	}
	return pr;
}

/* Free pr; NULL is fine. */
void probes__free(struct probes *pr)
{
	if (pr) {
		objset__free(pr->examined);
		objset__free(pr->mapped);
	}
	free(pr);
}

/* The spec for the same path, provider and name already held, or NULL. */
static struct spec *have_spec(struct probes *pr, const struct usdt_spec *u)
{
	int i;

	for (i = 0; i < pr->n; i++)
		if (!strcmp(pr->specs[i].u.path, u->path) &&
		    !strcmp(pr->specs[i].u.provider, u->provider) &&
		    !strcmp(pr->specs[i].u.name, u->name))
			return &pr->specs[i];
	return NULL;
}

/* Add one parsed spec, registering its probe (and phase) in the model. */
static int add_parsed(struct probes *pr, const struct usdt_spec *u, bool implied)
{
	char phase[USDT_STR_MAX], label[LABEL_MAX];
	enum usdt_kind kind = usdt_classify(u->name, phase, sizeof(phase));
	struct spec *s;

	s = have_spec(pr, u);
	if (s) {
		s->implied = s->implied && implied; /* given after all */
		return 0;
	}
	if (pr->n == SPECS_MAX)
		return -ENOSPC;
	s = &pr->specs[pr->n];
	memset(s, 0, sizeof(*s));
	s->u = *u;
	s->implied = implied;
	s->partner = -1;
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

/* Make specs a and b the two ends of one phase. */
static void pair(struct probes *pr, int a, int b)
{
	pr->specs[a].partner = b;
	pr->specs[b].partner = a;
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
	if (!e && usdt_partner(u.name, partner.name, sizeof(partner.name)) == 0) {
		int before = pr->n;

		e = add_parsed(pr, &partner, true);
		if (!e && pr->n > before)
			pair(pr, before - 1, before);
	}
	if (e)
		snprintf(err, errlen, "too many probes (at most %d, and %d phases)",
			 SPECS_MAX, PHASE_MAX - 1);
	return e;
}

/* Why attaching failed, in words. */
static const char *attach_error(int e)
{
	if (e == -ENOSPC)
		return "too many distinct probe sites (the kernel's table is full)";
	if (e == -ENOENT)
		return "no such probe";
	return strerror(-e);
}

/* Attach spec s in the object opened at open_path, shown as path; *r says
 * what was attached (to take it down again if its phase's other end fails). */
static int attach(struct tracer *t, struct spec *s, const char *open_path, const char *path,
		  struct tracer_usdt_result *r)
{
	struct tracer_usdt_probe tp = { .probe = s->probe, .kind = s->kind, .phase = s->phase };
	int e = tracer__attach_usdt(t, open_path, s->u.provider, s->u.name, &tp, r);

	if (!e) {
		s->found = true;
		s->sites += r->sites;
		s->unavailable += r->unavailable;
		return 0;
	}
	s->err = e;
	snprintf(s->err_where, sizeof(s->err_where), "%s", path);
	return e;
}

/* In one object: when an end of a phase attached and the other end, there
 * too, did not, take the first down: a phase is attached whole or not at
 * all (a lone begin would count every later copy in its phase). present[i]:
 * spec i is in the object; r[i].attached: it was attached there. Returns
 * the spec that failed, or -1. */
static int undo_half_phases(struct probes *pr, struct tracer *t, const bool *present,
			    struct tracer_usdt_result *r)
{
	int i, j, failed = -1;

	for (i = 0; i < pr->n; i++) {
		j = pr->specs[i].partner;
		if (j < 0 || !r[i].attached || !present[j] || r[j].attached)
			continue;
		tracer__detach_usdt(t, &r[i]);
		pr->specs[i].sites -= r[i].sites;
		pr->specs[i].found = pr->specs[i].sites > 0;
		if (failed < 0)
			failed = j;
	}
	return failed;
}

/* Describe a phase refused because its end j could not be attached. */
static void describe_refused(const struct probes *pr, int j, char *err, size_t errlen)
{
	const struct spec *s = &pr->specs[j];
	char phase[USDT_STR_MAX];

	usdt_classify(s->u.name, phase, sizeof(phase));
	snprintf(err, errlen, "usdt: phase %s:%s refused: cannot attach %s:%s in %s: %s",
		 s->u.provider, phase, s->u.provider, s->u.name, s->err_where,
		 attach_error(s->err));
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

/* Attach every spec that names its object; the first failure is an error,
 * and so is a phase only one end of which attaches. */
int probes__attach_paths(struct probes *pr, struct tracer *t, char *err, size_t errlen)
{
	struct tracer_usdt_result r[SPECS_MAX];
	bool present[SPECS_MAX];
	int i, e;

	memset(r, 0, sizeof(r));
	for (i = 0; i < pr->n; i++) {
		struct spec *s = &pr->specs[i];

		present[i] = false;
		if (!s->u.path[0])
			continue;
		if (check_named_object(s, err, errlen)) {
			if (s->implied)
				continue;
			return -ENOENT;
		}
		present[i] = true;
		e = attach(t, s, s->u.path, s->u.path, &r[i]);
		if (e && !s->implied) {
			snprintf(err, errlen, "usdt: cannot attach %s:%s in %s: %s", s->u.provider,
				 s->u.name, s->u.path, attach_error(e));
			return e;
		}
	}
	e = undo_half_phases(pr, t, present, r);
	if (e >= 0) {
		describe_refused(pr, e, err, errlen);
		return -EINVAL;
	}
	return 0;
}

struct match {
	struct probes *pr;
	struct tracer *t;
	int procfd, pid;
	const char *path;      /* the object, as shown */
	const char *open_path; /* where it is opened */
	bool present[SPECS_MAX]; /* the object has the probe of spec i */
};

/* One probe site of an object: note every path-less spec it satisfies. */
static int on_probe(const struct usdt_probe *p, void *arg)
{
	struct match *mt = arg;
	int i;

	for (i = 0; i < mt->pr->n; i++) {
		struct spec *s = &mt->pr->specs[i];

		if (!strcmp(s->u.provider, p->provider))
			s->provider_seen = true;
		if (s->u.path[0] || strcmp(s->u.provider, p->provider) ||
		    strcmp(s->u.name, p->name))
			continue;
		mt->present[i] = true;
	}
	return 0;
}

/* Attach, in one object, every spec it has (all sites of each at once),
 * then take down any phase half attached. */
static void attach_present(struct match *mt)
{
	struct tracer_usdt_result r[SPECS_MAX];
	int i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < mt->pr->n; i++)
		if (mt->present[i])
			attach(mt->t, &mt->pr->specs[i], mt->open_path, mt->path, &r[i]);
	undo_half_phases(mt->pr, mt->t, mt->present, r);
}

/* Whether the file open (O_PATH) at fd was examined already (else
 * remember it). Files are told apart by device and inode: "./prog" on the
 * command line and "/abs/prog" in the maps are one object, attached once
 * (twice would report every hit twice). Anything but a regular file counts
 * as examined: it is never opened for reading. So does any object once
 * OBJSET_MAX are remembered: one not remembered could be examined, and its
 * probes attached, again at every later scan (a process's maps are read
 * again whenever its size changes). */
static bool seen_object(struct probes *pr, int fd)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return true; /* nothing to examine */
	if (objset__has(pr->examined, st.st_dev, st.st_ino))
		return true;
	return objset__add(pr->examined, st.st_dev, st.st_ino) != 0;
}

/* Examine one ELF object (once) for the path-less specs: fd is an O_PATH
 * handle of it, path what it is called. It is read and attached through
 * /proc/self/fd, so always that very file. */
static int scan_fd(struct probes *pr, struct tracer *t, int fd, const char *path)
{
	struct match mt = { .pr = pr, .t = t, .path = path };
	char at[64];
	int e;

	if (seen_object(pr, fd))
		return 0;
	pr->looked++;
	snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
	mt.open_path = at;
	e = usdt_note_for_each_probe(at, on_probe, &mt);
	attach_present(&mt);
	return e < 0 && e != -ENODATA && e != -ENOEXEC ? e : 0;
}

/* Examine one ELF object named in cowtop's own mount namespace (the
 * command's executable). */
int probes__scan_file(struct probes *pr, struct tracer *t, const char *path)
{
	int fd, e;

	if (!pr->n)
		return 0;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0;
	e = scan_fd(pr, t, fd, path);
	close(fd);
	return e;
}

/* Object-walk step for probes__scan_pid: open the object as the process
 * sees it (map_files; else its root and the path), never the file of that
 * name in cowtop's own mount namespace. */
static int scan_object(const char *path, const char *at, void *arg)
{
	struct match *mt = arg;
	char buf[64 + PATH_MAX];
	int fd;

	fd = openat(mt->procfd, at, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		snprintf(buf, sizeof(buf), "%d/root%s", mt->pid, path);
		fd = openat(mt->procfd, buf, O_PATH | O_CLOEXEC);
	}
	if (fd < 0)
		return 0;
	scan_fd(mt->pr, mt->t, fd, path);
	close(fd);
	return 0;
}

/* Examine every ELF object pid maps that no earlier scan met: a process's
 * maps read again (a library loaded later) cost no open for the rest. */
int probes__scan_pid(struct probes *pr, struct tracer *t, int procfd, int pid)
{
	struct match mt = { .pr = pr, .t = t, .procfd = procfd, .pid = pid };

	if (!pr->n)
		return 0;
	return procfs_for_each_new_object_at(procfd, pid, pr->mapped, scan_object, &mt);
}

/* Whether some spec names no object: found in what processes map, so the
 * objects they map later (dlopen) are to be looked at too. A spec with a
 * path is attached in that file, for whoever maps it, whenever. */
bool probes__wants_maps(const struct probes *pr)
{
	int i;

	for (i = 0; pr && i < pr->n; i++)
		if (!pr->specs[i].u.path[0])
			return true;
	return false;
}

/* Describe why spec s is not attached, into err. */
static void describe_missing(const struct probes *pr, const struct spec *s, char *err,
			     size_t errlen)
{
	char lead[160] = "", phase[USDT_STR_MAX];

	if (s->partner >= 0 && !s->err && pr->specs[s->partner].err) {
		describe_refused(pr, s->partner, err, errlen);
		return;
	}
	if (s->partner >= 0 && s->err) {
		describe_refused(pr, (int)(s - pr->specs), err, errlen);
		return;
	}
	if (s->implied) { /* its partner attached: the phase would never close */
		usdt_classify(s->u.name, phase, sizeof(phase));
		snprintf(lead, sizeof(lead), "phase %s:%s refused: ", s->u.provider, phase);
	}
	if (s->err)
		snprintf(err, errlen, "usdt: cannot attach %s:%s in %s: %s",
			 s->u.provider, s->u.name, s->err_where, attach_error(s->err));
	else if (s->provider_seen)
		snprintf(err, errlen, "usdt: %sprobe %s:%s not found: provider %s has no probe "
			 "%s in the %d ELF objects mapped by the watched processes", lead,
			 s->u.provider, s->u.name, s->u.provider, s->u.name, pr->looked);
	else
		snprintf(err, errlen, "usdt: %sprobe %s:%s not found: none of the %d ELF objects "
			 "mapped by the watched processes has probes of provider %s", lead,
			 s->u.provider, s->u.name, pr->looked, s->u.provider);
}

/* Describe the first probe whose attach failed (not: was not found), which
 * refuses its phase if it has one; returns how many there are. */
int probes__failed(const struct probes *pr, char *err, size_t errlen)
{
	int i, failed = 0;

	for (i = 0; i < pr->n; i++) {
		const struct spec *s = &pr->specs[i];

		if (s->found || !s->err)
			continue;
		if (!failed++)
			describe_missing(pr, s, err, errlen);
	}
	return failed;
}

/* Describe the first probe that is not attached although it must be: one
 * given, or the other end of a phase one of whose ends is attached (a phase
 * is attached whole or refused). Returns how many. */
int probes__missing(const struct probes *pr, char *err, size_t errlen)
{
	int i, missing = 0;

	for (i = 0; i < pr->n; i++) {
		const struct spec *s = &pr->specs[i];

		if (s->found)
			continue;
		if (s->implied && (s->partner < 0 || (!pr->specs[s->partner].found &&
		    !pr->specs[s->partner].err)))
			continue;
		if (!missing++)
			describe_missing(pr, s, err, errlen);
	}
	return missing;
}
