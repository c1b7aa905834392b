/* USDT (SystemTap SDT) probes: the stapsdt notes of ELF files, the objects a
 * process maps, probe specs given on the command line and how probe names
 * pair up into phases. Everything read from a file or from /proc is
 * untrusted: names are raw bytes, to sanitize before showing them. */
#ifndef COWTOP_USDT_H
#define COWTOP_USDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define USDT_STR_MAX 64
#define USDT_ARGS_MAX 256
#define USDT_PATH_MAX 4096

/* One probe as its note describes it. */
struct usdt_probe {
	char provider[USDT_STR_MAX];
	char name[USDT_STR_MAX];
	unsigned long long pc, base, semaphore; /* as in the note (addresses) */
	/* The argument string, e.g. "-4@%eax 8@%rdx", cut at USDT_ARGS_MAX - 1
	 * bytes when longer (then nargs counts more specs than args holds). */
	char args[USDT_ARGS_MAX];
	int nargs; /* space-separated specs in the whole string; 0 for empty */
};

/* Parse one stapsdt note descriptor: the bytes after the note header, that
 * is three addresses of the ELF class's size in native byte order, then
 * "provider\0name\0args\0". Pure; never reads desc[len] or beyond; bytes
 * after the args' NUL are ignored. Returns 0, -EINVAL when malformed (too
 * short, a NUL missing, an empty provider or name), or -ENAMETOOLONG when
 * the provider or the name does not fit USDT_STR_MAX (a cut name would name
 * another probe). out is written only on success. */
int usdt_parse_note(const void *desc, size_t len, bool is64, struct usdt_probe *out);

/* Call fn for every probe of the SHT_NOTE sections named .note.stapsdt of
 * the ELF file at path (ELF32 or ELF64, either byte order). Notes that do
 * not parse are skipped. Returns the number of probes fn was called for,
 * -ENODATA when the file has no .note.stapsdt, -ENOEXEC when it is not a
 * regular ELF file (or a damaged one), or -errno when it cannot be opened.
 * A non-zero value from fn stops the walk and is returned. */
int usdt_for_each_probe(const char *path,
    int (*fn)(const struct usdt_probe *p, void *arg), void *arg);

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

/* --list-usdt: arg is a PID (all digits: the probes of every object the
 * process maps, opened through /proc/PID/root when allowed so that a
 * process in a container is read right) or the path of an ELF file
 * ("./123" for a file named 123). Prints a header line, then one line per
 * probe with aligned columns PROVIDER, NAME, ARGS (the count) and OBJECT;
 * every string is sanitized. Nothing is printed on error. Returns 0, or
 * -errno with a one-line reason in err: "no process with PID N",
 * "PATH: not an ELF file", "PATH: no USDT probes (.note.stapsdt missing)",
 * "process N maps no object with USDT probes", or "PATH: " / "process N: "
 * followed by strerror. */
int usdt_list(FILE *f, const char *arg, char *err, size_t errlen);

#endif
