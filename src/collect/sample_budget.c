/* A sampling rate kept within a CPU budget; see sample_budget.h. */
#include <math.h>
#include <stdbool.h>
#include "sample_budget.h"

/* Set up b; see sample_budget.h. */
void sample_budget__init(struct sample_budget *b, double budget_pct, unsigned min)
{
	b->budget = budget_pct > 0 ? budget_pct / 100 : 0;
	b->min = min ? min : 1;
	sample_budget__restart(b);
}

/* Forget the last measurement; see sample_budget.h. */
void sample_budget__restart(struct sample_budget *b)
{
	b->every = b->min;
	b->share = -1;
	b->effective = -1;
	b->ns = b->captures = b->copies = 0;
	b->time = -1;
}

/* The divisor that would have cost the budget, from the divisor really in
 * effect (the kernel's, when it thinned the captures) and the share it
 * cost: the cost is in proportion to the captures. */
static double ideal(const struct sample_budget *b)
{
	return (b->effective > 0 ? b->effective : b->every) * b->share / b->budget;
}

/* Take the kernel's totals k at time now as the last measurement. */
static void keep(struct sample_budget *b, double now, const struct sample_budget_totals *k)
{
	b->ns = k->ns;
	b->captures = k->captures;
	b->copies = k->copies;
	b->time = now;
}

/* One tick; see sample_budget.h. */
unsigned sample_budget__update(struct sample_budget *b, double now,
			       const struct sample_budget_totals *k)
{
	bool back = k->ns < b->ns || k->captures < b->captures || k->copies < b->copies;
	double dt = now - b->time, want;
	unsigned long long n;

	if (b->time < 0 || dt <= 0 || back) {
		/* first tick, a clock that did not move, or counters reset */
		if (b->time < 0 || back)
			keep(b, now, k);
		return b->every;
	}
	b->share = (double)(k->ns - b->ns) / 1e9 / dt;
	n = k->captures - b->captures;
	b->effective = n ? (double)(k->copies - b->copies) / (double)n : -1;
	keep(b, now, k);
	if (b->budget <= 0)
		return b->every = b->min;
	want = ceil(ideal(b) * (1 - 1e-4)); /* not one more for a rounding error */
	if (want < b->every / 2.0)
		want = ceil(b->every / 2.0); /* down gently */
	if (want < b->min)
		want = b->min;
	if (want > SAMPLE_BUDGET_EVERY_MAX)
		want = SAMPLE_BUDGET_EVERY_MAX;
	return b->every = (unsigned)want;
}
