/* What the command line's own files share. Included only by options.c and
 * options_usage.c; options.h is the API. */
#ifndef COWTOP_OPTIONS_INT_H
#define COWTOP_OPTIONS_INT_H

#include "fields.h"

#define SORT_DEFAULT FIELD_COW_RATE

#endif
