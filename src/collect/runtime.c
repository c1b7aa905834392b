/* Runtime detection for the object sampler. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "runtime.h"

/* The name the JSON and the views give a runtime. */
const char *runtime_name(enum obj_runtime r)
{
	switch (r) {
	case OBJ_RT_UNKNOWN: return "unknown runtime layout";
	case OBJ_RT_PY311: return "cpython-3.11";
	case OBJ_RT_RUBY31: return "ruby-3.1";
	default: return "none";
	}
}

enum obj_runtime runtime_of_label(const char *s)
{
	int r;

	for (r = OBJ_RT_UNKNOWN; r < OBJ_RUNTIMES; r++)
		if (!strcmp(s, runtime_name((enum obj_runtime)r)))
			return (enum obj_runtime)r;
	return OBJ_RT_NONE;
}

/* Whether s starts with p. */
static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

enum obj_runtime runtime_of_name(const char *base)
{
	if (!strcmp(base, "python3.11") || starts(base, "libpython3.11.so"))
		return OBJ_RT_PY311;
	if (starts(base, "libruby-3.1.so"))
		return OBJ_RT_RUBY31;
	if (starts(base, "python3.") || starts(base, "python2.") || starts(base, "libpython") ||
	    starts(base, "libruby-") || starts(base, "libruby.so"))
		return OBJ_RT_UNKNOWN;
	return OBJ_RT_NONE;
}

/* The value of symbol name in the ELF file at path (dynamic symbols
 * first), and the lowest PT_LOAD address (page-aligned) and type. */
static int elf_symbol(const char *path, const char *name, unsigned long long *value,
		      unsigned long long *base, int *type)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = -ENOENT;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t i, n;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n)) {
		e = -ENOEXEC;
		goto out;
	}
	*type = eh.e_type;
	*base = ~0ULL;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < *base)
			*base = ph.p_vaddr & ~0xfffULL;
	}
	while (e && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (k = 0; d && k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(d, (int)k, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name)) {
				*value = sym.st_value;
				e = 0;
				break;
			}
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return e;
}

/* Read len bytes of pid's memory at addr. */
static int peek(int pid, unsigned long long addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/* Check a CPython mapped at start (file offset 0) from path: its
 * Py_Version says 3.11 and its PyType_Type is a type named "type". */
static enum obj_runtime check_py311(int pid, const char *path, unsigned long long start,
				    unsigned long long *type_type)
{
	unsigned long long tt, ver, base, bias, hdr[4] = { 0 }, version = 0;
	char name[8] = "";
	int type;

	if (elf_symbol(path, "PyType_Type", &tt, &base, &type) ||
	    elf_symbol(path, "Py_Version", &ver, &base, &type))
		return OBJ_RT_UNKNOWN;
	bias = type == ET_EXEC ? 0 : start - base;
	if (peek(pid, bias + ver, &version, sizeof(version)) || (version >> 16) != 0x030b)
		return OBJ_RT_UNKNOWN;
	tt += bias;
	if (peek(pid, tt, hdr, sizeof(hdr)) || hdr[1] != tt ||
	    peek(pid, hdr[3], name, sizeof(name)) || strcmp(name, "type"))
		return OBJ_RT_UNKNOWN;
	*type_type = tt;
	return OBJ_RT_PY311;
}

/* How pid's Ruby 3.1 (its symbols relocated by bias) names its classes:
 * from the values of rb_cObject and rb_cString. Left without (class names
 * unknown) when they do not hold together, or before they are set. */
static void ruby31_names(int pid, const char *path, unsigned long long bias,
			 struct rb31_names *out)
{
	unsigned long long obj, str, base, v[2] = { 0 };
	struct rb31_reader r = { rb31_peek_pid, &pid };
	int type;

	*out = (struct rb31_names){ 0 };
	if (elf_symbol(path, "rb_cObject", &obj, &base, &type) ||
	    elf_symbol(path, "rb_cString", &str, &base, &type) ||
	    peek(pid, bias + obj, &v[0], sizeof(v[0])) || peek(pid, bias + str, &v[1], sizeof(v[1])))
		return;
	rb31_names_find(&r, v[0], v[1], out);
}

/* Check a libruby mapped at start (file offset 0) from path: its
 * ruby_api_version says 3.1. Heap pages of another layout (a build with
 * variable-width allocation) are refused by the kernel side page by page:
 * their page header does not point back to the slot cowtop computes. */
static enum obj_runtime check_ruby31(int pid, const char *path, unsigned long long start,
				     struct rb31_names *names)
{
	unsigned long long sym, base, bias;
	int type, api[3] = { 0 };

	if (elf_symbol(path, "ruby_api_version", &sym, &base, &type))
		return OBJ_RT_UNKNOWN;
	bias = type == ET_EXEC ? 0 : start - base;
	if (peek(pid, bias + sym, api, sizeof(api)) || api[0] != 3 || api[1] != 1)
		return OBJ_RT_UNKNOWN;
	ruby31_names(pid, path, bias, names);
	return OBJ_RT_RUBY31;
}

/* Look at one line of /proc/PID/maps. */
static void look(int pid, const char *line, struct runtime_layout *out)
{
	unsigned long long lo, hi, off;
	const char *path = strchr(line, '/'), *base;
	char full[4096 + 32];
	enum obj_runtime r;

	if (!path || sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &off) != 3 || off)
		return;
	base = strrchr(path, '/') + 1;
	if (starts(base, "ld-linux") || starts(base, "ld-musl") || starts(base, "ld.so"))
		out->loader = true;
	else if (strstr(base, ".so"))
		out->libs++;
	r = runtime_of_name(base);
	if (r == OBJ_RT_NONE || out->runtime > OBJ_RT_UNKNOWN)
		return;
	snprintf(out->what, sizeof(out->what), "%s", base);
	snprintf(full, sizeof(full), "/proc/%d/root%s", pid, path);
	if (r == OBJ_RT_PY311)
		r = check_py311(pid, full, lo, &out->type_type);
	else if (r == OBJ_RT_RUBY31)
		r = check_ruby31(pid, full, lo, &out->rb_names);
	out->runtime = r;
}

int runtime_detect(int pid, struct runtime_layout *out)
{
	char path[64], line[4096 + 128];
	FILE *f;

	*out = (struct runtime_layout){ .runtime = OBJ_RT_NONE };
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		look(pid, line, out);
	}
	fclose(f);
	return 0;
}
