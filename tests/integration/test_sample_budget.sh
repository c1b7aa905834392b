#!/bin/bash
# cowtop --stacks within a CPU budget (--sample-budget). stackload forks
# CHILDREN children one after another, each copying PAGES pages under a
# stack of its own: copies enough that capturing every stack costs the
# kernel more than BUDGET% of a CPU.
#
# Oracle, from what the run measured of itself (the kernel's own count of
# the nanoseconds its captures took, cpu_pct, never wall time): no interval
# costs more than BOUND x the budget, the first one of the burst included,
# though capturing at 1 in MIN would cost far more: the kernel's allowance
# declined captures (stacks.skipped) and the rate went above 1 in MIN; once
# it did, the median of the shares measured while the workload copied is
# near the budget (within [BUDGET/3, 2 x BUDGET]); every frame's rate is at
# least the --stacks-sample asked for. The counts of sampled stacks, each
# scaled by the copies it stood for, add up (folded output) to the copies
# counted, within a tenth: captures declined for the budget do not bias the
# estimate. With --sample-budget 0 the rate stays at --stacks-sample
# whatever it costs.
#
# BOUND: the kernel refills an allowance of the budget's share of each
# 10 ms window (saving up to two windows' worth) and starts no capture while
# it is spent, so an interval of D seconds costs at most budget x (D + 30 ms)
# plus one capture in flight per CPU (microseconds); at -d 0.5 that is
# within 1.07 x the budget. 1.5 leaves room for a tick that comes early on a
# loaded machine (a shorter interval than D, the same allowance saved).
# Environment (besides lib.sh's): STACKLOAD (default ./tests/workloads/stackload).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

STACKLOAD=${STACKLOAD:-./tests/workloads/stackload}
readonly CHILDREN=600 PAGES=2000 BUDGET=0.5 MIN=2 BOUND=1.5

setup
[ -x "$STACKLOAD" ] || die "stackload not found at '$STACKLOAD' (set STACKLOAD)"

F=$WORK/budget.folded
REPORT=$WORK/stackload.out
# the workload's report goes to a file of its own, not among the frames
run_cowtop budget -d 0.5 --stacks --stacks-sample $MIN --sample-budget $BUDGET --folded "$F" -- \
	/bin/sh -c 'out=$1; shift; exec "$@" >"$out"' sh "$REPORT" "$STACKLOAD" $CHILDREN $PAGES
expect_eq "budget: cowtop exit status" "$RC" 0
validate_frames
read -r _ children _ pages <"$REPORT" || true
expect_eq "budget: the workload forked its children" "$children" $CHILDREN
check "budget: the workload's children copied $pages pages" in_range "${pages:-0}" 1 $((CHILDREN * PAGES))

check "budget: every frame says the budget ($BUDGET%)" \
	jq_true "[inputs.stacks.budget_pct] | length > 0 and all(. == $BUDGET)"
check "budget: the rate never goes below 1 in $MIN" \
	jq_true "[inputs.stacks.sample] | all(. >= $MIN)"
first=$(jq -n -r '[inputs.stacks | select(.cpu_pct != null)] | first | .cpu_pct' "$FRAMES")
check "budget: the first interval cost $first%, within $BOUND x $BUDGET%" \
	awk -v f="$first" -v b=$BUDGET -v k=$BOUND 'BEGIN { exit !(f != "null" && f <= k * b) }'
worst=$(jq -n -r '[inputs.stacks.cpu_pct // 0] | max' "$FRAMES")
check "budget: no interval cost more than $BOUND x $BUDGET% (the most: $worst%)" \
	awk -v f="$worst" -v b=$BUDGET -v k=$BOUND 'BEGIN { exit !(f != "null" && f <= k * b) }'
check "budget: the kernel declined captures for the budget" \
	jq_true "[inputs.stacks.skipped // 0] | max > 0"
check "budget: the rate went above 1 in $MIN" jq_true "[inputs.stacks.sample] | any(. > $MIN)"
# Shares measured after the rate first rose, while the workload still ran
# (frames in which copies were counted).
median=$(jq -n -r '[inputs] as $f
	| ($f | map(.stacks.sample > '$MIN') | index(true)) as $i
	| [$f[$i + 1:][] | select(([.processes[].cow_rate // 0] | add // 0) > 0) | .stacks.cpu_pct]
	| sort | if length > 2 then .[length / 2 | floor] else null end' "$FRAMES")
check "budget: median share $median% within [$BUDGET/3, 2 x $BUDGET]%" \
	awk -v m="$median" -v b=$BUDGET 'BEGIN { exit !(m != "null" && m >= b / 3 && m <= 2 * b) }'
folded=$(awk '{ s += $NF } END { print s + 0 }' "$F")
check "budget: the scaled stack counts $folded estimate the $pages copies (within a tenth)" \
	in_range "$folded" $((pages * 9 / 10)) $((pages * 11 / 10 + STARTUP_SLACK))

# No budget: the rate asked for, though it costs more.
run_cowtop nobudget -d 0.5 --stacks --stacks-sample 3 --sample-budget 0 -- \
	/bin/sh -c 'out=$1; shift; exec "$@" >"$out"' sh "$WORK/nobudget.out" "$STACKLOAD" 200 $PAGES
expect_eq "no budget: cowtop exit status" "$RC" 0
check "no budget: 1 in 3 in every frame, budget 0" \
	jq_true '[inputs.stacks] | length > 0 and all(.sample == 3 and .budget_pct == 0)'
check "no budget: it cost more than $BUDGET% in some frame" \
	jq_true "[inputs.stacks.cpu_pct // 0] | any(. > $BUDGET)"

finish
