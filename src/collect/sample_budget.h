/* A sampling rate kept within a CPU budget: the kernel side captures the
 * stack (or reads the object) of 1 copy in every, and counts the captures,
 * the copies they stood for and the nanoseconds they took. The kernel holds
 * the budget itself within each of its short windows (bpf/allow.h): while
 * its allowance is spent it captures fewer, each standing for more copies.
 * Once per tick the totals say what share of a CPU the captures cost over
 * the interval, and at what rate they were really taken (copies per
 * capture); from them follows the base rate that would have cost the
 * budget: the rate goes there at once when the captures cost more (or the
 * kernel had to thin them), and at most halves its divisor per tick when
 * they cost less, so that a pause does not swing the rate down to 1 in 1 at
 * the next burst's start. Pure logic: the caller reads the clocks and the
 * counters. */
#ifndef COWTOP_SAMPLE_BUDGET_H
#define COWTOP_SAMPLE_BUDGET_H

#define SAMPLE_BUDGET_DEFAULT 1.0        /* --sample-budget default: % of one CPU */
#define SAMPLE_BUDGET_EVERY_MAX 1000000u /* never fewer than 1 copy in a million */

struct sample_budget {
	double budget;            /* fraction of one CPU; 0: none, every stays at min */
	unsigned min;             /* the divisor asked for (--stacks-sample): never below */
	unsigned every;           /* the divisor in effect: 1 copy in every */
	double share;             /* of one CPU the captures cost last interval; < 0 unknown */
	double effective;         /* copies per capture last interval; < 0 unknown */
	unsigned long long ns;    /* the kernel's totals at the last update */
	unsigned long long captures, copies;
	double time;              /* when, seconds on a monotonic clock; < 0 none yet */
};

/* Start at 1 copy in min (0 counts as 1), with budget_pct% of one CPU (0:
 * no budget). */
void sample_budget__init(struct sample_budget *b, double budget_pct, unsigned min);
/* Start measuring afresh from the divisor asked for (sampling turned on
 * again: the totals since then mean nothing for the rate now). */
void sample_budget__restart(struct sample_budget *b);
/* The kernel's running totals: nanoseconds spent capturing, captures made,
 * copies they stood for (the weights they counted with). */
struct sample_budget_totals {
	unsigned long long ns, captures, copies;
};

/* One tick at time now (seconds), with the kernel's running totals:
 * returns the divisor to use from now on. */
unsigned sample_budget__update(struct sample_budget *b, double now,
			       const struct sample_budget_totals *k);

#endif
