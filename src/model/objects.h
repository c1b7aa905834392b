/* Copies by runtime object (--objects): pages copied per (process, object
 * type, class, write kind), as the kernel's sampler counts them, with each
 * type's and class's name; and a snapshot of the top ones per process for a
 * frame. Pure: the object feed (objfeed.c) fills it. */
#ifndef COWTOP_OBJECTS_H
#define COWTOP_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>

#define OBJECTS_TOP 16       /* (type, write) rows per process in a snapshot */
#define OBJECTS_NAME_MAX 64
#define OBJECTS_COMM_MAX 64  /* as PROC_COMM_MAX */

/* Which part of an object a copy's write fell in (the kernel's values). */
enum obj_write {
	OBJ_W_OUTSIDE = 0, /* not in the runtime's object heap */
	OBJ_W_REFCNT = 1,  /* CPython: ob_refcnt */
	OBJ_W_GC = 2,      /* CPython: PyGC_Head */
	OBJ_W_HEADER = 3,  /* CPython: ob_type, managed-dict pointers, pool header */
	OBJ_W_PAYLOAD = 4, /* CPython: the rest of the object, or a block without one */
	OBJ_W_FLAGS = 5,   /* Ruby: the slot's flags word */
	OBJ_W_SLOT = 6,    /* Ruby: the rest of the slot */
	OBJ_W_UNKNOWN = 7, /* unknown runtime layout */
	OBJ_WRITES = 8,
};

/* Special types (the kernel's COWTOP_PYT_* and COWTOP_RBT_NONE). */
#define OBJ_PYT_NONE 0
#define OBJ_PYT_BLOCK 1
#define OBJ_PYT_POOL 2
#define OBJ_RBT_NONE 0x100
#define OBJ_RB_SINGLETON 1 /* the klass of every singleton class (COWTOP_RB_SINGLETON) */

/* The JSON and metric name of a write kind ("refcount", "gc_header", ...). */
const char *obj_write_name(int w);
/* The write kind obj_write_name() names s; OBJ_W_UNKNOWN for any other. */
int obj_write_of_name(const char *s);
/* The name of a type the runtime itself defines (Ruby's builtin types,
 * the special ones), into buf; false when it must be read from the process
 * (a CPython type object). Pure. */
bool obj_type_static_name(int runtime, unsigned long long type, char *buf, size_t len);

struct objects;

/* A Ruby object's class when it could not be named (never a guess). */
#define OBJ_CLASS_UNKNOWN "(class unknown)"
#define OBJ_CLASS_ANON "(anonymous class)"
#define OBJ_CLASS_SINGLETON "(singleton class)"
#define OBJ_CLASS_NONE "(no class)" /* klass 0: an object hidden from Ruby code */

/* One (type, class, write) row of a process. */
struct objects_row {
	char type[OBJECTS_NAME_MAX];
	char cls[OBJECTS_NAME_MAX]; /* Ruby T_OBJECT, T_STRUCT, T_DATA: its class's
				       name or one of OBJ_CLASS_*; "" no class read */
	int write;         /* enum obj_write */
	unsigned long long pages;
};

struct objects_proc {
	int pid;
	unsigned long long start;
	const char *runtime;            /* runtime_name() */
	unsigned long long pages;       /* over all its rows (sampled pages, scaled) */
	struct objects_row top[OBJECTS_TOP];
	size_t ntop;
	unsigned long long by_write[OBJ_WRITES];
};

struct objects_snap {
	unsigned every;                 /* 1 copy in every read */
	double us_per_sample;           /* measured cost of a sample; < 0 unknown */
	unsigned long long failed;
	struct objects_proc *procs;
	size_t nprocs;
};

struct objects *objects__new(void);
void objects__free(struct objects *o);
/* What a row counts under (the kernel's key, decoded). */
struct objects_key {
	int pid;
	unsigned long long start;
	int runtime;              /* enum obj_runtime */
	unsigned long long type;  /* PY311: the type object's address, or OBJ_PYT_*;
				     RUBY31: the builtin type, or OBJ_RBT_NONE */
	unsigned long long klass; /* RUBY31 T_OBJECT, T_STRUCT, T_DATA: the class word */
	unsigned long long klass_serial; /* the class's serial, read with klass */
	int write;                /* enum obj_write */
	const char *comm;         /* its process's name (objects__each), NULL: not known */
};

#define OBJECTS_NEED_TYPE 1  /* objects__set: the row's type has no name yet */
#define OBJECTS_NEED_CLASS 2 /* objects__set: the row's class has no name yet */

/* Whether a Ruby row of builtin type type has a class to name. Pure. */
bool obj_has_class(int runtime, unsigned long long type);
/* Set the pages of the row of k (kept monotonic). Returns the
 * OBJECTS_NEED_* of what is still to be named, 0, or -ENOMEM. */
int objects__set(struct objects *o, const struct objects_key *k, unsigned long long pages);
/* Name the class (klass, serial) of the rows of (pid, start) with that class. */
void objects__name_class(struct objects *o, int pid, unsigned long long start,
			 unsigned long long klass, unsigned long long serial, const char *name);
/* The name of class (klass, serial) in a row of (pid, start), or NULL. */
const char *objects__class_of(const struct objects *o, int pid, unsigned long long start,
			      unsigned long long klass, unsigned long long serial);
/* Name the type of the rows of (pid, start) with that type. */
void objects__name(struct objects *o, int pid, unsigned long long start, unsigned long long type,
		   const char *name);
/* The name of type in a row of (pid, start), or NULL. */
const char *objects__name_of(const struct objects *o, int pid, unsigned long long start,
			     unsigned long long type);
/* Drop the rows of processes for which keep says false; with
 * objects__keep_gone, add them to the whole run's totals first. */
void objects__prune(struct objects *o, bool (*keep)(int pid, unsigned long long start, void *ctx),
		    void *ctx);
/* Keep the pages of pruned processes, by (comm, runtime, type name, write
 * kind), for objects__each (the whole run asked for: --folded-objects). */
void objects__keep_gone(struct objects *o, bool keep);
/* One row of the whole run: a process name ("" unknown), its runtime's
 * name, a type name ("(unnamed)" when none was read; a Ruby class follows
 * its builtin type after a space), a write kind. */
typedef void (*objects_fn)(const char *comm, const char *runtime, const char *type, int write,
			   unsigned long long pages, void *ctx);
/* Every row with pages: the totals of pruned processes (kept with
 * objects__keep_gone), then the rows held. */
void objects__each(const struct objects *o, objects_fn fn, void *ctx);
void objects__set_status(struct objects *o, unsigned every, double us, unsigned long long failed);
struct objects_snap *objects__snap(const struct objects *o);
void objects_snap__free(struct objects_snap *sn);
/* An empty snapshot for a source that fills it itself (a recording). */
struct objects_snap *objects_snap__new(unsigned every, double us, unsigned long long failed);
/* Append a copy of a process's figures; 0 or -ENOMEM. Sort the snapshot
 * (objects_snap__sort) before looking a process up in it. */
int objects_snap__push(struct objects_snap *sn, const struct objects_proc *p);
/* Put the processes in (pid, start) order, as objects_snap__of needs. */
void objects_snap__sort(struct objects_snap *sn);
const struct objects_proc *objects_snap__of(const struct objects_snap *sn, int pid,
					    unsigned long long start);

#endif
