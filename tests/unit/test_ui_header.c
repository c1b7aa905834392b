/* Unit tests: the header lines (fields, warnings, untrusted text, probes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fmt.h"
#include "header.h"

/* Whether l shows s with every byte of it in role. */
static bool role_at(const struct line *l, const char *s, enum role role)
{
	const char *at = strstr(l->text, s);
	size_t k, n = strlen(s);
	bool covered;
	int i;

	if (!at)
		return false;
	for (k = 0; k < n; k++) {
		size_t off = (size_t)(at - l->text) + k;

		for (covered = false, i = 0; i < l->nspan && !covered; i++)
			covered = l->span[i].role == role && l->span[i].off <= off &&
				  off < l->span[i].off + l->span[i].len;
		if (!covered)
			return false;
	}
	return true;
}

static struct header_info info(void)
{
	return (struct header_info){
		.host = "box", .kernel = "Linux 6.8.0 x86_64", .mechanism = "fentry",
		.target = "command ruby", .now = 0, .delay = 1.5, .cpu_pct = 0.5,
		.watched = 7, .live = 5, .rate = 12345, .cow = 987654, .lost = 0,
	};
}

/* At 80 columns whole fields go, the mechanism first, and the totals,
 * lost and PAUSED stay; wide, nothing goes. */
static void test_narrow_keeps_essentials(void **state)
{
	struct header_info h = info();
	struct line *l = calloc(HEADER_LINES, sizeof(*l));
	int i;

	(void)state;
	assert_non_null(l);
	h.kernel = "Linux 6.18.44-some-long-vendor-suffix x86_64";
	h.mechanism = "raw_tp:page_fault_user+mm_page_alloc";
	h.smaps_read = true;
	h.paused = true;
	h.lost = 3;
	h.cols = 80;
	header_build(&h, l);
	for (i = 0; i < HEADER_LINES; i++)
		assert_true(strlen(l[i].text) <= 80);
	assert_null(strstr(l[0].text, "mechanism"));
	assert_non_null(strstr(l[0].text, "host box"));
	assert_non_null(strstr(l[2].text, "copies 987654"));
	assert_non_null(strstr(l[2].text, "lost 3"));
	assert_non_null(strstr(l[2].text, "[PAUSED]"));
	h.cols = 300;
	header_build(&h, l);
	assert_non_null(strstr(l[0].text, "mechanism raw_tp"));
	free(l);
}

/* b: the totals in bytes (987654 pages of 4 KiB is 3.8 GiB). */
static void test_bytes(void **state)
{
	struct header_info h = info();
	struct line *l = calloc(HEADER_LINES, sizeof(*l));

	(void)state;
	assert_non_null(l);
	h.bytes = true;
	header_build(&h, l);
	if (fmt_page_kib() == 4) {
		assert_non_null(strstr(l[2].text, "copies 3.8 GiB"));
		assert_non_null(strstr(l[2].text, "CoW 48.2 MiB/s"));
	}
	free(l);
}

static void test_fields(void **state)
{
	struct header_info h = info();
	struct line *l = calloc(HEADER_LINES, sizeof(*l));

	(void)state;
	header_build(&h, l);
	assert_non_null(strstr(l[0].text, "host box"));
	assert_non_null(strstr(l[0].text, "kernel Linux 6.8.0 x86_64"));
	assert_non_null(strstr(l[0].text, "mechanism fentry"));
	assert_non_null(strstr(l[1].text, "target command ruby"));
	assert_non_null(strstr(l[1].text, "processes 7 (5 live)"));
	assert_non_null(strstr(l[1].text, "refresh 1.5s"));
	assert_non_null(strstr(l[1].text, "cowtop CPU 0.5%"));
	assert_non_null(strstr(l[2].text, "CoW 12.3k/s"));
	assert_non_null(strstr(l[2].text, "copies 987654"));
	assert_non_null(strstr(l[2].text, "lost 0"));
	assert_false(role_at(&l[2], "lost", ROLE_WARN));
	assert_true(role_at(&l[2], "lost", ROLE_LABEL));
	assert_null(strstr(l[2].text, "PAUSED"));
	free(l);
}

static void test_lost_and_paused_warn(void **state)
{
	struct header_info h = info();
	struct line *l = calloc(HEADER_LINES, sizeof(*l));

	(void)state;
	h.lost = 3;
	h.paused = true;
	h.command_done = true;
	h.command_status = 2;
	header_build(&h, l);
	assert_true(role_at(&l[2], "lost 3", ROLE_WARN));
	assert_true(role_at(&l[2], "[PAUSED]", ROLE_WARN));
	assert_true(role_at(&l[1], "(exited, status 2)", ROLE_WARN));
	free(l);
}

/* Processes the kernel's table could not hold are said, in warning colour. */
static void test_lost_processes_said(void **state)
{
	struct header_info h = info();
	struct line *l = calloc(HEADER_LINES, sizeof(*l));

	(void)state;
	h.lost = 7;
	h.lost_procs = 5;
	header_build(&h, l);
	assert_true(role_at(&l[2], "lost 7", ROLE_WARN));
	assert_true(role_at(&l[2], "(5 processes not counted)", ROLE_WARN));
	h.lost_procs = 1;
	header_build(&h, l);
	assert_true(role_at(&l[2], "(1 process not counted)", ROLE_WARN));
	h.lost_procs = 0;
	header_build(&h, l);
	assert_null(strstr(l[2].text, "not counted"));
	free(l);
}

static void test_untrusted_text_escaped(void **state)
{
	struct header_info h = info();
	struct line *l = calloc(HEADER_LINES, sizeof(*l));
	int i;

	(void)state;
	h.target = "command \x1b[31mred\x9b";
	h.host = "h\xc3\xa9";
	h.utf8 = false;
	header_build(&h, l);
	for (i = 0; i < HEADER_LINES; i++)
		assert_null(strchr(l[i].text, '\x1b'));
	assert_non_null(strstr(l[1].text, "command \\e[31mred\\x9b"));
	assert_non_null(strstr(l[0].text, "host h\\u00e9"));
	h.utf8 = true;
	header_build(&h, l);
	assert_non_null(strstr(l[0].text, "host h\xc3\xa9"));
	assert_non_null(strstr(l[1].text, "command \\e[31mred\\x9b"));
	free(l);
}

static void test_probes_only_when_attached(void **state)
{
	struct header_info h = info();
	struct line *l = calloc(HEADER_LINES, sizeof(*l));
	int i;

	(void)state;
	header_build(&h, l);
	for (i = 0; i < HEADER_LINES; i++)
		assert_null(strstr(l[i].text, "probes"));
	h.nprobes = 1;
	header_build(&h, l);
	assert_non_null(strstr(l[2].text, "lost 0  probes 1"));
	assert_true(role_at(&l[2], "probes", ROLE_LABEL));
	h.nprobes = 3;
	h.nphases = 1;
	h.paused = true;
	header_build(&h, l);
	assert_non_null(strstr(l[2].text, "probes 3 (1 phase)  [PAUSED]"));
	h.nphases = 2;
	header_build(&h, l);
	assert_non_null(strstr(l[2].text, "probes 3 (2 phases)"));
	free(l);
}

/* The memory pressure: last on line 3, only when known, in warning colour
 * once some task stalled. */
static void test_memory_pressure(void **state)
{
	struct header_info h = info();
	struct line *l = calloc(HEADER_LINES, sizeof(*l));

	(void)state;
	header_build(&h, l);
	assert_null(strstr(l[2].text, "mem pressure"));
	h.psi = true;
	header_build(&h, l);
	assert_non_null(strstr(l[2].text, "mem pressure some 0.0% full 0.0%"));
	assert_false(role_at(&l[2], "some 0.0%", ROLE_WARN));
	h.psi_some = 12.5;
	h.psi_full = -1;
	h.paused = true;
	header_build(&h, l);
	assert_non_null(strstr(l[2].text, "[PAUSED]  mem pressure some 12.5% full 0.0%"));
	assert_true(role_at(&l[2], "some 12.5%", ROLE_WARN));
	free(l);
}

/* How old the oldest reading shown is, only when a row shown has one. */
static void test_oldest_reading(void **state)
{
	struct header_info h = info();
	struct line *l = calloc(HEADER_LINES, sizeof(*l));

	(void)state;
	header_build(&h, l);
	assert_null(strstr(l[2].text, "reading"));
	h.smaps_read = true;
	h.smaps_age = 2.25;
	header_build(&h, l);
	assert_non_null(strstr(l[2].text, "  oldest reading 2.2s"));
	free(l);
}

/* Copy stacks: the cost, the sampling, and failed captures in warning
 * colour, only when there are some. */
static void test_stacks(void **state)
{
	struct header_info h = info();
	struct line *l = calloc(HEADER_LINES, sizeof(*l));
	int i;

	(void)state;
	assert_non_null(l);
	header_build(&h, l);
	for (i = 0; i < HEADER_LINES; i++)
		assert_null(strstr(l[i].text, "stacks on"));
	h.stacks_every = 4;
	h.stacks_us = 0.5;
	header_build(&h, l);
	for (i = 0; i < HEADER_LINES && !strstr(l[i].text, "stacks on"); i++)
		;
	assert_true(i < HEADER_LINES);
	assert_non_null(strstr(l[i].text, "stacks on: +0.50 us/copy (1 in 4)"));
	assert_null(strstr(l[i].text, "failed"));
	h.stacks_failed = 1;
	header_build(&h, l);
	assert_non_null(strstr(l[i].text, "(1 in 4), 1 capture failed"));
	h.stacks_failed = 12;
	header_build(&h, l);
	assert_true(role_at(&l[i], "12 captures failed", ROLE_WARN));
	/* with a budget: the share of a CPU the captures cost, of the budget */
	h.stacks_failed = 0;
	h.stacks_budget = 1;
	h.stacks_cpu = -1;
	header_build(&h, l);
	assert_non_null(strstr(l[i].text, "stacks on: +0.50 us/copy (1 in 4, budget 1%)"));
	h.stacks_cpu = 0.934;
	h.stacks_every = 120;
	header_build(&h, l);
	assert_non_null(strstr(l[i].text, "stacks on: +0.50 us/copy (1 in 120, 0.93% CPU of 1%)"));
	h.stacks_every = 1;
	h.stacks_cpu = 0.25;
	header_build(&h, l);
	assert_non_null(strstr(l[i].text, "stacks on: +0.50 us/copy (0.25% CPU of 1%)"));
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_narrow_keeps_essentials),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_lost_and_paused_warn),
		cmocka_unit_test(test_lost_processes_said),
		cmocka_unit_test(test_untrusted_text_escaped),
		cmocka_unit_test(test_probes_only_when_attached),
		cmocka_unit_test(test_oldest_reading),
		cmocka_unit_test(test_memory_pressure),
		cmocka_unit_test(test_stacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
