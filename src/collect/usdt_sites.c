/* The sites of a USDT probe in an ELF file: the note's addresses turned into
 * file offsets (what uprobes take), and its arguments into fetch specs. */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "usdt_note.h"
#include "usdt_sites.h"

/* A walk collecting the sites of one probe. */
struct collect {
	Elf *elf;
	const char *provider, *name;
	unsigned long long base_addr; /* .stapsdt.base's address, 0 if none */
	struct usdt_sites *out;
	size_t cap;
	int err;
};

/* The file offset of virtual address addr: inside a PT_LOAD segment's
 * file-backed part. */
static int addr_to_offset(Elf *elf, unsigned long long addr, unsigned long long *off)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOEXEC;
}

/* The address of section name, or 0. */
static unsigned long long section_addr(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		s = elf_strptr(elf, shstrndx, sh.sh_name);
		if (s && !strcmp(s, name))
			return sh.sh_addr;
	}
	return 0;
}

/* The value of defined symbol name in a symbol table of type type. */
static int find_symbol_in(Elf *elf, Elf64_Word type, const char *name,
			  unsigned long long *value)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym sym;
	size_t i, n;
	const char *s;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name)) {
				*value = sym.st_value;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* A global's address: .symtab first (not stripped), else .dynsym. */
static int find_symbol(Elf *elf, const char *name, unsigned long long *value)
{
	if (!find_symbol_in(elf, SHT_SYMTAB, name, value))
		return 0;
	return find_symbol_in(elf, SHT_DYNSYM, name, value);
}

/* Turn GLOBAL arguments into DEREF of ip (the site's address at a hit). */
static void resolve_globals(struct collect *c, struct usdt_site *s, unsigned long long pc)
{
	unsigned long long sym;
	int i;

	for (i = 0; i < USDT_SITE_ARGS && i < s->nargs; i++) {
		struct usdt_arg *a = &s->args[i];

		if (a->kind != USDT_ARG_GLOBAL)
			continue;
		if (find_symbol(c->elf, a->sym, &sym)) {
			a->kind = USDT_ARG_NONE;
			continue;
		}
		a->kind = USDT_ARG_DEREF;
		a->off = (long long)(sym - pc) + a->off;
	}
}

/* Add one site; returns 0 or -errno. */
static int add_site(struct collect *c, const struct usdt_probe *p)
{
	unsigned long long pc = p->pc, sema = p->semaphore;
	struct usdt_site s = { .nargs = p->nargs };
	int i, n;

	/* Prelinked files moved: the note says where .stapsdt.base was. */
	if (c->base_addr && p->base) {
		pc += c->base_addr - p->base;
		if (sema)
			sema += c->base_addr - p->base;
	}
	if (addr_to_offset(c->elf, pc, &s.offset))
		return -ENOEXEC;
	if (sema && addr_to_offset(c->elf, sema, &s.ref_ctr))
		return -ENOEXEC;
	n = usdt_args_parse(p->args, s.args, USDT_SITE_ARGS);
	for (i = n < 0 ? 0 : n; i < USDT_SITE_ARGS; i++)
		s.args[i].kind = USDT_ARG_NONE; /* not there, or unparsable */
	resolve_globals(c, &s, pc);
	for (i = 0; i < USDT_SITE_ARGS && i < s.nargs; i++)
		c->out->unavailable += s.args[i].kind == USDT_ARG_NONE;
	if (c->out->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct usdt_site *v = realloc(c->out->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->out->v = v;
		c->cap = cap;
	}
	c->out->v[c->out->n++] = s;
	return 0;
}

/* Probe-walk step: collect the sites of the probe asked for. */
static int on_probe(const struct usdt_probe *p, void *arg)
{
	struct collect *c = arg;

	if (strcmp(p->provider, c->provider) || strcmp(p->name, c->name))
		return 0;
	c->err = add_site(c, p);
	return c->err ? 1 : 0;
}

/* Collect the sites of provider:name; see usdt_sites.h. */
int usdt_sites__collect(const char *path, const char *provider, const char *name,
		       struct usdt_sites *out)
{
	struct collect c = { .provider = provider, .name = name, .out = out };
	int fd, ret;

	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	fd = usdt_open_regular(path);
	if (fd < 0)
		return fd;
	c.elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!c.elf) {
		close(fd);
		return -ENOEXEC;
	}
	c.base_addr = section_addr(c.elf, ".stapsdt.base");
	ret = usdt_note_for_each_probe_elf(c.elf, on_probe, &c);
	elf_end(c.elf);
	close(fd);
	if (c.err)
		ret = c.err;
	if (ret < 0) {
		usdt_sites__free(out);
		return ret;
	}
	return 0;
}

/* Free the sites; the struct itself is the caller's. */
void usdt_sites__free(struct usdt_sites *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
