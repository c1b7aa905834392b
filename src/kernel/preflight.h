/* Checks before loading anything: privileges, BTF, lockdown. Each failure
 * gets its own sentence. */
#ifndef COWTOP_PREFLIGHT_H
#define COWTOP_PREFLIGHT_H

#include <stddef.h>

int preflight_check(char *err, size_t errlen);

#endif
