/* The USDT probes of ELF files, as the stapsdt notes of their .note.stapsdt
 * sections describe them. Everything read from a file is untrusted: names
 * are raw bytes, to sanitize before showing them. */
#ifndef COWTOP_USDT_NOTE_H
#define COWTOP_USDT_NOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <libelf.h>
#include "usdt.h"

#define USDT_ARGS_MAX 256

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
int usdt_note_parse(const void *desc, size_t len, bool is64, struct usdt_probe *out);

/* Call fn for every probe of the SHT_NOTE sections named .note.stapsdt of
 * the ELF file at path (ELF32 or ELF64, either byte order). Notes that do
 * not parse are skipped. Returns the number of probes fn was called for,
 * -ENODATA when the file has no .note.stapsdt, -ENOEXEC when it is not a
 * regular ELF file (or a damaged one), or -errno when it cannot be opened.
 * A non-zero value from fn stops the walk and is returned. */
int usdt_note_for_each_probe(const char *path,
    int (*fn)(const struct usdt_probe *p, void *arg), void *arg);

/* The same for an ELF file opened by the caller. */
int usdt_note_for_each_probe_elf(Elf *elf,
    int (*fn)(const struct usdt_probe *p, void *arg), void *arg);

/* Open path for reading (O_RDONLY | O_NONBLOCK, close-on-exec) only when
 * an O_PATH look at it finds a regular file: returns the fd, -ENOEXEC for
 * anything else (a device or a FIFO is never opened for reading), or
 * -errno. */
int usdt_open_regular(const char *path);

#endif
