/* Unit tests of the sampling budget: a simulated kernel side copies at a
 * given rate and spends a given time per capture, at the divisor the
 * controller chose, or fewer when its own allowance (a share of a CPU) runs
 * out, each capture then standing for more copies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "sample_budget.h"

/* The simulated kernel side: copies per second, ns per capture, the share
 * of a CPU its allowance lets it spend (0: no limit), totals. */
struct sim {
	struct sample_budget b;
	double copies_per_s, ns_per_capture, allow;
	double now, ns, captures, copies;
};

/* Run one tick of dt seconds at the divisor in effect; the new divisor. */
static unsigned tick(struct sim *s, double dt)
{
	double copies = s->copies_per_s * dt, captures = copies / s->b.every;
	struct sample_budget_totals k;

	if (s->allow > 0 && captures * s->ns_per_capture > s->allow * dt * 1e9)
		captures = s->allow * dt * 1e9 / s->ns_per_capture; /* the kernel thins them */
	s->ns += captures * s->ns_per_capture;
	s->captures += captures;
	s->copies += copies;
	s->now += dt;
	k = (struct sample_budget_totals){ (unsigned long long)s->ns,
					   (unsigned long long)s->captures,
					   (unsigned long long)s->copies };
	return sample_budget__update(&s->b, s->now, &k);
}

/* One update at time now with totals ns, no captures. */
static unsigned at(struct sample_budget *b, double now, unsigned long long ns)
{
	struct sample_budget_totals k = { .ns = ns };

	return sample_budget__update(b, now, &k);
}

/* Start a simulation at time 100 with its first (measuring) tick taken. */
static void start(struct sim *s, double pct, unsigned min, double copies, double ns)
{
	*s = (struct sim){ .copies_per_s = copies, .ns_per_capture = ns, .now = 100 };
	sample_budget__init(&s->b, pct, min);
	assert_int_equal(at(&s->b, s->now, 0), min ? min : 1);
	assert_true(s->b.share < 0);
}

/* Over budget: the divisor goes at once to what costs the budget (1e6
 * copies/s at 1.2 us each is 120% of a CPU at 1 in 1; 1% wants 1 in 120)
 * and stays there; the share measured is then within the budget. */
static void test_over_budget(void **state)
{
	struct sim s;
	int i;

	(void)state;
	start(&s, 1.0, 1, 1e6, 1200);
	assert_int_equal(tick(&s, 1.0), 120);
	assert_true(s.b.share > 1.19 && s.b.share < 1.21);
	for (i = 0; i < 5; i++) {
		assert_int_equal(tick(&s, 1.0), 120);
		assert_true(s.b.share <= 0.01 + 1e-9 && s.b.share > 0.0099);
	}
}

/* Under budget the divisor comes down by halves, never below the one asked
 * for; with no copies at all, likewise. */
static void test_under_budget(void **state)
{
	struct sim s;

	(void)state;
	start(&s, 1.0, 3, 1e6, 1200);
	assert_int_equal(tick(&s, 1.0), 120);
	s.copies_per_s = 0;
	assert_int_equal(tick(&s, 1.0), 60);
	assert_true(s.b.share == 0);
	assert_int_equal(tick(&s, 1.0), 30);
	assert_int_equal(tick(&s, 1.0), 15);
	assert_int_equal(tick(&s, 1.0), 8);
	assert_int_equal(tick(&s, 1.0), 4);
	assert_int_equal(tick(&s, 1.0), 3);
	assert_int_equal(tick(&s, 1.0), 3);
	/* a load the budget covers at 1 in 40 stops the way down there */
	start(&s, 1.0, 1, 1e6, 1200);
	assert_int_equal(tick(&s, 1.0), 120);
	s.copies_per_s = 1e6 / 3;
	assert_int_equal(tick(&s, 1.0), 60);
	assert_int_equal(tick(&s, 1.0), 40);
	assert_int_equal(tick(&s, 1.0), 40);
}

/* The share is per second: a tick of half a second that spent the same
 * nanoseconds cost twice the share. */
static void test_interval(void **state)
{
	struct sim s;

	(void)state;
	start(&s, 2.0, 1, 1e5, 1000); /* 10% at 1 in 1 */
	assert_int_equal(tick(&s, 0.5), 5);
	assert_true(s.b.share > 0.099 && s.b.share < 0.101);
	assert_int_equal(tick(&s, 0.25), 5);
	assert_true(s.b.share > 0.0199 && s.b.share < 0.0201);
}

/* No budget: the divisor asked for, whatever it costs. */
static void test_no_budget(void **state)
{
	struct sim s;

	(void)state;
	start(&s, 0, 7, 1e6, 1200);
	assert_int_equal(tick(&s, 1.0), 7);
	assert_true(s.b.share > 0.17);
	assert_int_equal(tick(&s, 1.0), 7);
}

/* Bounds: never above SAMPLE_BUDGET_EVERY_MAX; a clock that did not move
 * changes nothing; counters that went back (reset) start a new measure;
 * restart goes back to the divisor asked for. */
static void test_edges(void **state)
{
	struct sim s;

	(void)state;
	start(&s, 0.001, 1, 1e9, 1e6);
	assert_int_equal(tick(&s, 1.0), SAMPLE_BUDGET_EVERY_MAX);
	assert_int_equal(at(&s.b, s.now, (unsigned long long)s.ns + 1000000), SAMPLE_BUDGET_EVERY_MAX);
	assert_int_equal(at(&s.b, s.now + 1, 5), SAMPLE_BUDGET_EVERY_MAX);
	assert_int_equal(at(&s.b, s.now + 2, 5), SAMPLE_BUDGET_EVERY_MAX / 2);
	sample_budget__restart(&s.b);
	assert_int_equal(s.b.every, 1);
	assert_true(s.b.share < 0);
	assert_int_equal(at(&s.b, 1.0, 0), 1);
}

/* The kernel held the budget itself (its allowance thinned the captures to
 * 1% of a CPU): the share measured is within the budget, yet the rate goes
 * at once to what the load needs, from the copies each capture stood for,
 * and the kernel need not thin any more. Without that the divisor would
 * stay, or even come down, and the kernel thin at every burst. */
static void test_kernel_thinned(void **state)
{
	struct sim s;

	(void)state;
	start(&s, 1.0, 1, 1e6, 1200);
	s.allow = 0.01;
	assert_int_equal(tick(&s, 1.0), 120);
	assert_true(s.b.share <= 0.01 + 1e-6);
	assert_true(s.b.effective > 119 && s.b.effective < 121);
	assert_int_equal(tick(&s, 1.0), 120);
	assert_true(s.b.effective > 119.9 && s.b.effective < 120.1);
	/* no capture in an interval: the effective rate is unknown, and the
	 * divisor comes down by half as before */
	s.copies_per_s = 0;
	assert_int_equal(tick(&s, 1.0), 60);
	assert_true(s.b.effective < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_over_budget),
		cmocka_unit_test(test_under_budget),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_no_budget),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_kernel_thinned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
