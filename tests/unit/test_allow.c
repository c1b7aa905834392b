/* Unit tests of the kernel's allowance (bpf/allow.h), run as plain C: a
 * simulated stream of copies, each captured when it is due and the
 * allowance lets it, at a given cost per capture. */
#include <linux/types.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#include "allow.h"

#define START_NS 1000000000000ULL /* the simulated clock starts here */

/* The simulated sampler on one CPU: totals, and the copies of process A
 * (the others are B's) as counted and as estimated. */
struct sim {
	struct cowtop_allow a;
	__u64 n;               /* copies since the last capture */
	__u64 allow, cost;     /* ns a window; ns a capture */
	__u32 every;
	double spent, weights; /* ns spent; copies the captures stood for */
	double copies, a_copies, a_estimate, captures, declined;
};

/* Start with allow ns a window, cost ns a capture, base rate 1 in every. */
static void start(struct sim *s, __u64 allow, __u64 cost, __u32 every)
{
	*s = (struct sim){ .allow = allow, .cost = cost, .every = every };
}

/* One copy at time now, by process A or not. */
static void copy(struct sim *s, __u64 now, bool by_a)
{
	__u64 w = allow_due(&s->a, &s->n, s->every);

	s->copies++;
	s->a_copies += by_a;
	if (!w)
		return;
	if (!allow_take(&s->a, now, s->allow)) {
		s->declined++;
		return;
	}
	s->n = 0;
	s->captures++;
	s->weights += (double)w;
	if (by_a)
		s->a_estimate += (double)w;
	allow_charge(&s->a, s->cost, s->allow);
	s->spent += (double)s->cost;
}

/* A small deterministic generator: true with probability p. */
static bool chance(__u64 *x, double p)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (double)(*x % 1000000) < p * 1e6;
}

/* A burst the budget cannot pay at 1 in 1 (200,000 copies a second at 3 us
 * a capture is 60% of a CPU; the budget 0.5%): at no moment has the kernel
 * spent more than budget x (time + 3 windows) plus one capture, the first
 * window included; every copy is stood for by a capture or still counted. */
static void test_burst_held(void **state)
{
	const double budget = 0.005, gap = 5000, w = COWTOP_ALLOW_WINDOW_NS;
	struct sim s;
	__u64 i;

	(void)state;
	start(&s, (__u64)(budget * w), 3000, 1);
	for (i = 0; i < 200000; i++) {
		double t = (double)i * gap;

		copy(&s, START_NS + (__u64)t, false);
		assert_true(s.spent <= budget * (t + 3 * w) + s.cost);
	}
	assert_true(s.declined > 0);
	assert_true(s.captures > 100); /* not starved: about 0.5% of a second's worth */
	assert_true(s.spent >= budget * 1e9 / 4);
	assert_true(s.weights + (double)s.n == s.copies);
}

/* Thinned captures still estimate each process's copies: A makes 30% of
 * them, at random, and its estimate is within 5% of what it did. */
static void test_unbiased_split(void **state)
{
	const double gap = 2000;
	__u64 x = 88172645463325252ULL, i;
	struct sim s;

	(void)state;
	start(&s, 50000, 3000, 2);
	for (i = 0; i < 2000000; i++)
		copy(&s, START_NS + (__u64)((double)i * gap), chance(&x, 0.3));
	assert_true(s.declined > 0);
	assert_true(s.captures * 20 < s.copies / 2); /* thinned well below the base rate */
	assert_true(s.a_estimate > s.a_copies * 0.95 && s.a_estimate < s.a_copies * 1.05);
}

/* After the burst, copies the allowance covers are all captured again: the
 * kernel's divisor comes back to the base rate. */
static void test_recovers(void **state)
{
	struct sim s;
	__u64 i, t = START_NS;

	(void)state;
	start(&s, 50000, 3000, 1);
	for (i = 0; i < 100000; i++, t += 5000)
		copy(&s, t, false);
	assert_true(s.a.shift + s.a.probe > 0);
	t += 1000000000; /* a pause */
	for (i = 0; i < 2000; i++, t += 1000000) /* 1,000 copies a second: 0.3% of a CPU */
		copy(&s, t, false);
	assert_int_equal(s.a.shift, 0);
	assert_int_equal(s.a.probe, 0);
	s.captures = 0;
	for (i = 0; i < 100; i++, t += 1000000)
		copy(&s, t, false);
	assert_true(s.captures == 100);
}

/* No budget: every copy due is captured, however much it costs. */
static void test_no_limit(void **state)
{
	struct sim s;
	__u64 i;

	(void)state;
	start(&s, 0, 3000, 3);
	for (i = 0; i < 30000; i++)
		copy(&s, START_NS + i * 1000, false);
	assert_true(s.captures == 10000);
	assert_true(s.declined == 0);
	assert_int_equal(s.a.shift + s.a.probe, 0);
}

/* An allowance smaller than one capture (1 us a window, 3 us a capture):
 * one capture now and then, the debt paid back before the next, so the
 * long-run cost is the budget's. */
static void test_small_allowance(void **state)
{
	const double gap = 10000, w = COWTOP_ALLOW_WINDOW_NS;
	struct sim s;
	__u64 i;

	(void)state;
	start(&s, 1000, 3000, 1);
	for (i = 0; i < 1000000; i++) {
		double t = (double)i * gap;

		copy(&s, START_NS + (__u64)t, false);
		assert_true(s.spent <= 1000 * (t / w + 3) + s.cost);
	}
	assert_true(s.captures > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_held),
		cmocka_unit_test(test_unbiased_split),
		cmocka_unit_test(test_recovers),
		cmocka_unit_test(test_no_limit),
		cmocka_unit_test(test_small_allowance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
