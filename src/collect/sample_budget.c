/* A sampling rate kept within a CPU budget; see sample_budget.h. */
#include <math.h>
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
	b->ns = 0;
	b->time = -1;
}

/* The divisor that would have cost the budget, from the divisor in effect
 * and the share it cost: the cost is in proportion to the captures. */
static double ideal(const struct sample_budget *b)
{
	return (double)b->every * b->share / b->budget;
}

/* One tick; see sample_budget.h. */
unsigned sample_budget__update(struct sample_budget *b, double now, unsigned long long ns)
{
	double dt = now - b->time, want;

	if (b->time < 0 || dt <= 0 || ns < b->ns) {
		/* first tick, a clock that did not move, or counters reset */
		if (b->time < 0 || ns < b->ns) {
			b->ns = ns;
			b->time = now;
		}
		return b->every;
	}
	b->share = (double)(ns - b->ns) / 1e9 / dt;
	b->ns = ns;
	b->time = now;
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
