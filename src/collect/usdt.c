/* USDT probe names: specs given on the command line, and how the names of
 * probes pair up into phases. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <string.h>
#include "usdt.h"

/* ---- probe specs ---- */

/* Check a provider or probe name given on the command line. */
static int spec_ident(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
			return -EINVAL;
	}
	return n < USDT_STR_MAX ? 0 : -ENAMETOOLONG;
}

/* Copy s[0..n) into dst, NUL-terminated; n was checked to fit. */
static void copy_part(char *dst, const char *s, size_t n)
{
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Parse "[PATH:]PROVIDER:NAME"; see usdt.h. */
int usdt_spec_parse(const char *s, struct usdt_spec *out)
{
	const char *c1, *c2 = strrchr(s, ':'), *prov;
	size_t np, nn, npath = 0;
	int err;

	if (!c2)
		return -EINVAL;
	c1 = memrchr(s, ':', (size_t)(c2 - s));
	prov = c1 ? c1 + 1 : s;
	np = (size_t)(c2 - prov);
	nn = strlen(c2 + 1);
	if (c1) {
		npath = (size_t)(c1 - s);
		if (npath == 0)
			return -EINVAL;
	}
	err = spec_ident(prov, np);
	if (err == 0)
		err = spec_ident(c2 + 1, nn);
	if (err == 0 && npath >= USDT_PATH_MAX)
		err = -ENAMETOOLONG;
	if (err < 0)
		return err;
	copy_part(out->path, s, npath);
	copy_part(out->provider, prov, np);
	copy_part(out->name, c2 + 1, nn);
	return 0;
}

/* ---- phases ---- */

/* The suffixes that open and close a phase, each with its partner. */
static const struct {
	const char *suffix;
	enum usdt_kind kind;
	const char *partner;
} phase_suffixes[] = {
	{ "__begin", USDT_BEGIN, "__end" },
	{ "__start", USDT_BEGIN, "__done" },
	{ "__entry", USDT_BEGIN, "__return" },
	{ "__end", USDT_END, "__begin" },
	{ "__done", USDT_END, "__start" },
	{ "__return", USDT_END, "__entry" },
};

/* The entry of phase_suffixes that name ends with after a non-empty phase,
 * or -1; *stem gets the length of the phase. */
static int phase_suffix(const char *name, size_t *stem)
{
	size_t n = strlen(name), k, i;

	for (i = 0; i < sizeof(phase_suffixes) / sizeof(phase_suffixes[0]); i++) {
		k = strlen(phase_suffixes[i].suffix);
		if (n > k && strcmp(name + n - k, phase_suffixes[i].suffix) == 0) {
			*stem = n - k;
			return (int)i;
		}
	}
	*stem = n;
	return -1;
}

/* Classify a probe name; see usdt.h. */
enum usdt_kind usdt_classify(const char *name, char *phase, size_t cap)
{
	size_t stem;
	int i = phase_suffix(name, &stem);

	if (phase && cap > 0) {
		if (stem >= cap)
			stem = cap - 1;
		copy_part(phase, name, stem);
	}
	return i < 0 ? USDT_MARKER : phase_suffixes[i].kind;
}

/* The other end of a phase's name; see usdt.h. */
int usdt_partner(const char *name, char *out, size_t cap)
{
	const char *partner;
	size_t stem;
	int i = phase_suffix(name, &stem);

	if (i < 0)
		return -EINVAL;
	partner = phase_suffixes[i].partner;
	if (stem + strlen(partner) >= cap)
		return -ENAMETOOLONG;
	memcpy(out, name, stem);
	strcpy(out + stem, partner);
	return 0;
}
