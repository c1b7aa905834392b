/* USDT probes of ELF files: the stapsdt note descriptors of .note.stapsdt. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "usdt_note.h"

/* The note type and owner of SystemTap SDT probe descriptors. */
#define NT_STAPSDT 3
#define STAPSDT_OWNER "stapsdt"
#define STAPSDT_SECTION ".note.stapsdt"

/* Where a parser is in its buffer. */
struct cursor {
	const char *p;
	const char *end;
};

/* ---- stapsdt note descriptors ---- */

/* Read an address of the ELF class's size, in native byte order. */
static unsigned long long note_addr(const char *p, bool is64)
{
	uint64_t v64;
	uint32_t v32;

	if (is64) {
		memcpy(&v64, p, sizeof(v64));
		return v64;
	}
	memcpy(&v32, p, sizeof(v32));
	return v32;
}

/* Take the NUL-terminated string at the cursor into s and n. */
static int note_string(struct cursor *c, const char **s, size_t *n)
{
	const char *nul = memchr(c->p, '\0', (size_t)(c->end - c->p));

	if (!nul)
		return -EINVAL;
	*s = c->p;
	*n = (size_t)(nul - c->p);
	c->p = nul + 1;
	return 0;
}

/* Copy a provider or probe name, which must be non-empty and fit whole. */
static int note_name(char *dst, const char *s, size_t n)
{
	if (n == 0)
		return -EINVAL;
	if (n >= USDT_STR_MAX)
		return -ENAMETOOLONG;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* Number of space-separated argument specs in s[0..n). */
static int count_specs(const char *s, size_t n)
{
	int count = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] != ' ' && (i == 0 || s[i - 1] == ' '))
			count++;
	}
	return count;
}

/* Parse one stapsdt note descriptor; see usdt_note.h. */
int usdt_note_parse(const void *desc, size_t len, bool is64, struct usdt_probe *out)
{
	size_t asz = is64 ? 8 : 4, np, nn, na;
	struct cursor c = { desc, (const char *)desc + len };
	const char *prov, *name, *args;
	struct usdt_probe p;
	int err;

	if (len < 3 * asz)
		return -EINVAL;
	p.pc = note_addr(c.p, is64);
	p.base = note_addr(c.p + asz, is64);
	p.semaphore = note_addr(c.p + 2 * asz, is64);
	c.p += 3 * asz;
	if (note_string(&c, &prov, &np) < 0 || note_string(&c, &name, &nn) < 0 ||
	    note_string(&c, &args, &na) < 0)
		return -EINVAL;
	err = note_name(p.provider, prov, np);
	if (err == 0)
		err = note_name(p.name, name, nn);
	if (err < 0)
		return err;
	p.nargs = count_specs(args, na);
	if (na >= sizeof(p.args))
		na = sizeof(p.args) - 1;
	memcpy(p.args, args, na);
	p.args[na] = '\0';
	*out = p;
	return 0;
}

/* ---- ELF files ---- */

/* A walk over the probes of one file. */
struct note_walk {
	int (*fn)(const struct usdt_probe *p, void *arg);
	void *arg;
	bool is64;
	bool swap; /* the file's byte order is not ours */
	int count;
};

/* Open a file for reading only if it is a regular file: a FIFO or a device
 * named in maps or on the command line is never opened for reading (that
 * could block, or have effects), only looked at through an O_PATH handle. */
int usdt_open_regular(const char *path)
{
	char self[64];
	struct stat st;
	int pfd, fd;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(pfd);
		return -ENOEXEC;
	}
	/* Reopen that very inode for reading, whatever the path names now. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		fd = -errno;
	close(pfd);
	return fd;
}

/* Whether a note header announces a stapsdt probe descriptor. */
static bool note_is_stapsdt(const Elf_Data *d, const GElf_Nhdr *nh, size_t name_off)
{
	if (nh->n_type != NT_STAPSDT || nh->n_namesz != sizeof(STAPSDT_OWNER))
		return false;
	if (name_off > d->d_size || d->d_size - name_off < sizeof(STAPSDT_OWNER))
		return false;
	return memcmp((const char *)d->d_buf + name_off, STAPSDT_OWNER,
	    sizeof(STAPSDT_OWNER)) == 0;
}

/* Turn the addresses of a probe from a foreign-endian file into ours. */
static void probe_swap(struct usdt_probe *p, bool is64)
{
	if (is64) {
		p->pc = bswap_64(p->pc);
		p->base = bswap_64(p->base);
		p->semaphore = bswap_64(p->semaphore);
		return;
	}
	p->pc = bswap_32((uint32_t)p->pc);
	p->base = bswap_32((uint32_t)p->base);
	p->semaphore = bswap_32((uint32_t)p->semaphore);
}

/* Hand one note descriptor to the walk's function, if it is a probe. */
static int walk_desc(struct note_walk *w, const char *desc, size_t len)
{
	struct usdt_probe p;
	int ret;

	if (usdt_note_parse(desc, len, w->is64, &p) < 0)
		return 0;
	if (w->swap)
		probe_swap(&p, w->is64);
	ret = w->fn(&p, w->arg);
	if (ret == 0)
		w->count++;
	return ret;
}

/* Walk the notes of one data block of a note section. */
static int walk_notes(struct note_walk *w, const Elf_Data *d)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;
	int ret;

	while (off < d->d_size) {
		next = gelf_getnote((Elf_Data *)d, off, &nh, &name_off, &desc_off);
		if (next == 0)
			break;
		off = next;
		if (!note_is_stapsdt(d, &nh, name_off))
			continue;
		if (desc_off > d->d_size || d->d_size - desc_off < nh.n_descsz)
			continue;
		ret = walk_desc(w, (const char *)d->d_buf + desc_off, nh.n_descsz);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* Walk the notes of a section, all of whose data must be readable. */
static int walk_section(struct note_walk *w, Elf_Scn *scn)
{
	Elf_Data *d = NULL;
	int ret;

	elf_errno(); /* clear, to tell the end of the data from a failure */
	while ((d = elf_getdata(scn, d)) != NULL) {
		if (!d->d_buf)
			continue;
		ret = walk_notes(w, d);
		if (ret != 0)
			return ret;
	}
	return elf_errno() ? -ENOEXEC : 0;
}

/* Whether a section holds stapsdt notes: SHT_NOTE, named .note.stapsdt. */
static bool section_is_stapsdt(Elf *elf, size_t shstrndx, Elf_Scn *scn, int *err)
{
	const char *name;
	GElf_Shdr sh;

	if (!gelf_getshdr(scn, &sh)) {
		*err = -ENOEXEC;
		return false;
	}
	if (sh.sh_type != SHT_NOTE || sh.sh_size == 0)
		return false;
	name = elf_strptr(elf, shstrndx, sh.sh_name);
	return name && strcmp(name, STAPSDT_SECTION) == 0;
}

/* Check that the section headers the ELF header announces are there: on a
 * truncated file libelf quietly finds no section at all. */
static int check_sections(Elf *elf)
{
	GElf_Ehdr eh;
	size_t n;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &n) < 0)
		return -ENOEXEC;
	return eh.e_shoff != 0 && n == 0 ? -ENOEXEC : 0;
}

/* Walk every stapsdt note section of an ELF file. */
static int walk_sections(struct note_walk *w, Elf *elf)
{
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t shstrndx;
	int ret;

	ret = check_sections(elf);
	if (ret < 0)
		return ret;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!section_is_stapsdt(elf, shstrndx, scn, &ret)) {
			if (ret < 0)
				return ret;
			continue;
		}
		found = true;
		ret = walk_section(w, scn);
		if (ret != 0)
			return ret;
	}
	return found ? 0 : -ENODATA;
}

/* Walk the probes of an opened ELF: check its class and byte order first. */
static int walk_elf(struct note_walk *w, Elf *elf)
{
	w->count = 0;
	const char *ident;
	int native, ret;

	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	ident = elf_getident(elf, NULL);
	if (!ident)
		return -ENOEXEC;
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	native = __BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB;
	w->is64 = ident[EI_CLASS] == ELFCLASS64;
	w->swap = ident[EI_DATA] != native;
	ret = walk_sections(w, elf);
	return ret != 0 ? ret : w->count;
}

/* Call fn for every probe of an opened ELF file; see usdt_note.h. */
int usdt_note_for_each_probe_elf(Elf *elf,
    int (*fn)(const struct usdt_probe *p, void *arg), void *arg)
{
	struct note_walk w = { .fn = fn, .arg = arg };

	return walk_elf(&w, elf);
}

/* Call fn for every probe of an ELF file; see usdt_note.h. */
int usdt_note_for_each_probe(const char *path,
    int (*fn)(const struct usdt_probe *p, void *arg), void *arg)
{
	struct note_walk w = { .fn = fn, .arg = arg };
	Elf *elf;
	int fd, ret;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	fd = usdt_open_regular(path);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ret = elf ? walk_elf(&w, elf) : -ENOEXEC;
	elf_end(elf);
	close(fd);
	return ret;
}
