/* Stacks in the folded format flame-graph tools read: one stack a line,
 * "comm;outermost;...;innermost PAGES"; and copies by runtime object, in a
 * file of their own, "comm;runtime;type;[write] PAGES". */
#ifndef COWTOP_FOLDED_H
#define COWTOP_FOLDED_H

#include <stdio.h>
#include "objects.h"
#include "stacks.h"

/* Write one stack of process comm as a folded line (nothing for 0 pages).
 * ';' in a name becomes ':', control bytes become '?'. */
void folded_line(FILE *f, const char *comm, const struct stack_top *st);
/* The copies by runtime object of the whole run (objects__each) as folded
 * text, malloc'd, *len bytes; NULL on ENOMEM. One line per (process or,
 * once pruned, process name; type; write kind), as objects__each gives
 * them: "comm;runtime;type;[write] PAGES" (names as
 * in folded_line; an unknown comm is "[unknown]"; no line for 0 pages). */
char *folded_objects_text(const struct objects *o, size_t *len);
/* Every stack of the table as folded text, malloc'd, *len bytes; NULL on ENOMEM. */
char *folded_text(const struct stacks *s, size_t *len);
/* Write text (len bytes, from the functions above; NULL: they ran out of
 * memory) to the new file path, and free it. Returns 0, or -1 with the
 * reason in err. */
int folded_write(const char *path, char *text, size_t len, char *err, size_t errlen);

#endif
