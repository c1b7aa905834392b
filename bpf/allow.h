/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's own hold on a sampler's CPU budget (--sample-budget): an
 * allowance of nanoseconds, refilled at the budget's share of each window of
 * COWTOP_ALLOW_WINDOW_NS (saved up to two windows' worth) and spent by the
 * captures' measured time, so that a burst of copies costs the budget from
 * its first window on, not from the next tick of user space (which sets the
 * base rate, 1 in every, from the share the last interval cost).
 *
 * Sampling stays systematic: a per-CPU counter counts copies since the last
 * capture, and the copy that brings it to every << (shift + probe) is
 * captured and counts for all of them (its weight is the counter), so no
 * copy has a chance of zero and the weights add up to the copies. A copy due
 * while the allowance is spent is not captured: the counter goes on and the
 * divisor doubles (probe), so that the clock is read at a few copies only
 * until the window ends; the next capture counts for the copies in between.
 * At each new window the probing stops, and the kernel's own divisor
 * (shift) doubles if the window ran out, or halves if twice the captures
 * would have fitted. No clock is read but at the copy that is due.
 *
 * Plain C over __sync builtins, so the same code runs in the BPF program and
 * in the unit tests. Updates from several CPUs race only where being off by
 * one step is harmless (shift, probe); the allowance is changed by atomic
 * adds only, and refilled by the one CPU that moves the window on. */
#ifndef COWTOP_ALLOW_H
#define COWTOP_ALLOW_H

#include "cowtop.h" /* struct cowtop_allow, COWTOP_ALLOW_WINDOW_NS */

#define COWTOP_ALLOW_SHIFT_MAX 20 /* the kernel divides the rate by 2^20 at most */
#define COWTOP_ALLOW_SAVE 2       /* windows' worth of allowance kept at most */

/* The weight of a copy just counted in *n (copies since the last capture on
 * this CPU): 0 unless it reaches the divisor, else the copies it stands for. */
static __always_inline __u64 allow_due(const struct cowtop_allow *a, __u64 *n, __u32 every)
{
	__u64 step = (__u64)every << ((a->shift + a->probe) & 63);

	if (++*n < step)
		return 0;
	return *n;
}

/* Move a on from window old to window w: add the windows' allowance (never
 * more than COWTOP_ALLOW_SAVE windows' in all), stop probing, and set the
 * kernel's divisor from how the last window went: doubled if it ran out,
 * halved if it spent at most half a window's allowance (twice the captures
 * would have fitted), and halved again for each window since, which had
 * none; else kept, so that a steady load finds a divisor that fits and the
 * captures stand for equal numbers of copies. */
static __always_inline void allow_refill(struct cowtop_allow *a, __u64 w, __u64 old, __u64 allow)
{
	__s64 left = a->left, add, most = (__s64)(COWTOP_ALLOW_SAVE * allow);
	__u64 k = w - old, back = k - 1;
	__u32 shift = a->shift;

	if (left <= 0) {
		if (shift < COWTOP_ALLOW_SHIFT_MAX)
			shift++;
	} else if (a->base - left <= (__s64)(allow / 2)) {
		back++;
	}
	if (back > COWTOP_ALLOW_SHIFT_MAX)
		back = COWTOP_ALLOW_SHIFT_MAX;
	a->shift = shift > back ? shift - (__u32)back : 0;
	a->probe = 0;
	add = k > COWTOP_ALLOW_SAVE ? most : (__s64)(k * allow);
	if (left + add > most)
		add = most - left;
	a->base = left + add;
	__sync_fetch_and_add(&a->left, add);
}

/* Whether a capture may start at now (ns) with allow ns a window (0: no
 * limit). When not, the divisor doubles: the caller keeps its counter. */
static __always_inline bool allow_take(struct cowtop_allow *a, __u64 now, __u64 allow)
{
	__u64 w = now / COWTOP_ALLOW_WINDOW_NS, old = a->window;

	if (!allow)
		return true;
	if (w > old && __sync_val_compare_and_swap(&a->window, old, w) == old)
		allow_refill(a, w, old, allow);
	if (a->left > 0)
		return true;
	if (a->shift + a->probe < COWTOP_ALLOW_SHIFT_MAX)
		a->probe++;
	return false;
}

/* Charge a capture's measured ns to the allowance. */
static __always_inline void allow_charge(struct cowtop_allow *a, __u64 ns, __u64 allow)
{
	if (allow)
		__sync_fetch_and_add(&a->left, -(__s64)ns);
}

#endif
