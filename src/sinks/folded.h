/* Stacks in the folded format flame-graph tools read: one stack a line,
 * "comm;outermost;...;innermost PAGES". */
#ifndef COWTOP_FOLDED_H
#define COWTOP_FOLDED_H

#include <stdio.h>
#include "stacks.h"

/* Write one stack of process comm as a folded line (nothing for 0 pages).
 * ';' in a name becomes ':', control bytes become '?'. */
void folded_line(FILE *f, const char *comm, const struct stack_top *st);
/* Every stack of the table as folded text, malloc'd, *len bytes; NULL on ENOMEM. */
char *folded_text(const struct stacks *s, size_t *len);

#endif
