/* Unit tests: Ruby 3.1's class names read from a process's memory, here a
 * made-up heap page: the classpath ID found from Object and String; a
 * class named, anonymous, singleton; and everything that does not hold
 * together (another serial, not a slot of a heap page, not a class, a name
 * that is not a String or not a name) unknown, never a guess. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "rbclass.h"

#define BASE 0x7f0000000000ULL /* a 16 KiB heap page body, then other memory */
#define SPAN 0x10000
#define PAGE (BASE + 0x8000)   /* its struct heap_page (start at +32) */
#define DATA (BASE + 0x9000)   /* class extensions, tables, texts */
#define ID 0xf01ULL            /* the ID of __classpath__ */
#define T_CLASS 2ULL
#define T_STRING 5ULL
#define FREEZE (1ULL << 11)

static unsigned char mem[SPAN];
static uint64_t next_data; /* where the next table goes in DATA */

/* The fake process: reads within mem only. */
static int peek(void *ctx, unsigned long long addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < BASE || addr + len > BASE + SPAN || addr + len < addr)
		return -EFAULT;
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

static const struct rb31_reader reader = { peek, NULL };

static void put(uint64_t addr, uint64_t v)
{
	memcpy(mem + (addr - BASE), &v, sizeof(v));
}

/* The address of slot i of the body (slots on multiples of 40). */
static uint64_t slot(int i)
{
	uint64_t start = BASE + 8;

	return start + (40 - start % 40) % 40 + 40 * (uint64_t)i;
}

/* Room for n bytes in DATA. */
static uint64_t alloc(size_t n)
{
	uint64_t a = next_data;

	next_data += (n + 15) & ~(size_t)15;
	return a;
}

/* A String at slot s of text t (embedded when short) whose class is klass. */
static void string(int s, const char *t, uint64_t klass)
{
	size_t n = strlen(t);

	put(slot(s) + 8, klass);
	if (n <= 23) {
		put(slot(s), T_STRING | FREEZE | ((uint64_t)n << 14));
		memcpy(mem + (slot(s) + 16 - BASE), t, n);
	} else {
		uint64_t at = alloc(n);

		put(slot(s), T_STRING | FREEZE | (1ULL << 13));
		put(slot(s) + 16, n);
		put(slot(s) + 24, at);
		memcpy(mem + (at - BASE), t, n);
	}
}

/* A class at slot s with serial and flags extra, whose instance variables
 * are the n (key, value) pairs kv (an entry with key 0 deleted); n < 0:
 * no table at all. */
static void klass(int s, uint64_t serial, uint64_t extra, int n, const uint64_t *kv)
{
	uint64_t ext = alloc(16 * 8), tbl = 0, ents;
	int i;

	if (n >= 0) {
		tbl = alloc(7 * 8);
		ents = alloc((size_t)(n ? n : 1) * 24);
		put(tbl + 16, (uint64_t)n); /* num_entries */
		put(tbl + 32, 0);           /* entries_start */
		put(tbl + 40, (uint64_t)n); /* entries_bound */
		put(tbl + 48, ents);
		for (i = 0; i < n; i++) {
			put(ents + 24 * i, kv[2 * i] ? 0x79e9 : ~0ULL);
			put(ents + 24 * i + 8, kv[2 * i]);
			put(ents + 24 * i + 16, kv[2 * i + 1]);
		}
	}
	put(slot(s), T_CLASS | extra);
	put(slot(s) + 24, ext);
	put(slot(s) + 32, serial);
	put(ext + 8, tbl);
}

/* Slots of the heap made up for every test. */
enum { S_OBJECT, S_STRING, S_OBJECT_NAME, S_STRING_NAME, S_WIDGET, S_WIDGET_NAME, S_LONG,
       S_LONG_NAME, S_ANON, S_SINGLETON, S_BADNAME, S_BADNAME_NAME, S_NOTSTR, S_NOTSTR_NAME };

static int setup(void **state)
{
	uint64_t kv[4];

	(void)state;
	memset(mem, 0, sizeof(mem));
	next_data = DATA;
	put(BASE, PAGE);
	put(PAGE + 32, slot(0));
	kv[0] = 0x3851, kv[1] = 0x15; /* another instance variable first */
	kv[2] = ID, kv[3] = slot(S_OBJECT_NAME);
	klass(S_OBJECT, 3, 0, 2, kv);
	kv[0] = 0, kv[1] = slot(S_OBJECT_NAME); /* deleted */
	kv[2] = ID, kv[3] = slot(S_STRING_NAME);
	klass(S_STRING, 0x1e, 0, 2, kv);
	string(S_OBJECT_NAME, "Object", slot(S_STRING));
	string(S_STRING_NAME, "String", slot(S_STRING));
	kv[0] = ID, kv[1] = slot(S_WIDGET_NAME);
	klass(S_WIDGET, 805, 0, 1, kv);
	string(S_WIDGET_NAME, "Cowtest::Widget", slot(S_STRING));
	kv[0] = ID, kv[1] = slot(S_LONG_NAME);
	klass(S_LONG, 806, 0, 1, kv);
	string(S_LONG_NAME, "Cowtest::AVeryLongModuleName::AndAVeryLongClassNameThatIsNotEmbedded",
	       slot(S_STRING));
	klass(S_ANON, 807, 0, -1, NULL);
	kv[0] = 0x3851, kv[1] = 0x15;
	klass(S_SINGLETON, 808, 1ULL << 12, 1, kv);
	kv[0] = ID, kv[1] = slot(S_BADNAME_NAME);
	klass(S_BADNAME, 809, 0, 1, kv);
	string(S_BADNAME_NAME, "Bad\033[2JName", slot(S_STRING));
	kv[0] = ID, kv[1] = slot(S_NOTSTR_NAME);
	klass(S_NOTSTR, 810, 0, 1, kv);
	string(S_NOTSTR_NAME, "Cowtest::Fake", slot(S_WIDGET)); /* an instance of Widget */
	return 0;
}

/* The names found from the made-up Object and String. */
static struct rb31_names names(void)
{
	struct rb31_names nm;

	assert_int_equal(rb31_names_find(&reader, slot(S_OBJECT), slot(S_STRING), &nm), 0);
	return nm;
}

static void test_find(void **state)
{
	struct rb31_names nm = names();

	(void)state;
	assert_int_equal(nm.classpath_id, ID);
	assert_int_equal(nm.string_class, slot(S_STRING));
	/* Object whose classpath is not "Object" (String's name): not found */
	put(slot(S_OBJECT) + 24, 0);
	assert_int_equal(rb31_names_find(&reader, slot(S_OBJECT), slot(S_STRING), &nm), -EINVAL);
	assert_int_equal(nm.classpath_id, 0);
}

/* Two instance variables of Object hold "Object": which is the name is not known. */
static void test_find_ambiguous(void **state)
{
	struct rb31_names nm;
	uint64_t kv[4] = { ID, slot(S_OBJECT_NAME), 0x3851, slot(S_OBJECT_NAME) };

	(void)state;
	klass(S_OBJECT, 3, 0, 2, kv);
	assert_int_equal(rb31_names_find(&reader, slot(S_OBJECT), slot(S_STRING), &nm), -EINVAL);
	assert_int_equal(nm.classpath_id, 0);
}

static void test_named(void **state)
{
	struct rb31_names nm = names();
	char buf[64];

	(void)state;
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_WIDGET), 805, buf, sizeof(buf)),
			 RB31_NAMED);
	assert_string_equal(buf, "Cowtest::Widget");
	/* too long for buf: its end, after "..." */
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_LONG), 806, buf, sizeof(buf)),
			 RB31_NAMED);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_string_equal(buf, "...:AVeryLongModuleName::AndAVeryLongClassNameThatIsNotEmbedded");
}

static void test_anonymous_singleton(void **state)
{
	struct rb31_names nm = names();
	char buf[64];

	(void)state;
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_ANON), 807, buf, sizeof(buf)),
			 RB31_ANONYMOUS);
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_SINGLETON), 808, buf, sizeof(buf)),
			 RB31_SINGLETON);
}

/* Anything that does not hold together is not named. */
static void test_refused(void **state)
{
	struct rb31_names nm = names(), none = { 0 };
	char buf[64];

	(void)state;
	/* another serial: a class freed, or created after a fork */
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_WIDGET), 806, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(buf, "");
	/* the serial not read by the kernel */
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_WIDGET), 0, buf, sizeof(buf)), -EINVAL);
	/* names not found in this process */
	assert_int_equal(rb31_class_name(&reader, &none, slot(S_WIDGET), 805, buf, sizeof(buf)), -EINVAL);
	/* not on a slot, not in a heap page, not a class */
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_WIDGET) + 8, 805, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rb31_class_name(&reader, &nm, DATA, 805, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_WIDGET_NAME), 0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rb31_class_name(&reader, &nm, BASE + SPAN, 805, buf, sizeof(buf)), -EINVAL);
	/* a name with an escape sequence; a "name" that is not a String */
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_BADNAME), 809, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_NOTSTR), 810, buf, sizeof(buf)), -EINVAL);
	/* the page header no longer points back at its first slot */
	put(PAGE + 32, slot(1));
	assert_int_equal(rb31_class_name(&reader, &nm, slot(S_WIDGET), 805, buf, sizeof(buf)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_find, setup),
		cmocka_unit_test_setup(test_find_ambiguous, setup),
		cmocka_unit_test_setup(test_named, setup),
		cmocka_unit_test_setup(test_anonymous_singleton, setup),
		cmocka_unit_test_setup(test_refused, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
