/* --list-usdt: the USDT probes of a process or of an ELF file, printed in
 * aligned columns. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "procfs.h"
#include "text.h"
#include "usdt_list.h"
#include "usdt_note.h"

/* A string as shown: every byte may become a 4-byte escape. */
#define SHOWN_STR_MAX (USDT_STR_MAX * TEXT_ESCAPE_MAX)
#define SHOWN_ARG_MAX 256

/* One line of the listing, sanitized. */
struct list_row {
	char provider[SHOWN_STR_MAX];
	char name[SHOWN_STR_MAX];
	int nargs;
	size_t object;
};

/* The listing being gathered, printed only once it is complete. */
struct listing {
	struct list_row *rows;
	size_t nrows, rowcap;
	char **objects; /* sanitized paths of the objects rows point to */
	size_t nobjects, objcap;
	const char *current; /* the object being read, as shown */
	bool current_added;
	int pid;
};

/* Grow an array of n elements of size sz to hold one more. */
static int grow(void **a, size_t n, size_t *cap, size_t sz)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	void *p;

	if (n < *cap)
		return 0;
	p = reallocarray(*a, ncap, sz);
	if (!p)
		return -ENOMEM;
	*a = p;
	*cap = ncap;
	return 0;
}

/* Sanitize a NUL-terminated string into a new heap string. */
static char *shown_dup(const char *s)
{
	size_t n = strlen(s), cap = n * TEXT_ESCAPE_MAX + 1;
	char *d = malloc(cap);

	if (d)
		text_sanitize(s, n, d, cap);
	return d;
}

/* Add the current object to the listing, on its first probe. */
static int listing_add_object(struct listing *l)
{
	char *shown;

	if (l->current_added)
		return 0;
	if (grow((void **)&l->objects, l->nobjects, &l->objcap, sizeof(char *)) < 0)
		return -ENOMEM;
	shown = shown_dup(l->current);
	if (!shown)
		return -ENOMEM;
	l->objects[l->nobjects++] = shown;
	l->current_added = true;
	return 0;
}

/* Add a probe of the current object to the listing. */
static int listing_add_probe(const struct usdt_probe *p, void *arg)
{
	struct listing *l = arg;
	struct list_row *r;

	if (listing_add_object(l) < 0 ||
	    grow((void **)&l->rows, l->nrows, &l->rowcap, sizeof(*r)) < 0)
		return -ENOMEM;
	r = &l->rows[l->nrows++];
	text_sanitize(p->provider, strlen(p->provider), r->provider, sizeof(r->provider));
	text_sanitize(p->name, strlen(p->name), r->name, sizeof(r->name));
	r->nargs = p->nargs;
	r->object = l->nobjects - 1;
	return 0;
}

/* Free what a listing holds. */
static void listing_free(struct listing *l)
{
	size_t i;

	for (i = 0; i < l->nobjects; i++)
		free(l->objects[i]);
	free(l->objects);
	free(l->rows);
}

/* Read the probes of one file into the listing, shown under the name
 * shown. Returns the count of probes or -errno. */
static int listing_read(struct listing *l, const char *path, const char *shown)
{
	l->current = shown;
	l->current_added = false;
	return usdt_note_for_each_probe(path, listing_add_probe, l);
}

/* Read the probes of an object a process maps: the very file mapped
 * (map_files, which needs privilege), else through the process's root, so
 * that its own mount namespace resolves the path. Files that cannot be read
 * are left out; only running out of memory stops. */
static int listing_object(const char *path, const char *at, void *arg)
{
	char rooted[USDT_PATH_MAX + 32];
	struct listing *l = arg;
	int ret;

	snprintf(rooted, sizeof(rooted), "/proc/%s", at);
	ret = listing_read(l, rooted, path);
	if (ret != -EACCES && ret != -EPERM && ret != -ENOENT)
		return ret == -ENOMEM ? ret : 0;
	snprintf(rooted, sizeof(rooted), "/proc/%d/root%s", l->pid, path);
	ret = listing_read(l, rooted, path);
	if (ret == -EACCES || ret == -EPERM)
		ret = listing_read(l, path, path);
	return ret == -ENOMEM ? ret : 0;
}

/* Print a sanitized string padded to width columns. */
static void put_padded(FILE *f, const char *s, int width)
{
	int w = text_width(s);

	fputs(s, f);
	fprintf(f, "%*s", width > w ? width - w : 0, "");
}

/* Print the listing in aligned columns. */
static void listing_print(FILE *f, const struct listing *l)
{
	int wp = (int)strlen("PROVIDER"), wn = (int)strlen("NAME"), w;
	size_t i;

	for (i = 0; i < l->nrows; i++) {
		w = text_width(l->rows[i].provider);
		wp = w > wp ? w : wp;
		w = text_width(l->rows[i].name);
		wn = w > wn ? w : wn;
	}
	put_padded(f, "PROVIDER", wp + 2);
	put_padded(f, "NAME", wn + 2);
	fputs("ARGS  OBJECT\n", f);
	for (i = 0; i < l->nrows; i++) {
		put_padded(f, l->rows[i].provider, wp + 2);
		put_padded(f, l->rows[i].name, wn + 2);
		fprintf(f, "%4d  %s\n", l->rows[i].nargs, l->objects[l->rows[i].object]);
	}
}

/* The pid an argument names when it is all digits: 0 when it is not, -1
 * when it is too large to be a pid. */
static int list_arg_pid(const char *arg)
{
	long long v = 0;
	const char *s;

	if (!*arg)
		return 0;
	for (s = arg; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -1;
	}
	return v == 0 ? -1 : (int)v;
}

/* List the probes of every object a process maps. */
static int list_pid(struct listing *l, int pid, const char *shown, char *err, size_t errlen)
{
	int procfd, ret;

	procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "/proc: %s", strerror(-ret));
		return ret;
	}
	l->pid = pid;
	ret = procfs_for_each_object_at(procfd, pid, listing_object, l);
	close(procfd);
	if (ret == -ENOENT || ret == -ESRCH)
		snprintf(err, errlen, "no process with PID %s", shown);
	else if (ret < 0)
		snprintf(err, errlen, "process %s: %s", shown, strerror(-ret));
	else if (l->nrows == 0) {
		ret = -ENODATA;
		snprintf(err, errlen, "process %s maps no object with USDT probes", shown);
	}
	return ret;
}

/* List the probes of one ELF file. */
static int list_file(struct listing *l, const char *path, const char *shown,
    char *err, size_t errlen)
{
	int ret = listing_read(l, path, path);

	if (ret == -ENOEXEC)
		snprintf(err, errlen, "%s: not an ELF file", shown);
	else if (ret == -ENODATA)
		snprintf(err, errlen, "%s: no USDT probes (.note.stapsdt missing)", shown);
	else if (ret < 0)
		snprintf(err, errlen, "%s: %s", shown, strerror(-ret));
	return ret < 0 ? ret : 0;
}

/* List the probes of a process or of an ELF file; see usdt_list.h. */
int usdt_list_print(FILE *f, const char *arg, char *err, size_t errlen)
{
	struct listing l = { 0 };
	char shown[SHOWN_ARG_MAX];
	int pid = list_arg_pid(arg), ret;

	text_sanitize(arg, strlen(arg), shown, sizeof(shown));
	if (pid < 0) {
		snprintf(err, errlen, "no process with PID %s", shown);
		return -ESRCH;
	}
	if (pid > 0)
		ret = list_pid(&l, pid, shown, err, errlen);
	else
		ret = list_file(&l, arg, shown, err, errlen);
	if (ret == 0)
		listing_print(f, &l);
	listing_free(&l);
	if (ret == 0 && ferror(f)) {
		snprintf(err, errlen, "cannot write the list of probes");
		ret = -EIO;
	}
	return ret;
}
