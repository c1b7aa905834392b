/* Names of user code addresses in live processes, through elfutils' libdwfl
 * (symbol tables and DWARF of every object the process maps). One session
 * per process, kept for the few most recent ones. */
#ifndef COWTOP_SYMBOLIZE_H
#define COWTOP_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>

struct symbolizer;

struct symbolizer *symbolizer__new(void);
void symbolizer__free(struct symbolizer *s);
/* Name ip of process pid into buf: "function (object)"; "0xADDR (object)"
 * without a symbol, ADDR then the address in the object's own terms (its ELF
 * virtual address, the same in every process); "0xADDR (?)" outside every
 * known object. A return
 * address (caller true) is looked up one byte back, in its call. Returns 0
 * when a symbol was found, -ENOENT when not. */
int symbolizer__frame(struct symbolizer *s, int pid, unsigned long long ip, bool caller,
		      char *buf, size_t cap);
/* Whether pid's objects can be read (it lives, or its session is kept). */
bool symbolizer__has(struct symbolizer *s, int pid);
/* Drop pid's session (it exited or exec'd). */
void symbolizer__forget(struct symbolizer *s, int pid);

#endif
