/* The symbolizer: libdwfl sessions per process. Nothing here parses ELF by
 * hand; libdwfl reports /proc/PID/maps and reads each object's symbols. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>
#include "symbolize.h"

#define SYM_SESSIONS 32 /* processes with an open session, at most */

struct session {
	int pid;
	Dwfl *dwfl;
	unsigned long long used; /* clock of the last use, for eviction */
	bool rereported;         /* reported again for an unknown address once */
};

struct symbolizer {
	struct session s[SYM_SESSIONS];
	unsigned long long clock;
};

static char *debuginfo_path;

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* A fresh session on pid's current mappings; NULL when it cannot be read. */
static Dwfl *report(int pid)
{
	Dwfl *d = dwfl_begin(&proc_callbacks);

	if (!d)
		return NULL;
	if (dwfl_linux_proc_report(d, pid) != 0 || dwfl_report_end(d, NULL, NULL) != 0) {
		dwfl_end(d);
		return NULL;
	}
	return d;
}

/* A symbolizer with no sessions. */
struct symbolizer *symbolizer__new(void)
{
	return calloc(1, sizeof(struct symbolizer));
}

/* End every session; NULL is fine. */
void symbolizer__free(struct symbolizer *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < SYM_SESSIONS; i++)
		if (s->s[i].dwfl)
			dwfl_end(s->s[i].dwfl);
	free(s);
}

/* Drop pid's session. */
void symbolizer__forget(struct symbolizer *s, int pid)
{
	int i;

	for (i = 0; i < SYM_SESSIONS; i++)
		if (s->s[i].dwfl && s->s[i].pid == pid) {
			dwfl_end(s->s[i].dwfl);
			s->s[i] = (struct session){ 0 };
		}
}

/* pid's session, reported now if new (the least recently used one goes). */
static struct session *session_of(struct symbolizer *s, int pid)
{
	struct session *old = &s->s[0];
	int i;

	for (i = 0; i < SYM_SESSIONS; i++)
		if (s->s[i].dwfl && s->s[i].pid == pid) {
			s->s[i].used = ++s->clock;
			return &s->s[i];
		}
	for (i = 0; i < SYM_SESSIONS && old->dwfl; i++)
		if (!s->s[i].dwfl || s->s[i].used < old->used)
			old = &s->s[i];
	if (old->dwfl)
		dwfl_end(old->dwfl);
	*old = (struct session){ .pid = pid, .dwfl = report(pid), .used = ++s->clock };
	return old->dwfl ? old : NULL;
}

/* The base name of a path. */
static const char *base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "?";
}

/* The module holding addr; a process that mapped something new since its
 * report (dlopen) is reported again, once. */
static Dwfl_Module *module_of(struct session *ss, Dwarf_Addr addr)
{
	Dwfl_Module *m = dwfl_addrmodule(ss->dwfl, addr);
	Dwfl *d;

	if (m || ss->rereported)
		return m;
	ss->rereported = true;
	d = report(ss->pid);
	if (!d)
		return NULL;
	dwfl_end(ss->dwfl);
	ss->dwfl = d;
	return dwfl_addrmodule(d, addr);
}

/* Whether pid has a session, opened now if it can be. */
bool symbolizer__has(struct symbolizer *s, int pid)
{
	return session_of(s, pid) != NULL;
}

/* Name one address of pid. */
int symbolizer__frame(struct symbolizer *s, int pid, unsigned long long ip, bool caller,
		      char *buf, size_t cap)
{
	struct session *ss = session_of(s, pid);
	Dwarf_Addr addr = caller && ip ? ip - 1 : ip;
	Dwfl_Module *m = ss ? module_of(ss, addr) : NULL;
	const char *name, *obj;
	GElf_Off off;
	GElf_Sym sym;

	if (!m) {
		snprintf(buf, cap, "0x%llx (?)", ip);
		return -ENOENT;
	}
	obj = base(dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
	name = dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name) {
		/* The address in the object's own terms (its ELF virtual address),
		 * which stays the same in every process and which addr2line or gdb
		 * resolve once debug symbols are at hand: less the load bias of
		 * the object, already read for its symbols. Not
		 * dwfl_module_relocate_address, which loads the module's DWARF
		 * first: with libc's debug file installed, megabytes
		 * decompressed per session (77 MiB held in a soak, with a new
		 * process every 50 ms). */
		GElf_Addr bias;
		Dwarf_Addr rel = dwfl_module_getelf(m, &bias) ? ip - bias : ip;

		snprintf(buf, cap, "0x%llx (%s)", (unsigned long long)rel, obj);
		return -ENOENT;
	}
	snprintf(buf, cap, "%s (%s)", name, obj);
	return 0;
}
