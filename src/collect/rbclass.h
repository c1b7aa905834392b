/* Ruby 3.1's class names, read from a process's memory for the object
 * sampler: the class of a T_OBJECT, T_STRUCT or T_DATA slot is named only
 * when everything read on the way holds together (the class a T_CLASS slot
 * of a heap page with the serial the kernel read, its name a frozen String
 * of sane text); anything else is unknown, never a guess. The memory comes
 * through a reader, so that a test can hand it a made-up heap. */
#ifndef COWTOP_RBCLASS_H
#define COWTOP_RBCLASS_H

#include <stddef.h>

/* Read len bytes at addr into buf: 0, or -errno. */
typedef int (*rb31_peek_fn)(void *ctx, unsigned long long addr, void *buf, size_t len);

struct rb31_reader {
	rb31_peek_fn peek;
	void *ctx;
};

/* What naming needs, found once per process image (runtime_detect). */
struct rb31_names {
	unsigned long long classpath_id; /* the ID of "__classpath__"; 0: no names */
	unsigned long long string_class; /* the value of rb_cString */
};

enum rb31_class {
	RB31_NAMED = 0,     /* a permanent name (__classpath__) */
	RB31_ANONYMOUS = 1, /* a class without one (Class.new, not assigned) */
	RB31_SINGLETON = 2, /* an object's singleton class */
};

/* Find the classpath ID from Object and String (the values of rb_cObject
 * and rb_cString): the key of Object's one instance variable holding the
 * String "Object", which must name String "String" too. 0 or -errno. */
int rb31_names_find(const struct rb31_reader *r, unsigned long long object_class,
		    unsigned long long string_class, struct rb31_names *out);
/* Name class klass whose serial the kernel read as serial (0: not read,
 * so not named), into buf: an enum rb31_class, or -errno when it cannot be
 * named (buf then ""). A name longer than buf keeps its end, after "...". */
int rb31_class_name(const struct rb31_reader *r, const struct rb31_names *nm,
		    unsigned long long klass, unsigned long long serial, char *buf, size_t len);
/* A reader of pid's memory (process_vm_readv); ctx is &pid. */
int rb31_peek_pid(void *ctx, unsigned long long addr, void *buf, size_t len);

#endif
