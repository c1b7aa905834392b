/* USDT probes: stapsdt notes, mapped objects, specs, phases, the listing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "procfs.h"
#include "text.h"
#include "usdt.h"

/* The note type and owner of SystemTap SDT probe descriptors. */
#define NT_STAPSDT 3
#define STAPSDT_OWNER "stapsdt"
#define STAPSDT_SECTION ".note.stapsdt"

/* A string as shown: every byte may become a 4-byte escape. */
#define SHOWN_STR_MAX (USDT_STR_MAX * TEXT_ESCAPE_MAX)
#define SHOWN_ARG_MAX 256

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

/* Parse one stapsdt note descriptor; see usdt.h. */
int usdt_parse_note(const void *desc, size_t len, bool is64, struct usdt_probe *out)
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
 * named in maps or on the command line must not block or be read. */
static int open_regular(const char *path)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
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

	if (usdt_parse_note(desc, len, w->is64, &p) < 0)
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

/* Call fn for every probe of an ELF file; see usdt.h. */
int usdt_for_each_probe(const char *path,
    int (*fn)(const struct usdt_probe *p, void *arg), void *arg)
{
	struct note_walk w = { .fn = fn, .arg = arg };
	Elf *elf;
	int fd, ret;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	fd = open_regular(path);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ret = elf ? walk_elf(&w, elf) : -ENOEXEC;
	elf_end(elf);
	close(fd);
	return ret;
}

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

/* ---- --list-usdt ---- */

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
	return usdt_for_each_probe(path, listing_add_probe, l);
}

/* Read the probes of an object a process maps: through the process's root
 * when allowed, so that its own mount namespace resolves the path. Files
 * that cannot be read are left out; only running out of memory stops. */
static int listing_object(const char *path, void *arg)
{
	char rooted[USDT_PATH_MAX + 32];
	struct listing *l = arg;
	int ret;

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
	ret = procfs_for_each_object(procfd, pid, listing_object, l);
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

/* List the probes of a process or of an ELF file; see usdt.h. */
int usdt_list(FILE *f, const char *arg, char *err, size_t errlen)
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
