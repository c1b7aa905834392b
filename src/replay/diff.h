/* --diff A B: two recordings of the same program compared role by role
 * (the root, then its children by name and depth, matched by fork order). */
#ifndef COWTOP_DIFF_H
#define COWTOP_DIFF_H

#include "options.h"

int diff_run(const struct options *opt); /* the exit status */

#endif
