/* Unit tests of the USDT module: note descriptors built by hand, ELF files
 * written at run time (both classes, both byte orders, hostile notes,
 * truncated copies of real files), live files when present, probe specs,
 * phases and the --list-usdt listing. PHASELOAD names the test workload with
 * the cowtest probes; its checks are skipped when it is not set. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "tmpdir.h"
#include "usdt.h"
#include "usdt_arg.h"
#include "usdt_list.h"
#include "usdt_note.h"

#define PYTHON "/usr/bin/python3.11"
/* PID_MAX_LIMIT: every pid is below it, whatever pid_max says. */
#define NO_SUCH_PID "4194304"
#define MAX_PROBES 256
#define NOTES_MAX 8192

static char tmpdir[PATH_MAX];

/* Test values of the three addresses of a descriptor. */
struct addrs {
	unsigned long long pc, base, semaphore;
};

static const struct addrs addrs64 = { 0x7fffdeadbeef1234ull, 0x00000000008c99c0ull, 0x8000000000a7ed4eull };
static const struct addrs addrs32 = { 0x08041234ull, 0x080c99c0ull, 0x0a7ed4eull };

/* ---- helpers ---- */

/* Whether the host stores numbers big-endian. */
static bool host_msb(void)
{
	return __BYTE_ORDER == __BIG_ENDIAN;
}

/* Store an address of the class's size, in native order or swapped. */
static size_t put_addr(unsigned char *p, unsigned long long v, bool is64, bool swap)
{
	uint64_t v64 = v;
	uint32_t v32 = (uint32_t)v;

	if (is64) {
		if (swap)
			v64 = bswap_64(v64);
		memcpy(p, &v64, sizeof(v64));
		return sizeof(v64);
	}
	if (swap)
		v32 = bswap_32(v32);
	memcpy(p, &v32, sizeof(v32));
	return sizeof(v32);
}

/* Append a string with its NUL. */
static size_t put_str(unsigned char *p, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(p, s, n);
	return n;
}

/* Build a descriptor in d (room for cap bytes): the three addresses, then
 * provider, name and args, each with its NUL. Returns its length. */
static size_t make_desc(unsigned char *d, size_t cap, bool is64, bool swap,
    const struct addrs *a, const char *prov, const char *name, const char *args)
{
	size_t n = 0;

	assert_true(3 * 8 + strlen(prov) + strlen(name) + strlen(args) + 3 <= cap);
	n += put_addr(d + n, a->pc, is64, swap);
	n += put_addr(d + n, a->base, is64, swap);
	n += put_addr(d + n, a->semaphore, is64, swap);
	n += put_str(d + n, prov);
	n += put_str(d + n, name);
	n += put_str(d + n, args);
	return n;
}

/* Parse a copy of d[0..len) in a heap block of exactly that size, so that
 * a read past len trips the address sanitizer. */
static int parse_exact(const void *d, size_t len, bool is64, struct usdt_probe *p)
{
	void *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, d, len);
	ret = usdt_note_parse(copy, len, is64, p);
	free(copy);
	return ret;
}

/* A path in the test's temporary directory. */
static const char *tmp_path(char *buf, size_t cap, const char *name)
{
	int n = snprintf(buf, cap, "%s/%s", tmpdir, name);

	assert_true(n > 0 && (size_t)n < cap);
	return buf;
}

/* Write len bytes to a new file. */
static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* Read a whole file into a heap buffer. */
static unsigned char *read_file(const char *path, size_t *len)
{
	unsigned char *buf;
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	while ((r = read(fd, buf + n, (size_t)st.st_size - n)) > 0)
		n += (size_t)r;
	close(fd);
	*len = n;
	return buf;
}

/* Whether a file exists and is readable. */
static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* ---- probes gathered by a walk ---- */

struct probes {
	struct usdt_probe p[MAX_PROBES];
	int n;
	int stop_after; /* 0: never stop */
	int stop_value;
};

/* Walk callback: keep the probe; stop when asked to. */
static int collect(const struct usdt_probe *p, void *arg)
{
	struct probes *ps = arg;

	if (ps->n < MAX_PROBES)
		ps->p[ps->n] = *p;
	ps->n++;
	if (ps->stop_after && ps->n == ps->stop_after)
		return ps->stop_value;
	return 0;
}

/* A new, empty collection. */
static struct probes *probes_new(void)
{
	struct probes *ps = calloc(1, sizeof(*ps));

	assert_non_null(ps);
	return ps;
}

/* The first probe provider:name of a collection, or NULL. */
static const struct usdt_probe *probes_find(const struct probes *ps,
    const char *prov, const char *name)
{
	int i;

	for (i = 0; i < ps->n && i < MAX_PROBES; i++) {
		if (strcmp(ps->p[i].provider, prov) == 0 && strcmp(ps->p[i].name, name) == 0)
			return &ps->p[i];
	}
	return NULL;
}

/* Walk the probes of a file into a new collection; the result in *ret. */
static struct probes *probes_of(const char *path, int *ret)
{
	struct probes *ps = probes_new();

	*ret = usdt_note_for_each_probe(path, collect, ps);
	return ps;
}

/* ---- ELF files written by the test ---- */

/* Note section bytes in a file's byte order. */
struct notes {
	unsigned char b[NOTES_MAX];
	size_t n;
	bool swap;
};

/* Append a 32-bit word in the file's byte order. */
static void notes_word(struct notes *nt, uint32_t v)
{
	assert_true(nt->n + 4 <= sizeof(nt->b));
	if (nt->swap)
		v = bswap_32(v);
	memcpy(nt->b + nt->n, &v, 4);
	nt->n += 4;
}

/* Append bytes, then zeros up to a multiple of 4. */
static void notes_bytes(struct notes *nt, const void *p, size_t len)
{
	assert_true(nt->n + len + 3 <= sizeof(nt->b));
	memcpy(nt->b + nt->n, p, len);
	nt->n += len;
	while (nt->n % 4)
		nt->b[nt->n++] = 0;
}

/* Append a note whose header says namesz and descsz, whatever the bytes. */
static void notes_raw(struct notes *nt, uint32_t namesz, uint32_t descsz, uint32_t type,
    const void *name, size_t nlen, const void *desc, size_t dlen)
{
	notes_word(nt, namesz);
	notes_word(nt, descsz);
	notes_word(nt, type);
	notes_bytes(nt, name, nlen);
	notes_bytes(nt, desc, dlen);
}

/* Append a well-formed note. */
static void notes_add(struct notes *nt, const char *owner, uint32_t type,
    const void *desc, size_t dlen)
{
	size_t olen = strlen(owner) + 1;

	notes_raw(nt, (uint32_t)olen, (uint32_t)dlen, type, owner, olen, desc, dlen);
}

/* Append a stapsdt probe note for an ELF of class is64. */
static void notes_probe(struct notes *nt, bool is64, const struct addrs *a,
    const char *prov, const char *name, const char *args)
{
	unsigned char d[1024];
	size_t n = make_desc(d, sizeof(d), is64, nt->swap, a, prov, name, args);

	notes_add(nt, "stapsdt", 3, d, n);
}

/* A section of an ELF file to write. */
struct sec {
	const char *name;
	unsigned type;
	const void *data;
	size_t size;
};

/* Add one section to an ELF being written. */
static size_t elf_add_section(Elf *elf, size_t name_off, unsigned type,
    const void *data, size_t size)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d;
	GElf_Shdr sh;

	assert_non_null(scn);
	d = elf_newdata(scn);
	assert_non_null(d);
	d->d_buf = (void *)data;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = 4;
	d->d_version = EV_CURRENT;
	assert_non_null(gelf_getshdr(scn, &sh));
	sh.sh_name = (GElf_Word)name_off;
	sh.sh_type = type;
	sh.sh_addralign = 4;
	assert_true(gelf_update_shdr(scn, &sh));
	return elf_ndxscn(scn);
}

/* Write an ELF file of the given class and byte order with the sections
 * given, and a section name table. */
static void write_elf(const char *path, bool is64, bool msb, const struct sec *s, size_t n)
{
	char strtab[1024] = "";
	size_t strsz = 1, offs[16], stroff, i;
	GElf_Ehdr eh;
	Elf *elf;
	int fd;

	assert_true(n < 16);
	for (i = 0; i < n; i++) {
		offs[i] = strsz;
		strsz += (size_t)sprintf(strtab + strsz, "%s", s[i].name) + 1;
	}
	stroff = strsz;
	strsz += (size_t)sprintf(strtab + strsz, ".shstrtab") + 1;
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	assert_non_null(elf);
	assert_non_null(gelf_newehdr(elf, is64 ? ELFCLASS64 : ELFCLASS32));
	assert_non_null(gelf_getehdr(elf, &eh));
	eh.e_ident[EI_DATA] = msb ? ELFDATA2MSB : ELFDATA2LSB;
	eh.e_type = ET_DYN;
	eh.e_machine = msb ? (is64 ? EM_PPC64 : EM_PPC) : (is64 ? EM_X86_64 : EM_386);
	eh.e_version = EV_CURRENT;
	for (i = 0; i < n; i++)
		elf_add_section(elf, offs[i], s[i].type, s[i].data, s[i].size);
	eh.e_shstrndx = (GElf_Half)elf_add_section(elf, stroff, SHT_STRTAB, strtab, strsz);
	assert_true(gelf_update_ehdr(elf, &eh));
	assert_true(elf_update(elf, ELF_C_WRITE) > 0);
	elf_end(elf);
	close(fd);
}

/* Write an ELF whose only section is one note section. */
static void write_note_elf(const char *path, bool is64, bool msb, const char *secname,
    unsigned type, const struct notes *nt)
{
	struct sec s = { secname, type, nt->b, nt->n };

	write_elf(path, is64, msb, &s, 1);
}

/* Write an ELF with three probes among notes that must be skipped (a
 * foreign owner, another type, a descriptor without NULs), in the class and
 * byte order given. */
static void write_probe_elf(const char *path, bool is64, bool msb)
{
	static const unsigned char build_id[20] = { 1, 2, 3 };
	const struct addrs *a = is64 ? &addrs64 : &addrs32;
	struct notes *nt = calloc(1, sizeof(*nt));
	unsigned char bad[64], desc[128];
	size_t n;

	assert_non_null(nt);
	nt->swap = msb != host_msb();
	notes_add(nt, "GNU", 3, build_id, sizeof(build_id));
	notes_probe(nt, is64, a, "cowtest", "phase__begin", "-4@%edi 8@%rsi");
	memset(bad, 'x', sizeof(bad));
	notes_add(nt, "stapsdt", 3, bad, sizeof(bad));
	n = make_desc(desc, sizeof(desc), is64, nt->swap, a, "cowtest", "typed", "");
	notes_add(nt, "stapsdt", 1, desc, n);
	notes_probe(nt, is64, a, "cowtest", "phase__end", "");
	notes_add(nt, "stapsdX", 3, desc, n);
	notes_probe(nt, is64, a, "cowtest", "mark", "8@%rax");
	write_note_elf(path, is64, msb, ".note.stapsdt", SHT_NOTE, nt);
	free(nt);
}

/* ---- usdt_note_parse ---- */

/* A 64-bit descriptor as gcc emits it on x86-64. */
static void test_note_good64(void **state)
{
	unsigned char d[256];
	struct usdt_probe p;
	size_t n;

	(void)state;
	n = make_desc(d, sizeof(d), true, false, &addrs64, "python", "gc__start", "-4@%eax 8@%rdx");
	assert_int_equal(parse_exact(d, n, true, &p), 0);
	assert_string_equal(p.provider, "python");
	assert_string_equal(p.name, "gc__start");
	assert_string_equal(p.args, "-4@%eax 8@%rdx");
	assert_int_equal(p.nargs, 2);
	assert_true(p.pc == addrs64.pc);
	assert_true(p.base == addrs64.base);
	assert_true(p.semaphore == addrs64.semaphore);
}

/* A 32-bit descriptor: 4-byte addresses. */
static void test_note_good32(void **state)
{
	unsigned char d[256];
	struct usdt_probe p;
	size_t n;

	(void)state;
	n = make_desc(d, sizeof(d), false, false, &addrs32, "ruby", "gc__mark__begin", "4@%eax");
	assert_int_equal(n, 12 + 5 + 16 + 7);
	assert_int_equal(parse_exact(d, n, false, &p), 0);
	assert_string_equal(p.provider, "ruby");
	assert_string_equal(p.name, "gc__mark__begin");
	assert_string_equal(p.args, "4@%eax");
	assert_int_equal(p.nargs, 1);
	assert_true(p.pc == addrs32.pc);
	assert_true(p.base == addrs32.base);
	assert_true(p.semaphore == addrs32.semaphore);
}

/* Every proper prefix of a descriptor lacks the args' NUL at least, and is
 * refused without out being touched; so is every prefix read as the other
 * class, unless the shifted bytes happen to hold three strings. */
static void test_note_truncated(void **state)
{
	unsigned char d[256];
	struct usdt_probe p, canary;
	size_t n, len;
	int cls;

	(void)state;
	for (cls = 0; cls < 2; cls++) {
		n = make_desc(d, sizeof(d), cls, false, cls ? &addrs64 : &addrs32,
		    "python", "function__entry", "8@%rbp 8@%r12 -4@%eax");
		for (len = 0; len < n; len++) {
			memset(&p, 0x5a, sizeof(p));
			canary = p;
			if (parse_exact(d, len, cls, &p) != -EINVAL)
				fail_msg("class %d, %zu of %zu bytes: accepted", cls ? 64 : 32, len, n);
			assert_memory_equal(&p, &canary, sizeof(p));
		}
		assert_int_equal(parse_exact(d, n, cls, &p), 0);
	}
}

/* NULs missing: none at all, only after the provider, only two. */
static void test_note_missing_nuls(void **state)
{
	unsigned char d[256];
	struct usdt_probe p;
	size_t n;

	(void)state;
	memset(d, 0, 24);
	memset(d + 24, 'a', 40);
	assert_int_equal(parse_exact(d, 64, true, &p), -EINVAL);
	n = make_desc(d, sizeof(d), true, false, &addrs64, "prov", "name", "args");
	d[n - 1] = 'x'; /* args unterminated */
	assert_int_equal(parse_exact(d, n, true, &p), -EINVAL);
	d[24 + 5 + 4] = 'x'; /* name unterminated too */
	assert_int_equal(parse_exact(d, n, true, &p), -EINVAL);
	/* Only the addresses. */
	assert_int_equal(parse_exact(d, 24, true, &p), -EINVAL);
	assert_int_equal(parse_exact(d, 12, false, &p), -EINVAL);
}

/* Empty args are fine; an empty provider or name is not. */
static void test_note_empty_strings(void **state)
{
	unsigned char d[256];
	struct usdt_probe p;
	size_t n;

	(void)state;
	n = make_desc(d, sizeof(d), true, false, &addrs64, "prov", "mark", "");
	assert_int_equal(parse_exact(d, n, true, &p), 0);
	assert_string_equal(p.args, "");
	assert_int_equal(p.nargs, 0);
	n = make_desc(d, sizeof(d), true, false, &addrs64, "", "mark", "");
	assert_int_equal(parse_exact(d, n, true, &p), -EINVAL);
	n = make_desc(d, sizeof(d), true, false, &addrs64, "prov", "", "8@%rax");
	assert_int_equal(parse_exact(d, n, true, &p), -EINVAL);
	n = make_desc(d, sizeof(d), false, false, &addrs32, "", "", "");
	assert_int_equal(n, 15);
	assert_int_equal(parse_exact(d, n, false, &p), -EINVAL);
}

/* Specs are counted as runs of non-spaces, however they are spaced. */
static void test_note_nargs(void **state)
{
	static const struct {
		const char *args;
		int nargs;
	} cases[] = {
		{ "", 0 }, { " ", 0 }, { "   ", 0 }, { "8@%rax", 1 },
		{ " 8@%rax", 1 }, { "8@%rax ", 1 }, { "8@%rax  -4@%edx", 2 },
		{ "  -4@%eax 8@%rdx  8@16(%rsp) ", 3 },
		{ "1@$0 2@$1 4@$2 8@$3 -1@$4 -2@$5 -4@$6 -8@$7 8@%r8 8@%r9 8@%r10 8@%r11", 12 },
	};
	unsigned char d[256];
	struct usdt_probe p;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = make_desc(d, sizeof(d), true, false, &addrs64, "p", "n", cases[i].args);
		assert_int_equal(parse_exact(d, n, true, &p), 0);
		assert_string_equal(p.args, cases[i].args);
		if (p.nargs != cases[i].nargs)
			fail_msg("\"%s\": %d specs, not %d", cases[i].args, p.nargs, cases[i].nargs);
	}
}

/* Names of 63 bytes fit, of 64 do not (a cut name would name another
 * probe); args of any length are cut to fit and still counted whole. */
static void test_note_huge_strings(void **state)
{
	unsigned char *d = malloc(8192);
	char big[4000], n63[64], n64[65];
	struct usdt_probe p;
	size_t n, i;

	(void)state;
	assert_non_null(d);
	memset(n63, 'p', 63);
	n63[63] = '\0';
	memset(n64, 'q', 64);
	n64[64] = '\0';
	n = make_desc(d, 8192, true, false, &addrs64, n63, n63, "");
	assert_int_equal(parse_exact(d, n, true, &p), 0);
	assert_string_equal(p.provider, n63);
	assert_string_equal(p.name, n63);
	n = make_desc(d, 8192, true, false, &addrs64, n64, "name", "");
	assert_int_equal(parse_exact(d, n, true, &p), -ENAMETOOLONG);
	n = make_desc(d, 8192, true, false, &addrs64, "prov", n64, "");
	assert_int_equal(parse_exact(d, n, true, &p), -ENAMETOOLONG);
	for (i = 0; i + 7 < sizeof(big); i += 7)
		memcpy(big + i, "8@%rax ", 7);
	big[i] = '\0';
	n = make_desc(d, 8192, true, false, &addrs64, "prov", "name", big);
	assert_int_equal(parse_exact(d, n, true, &p), 0);
	assert_int_equal(strlen(p.args), USDT_ARGS_MAX - 1);
	assert_memory_equal(p.args, big, USDT_ARGS_MAX - 1);
	assert_int_equal(p.nargs, (int)(i / 7));
	free(d);
}

/* Bytes after the args' NUL (padding, or a descsz rounded up) are ignored. */
static void test_note_trailing_bytes(void **state)
{
	unsigned char d[256];
	struct usdt_probe p;
	size_t n;

	(void)state;
	n = make_desc(d, sizeof(d), true, false, &addrs64, "p", "n", "8@%rax");
	memcpy(d + n, "\0\0\xff\x1b", 4);
	assert_int_equal(parse_exact(d, n + 4, true, &p), 0);
	assert_string_equal(p.args, "8@%rax");
}

/* Raw bytes pass through as they are: sanitizing is the printer's job. */
static void test_note_raw_bytes(void **state)
{
	unsigned char d[256];
	struct usdt_probe p;
	size_t n;

	(void)state;
	n = make_desc(d, sizeof(d), true, false, &addrs64, "\x1b[31mred", "n\nx\xff", "\x9b" "2J");
	assert_int_equal(parse_exact(d, n, true, &p), 0);
	assert_string_equal(p.provider, "\x1b[31mred");
	assert_string_equal(p.name, "n\nx\xff");
	assert_int_equal(p.nargs, 1);
}

/* ---- usdt_note_for_each_probe on written files ---- */

/* Check the three probes of write_probe_elf and their addresses. */
static void check_probe_elf(const char *path, bool is64)
{
	const struct addrs *a = is64 ? &addrs64 : &addrs32;
	const struct usdt_probe *p;
	struct probes *ps;
	int ret;

	ps = probes_of(path, &ret);
	assert_int_equal(ret, 3);
	assert_int_equal(ps->n, 3);
	assert_string_equal(ps->p[0].name, "phase__begin");
	assert_string_equal(ps->p[1].name, "phase__end");
	assert_string_equal(ps->p[2].name, "mark");
	p = probes_find(ps, "cowtest", "phase__begin");
	assert_non_null(p);
	assert_string_equal(p->args, "-4@%edi 8@%rsi");
	assert_int_equal(p->nargs, 2);
	assert_true(p->pc == a->pc);
	assert_true(p->base == a->base);
	assert_true(p->semaphore == a->semaphore);
	p = probes_find(ps, "cowtest", "mark");
	assert_non_null(p);
	assert_int_equal(p->nargs, 1);
	free(ps);
}

/* Both classes in both byte orders: addresses come out in ours. */
static void test_elf_classes_and_orders(void **state)
{
	char path[PATH_MAX];
	int is64, msb;

	(void)state;
	for (is64 = 0; is64 < 2; is64++) {
		for (msb = 0; msb < 2; msb++) {
			tmp_path(path, sizeof(path), "probes.elf");
			write_probe_elf(path, is64, msb);
			check_probe_elf(path, is64);
		}
	}
}

/* Only SHT_NOTE sections named .note.stapsdt count, all of them. */
static void test_elf_sections_by_name_and_type(void **state)
{
	struct notes *nt = calloc(1, sizeof(*nt));
	char path[PATH_MAX];
	struct sec s[3];
	struct probes *ps;
	int ret;

	(void)state;
	assert_non_null(nt);
	notes_probe(nt, true, &addrs64, "p", "n", "");
	tmp_path(path, sizeof(path), "sections.elf");
	write_note_elf(path, true, host_msb(), ".note.stapsdt", SHT_PROGBITS, nt);
	ps = probes_of(path, &ret);
	assert_int_equal(ret, -ENODATA);
	free(ps);
	write_note_elf(path, true, host_msb(), ".note.other", SHT_NOTE, nt);
	ps = probes_of(path, &ret);
	assert_int_equal(ret, -ENODATA);
	free(ps);
	s[0] = (struct sec){ ".note.stapsdt", SHT_NOTE, nt->b, nt->n };
	s[1] = (struct sec){ ".text", SHT_PROGBITS, "\xc3", 1 };
	s[2] = s[0];
	write_elf(path, true, host_msb(), s, 3);
	ps = probes_of(path, &ret);
	assert_int_equal(ret, 2);
	free(ps);
	free(nt);
}

/* An ELF with no notes, and one whose stapsdt section holds no valid probe. */
static void test_elf_without_probes(void **state)
{
	struct notes *nt = calloc(1, sizeof(*nt));
	char path[PATH_MAX];
	struct sec s = { ".text", SHT_PROGBITS, "\xc3", 1 };
	struct probes *ps;
	int ret;

	(void)state;
	assert_non_null(nt);
	tmp_path(path, sizeof(path), "nonotes.elf");
	write_elf(path, true, host_msb(), &s, 1);
	ps = probes_of(path, &ret);
	assert_int_equal(ret, -ENODATA);
	assert_int_equal(ps->n, 0);
	free(ps);
	notes_add(nt, "stapsdt", 3, "short", 5);
	tmp_path(path, sizeof(path), "badnotes.elf");
	write_note_elf(path, true, host_msb(), ".note.stapsdt", SHT_NOTE, nt);
	ps = probes_of(path, &ret);
	assert_int_equal(ret, 0);
	free(ps);
	free(nt);
}

/* Note headers that lie: a descsz past the end of the section, a huge
 * namesz. The probes before them are kept; nothing is read out of bounds. */
static void test_elf_lying_note_headers(void **state)
{
	struct notes *nt = calloc(1, sizeof(*nt));
	char path[PATH_MAX];
	struct probes *ps;
	int ret, i;

	(void)state;
	assert_non_null(nt);
	for (i = 0; i < 3; i++) {
		nt->n = 0;
		notes_probe(nt, true, &addrs64, "p", "first", "");
		if (i == 0)
			notes_raw(nt, 8, 4000, 3, "stapsdt", 8, "abc", 3);
		else if (i == 1)
			notes_raw(nt, 0xfffffff0u, 4, 3, "stapsdt", 8, "abc", 3);
		else
			notes_raw(nt, 8, 0xffffffffu, 3, "stapsdt", 8, "", 0);
		tmp_path(path, sizeof(path), "lying.elf");
		write_note_elf(path, true, host_msb(), ".note.stapsdt", SHT_NOTE, nt);
		ps = probes_of(path, &ret);
		assert_int_equal(ret, 1);
		assert_string_equal(ps->p[0].name, "first");
		free(ps);
	}
	free(nt);
}

/* fn's non-zero value stops the walk and comes back. */
static void test_elf_stop(void **state)
{
	char path[PATH_MAX];
	struct probes *ps = probes_new();

	(void)state;
	tmp_path(path, sizeof(path), "stop.elf");
	write_probe_elf(path, true, host_msb());
	ps->stop_after = 2;
	ps->stop_value = 42;
	assert_int_equal(usdt_note_for_each_probe(path, collect, ps), 42);
	assert_int_equal(ps->n, 2);
	ps->n = 0;
	ps->stop_after = 1;
	ps->stop_value = -ECANCELED;
	assert_int_equal(usdt_note_for_each_probe(path, collect, ps), -ECANCELED);
	free(ps);
}

/* Files that are not ELF: text, empty, a directory, a FIFO (which must
 * not block), a device, a missing file. */
static void test_elf_not_elf(void **state)
{
	char path[PATH_MAX];
	struct probes *ps = probes_new();

	(void)state;
	tmp_path(path, sizeof(path), "text");
	write_file(path, "#!/bin/sh\necho hi\n", 18);
	assert_int_equal(usdt_note_for_each_probe(path, collect, ps), -ENOEXEC);
	tmp_path(path, sizeof(path), "empty");
	write_file(path, "", 0);
	assert_int_equal(usdt_note_for_each_probe(path, collect, ps), -ENOEXEC);
	tmp_path(path, sizeof(path), "magic-only");
	write_file(path, "\177ELF", 4);
	assert_int_equal(usdt_note_for_each_probe(path, collect, ps), -ENOEXEC);
	tmp_path(path, sizeof(path), "fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10); /* a blocking open would hang the test: die loudly instead */
	assert_int_equal(usdt_note_for_each_probe(path, collect, ps), -ENOEXEC);
	alarm(0);
	assert_int_equal(usdt_note_for_each_probe(tmpdir, collect, ps), -ENOEXEC);
	assert_int_equal(usdt_note_for_each_probe("/dev/null", collect, ps), -ENOEXEC);
	if (readable("/etc/hostname"))
		assert_int_equal(usdt_note_for_each_probe("/etc/hostname", collect, ps), -ENOEXEC);
	tmp_path(path, sizeof(path), "missing");
	assert_int_equal(usdt_note_for_each_probe(path, collect, ps), -ENOENT);
	assert_int_equal(ps->n, 0);
	free(ps);
}

/* Every prefix of a written ELF with probes, as "head -c" makes them: the
 * section headers come last, so every one is damaged, not merely without
 * probes. */
static void test_elf_truncated_written(void **state)
{
	char path[PATH_MAX], cut[PATH_MAX];
	struct probes *ps = probes_new();
	unsigned char *buf;
	size_t len, i;
	int ret;

	(void)state;
	tmp_path(path, sizeof(path), "whole.elf");
	tmp_path(cut, sizeof(cut), "cut.elf");
	write_probe_elf(path, true, host_msb());
	buf = read_file(path, &len);
	for (i = 0; i < len; i++) {
		write_file(cut, buf, i);
		ps->n = 0;
		ret = usdt_note_for_each_probe(cut, collect, ps);
		if (ret != -ENOEXEC || ps->n != 0)
			fail_msg("%zu of %zu bytes: %d, %d probes", i, len, ret, ps->n);
	}
	free(buf);
	free(ps);
}

/* Prefixes of real binaries: this test program, and Python (whose notes
 * lie near the end, so that most cuts keep them and lose only the section
 * headers): all damaged. */
static void test_elf_truncated_real(void **state)
{
	static const char *const files[] = { "/proc/self/exe", PYTHON };
	char cut[PATH_MAX];
	struct probes *ps = probes_new();
	unsigned char *buf;
	size_t len, i, k, cuts[12];
	int ret;

	(void)state;
	tmp_path(cut, sizeof(cut), "cut-real");
	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		if (!readable(files[k]))
			continue;
		buf = read_file(files[k], &len);
		cuts[0] = 0, cuts[1] = 1, cuts[2] = 4, cuts[3] = 16, cuts[4] = 52;
		cuts[5] = 63, cuts[6] = 64, cuts[7] = 65, cuts[8] = 4096;
		cuts[9] = len / 2, cuts[10] = len - 64, cuts[11] = len - 1;
		for (i = 0; i < 12; i++) {
			if (cuts[i] >= len)
				continue;
			write_file(cut, buf, cuts[i]);
			ret = usdt_note_for_each_probe(cut, collect, ps);
			if (ret != -ENOEXEC)
				fail_msg("%s cut at %zu: %d", files[k], cuts[i], ret);
		}
		free(buf);
	}
	free(ps);
}

/* Overwrite a field of the section header of the first section of a
 * written 64-bit ELF of our byte order. */
static void patch_shdr64(const char *path, size_t field, uint64_t v)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	assert_int_equal(pwrite(fd, &v, sizeof(v), (off_t)(eh.e_shoff + eh.e_shentsize + field)),
	    (ssize_t)sizeof(v));
	close(fd);
}

/* A note section that lies outside the file, or claims to be huge. */
static void test_elf_section_outside_file(void **state)
{
	char path[PATH_MAX];
	struct probes *ps = probes_new();
	struct stat st;

	(void)state;
	tmp_path(path, sizeof(path), "outside.elf");
	write_probe_elf(path, true, host_msb());
	assert_int_equal(stat(path, &st), 0);
	patch_shdr64(path, offsetof(Elf64_Shdr, sh_offset), (uint64_t)st.st_size + 4096);
	assert_int_equal(usdt_note_for_each_probe(path, collect, ps), -ENOEXEC);
	write_probe_elf(path, true, host_msb());
	patch_shdr64(path, offsetof(Elf64_Shdr, sh_size), 1ull << 40);
	assert_int_equal(usdt_note_for_each_probe(path, collect, ps), -ENOEXEC);
	write_probe_elf(path, true, host_msb());
	patch_shdr64(path, offsetof(Elf64_Shdr, sh_offset), UINT64_MAX - 8);
	assert_int_equal(usdt_note_for_each_probe(path, collect, ps), -ENOEXEC);
	assert_int_equal(ps->n, 0);
	free(ps);
}

/* ---- usdt_note_for_each_probe on live files ---- */

/* Python's probes, when Python 3.11 is installed. */
static void test_live_python(void **state)
{
	const struct usdt_probe *p;
	struct probes *ps;
	int ret;

	(void)state;
	if (!readable(PYTHON))
		skip();
	ps = probes_of(PYTHON, &ret);
	assert_true(ret >= 2);
	p = probes_find(ps, "python", "gc__start");
	assert_non_null(p);
	assert_int_equal(p->nargs, 1);
	assert_true(p->pc != 0);
	assert_true(p->semaphore != 0);
	assert_non_null(probes_find(ps, "python", "gc__done"));
	free(ps);
}

/* Ruby's GC phases, when libruby 3.1 is installed. */
static void test_live_ruby(void **state)
{
	static const char *const paths[] = {
		"/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1",
		"/usr/lib/aarch64-linux-gnu/libruby-3.1.so.3.1",
		"/usr/lib64/libruby.so.3.1",
	};
	struct probes *ps;
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (readable(paths[i]))
			break;
	}
	if (i == sizeof(paths) / sizeof(paths[0]))
		skip();
	ps = probes_of(paths[i], &ret);
	assert_true(ret >= 4);
	assert_non_null(probes_find(ps, "ruby", "gc__mark__begin"));
	assert_non_null(probes_find(ps, "ruby", "gc__mark__end"));
	assert_non_null(probes_find(ps, "ruby", "gc__sweep__begin"));
	assert_non_null(probes_find(ps, "ruby", "gc__sweep__end"));
	free(ps);
}

/* The test workload's probes, when make check says where it is. */
static void test_live_phaseload(void **state)
{
	const char *path = getenv("PHASELOAD");
	struct probes *ps;
	int ret;

	(void)state;
	if (!path || !*path)
		skip();
	ps = probes_of(path, &ret);
	assert_true(ret >= 3);
	assert_non_null(probes_find(ps, "cowtest", "phase__begin"));
	assert_non_null(probes_find(ps, "cowtest", "phase__end"));
	assert_non_null(probes_find(ps, "cowtest", "mark"));
	free(ps);
}

/* coreutils carry no probes. */
static void test_live_true(void **state)
{
	struct probes *ps;
	int ret;

	(void)state;
	if (!readable("/bin/true"))
		skip();
	ps = probes_of("/bin/true", &ret);
	assert_int_equal(ret, -ENODATA);
	free(ps);
}

/* ---- usdt_spec_parse ---- */

/* Good specs, with and without a path, colons in the path. */
static void test_spec_good(void **state)
{
	static const struct {
		const char *s, *path, *prov, *name;
	} cases[] = {
		{ "python:gc__start", "", "python", "gc__start" },
		{ "/usr/bin/python3.11:python:gc__start", "/usr/bin/python3.11", "python", "gc__start" },
		{ "/srv/a:b/c::d/lib.so:ruby:gc__mark__begin", "/srv/a:b/c::d/lib.so", "ruby", "gc__mark__begin" },
		{ "rel/path:P_1:n_2", "rel/path", "P_1", "n_2" },
		{ "::p:n", ":", "p", "n" },
		{ "x:_:_", "x", "_", "_" },
	};
	struct usdt_spec *sp = malloc(sizeof(*sp));
	size_t i;

	(void)state;
	assert_non_null(sp);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(sp, 0x5a, sizeof(*sp));
		if (usdt_spec_parse(cases[i].s, sp) != 0)
			fail_msg("\"%s\" refused", cases[i].s);
		assert_string_equal(sp->path, cases[i].path);
		assert_string_equal(sp->provider, cases[i].prov);
		assert_string_equal(sp->name, cases[i].name);
	}
	free(sp);
}

/* Missing parts and bad characters. */
static void test_spec_bad(void **state)
{
	static const char *const cases[] = {
		"", "python", ":", "::", ":::", "python:", ":gc__start", ":python:gc__start",
		"/bin/x::gc", "/bin/x:python:", "py-thon:gc", "python:gc.start", "python:gc start",
		"python :gc", "python:gc\n", "pyth\xc3\xb6n:gc", "python:gc\x1b[2J", "/bin/x:py:th:on:",
	};
	struct usdt_spec *sp = malloc(sizeof(*sp));
	size_t i;

	(void)state;
	assert_non_null(sp);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (usdt_spec_parse(cases[i], sp) != -EINVAL)
			fail_msg("\"%s\" not refused", cases[i]);
	}
	free(sp);
}

/* Parts that do not fit: 63-byte names and 4095-byte paths do. */
static void test_spec_lengths(void **state)
{
	struct usdt_spec *sp = malloc(sizeof(*sp));
	char *s = malloc(USDT_PATH_MAX + 2 * USDT_STR_MAX + 8);
	char n63[64], n64[65];

	(void)state;
	assert_non_null(sp);
	assert_non_null(s);
	memset(n63, 'a', 63);
	n63[63] = '\0';
	memset(n64, 'b', 64);
	n64[64] = '\0';
	sprintf(s, "%s:%s", n63, n63);
	assert_int_equal(usdt_spec_parse(s, sp), 0);
	assert_string_equal(sp->provider, n63);
	sprintf(s, "%s:n", n64);
	assert_int_equal(usdt_spec_parse(s, sp), -ENAMETOOLONG);
	sprintf(s, "p:%s", n64);
	assert_int_equal(usdt_spec_parse(s, sp), -ENAMETOOLONG);
	memset(s, '/', USDT_PATH_MAX - 1);
	strcpy(s + USDT_PATH_MAX - 1, ":p:n");
	assert_int_equal(usdt_spec_parse(s, sp), 0);
	assert_int_equal(strlen(sp->path), USDT_PATH_MAX - 1);
	memset(s, '/', USDT_PATH_MAX);
	strcpy(s + USDT_PATH_MAX, ":p:n");
	assert_int_equal(usdt_spec_parse(s, sp), -ENAMETOOLONG);
	free(s);
	free(sp);
}

/* ---- usdt_classify, usdt_partner ---- */

/* Every suffix, and names that only look like one. */
static void test_classify(void **state)
{
	static const struct {
		const char *name;
		enum usdt_kind kind;
		const char *phase;
	} cases[] = {
		{ "gc__mark__begin", USDT_BEGIN, "gc__mark" },
		{ "gc__start", USDT_BEGIN, "gc" },
		{ "function__entry", USDT_BEGIN, "function" },
		{ "gc__mark__end", USDT_END, "gc__mark" },
		{ "gc__done", USDT_END, "gc" },
		{ "function__return", USDT_END, "function" },
		{ "phase__begin", USDT_BEGIN, "phase" },
		{ "x___end", USDT_END, "x_" },
		{ "mark", USDT_MARKER, "mark" },
		{ "__begin", USDT_MARKER, "__begin" },
		{ "__end", USDT_MARKER, "__end" },
		{ "gc_start", USDT_MARKER, "gc_start" },
		{ "gc__started", USDT_MARKER, "gc__started" },
		{ "x__backend", USDT_MARKER, "x__backend" },
		{ "begin", USDT_MARKER, "begin" },
		{ "gc__BEGIN", USDT_MARKER, "gc__BEGIN" },
		{ "", USDT_MARKER, "" },
	};
	char phase[USDT_STR_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(phase, 'z', sizeof(phase));
		if (usdt_classify(cases[i].name, phase, sizeof(phase)) != cases[i].kind)
			fail_msg("\"%s\" misclassified", cases[i].name);
		assert_string_equal(phase, cases[i].phase);
	}
}

/* The phase is cut to fit, and may be left out. */
static void test_classify_cap(void **state)
{
	char phase[4];

	(void)state;
	assert_int_equal(usdt_classify("gc__mark__begin", phase, sizeof(phase)), USDT_BEGIN);
	assert_string_equal(phase, "gc_");
	assert_int_equal(usdt_classify("marker", phase, 1), USDT_MARKER);
	assert_string_equal(phase, "");
	phase[0] = 'q';
	assert_int_equal(usdt_classify("gc__done", phase, 0), USDT_END);
	assert_int_equal(phase[0], 'q');
	assert_int_equal(usdt_classify("gc__done", NULL, 10), USDT_END);
}

/* Each end finds its partner, both ways. */
static void test_partner(void **state)
{
	static const char *const pairs[][2] = {
		{ "gc__mark__begin", "gc__mark__end" },
		{ "gc__start", "gc__done" },
		{ "x__entry", "x__return" },
		{ "import__find__load__start", "import__find__load__done" },
		{ "phase__begin", "phase__end" },
	};
	char out[USDT_STR_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		assert_int_equal(usdt_partner(pairs[i][0], out, sizeof(out)), 0);
		assert_string_equal(out, pairs[i][1]);
		assert_int_equal(usdt_partner(pairs[i][1], out, sizeof(out)), 0);
		assert_string_equal(out, pairs[i][0]);
	}
	assert_int_equal(usdt_partner("mark", out, sizeof(out)), -EINVAL);
	assert_int_equal(usdt_partner("__begin", out, sizeof(out)), -EINVAL);
	assert_int_equal(usdt_partner("", out, sizeof(out)), -EINVAL);
}

/* A partner that fits exactly, and one byte too long. */
static void test_partner_cap(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(usdt_partner("x__entry", out, sizeof("x__return")), 0);
	assert_string_equal(out, "x__return");
	assert_int_equal(usdt_partner("x__entry", out, sizeof("x__return") - 1), -ENAMETOOLONG);
	assert_int_equal(usdt_partner("x__done", out, 0), -ENAMETOOLONG);
}

/* ---- usdt_list_print ---- */

/* Run usdt_list_print into a string; the result in *ret, the reason in err. */
static char *list(const char *arg, int *ret, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	err[0] = '\0';
	*ret = usdt_list_print(f, arg, err, errlen);
	fclose(f);
	return text;
}

/* Check that usdt_list_print refuses arg with exactly this reason and prints
 * nothing. */
static void list_fails(const char *arg, int want, const char *reason)
{
	char err[512], *text;
	int ret;

	text = list(arg, &ret, err, sizeof(err));
	if (ret != want)
		fail_msg("%s: %d (%s), not %d", arg, ret, err, want);
	assert_string_equal(err, reason);
	assert_string_equal(text, "");
	free(text);
}

/* Processes that are not there, files that are not there. */
static void test_list_missing(void **state)
{
	char path[PATH_MAX], reason[PATH_MAX + 64];

	(void)state;
	list_fails(NO_SUCH_PID, -ENOENT, "no process with PID " NO_SUCH_PID);
	list_fails("99999999999999999999", -ESRCH, "no process with PID 99999999999999999999");
	list_fails("0", -ESRCH, "no process with PID 0");
	tmp_path(path, sizeof(path), "no-such-file");
	snprintf(reason, sizeof(reason), "%s: No such file or directory", path);
	list_fails(path, -ENOENT, reason);
}

/* Files that are not ELF, and an ELF without probes. */
static void test_list_not_elf_no_notes(void **state)
{
	char path[PATH_MAX], reason[PATH_MAX + 64];
	struct sec s = { ".text", SHT_PROGBITS, "\xc3", 1 };

	(void)state;
	if (readable("/etc/hostname"))
		list_fails("/etc/hostname", -ENOEXEC, "/etc/hostname: not an ELF file");
	tmp_path(path, sizeof(path), "script");
	write_file(path, "#!/bin/sh\n", 10);
	snprintf(reason, sizeof(reason), "%s: not an ELF file", path);
	list_fails(path, -ENOEXEC, reason);
	tmp_path(path, sizeof(path), "nonotes.elf");
	write_elf(path, true, host_msb(), &s, 1);
	snprintf(reason, sizeof(reason), "%s: no USDT probes (.note.stapsdt missing)", path);
	list_fails(path, -ENODATA, reason);
	if (readable("/bin/true"))
		list_fails("/bin/true", -ENODATA, "/bin/true: no USDT probes (.note.stapsdt missing)");
}

/* The exact output for a written ELF: columns padded to the widest. */
static void test_list_file_exact(void **state)
{
	struct notes *nt = calloc(1, sizeof(*nt));
	char path[PATH_MAX], err[512], want[4 * PATH_MAX], *text;
	int ret;

	(void)state;
	assert_non_null(nt);
	nt->swap = false;
	notes_probe(nt, true, &addrs64, "prov", "a__begin", "8@%rax -4@%edx");
	notes_probe(nt, true, &addrs64, "prov", "a__end", "");
	notes_probe(nt, true, &addrs64, "longer_provider", "m", "8@%rdi");
	tmp_path(path, sizeof(path), "list.elf");
	write_note_elf(path, true, host_msb(), ".note.stapsdt", SHT_NOTE, nt);
	text = list(path, &ret, err, sizeof(err));
	assert_int_equal(ret, 0);
	snprintf(want, sizeof(want),
	    "PROVIDER         NAME      ARGS  OBJECT\n"
	    "prov             a__begin     2  %s\n"
	    "prov             a__end       0  %s\n"
	    "longer_provider  m            1  %s\n", path, path, path);
	assert_string_equal(text, want);
	free(text);
	free(nt);
}

/* Whether text holds a control byte other than the newlines ending lines. */
static bool has_control(const char *text)
{
	const unsigned char *s;

	for (s = (const unsigned char *)text; *s; s++) {
		if ((*s < 0x20 && *s != '\n') || *s == 0x7f)
			return true;
	}
	return false;
}

/* Names and paths under the control of whoever wrote the file never put a
 * control sequence on the terminal, nor a line of their own. */
static void test_list_sanitized(void **state)
{
	struct notes *nt = calloc(1, sizeof(*nt));
	char path[PATH_MAX], err[512], *text, *nl;
	int ret, lines = 0;

	(void)state;
	assert_non_null(nt);
	notes_probe(nt, true, &addrs64, "\x1b[31mred", "n\nfake\x9b" "2J\x07", "8@%rax");
	tmp_path(path, sizeof(path), "evil\x1b]0;title\x07\nname.elf");
	write_note_elf(path, true, host_msb(), ".note.stapsdt", SHT_NOTE, nt);
	text = list(path, &ret, err, sizeof(err));
	assert_int_equal(ret, 0);
	assert_false(has_control(text));
	for (nl = text; (nl = strchr(nl, '\n')) != NULL; nl++)
		lines++;
	assert_int_equal(lines, 2);
	assert_non_null(strstr(text, "\\e[31mred"));
	assert_non_null(strstr(text, "n\\nfake"));
	assert_non_null(strstr(text, "evil\\e]0;title"));
	free(text);
	/* And the reasons for refusing such a name. */
	tmp_path(path, sizeof(path), "\x1b[2Jnot-elf");
	write_file(path, "text", 4);
	text = list(path, &ret, err, sizeof(err));
	assert_int_equal(ret, -ENOEXEC);
	assert_false(has_control(err));
	assert_non_null(strstr(err, "\\e[2Jnot-elf: not an ELF file"));
	free(text);
	free(nt);
}

/* Our own process: whatever it maps, either probes or the reason. */
static void test_list_self(void **state)
{
	char arg[32], err[512], want[128], *text;
	int ret;

	(void)state;
	snprintf(arg, sizeof(arg), "%d", (int)getpid());
	text = list(arg, &ret, err, sizeof(err));
	if (ret == 0) {
		assert_true(strncmp(text, "PROVIDER", 8) == 0);
	} else {
		assert_int_equal(ret, -ENODATA);
		snprintf(want, sizeof(want), "process %s maps no object with USDT probes", arg);
		assert_string_equal(err, want);
		assert_string_equal(text, "");
	}
	free(text);
}

/* Read from fd into buf (capacity cap, NUL-terminated) until a newline or
 * until it is full: a writer may send one line in several writes, as Python
 * does with PYTHONUNBUFFERED set ("ready", then "\n"). */
static void read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n < cap - 1 && !memchr(buf, '\n', n)) {
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		assert_true(r > 0);
		n += (size_t)r;
	}
	buf[n] = '\0';
}

/* Start Python, waiting on stdin, once it is ready. */
static pid_t python_start(int *in)
{
	int to[2], from[2];
	char buf[16];
	pid_t pid;

	assert_int_equal(pipe2(to, O_CLOEXEC), 0);
	assert_int_equal(pipe2(from, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		execl(PYTHON, PYTHON, "-S", "-c",
		    "import sys; print('ready', flush=True); sys.stdin.read()", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	read_line(from[0], buf, sizeof(buf));
	close(from[0]);
	assert_string_equal(buf, "ready\n");
	*in = to[1];
	return pid;
}

/* Whether a listing has the line PROVIDER NAME NARGS OBJECT (nargs < 0:
 * any count). */
static bool list_has(const char *text, const char *prov, const char *name,
    int nargs, const char *object)
{
	char p[USDT_STR_MAX * 4], n[USDT_STR_MAX * 4];
	const char *line, *nl;
	int k, used;

	for (line = text; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		if (sscanf(line, "%255s %255s %d  %n", p, n, &k, &used) != 3)
			continue;
		if (strcmp(p, prov) || strcmp(n, name) || (nargs >= 0 && k != nargs))
			continue;
		if (!object || ((size_t)(nl - line - used) == strlen(object) &&
		    strncmp(line + used, object, strlen(object)) == 0))
			return true;
	}
	return false;
}

/* A live Python process: its own binary's probes, under the path its maps
 * shows. */
static void test_list_python_pid(void **state)
{
	char arg[32], err[512], exe[PATH_MAX], *text;
	int ret, in, status;
	pid_t pid;

	(void)state;
	if (!readable(PYTHON) || !realpath(PYTHON, exe))
		skip();
	pid = python_start(&in);
	snprintf(arg, sizeof(arg), "%d", (int)pid);
	text = list(arg, &ret, err, sizeof(err));
	close(in);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (ret != 0)
		fail_msg("%s", err);
	if (!list_has(text, "python", "gc__start", 1, exe) ||
	    !list_has(text, "python", "gc__done", 1, exe))
		fail_msg("no gc__start and gc__done of %s in:\n%s", exe, text);
	free(text);
}

/* The test workload, listed by path. */
static void test_list_phaseload(void **state)
{
	const char *path = getenv("PHASELOAD");
	char err[512], *text;
	int ret;

	(void)state;
	if (!path || !*path)
		skip();
	text = list(path, &ret, err, sizeof(err));
	if (ret != 0)
		fail_msg("%s", err);
	assert_true(list_has(text, "cowtest", "phase__begin", -1, path));
	assert_true(list_has(text, "cowtest", "phase__end", -1, path));
	assert_true(list_has(text, "cowtest", "mark", -1, path));
	free(text);
}

/* ---- argument specs ---- */

/* Registers, constants, memory at a register, and their sizes. */
static void test_arg_plain(void **state)
{
	struct usdt_arg a;

	(void)state;
	assert_int_equal(usdt_arg_parse("-4@%eax", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_REG);
	assert_int_equal(a.reg_off, 80);
	assert_int_equal(a.size, 4);
	assert_true(a.is_signed);
	assert_int_equal(usdt_arg_parse("8@$-12", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_CONST);
	assert_int_equal(a.off, -12);
	assert_false(a.is_signed);
	assert_int_equal(usdt_arg_parse("8@-16(%rbp)", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_DEREF);
	assert_int_equal(a.reg_off, 32);
	assert_int_equal(a.off, -16);
	assert_int_equal(usdt_arg_parse("1@(%r12)", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_DEREF);
	assert_int_equal(a.reg_off, 24);
	assert_int_equal(a.off, 0);
}

/* Globals, PC-relative: "SYM(%rip)", "SYM+N(%rip)", "N+SYM(%rip)". */
static void test_arg_global(void **state)
{
	struct usdt_arg a;

	(void)state;
	assert_int_equal(usdt_arg_parse("-4@NBuffers(%rip)", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_GLOBAL);
	assert_string_equal(a.sym, "NBuffers");
	assert_int_equal(a.off, 0);
	assert_int_equal(a.reg_off, 128); /* ip in x86-64's struct pt_regs */
	assert_int_equal(usdt_arg_parse("-4@40+CheckpointStats(%rip)", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_GLOBAL);
	assert_string_equal(a.sym, "CheckpointStats");
	assert_int_equal(a.off, 40);
	assert_int_equal(usdt_arg_parse("8@tab+8(%rip)", &a), 0);
	assert_string_equal(a.sym, "tab");
	assert_int_equal(a.off, 8);
}

/* Forms not read are unavailable, not errors; garbage is an error. */
static void test_arg_unavailable(void **state)
{
	struct usdt_arg a, v[3];

	(void)state;
	assert_int_equal(usdt_arg_parse("8@8(%rax,%rbx,4)", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_NONE);
	assert_int_equal(usdt_arg_parse("4@%xmm0", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_NONE);
	assert_int_equal(usdt_arg_parse("4@%rip", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_NONE);
	assert_int_equal(usdt_arg_parse("3@%eax", &a), -EINVAL);
	assert_int_equal(usdt_arg_parse("%eax", &a), -EINVAL);
	assert_int_equal(usdt_arg_parse("4@", &a), -EINVAL);
	assert_int_equal(usdt_args_parse("-4@$1 8@%rdx  4@x(%rip) 8@%rax", v, 3), 3);
	assert_int_equal(v[0].kind, USDT_ARG_CONST);
	assert_int_equal(v[1].kind, USDT_ARG_REG);
	assert_int_equal(v[2].kind, USDT_ARG_GLOBAL);
	assert_int_equal(usdt_args_parse("", v, 3), 0);
}

/* ---- main ---- */

/* Make the temporary directory the tests write into. */
static int group_setup(void **state)
{
	(void)state;
	return tmpdir_make(tmpdir, sizeof(tmpdir), "test_usdt");
}

/* Remove the temporary directory and all in it. */
static int group_teardown(void **state)
{
	(void)state;
	return tmpdir_remove(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_note_good64),
		cmocka_unit_test(test_note_good32),
		cmocka_unit_test(test_note_truncated),
		cmocka_unit_test(test_note_missing_nuls),
		cmocka_unit_test(test_note_empty_strings),
		cmocka_unit_test(test_note_nargs),
		cmocka_unit_test(test_note_huge_strings),
		cmocka_unit_test(test_note_trailing_bytes),
		cmocka_unit_test(test_note_raw_bytes),
		cmocka_unit_test(test_elf_classes_and_orders),
		cmocka_unit_test(test_elf_sections_by_name_and_type),
		cmocka_unit_test(test_elf_without_probes),
		cmocka_unit_test(test_elf_lying_note_headers),
		cmocka_unit_test(test_elf_stop),
		cmocka_unit_test(test_elf_not_elf),
		cmocka_unit_test(test_elf_truncated_written),
		cmocka_unit_test(test_elf_truncated_real),
		cmocka_unit_test(test_elf_section_outside_file),
		cmocka_unit_test(test_live_python),
		cmocka_unit_test(test_live_ruby),
		cmocka_unit_test(test_live_phaseload),
		cmocka_unit_test(test_live_true),
		cmocka_unit_test(test_spec_good),
		cmocka_unit_test(test_spec_bad),
		cmocka_unit_test(test_spec_lengths),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_classify_cap),
		cmocka_unit_test(test_partner),
		cmocka_unit_test(test_partner_cap),
		cmocka_unit_test(test_list_missing),
		cmocka_unit_test(test_list_not_elf_no_notes),
		cmocka_unit_test(test_list_file_exact),
		cmocka_unit_test(test_list_sanitized),
		cmocka_unit_test(test_list_self),
		cmocka_unit_test(test_list_python_pid),
		cmocka_unit_test(test_list_phaseload),
		cmocka_unit_test(test_arg_plain),
		cmocka_unit_test(test_arg_global),
		cmocka_unit_test(test_arg_unavailable),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
