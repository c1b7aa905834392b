/* A sampling rate kept within a CPU budget: the kernel side captures the
 * stack (or reads the object) of 1 copy in every, and counts the captures
 * and the nanoseconds they took. Once per tick the totals say what share of
 * a CPU the captures cost over the interval; from it follows the rate that
 * would have cost the budget: the rate goes there at once when the captures
 * cost more, and at most halves its divisor per tick when they cost less, so
 * that a burst of copies is caught quickly and a pause does not swing the
 * rate down to 1 in 1 at the next burst's start. Pure logic: the caller
 * reads the clocks and the counters. */
#ifndef COWTOP_SAMPLE_BUDGET_H
#define COWTOP_SAMPLE_BUDGET_H

#define SAMPLE_BUDGET_DEFAULT 1.0        /* --sample-budget default: % of one CPU */
#define SAMPLE_BUDGET_EVERY_MAX 1000000u /* never fewer than 1 copy in a million */

struct sample_budget {
	double budget;            /* fraction of one CPU; 0: none, every stays at min */
	unsigned min;             /* the divisor asked for (--stacks-sample): never below */
	unsigned every;           /* the divisor in effect: 1 copy in every */
	double share;             /* of one CPU the captures cost last interval; < 0 unknown */
	unsigned long long ns;    /* the kernel's total at the last update */
	double time;              /* when, seconds on a monotonic clock; < 0 none yet */
};

/* Start at 1 copy in min (0 counts as 1), with budget_pct% of one CPU (0:
 * no budget). */
void sample_budget__init(struct sample_budget *b, double budget_pct, unsigned min);
/* Start measuring afresh from the divisor asked for (sampling turned on
 * again: the totals since then mean nothing for the rate now). */
void sample_budget__restart(struct sample_budget *b);
/* One tick at time now (seconds), with the kernel's running total of
 * nanoseconds spent capturing: returns the divisor to use from now on. */
unsigned sample_budget__update(struct sample_budget *b, double now, unsigned long long ns);

#endif
