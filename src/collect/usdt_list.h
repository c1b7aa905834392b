/* --list-usdt: print the USDT probes of a process or of an ELF file. */
#ifndef COWTOP_USDT_LIST_H
#define COWTOP_USDT_LIST_H

#include <stddef.h>
#include <stdio.h>

/* arg is a PID (all digits: the probes of every object the process maps,
 * opened through /proc/PID/root when allowed so that a process in a
 * container is read right) or the path of an ELF file ("./123" for a file
 * named 123). Prints a header line, then one line per probe with aligned
 * columns PROVIDER, NAME, ARGS (the count) and OBJECT; every string is
 * sanitized. Nothing is printed on error. Returns 0, or -errno with a
 * one-line reason in err: "no process with PID N", "PATH: not an ELF file",
 * "PATH: no USDT probes (.note.stapsdt missing)", "process N maps no object
 * with USDT probes", or "PATH: " / "process N: " followed by strerror. */
int usdt_list_print(FILE *f, const char *arg, char *err, size_t errlen);

#endif
