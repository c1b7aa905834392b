/* USDT (SystemTap SDT) probe names: the specs given on the command line and
 * how probe names pair up into phases. The probes of ELF files are in
 * usdt_note.h, the --list-usdt printer in usdt_list.h. */
#ifndef COWTOP_USDT_H
#define COWTOP_USDT_H

#include <stddef.h>

#define USDT_STR_MAX 64
#define USDT_PATH_MAX 4096

/* A probe named on the command line. */
struct usdt_spec {
	char path[USDT_PATH_MAX]; /* "" when not given */
	char provider[USDT_STR_MAX];
	char name[USDT_STR_MAX];
};

/* Parse "[PATH:]PROVIDER:NAME". PATH may itself hold ':', so the split is
 * on the last two colons; PATH, when given, is non-empty; PROVIDER and NAME
 * are non-empty [A-Za-z0-9_]+. Returns 0, -EINVAL otherwise, or
 * -ENAMETOOLONG when a part does not fit. */
int usdt_spec_parse(const char *s, struct usdt_spec *out);

enum usdt_kind { USDT_MARKER, USDT_BEGIN, USDT_END };

/* Classify a probe name: X__begin, X__start and X__entry begin phase X;
 * X__end, X__done and X__return end it (X non-empty); anything else is a
 * marker whose phase is the whole name. The phase goes to phase (capacity
 * cap, NUL-terminated, cut to fit) unless phase is NULL or cap is 0. */
enum usdt_kind usdt_classify(const char *name, char *phase, size_t cap);

/* The other end of a BEGIN or END name: begin <-> end, start <-> done,
 * entry <-> return (gc__mark__begin <-> gc__mark__end). Returns 0, -EINVAL
 * for a marker, or -ENAMETOOLONG when it does not fit out (capacity cap). */
int usdt_partner(const char *name, char *out, size_t cap);

#endif
