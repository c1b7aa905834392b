/* Ruby 3.1's class names, read from a process's memory.
 *
 * The layout (Debian's ruby3.1 3.1.2, 64-bit, without variable-width
 * allocation), measured on its libruby: struct RClass is flags, klass,
 * super, ptr (rb_classext_t *), class_serial; rb_classext_t starts with
 * iv_index_tbl, iv_tbl (st_table *); the class's permanent name is the
 * String under the ID of "__classpath__" in iv_tbl (what rb_mod_name
 * looks up); st_table and its 24-byte entries are those of ruby/st.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include "rbclass.h"

#define RB_PAGE 16384 /* HEAP_PAGE_SIZE (GC::INTERNAL_CONSTANTS), 16 KiB-aligned */
#define RB_SLOT 40
#define RB_PAGE_START 32 /* offsetof(struct heap_page, start) */
#define RB_T_MASK 0x1f
#define RB_T_CLASS 0x02
#define RB_T_STRING 0x05
#define RB_FL_SINGLETON (1ULL << 12) /* FL_USER0 on a class */
#define RB_STR_NOEMBED (1ULL << 13)  /* FL_USER1 on a string */
#define RB_STR_EMBED_SHIFT 14        /* FL_USER2..6: an embedded string's length */
#define RB_STR_EMBED_MASK 0x1f
#define RB_STR_EMBED_MAX 23
#define RB_NAME_MAX 1024             /* longer is not a class name */
#define RB_IV_MAX 64                 /* instance variables of a class looked through */
#define RB_ST_DELETED (~0ULL)        /* an st entry's hash once deleted */

enum { W_FLAGS, W_KLASS, W_2, W_3, W_4, SLOT_WORDS }; /* the words of a slot */

struct rb_st {
	uint64_t head, type, num_entries, bins, start, bound, entries;
};

struct rb_st_entry {
	uint64_t hash, key, record;
};

int rb31_peek_pid(void *ctx, unsigned long long addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, rm = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(*(int *)ctx, &l, 1, &rm, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/* Read the slot of value v: v must be a slot of a heap page whose header
 * points back to its first slot (as the kernel side checks). */
static int read_slot(const struct rb31_reader *r, uint64_t v, uint64_t w[SLOT_WORDS])
{
	uint64_t body = v & ~(uint64_t)(RB_PAGE - 1), start = body + 8, page = 0, first = 0;

	start += (RB_SLOT - start % RB_SLOT) % RB_SLOT;
	if (!v || v < start || (v - start) % RB_SLOT || v + RB_SLOT > body + RB_PAGE ||
	    r->peek(r->ctx, body, &page, sizeof(page)) || !page || (page & 7) ||
	    r->peek(r->ctx, page + RB_PAGE_START, &first, sizeof(first)) || first != start)
		return -EINVAL;
	return r->peek(r->ctx, v, w, SLOT_WORDS * sizeof(*w));
}

/* Whether s[0..n) can be a class's name: a constant's first letter (or
 * UTF-8), no control characters. */
static bool sane_name(const unsigned char *s, size_t n)
{
	size_t i;

	if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || s[0] >= 0x80))
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* The text of String v into buf (its end, after "...", when too long). */
static int string_text(const struct rb31_reader *r, const struct rb31_names *nm, uint64_t v,
		       char *buf, size_t len)
{
	unsigned char text[RB_NAME_MAX];
	uint64_t w[SLOT_WORDS], n, at;

	if (read_slot(r, v, w) || (w[W_FLAGS] & RB_T_MASK) != RB_T_STRING ||
	    w[W_KLASS] != nm->string_class)
		return -EINVAL;
	if (w[W_FLAGS] & RB_STR_NOEMBED) {
		n = w[W_2];
		at = w[W_3];
		if (!n || n > sizeof(text) || !at || r->peek(r->ctx, at, text, n))
			return -EINVAL;
	} else {
		n = (w[W_FLAGS] >> RB_STR_EMBED_SHIFT) & RB_STR_EMBED_MASK;
		if (n > RB_STR_EMBED_MAX)
			return -EINVAL;
		memcpy(text, &w[W_2], n);
	}
	if (!sane_name(text, n) || len < 8)
		return -EINVAL;
	if (n < len)
		snprintf(buf, len, "%.*s", (int)n, (const char *)text);
	else
		snprintf(buf, len, "...%.*s", (int)(len - 4), (const char *)text + n - (len - 4));
	return 0;
}

/* The value under key in the instance variables of the class whose slot is
 * w (0 when it has none): its rb_classext_t's iv_tbl, looked through. */
static int class_ivar(const struct rb31_reader *r, const uint64_t w[SLOT_WORDS], uint64_t key,
		      uint64_t *out)
{
	struct rb_st_entry e[RB_IV_MAX];
	uint64_t tbl = 0, i;
	struct rb_st st;

	*out = 0;
	if (!w[W_3] || r->peek(r->ctx, w[W_3] + 8, &tbl, sizeof(tbl)))
		return -EINVAL;
	if (!tbl)
		return 0;
	if (r->peek(r->ctx, tbl, &st, sizeof(st)) || st.start > st.bound ||
	    st.bound - st.start > RB_IV_MAX || st.num_entries > st.bound - st.start)
		return -EINVAL;
	if (st.bound == st.start)
		return 0;
	if (!st.entries ||
	    r->peek(r->ctx, st.entries + st.start * sizeof(*e), e, (st.bound - st.start) * sizeof(*e)))
		return -EINVAL;
	for (i = 0; i < st.bound - st.start; i++)
		if (e[i].hash != RB_ST_DELETED && e[i].key == key) {
			*out = e[i].record;
			return 0;
		}
	return 0;
}

/* Name the class whose slot is w, into buf: an enum rb31_class, or -errno. */
static int class_name(const struct rb31_reader *r, const struct rb31_names *nm,
		      const uint64_t w[SLOT_WORDS], char *buf, size_t len)
{
	uint64_t path = 0;

	if ((w[W_FLAGS] & RB_T_MASK) != RB_T_CLASS)
		return -EINVAL;
	if (w[W_FLAGS] & RB_FL_SINGLETON)
		return RB31_SINGLETON;
	if (class_ivar(r, w, nm->classpath_id, &path))
		return -EINVAL;
	if (!path)
		return RB31_ANONYMOUS;
	return string_text(r, nm, path, buf, len) ? -EINVAL : RB31_NAMED;
}

int rb31_names_find(const struct rb31_reader *r, unsigned long long object_class,
		    unsigned long long string_class, struct rb31_names *out)
{
	struct rb31_names nm = { .string_class = string_class };
	struct rb_st_entry e[RB_IV_MAX];
	uint64_t w[SLOT_WORDS], tbl = 0, i, id = 0;
	char name[16];
	struct rb_st st;

	*out = (struct rb31_names){ 0 };
	if (read_slot(r, object_class, w) || (w[W_FLAGS] & RB_T_MASK) != RB_T_CLASS || !w[W_3] ||
	    r->peek(r->ctx, w[W_3] + 8, &tbl, sizeof(tbl)) || !tbl ||
	    r->peek(r->ctx, tbl, &st, sizeof(st)) || st.start >= st.bound ||
	    st.bound - st.start > RB_IV_MAX || !st.entries ||
	    r->peek(r->ctx, st.entries + st.start * sizeof(*e), e, (st.bound - st.start) * sizeof(*e)))
		return -EINVAL;
	for (i = 0; i < st.bound - st.start; i++) {
		if (e[i].hash == RB_ST_DELETED || string_text(r, &nm, e[i].record, name, sizeof(name)) ||
		    strcmp(name, "Object"))
			continue;
		if (id)
			return -EINVAL; /* two: which one is the name is not known */
		id = e[i].key;
	}
	if (!id)
		return -ENOENT;
	nm.classpath_id = id;
	if (read_slot(r, string_class, w) || class_name(r, &nm, w, name, sizeof(name)) != RB31_NAMED ||
	    strcmp(name, "String"))
		return -EINVAL;
	*out = nm;
	return 0;
}

int rb31_class_name(const struct rb31_reader *r, const struct rb31_names *nm,
		    unsigned long long klass, unsigned long long serial, char *buf, size_t len)
{
	uint64_t w[SLOT_WORDS];

	if (len)
		buf[0] = 0;
	if (!nm->classpath_id || !serial || read_slot(r, klass, w) || w[W_4] != serial)
		return -EINVAL;
	return class_name(r, nm, w, buf, len);
}
