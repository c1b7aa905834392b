/* Which runtime a process runs, and where its heap layout's anchors are:
 * found from /proc/PID/maps, the runtime's ELF symbols and its own memory.
 * Only layouts cowtop knows are named; another version of a runtime is
 * "unknown runtime layout", never read as if it were a known one. */
#ifndef COWTOP_RUNTIME_H
#define COWTOP_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include "rbclass.h"

enum obj_runtime {
	OBJ_RT_NONE = 0,    /* no runtime cowtop knows of */
	OBJ_RT_UNKNOWN = 1, /* a runtime whose layout cowtop does not know */
	OBJ_RT_PY311 = 2,   /* CPython 3.11 */
	OBJ_RT_RUBY31 = 3,  /* Ruby 3.1 */
};

struct runtime_layout {
	enum obj_runtime runtime;
	unsigned long long type_type; /* PY311: PyType_Type's address in the process */
	struct rb31_names rb_names;   /* RUBY31: how its classes are named (ID 0: not) */
	char what[64];                /* the object it was found in (basename) */
	bool loader;                  /* a dynamic loader is mapped ... */
	int libs;                     /* ... and this many other shared objects */
};

/* What kind of runtime a mapped file's basename says: OBJ_RT_NONE when
 * none; a known one only as a candidate, to be checked. Pure. */
enum obj_runtime runtime_of_name(const char *base);
/* Detect pid's runtime. 0 (out->runtime NONE when there is none), or
 * -errno when its maps cannot be read. */
int runtime_detect(int pid, struct runtime_layout *out);
const char *runtime_name(enum obj_runtime r);
#define OBJ_RUNTIMES 4
/* The runtime runtime_name() names s (as a recording gives it); NONE for
 * any other text. Pure. */
enum obj_runtime runtime_of_label(const char *s);

#endif
