/* SPDX-License-Identifier: GPL-2.0 */
/* The ABI of the object sampler (--objects): which runtime object a sampled
 * copy's written address falls in, and which part of it was written. Plain
 * structs and constants; included by cowtop.h. */
#ifndef COWTOP_OBJECTS_ABI_H
#define COWTOP_OBJECTS_ABI_H

/* The heap layout of a process's runtime, found by user space at start or
 * after an exec (bpf map obj_rt, keyed by tgid), inherited at fork. */
enum cowtop_runtime {
	COWTOP_RT_NONE = 0,    /* no runtime cowtop knows: nothing sampled */
	COWTOP_RT_UNKNOWN = 1, /* a runtime whose layout cowtop does not know */
	COWTOP_RT_PY311 = 2,   /* CPython 3.11, pymalloc with 16 KiB pools */
	COWTOP_RT_RUBY31 = 3,  /* Ruby 3.1, 16 KiB heap pages of 40-byte slots */
};

struct cowtop_rt {
	__u32 kind;      /* enum cowtop_runtime */
	__u32 pad;
	__u64 type_type; /* PY311: the address of PyType_Type in this process */
};

/* The part of the object a sampled copy's write fell in. */
enum cowtop_write {
	COWTOP_W_OUTSIDE = 0,  /* not in the runtime's object heap: kept as its region */
	COWTOP_W_REFCNT = 1,   /* PY: ob_refcnt */
	COWTOP_W_GC = 2,       /* PY: the PyGC_Head before a GC-tracked object */
	COWTOP_W_HEADER = 3,   /* PY: ob_type, the managed-dict pointers, a pool header */
	COWTOP_W_PAYLOAD = 4,  /* PY: the rest of the object, or a block holding no object */
	COWTOP_W_FLAGS = 5,    /* RB: the slot's flags word (type, age, cached bits) */
	COWTOP_W_SLOT = 6,     /* RB: the rest of the slot (klass, embedded data) */
	COWTOP_W_UNKNOWN = 7,  /* a runtime whose layout cowtop does not know */
	COWTOP_W_KINDS = 8,
};

/* What obj_pages counts under: type is, for PY311, the address of the
 * object's type object, or one of the COWTOP_PYT_* below; for RUBY31 the
 * slot's builtin type (flags & 0x1f), or COWTOP_RBT_NONE. klass is, for a
 * RUBY31 slot of a type whose class is the application's (COWTOP_RB_KLASS_TYPES),
 * the slot's RBasic.klass word as it was before the write (user space
 * reads the class's name from it), COWTOP_RB_SINGLETON for any object's
 * singleton class (one per object: they would fill the map); 0 otherwise. klass_serial is the class's
 * serial number (struct RClass's class_serial, read with klass): user space
 * names the class only where it finds the same serial at klass, so that a
 * class freed, or created after a fork, is not named as another. */
struct cowtop_obj_key {
	__u32 tgid;
	__u16 write;   /* enum cowtop_write */
	__u16 runtime; /* enum cowtop_runtime */
	__u64 type;
	__u64 start;   /* the group leader's start, clock ticks (as cowtop_phase_key) */
	__u64 klass;
	__u64 klass_serial;
};

#define COWTOP_PYT_NONE 0  /* outside pymalloc's pools, or unreadable */
#define COWTOP_PYT_BLOCK 1 /* a pool block that holds no object (a buffer, a free block) */
#define COWTOP_PYT_POOL 2  /* a pool's own header */
#define COWTOP_RBT_NONE 0x100 /* outside Ruby's heap pages */
#define COWTOP_RB_SINGLETON 1 /* klass: a singleton class (never a class's address) */
/* The builtin types whose klass is kept: T_OBJECT (1), T_STRUCT (9),
 * T_DATA (0x0c), as bits. Other types' classes are the builtin's (String,
 * Array...) nearly always: keeping them would multiply the keys for little. */
#define COWTOP_RB_KLASS_TYPES ((1U << 0x01) | (1U << 0x09) | (1U << 0x0c))

#define COWTOP_OBJ_KEYS 16384

/* Counters of the sampler, indexes into the "obj_stats" per-CPU array. */
enum cowtop_obj_stat {
	COWTOP_OBJ_TAKEN = 0,  /* samples counted */
	COWTOP_OBJ_FAILED = 1, /* samples not counted (map full) */
	COWTOP_OBJ_NS = 2,     /* nanoseconds spent reading and counting */
	COWTOP_OBJ_SKIPPED = 3, /* reads due that the kernel's allowance declined (allow.h) */
	COWTOP_OBJ_FAULTS = 4, /* write faults the reads stood for: their weights, added up */
	COWTOP_OBJ_READS = 5,  /* objects read (counted when their fault copies) */
	COWTOP_OBJ_STAT_MAX = 6,
};

#endif
