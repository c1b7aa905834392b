/* The sites of one USDT probe in one ELF file, ready to attach: where each
 * is in the file, its semaphore, and how to fetch its arguments. */
#ifndef COWTOP_USDT_SITES_H
#define COWTOP_USDT_SITES_H

#include "usdt_arg.h"

#define USDT_SITE_ARGS 3

/* One site of a probe. */
struct usdt_site {
	unsigned long long offset;  /* of the probe's instruction in the file */
	unsigned long long ref_ctr; /* of its semaphore in the file, 0 for none */
	int nargs;                  /* in the note */
	/* The first USDT_SITE_ARGS: GLOBAL args are resolved to DEREF of the
	 * ip register (the site's address at a hit) + the symbol's distance;
	 * an unknown symbol makes the argument USDT_ARG_NONE. */
	struct usdt_arg args[USDT_SITE_ARGS];
};

/* The sites of provider:name in the ELF file at path (read through
 * usdt_open_regular). */
struct usdt_sites {
	struct usdt_site *v;
	size_t n;
	int unavailable; /* arguments (of the first USDT_SITE_ARGS) that cannot be read */
};

/* Collect the sites; returns 0 (maybe none), -ENODATA (no probes at all),
 * -ENOEXEC (not ELF, or an address outside the file's segments) or -errno. */
int usdt_sites__collect(const char *path, const char *provider, const char *name,
		       struct usdt_sites *out);
void usdt_sites__free(struct usdt_sites *s);

#endif
