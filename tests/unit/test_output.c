/* Unit tests: batch frames (JSON lines and text tables). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "output.h"

/* The text table, nothing asked under it. */
static void text(FILE *f, const struct frame *fr)
{
	output_text(f, fr, NULL);
}

/* The JSON line, which must be made. */
static void json(FILE *f, const struct frame *fr)
{
	assert_int_equal(output_json(f, fr), 0);
}

/* The text table with the regions lines. */
static void text_regions(FILE *f, const struct frame *fr)
{
	output_text(f, fr, &(struct output_opts){ .regions = true });
}

/* Render a frame of m covering interval seconds with fn into a malloc'd string. */
static char *render_over(struct model *m, double interval, void (*fn)(FILE *, const struct frame *))
{
	struct view_opts o = { .sort = FIELD_PID, .tree = true };
	struct frame_status st = { .time = 1700000000.5, .interval = interval, .mechanism = "test", .lost = 3,
				   .host = "web-1\"" };
	struct frame *fr = frame__build(m, &st, &o, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_non_null(fr);
	fn(f, fr);
	fclose(f);
	frame__free(fr);
	return buf;
}

/* Render a frame of m over one second. */
static char *render(struct model *m, void (*fn)(FILE *, const struct frame *))
{
	return render_over(m, 1.0, fn);
}

/* A model with a parent, a hostile-named child and an exited grandchild. */
static struct model *sample(void)
{
	struct model *m = model__new();
	struct proc *p = model__add(m, 100, 50), *c = model__add(m, 101, 51), *g = model__add(m, 102, 52);
	struct cow_counts cc = { .cow = 42, .reuse = 1, .zero_fill = 2 };
	static const char hostile[] = "\x1b[2J\x9b\"q\\\n\xff";

	model__set_parent(p, 1);
	model__set_mem(p, 'S', 0, 0);
	model__set_comm(p, "master", 6);
	model__set_parent(c, 100);
	model__set_mem(c, 'R', 0, 0);
	model__set_comm(c, hostile, sizeof(hostile) - 1);
	model__set_counts(c, &cc);
	model__set_parent(g, 101);
	model__set_comm(g, "gone", 4);
	model__mark_exited(g, 1.0);
	return m;
}

static void test_json_one_line_escaped(void **state)
{
	struct model *m = sample();
	char *s = render(m, json);

	(void)state;
	assert_non_null(strstr(s, "\"lost\":3"));
	assert_ptr_equal(strstr(s, "{\"schema\":1,\"host\":\"web-1\\\"\",\"time\":"), s);
	assert_non_null(strstr(s, "\"mechanism\":\"test\""));
	assert_non_null(strstr(s, "\"comm\":\"\\u001b[2J\\ufffd\\\"q\\\\\\u000a\\ufffd\""));
	assert_non_null(strstr(s, "\"pid\":101,\"ppid\":100"));
	assert_non_null(strstr(s, "\"depth\":2,\"state\":\"exited\""));
	assert_non_null(strstr(s, "\"cow_pages\":42"));
	assert_null(strchr(s, '\x1b'));
	assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1); /* exactly one line */
	free(s);
	model__free(m);
}

/* How each process ended, in JSON and after its name in text; a running
 * one has "exit":null; an unknown end has nulls, never a made-up code. */
static void test_exit_causes(void **state)
{
	struct model *m = sample();
	struct proc *c = model__find(m, 101, 51), *k = model__add(m, 103, 53);
	struct proc *o = model__add(m, 104, 54);
	char *s;

	(void)state;
	model__set_parent(k, 100);
	model__set_comm(k, "killed", 6);
	model__set_exit(k, 11 | 0x80, false);
	model__mark_exited(k, 1.0);
	model__set_parent(o, 100);
	model__set_comm(o, "hog", 3);
	model__set_oom(o);
	model__set_exit(o, 9, false);
	model__set_reclaim(o, 5, 0.25);
	model__mark_exited(o, 1.0);
	model__set_exit(c, 0, false); /* still running: not shown */
	model__find(m, 100, 50)->forked = 4;
	model__find(m, 100, 50)->reaped = 2;
	s = render(m, json);
	assert_non_null(strstr(s, "\"pid\":101,\"ppid\":100"));
	assert_non_null(strstr(s, "\"exit\":null"));
	assert_non_null(strstr(s, "\"comm\":\"gone\"")); /* marked exited with no status */
	assert_non_null(strstr(s, "\"exit\":{\"code\":null,\"signal\":null,\"core\":false,\"oom\":false}"));
	assert_non_null(strstr(s, "\"exit\":{\"code\":null,\"signal\":\"SIGSEGV\",\"core\":true,\"oom\":false}"));
	assert_non_null(strstr(s, "\"exit\":{\"code\":null,\"signal\":\"SIGKILL\",\"core\":false,\"oom\":true},"
			       "\"reclaim\":{\"stalls\":5,\"seconds\":0.250000}"));
	assert_non_null(strstr(s, "\"children_forked\":4,\"children_exited\":2"));
	free(s);
	model__set_exit(k, 3 << 8, false);
	s = render(m, text);
	assert_non_null(strstr(s, "killed [exit 3]\n"));
	assert_non_null(strstr(s, "hog [oom-killed]\n"));
	assert_non_null(strstr(s, "gone [?]\n"));
	free(s);
	model__free(m);
}

static void test_text_tree_and_sanitized(void **state)
{
	struct model *m = sample();
	char *s = render(m, text);

	(void)state;
	assert_null(strchr(s, '\x1b'));
	assert_null(strchr(s, '\xff'));
	assert_non_null(strstr(s, "`- \\e[2J\\x9b\"q\\\\n\\xff") ? strstr(s, "`- ") : NULL);
	assert_non_null(strstr(s, "   `- gone"));
	assert_non_null(strstr(s, "exited"));
	assert_non_null(strstr(s, "lost 3"));
	free(s);
	model__free(m);
}

/* Command lines: in JSON ("" when unknown), and a line each in batch
 * text, escaped there like names. */
static void test_cmdline(void **state)
{
	struct model *m = sample();
	struct proc *p = model__find(m, 101, 0);
	char *s;

	(void)state;
	assert_non_null(p);
	model__set_cmdline(p, "unicorn worker[2] \x1b[2J", 22);
	s = render(m, json);
	assert_non_null(strstr(s, "\"cmdline\":\"unicorn worker[2] \\u001b[2J\""));
	assert_non_null(strstr(s, "\"cmdline\":\"\""));
	free(s);
	s = render(m, text);
	assert_non_null(strstr(s, "\ncmdline 101: unicorn worker[2] \\e[2J\n"));
	assert_null(strchr(s, '\x1b'));
	free(s);
	model__free(m);
}

/* Batch totals: the copies of every process, in the header line. */
static void test_text_totals(void **state)
{
	struct model *m = sample();
	char *s = render(m, text);

	(void)state;
	assert_non_null(strstr(s, "interval 1.00s  processes 3  cow 42 pages  0.0/s  lost 3  [test]\n"));
	free(s);
	model__free(m);
}

/* A first frame a fraction of a millisecond long still says how long it
 * was: never "interval":0. */
static void test_tiny_interval_never_zero(void **state)
{
	struct model *m = sample();
	char *s = render_over(m, 0.0004, json);

	(void)state;
	assert_non_null(strstr(s, "\"interval\":0.0004,"));
	free(s);
	s = render_over(m, 0.0004, text);
	assert_non_null(strstr(s, "interval 0.0004s "));
	free(s);
	s = render_over(m, 2.5, json);
	assert_non_null(strstr(s, "\"interval\":2.500,"));
	free(s);
	model__free(m);
}

/* A process that lived less than one refresh never had its stat read: its
 * RSS and VSZ are unknown (null, "-"), not 0; a process read as 0 is 0. */
static void test_rss_vsz_unknown_until_read(void **state)
{
	struct model *m = sample();
	char *s = render(m, json);

	(void)state;
	assert_non_null(strstr(s, "\"pid\":100,"));
	assert_non_null(strstr(s, "\"zero_fill\":0,\"rss_kib\":0,\"vsz_kib\":0,")); /* master: read */
	assert_non_null(strstr(s, "\"comm\":\"gone\",\"cmdline\":\"\",\"depth\":2,\"state\":\"exited\",\"start_time\":52,"
				  "\"cow_pages\":0,\"cow_rate\":0.0,\"cow_kernel\":0,\"reuse\":0,"
				  "\"zero_fill\":0,\"rss_kib\":null,\"vsz_kib\":null,"));
	free(s);
	s = render(m, text);
	assert_non_null(strstr(s, " exited       0.0         0        0        0         -      -      -"
				  "         -         -         -    `- gone [?]\n"));
	free(s);
	model__free(m);
}

/* Phases and markers, with labels the frame carries. */
static void test_usdt_parts(void **state)
{
	struct model *m = sample();
	struct marker mk = { .time = 12.5, .pid = 101, .probe = 0, .nargs = 2, .args = { 7, -1 } };
	struct frame_status st = { .time = 1.0, .interval = 1.0, .mechanism = "test", .usdt = true };
	struct frame *fr;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ph = model__add_phase(m, "ruby:gc");

	(void)state;
	model__add_probe(m, "ruby:gc__begin");
	model__set_split(model__find(m, 101, 0), SPLIT_PHASE, ph, 40);
	model__add_marker(m, &mk);
	fr = frame__build(m, &st, NULL, NULL);
	model__free(m);
	f = open_memstream(&buf, &len);
	output_text(f, fr, NULL);
	output_json(f, fr);
	fclose(f);
	assert_non_null(strstr(buf, "phases 101: ruby:gc 40 outside 2\n"));
	assert_non_null(strstr(buf, "marker 12.500 101 ruby:gc__begin 7 -1\n"));
	assert_non_null(strstr(buf, "\"cow_by_phase\":{\"ruby:gc\":40,\"outside\":2}"));
	assert_non_null(strstr(buf, "\"markers\":[{\"time\":12.500000,\"pid\":101,\"probe\":\"ruby:gc__begin\",\"args\":[7,-1]}]"));
	free(buf);
	frame__free(fr);
}

/* The stacks status: the captures lost by cause beside their sum, the
 * stack ids held of the map's; ids unknown (not tracked) are null. */
static void test_json_stacks_status(void **state)
{
	struct model *m = sample();
	struct stacks *s = stacks__new();
	struct stacks_capture c = { .failed = 12, .collided = 7, .unwalked = 3, .uncounted = 2,
				    .ids_used = 40, .ids = 256 };
	struct frame_status st = { .time = 1.0, .interval = 1.0, .mechanism = "test", .stacks = s };
	struct frame *fr;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(s);
	stacks__set_status(s, 4, 1.5, &c);
	fr = frame__build(m, &st, NULL, NULL);
	f = open_memstream(&buf, &len);
	output_json(f, fr);
	fclose(f);
	frame__free(fr);
	assert_non_null(strstr(buf, "\"stacks\":{\"on\":true,\"sample\":4,\"failed\":12,\"failed_collision\":7,"
				    "\"failed_walk\":3,\"failed_uncounted\":2,\"ids_used\":40,\"ids_limit\":256,"));
	free(buf);
	c = (struct stacks_capture){ 0 };
	stacks__set_status(s, 0, -1, &c);
	fr = frame__build(m, &st, NULL, NULL);
	buf = NULL;
	f = open_memstream(&buf, &len);
	output_json(f, fr);
	fclose(f);
	frame__free(fr);
	assert_non_null(strstr(buf, "\"failed_uncounted\":0,\"ids_used\":null,\"ids_limit\":null,"));
	free(buf);
	stacks__free(s);
	model__free(m);
}

/* sample() with the child's 42 copies split by region: heap 20, anon 10,
 * 5 in libc, 7 left to other (as two region reads settle it); a file with
 * none, one with a hostile name. */
static struct model *sample_regions(void)
{
	struct model *m = sample();
	struct proc *c = model__find(m, 101, 0), *p;
	size_t i;
	int libc = model__add_label(m, SPLIT_REGION, "file:libc.so.6");
	int hostile = model__add_label(m, SPLIT_REGION, "file:\x1b[2J \"x\n");

	model__add_label(m, SPLIT_REGION, "file:unused.so");
	model__set_split(c, SPLIT_REGION, 1, 20);
	model__set_split(c, SPLIT_REGION, 3, 8);
	model__set_split(c, SPLIT_REGION, libc, 5);
	model__set_split(c, SPLIT_REGION, hostile, 2);
	for (i = 0; (p = model__at(m, i)); i++) {
		model__settle_regions(p, 0);
		model__settle_regions(p, 0);
	}
	return m;
}

/* cow_by_region always: heap, stack, anon, other for everyone, a file only
 * with copies in it; the parts add up to cow_pages. */
static void test_json_regions(void **state)
{
	struct model *m = sample_regions();
	char *s = render(m, json);

	(void)state;
	assert_non_null(strstr(s, "\"pid\":101,"));
	assert_non_null(strstr(s, "\"cow_pages\":42,"));
	assert_non_null(strstr(s, "\"cow_by_region\":{\"heap\":20,\"stack\":0,\"anon\":8,"
				  "\"file:libc.so.6\":5,\"file:\\u001b[2J \\\"x\\u000a\":2,\"other\":7}}"));
	assert_non_null(strstr(s, "\"cow_by_region\":{\"heap\":0,\"stack\":0,\"anon\":0,\"other\":0}"));
	assert_null(strstr(s, "unused.so"));
	assert_null(strstr(s, "cow_by_phase")); /* phases only with -u */
	assert_null(strchr(s, '\x1b'));
	assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1);
	free(s);
	model__free(m);
}

/* --regions: a line under the table per process with copies, names made
 * plain text; nothing without it. */
static void test_text_regions(void **state)
{
	struct model *m = sample_regions();
	char *s = render(m, text_regions);

	(void)state;
	assert_non_null(strstr(s, "\nregions 101: heap 20  stack 0  anon 8  file:libc.so.6 5"
				  "  file:\\e[2J \"x\\n 2  other 7\n"));
	assert_null(strstr(s, "regions 100:")); /* no copies, no line */
	assert_null(strstr(s, "unused.so"));
	assert_null(strchr(s, '\x1b'));
	free(s);
	s = render(m, text);
	assert_null(strstr(s, "regions "));
	free(s);
	model__free(m);
}

#define NOW 1700000000.5 /* the frames' time */

/* sample() with the master and its child read 2 s before the frame, the
 * child born under cowtop (its inheritance known), and MemAvailable. */
static struct model *sample_read(void)
{
	struct model *m = sample();
	struct smaps ms = { .pss = 5000, .anon = 6000, .private_clean = 100, .private_dirty = 900 };
	struct smaps cs = { .pss = 2500, .pss_anon = 2000, .anon = 4000, .private_dirty = 1000, .pte = 132,
			    .private_clean = 24, .shared_clean = 7, .shared_dirty = 3000, .swap = 5 };
	struct memcg cg = { .limit_kib = 100000, .usage_kib = 50000, .psi_known = true,
			    .psi = { 2.5, 0.5 } };

	model__set_smaps(model__find(m, 100, 0), &ms, NOW - 2);
	model__set_smaps(model__find(m, 101, 0), &cs, NOW - 2);
	model__set_inherited(model__find(m, 101, 0), 4000);
	model__set_memcg(model__find(m, 100, 0), &cg);
	model__set_mem_available(m, 1024000);
	return m;
}

/* Memory figures are null until read, never a made-up zero. */
static void test_json_unread_is_null(void **state)
{
	struct model *m = sample();
	char *s = render(m, json);

	(void)state;
	assert_non_null(strstr(s, "\"vsz_kib\":0,\"pte_kib\":null,\"pss_kib\":null,\"pss_anon_kib\":null,\"uss_kib\":null,"
				  "\"shared_clean_kib\":null,\"shared_dirty_kib\":null,"
				  "\"private_dirty_kib\":null,\"anon_kib\":null,\"swap_kib\":null,"
				  "\"smaps_age\":null,\"inherited_kib\":null,\"shared_pct\":null,"));
	/* the master has a live child: a group, nothing read in it */
	assert_non_null(strstr(s, "\"groups\":[{\"root\":100,\"workers\":1,\"pss_kib\":null,"
				  "\"uss_kib\":null,\"root_rss_kib\":0,\"worker_uss_mean_kib\":null,"
				  "\"worker_uss_max_kib\":null,\"cow_pages\":42,\"cow_rate\":0.0,"
				  "\"headroom\":null,\"headroom_cgroup\":null,\"headroom_settled\":false,"
				  "\"cgroup_limit_kib\":null,"
			  "\"cgroup_usage_kib\":null,\"smaps_age\":null,"
				  "\"unread\":2,\"respawns\":{\"forked\":0,\"exited\":0},"
				  "\"cgroup_psi_memory\":null}],\"mem_available_kib\":null,"
				  "\"psi_memory\":{\"some_avg10\":null,\"full_avg10\":null}}"));
	free(s);
	model__free(m);
}

/* The contract's names, with the figures read. */
static void test_json_memory_figures(void **state)
{
	struct model *m = sample_read();
	char *s = render(m, json);

	(void)state;
	assert_non_null(strstr(s, "\"pte_kib\":132,\"pss_kib\":2500,\"pss_anon_kib\":2000,\"uss_kib\":1024,"
				  "\"shared_clean_kib\":7,\"shared_dirty_kib\":3000,"
				  "\"private_dirty_kib\":1000,\"anon_kib\":4000,\"swap_kib\":5,"
				  "\"smaps_age\":2.000,\"inherited_kib\":4000,\"shared_pct\":75.00"));
	assert_non_null(strstr(s, "\"pid\":100,"));
	assert_non_null(strstr(s, "\"inherited_kib\":null,\"shared_pct\":null")); /* the master */
	assert_non_null(strstr(s, "\"groups\":[{\"root\":100,\"workers\":1,\"pss_kib\":7500,"
				  "\"uss_kib\":2024,\"root_rss_kib\":0,\"worker_uss_mean_kib\":1024,"
				  "\"worker_uss_max_kib\":1024,\"cow_pages\":42,\"cow_rate\":0.0,"
				  "\"headroom\":1000,\"headroom_cgroup\":48,\"headroom_settled\":true,"
				  "\"cgroup_limit_kib\":100000,"
			  "\"cgroup_usage_kib\":50000,\"smaps_age\":2.000,"
				  "\"unread\":0,\"respawns\":{\"forked\":0,\"exited\":0},"
				  "\"cgroup_psi_memory\":{\"some_avg10\":2.50,\"full_avg10\":0.50}}],"
				  "\"mem_available_kib\":1024000,"
				  "\"psi_memory\":{\"some_avg10\":null,\"full_avg10\":null}}"));
	free(s);
	model__free(m);
}

/* SHR% FAM% USS PSS after RSS, "-" until known; a line per group under the table. */
static void test_text_memory_columns_and_group(void **state)
{
	struct model *m = sample();
	char *s = render(m, text);

	(void)state;
	assert_non_null(strstr(s, "RSS_KiB   SHR%   FAM%   USS_KiB   PSS_KiB   VSZ_KiB  COMMAND\n"));
	assert_non_null(strstr(s, "      0      -      -         -         -         0  master\n"));
	assert_non_null(strstr(s, "group 100: workers 1  footprint - KiB (PSS)  USS sum - KiB  mean - KiB"
				  "  max - KiB  - workers (MemAvailable)  age -  unread 2\n"));
	free(s);
	model__free(m);
	m = sample_read();
	s = render(m, text);
	assert_non_null(strstr(s, "      0   75.0      -      1024      2500         0  "));
	free(s);
	/* FAM% from the pagemap reading, with no fork baseline needed */
	model__set_family(model__find(m, 101, 0), &(struct family_mem){ .anon_kib = 4000, .shared_kib = 1000 },
			  NOW - 1);
	s = render(m, text);
	assert_non_null(strstr(s, "      0   75.0   25.0      1024      2500         0  "));
	assert_non_null(strstr(s, "group 100: workers 1  footprint 7500 KiB (PSS)  USS sum 2024 KiB"
				  "  mean 1024 KiB  max 1024 KiB  +1000 workers (MemAvailable) +48 in cgroup"
				  "  age 2.0s\n"));
	free(s);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_causes),
		cmocka_unit_test(test_json_one_line_escaped),
		cmocka_unit_test(test_text_tree_and_sanitized),
		cmocka_unit_test(test_text_totals),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_tiny_interval_never_zero),
		cmocka_unit_test(test_usdt_parts),
		cmocka_unit_test(test_json_stacks_status),
		cmocka_unit_test(test_rss_vsz_unknown_until_read),
		cmocka_unit_test(test_json_unread_is_null),
		cmocka_unit_test(test_json_memory_figures),
		cmocka_unit_test(test_text_memory_columns_and_group),
		cmocka_unit_test(test_json_regions),
		cmocka_unit_test(test_text_regions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
