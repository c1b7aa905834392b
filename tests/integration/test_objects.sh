#!/bin/bash
# cowtop --objects: the runtime object each copy's write fell in, and the
# kind of write, on Debian's CPython 3.11.
#
# objfork.py's master builds Item instances, strings and bytearrays, reports
# the 4 KiB pages each kind occupies (from the objects' own addresses), waits
# until cowtop has shown its first frame (its runtime is detected by then),
# then forks one child:
#   iter   iterates over the strings: (str, refcount) on about as many pages
#          as hold strings, and refcount most of the child's copies;
#   gc     gc.collect(): (Item, gc_header) on about as many pages as hold
#          Items, and gc_header most of the child's copies;
#   gc --freeze: the same after gc.freeze(): gc_header copies fall below
#          FREEZE_LEFT of the gc run's (both measured here), none on Items;
#   bytes  one byte into each bytearray's buffer: payload writes on blocks
#          without an object header (a bytearray's buffer is a separate
#          block) on about as many pages as hold buffers.
# Bounds: [LOW x truth, truth + SLACK]; the truth is what the workload
# measured of itself. --objects-sample 8: the estimate within half of the
# truth. Each run samples at the rate it asks for (--sample-budget 0: the
# budget, tested in test_sample_budget.sh, would lower it when the reads
# cost more than 1% of a CPU). Without --objects no objects field appears. The master stays alive
# until the child's counts are shown, so that type names are read from it.
#
# --folded-objects FILE (iter and gc runs): at exit, one line per (process,
# type, write kind), "comm;cpython-3.11;TYPE;[WRITE] PAGES"; its
# (str, refcount) or (Item, gc_header) pages, over every process, within
# the same bounds of the same truth, and its pages add up to those of the
# last frame's cow_objects of every process (the workload's master and
# child, both still shown).
#
# Environment (besides lib.sh's): COWTOP_TEST_PYTHON (default
# /usr/bin/python3.11).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/objects.sh"

PYTHON=${COWTOP_TEST_PYTHON:-/usr/bin/python3.11}
OBJFORK=$(dirname "$0")/../workloads/objfork.py
readonly LOW_PCT=90 FREEZE_LEFT_PCT=15 SHARE_PCT=60
OBJ_LOAD=("$PYTHON" "$OBJFORK")
OBJ_READY_WAIT=30

setup
[ -x "$PYTHON" ] || { echo "SKIP: no python at $PYTHON"; exit 77; }

# The pages of the folded file's lines of TYPE and WRITE: folded_pages FILE TYPE WRITE.
folded_pages() {
	awk -v t="$2" -v w="[$3]" '{ n = split($1, f, ";") }
		n >= 4 && f[n - 1] == t && f[n] == w { s += $2 } END { print s + 0 }' "$1"
}

# Check the folded file of run NAME: its format, and that its pages are
# every process's sampled pages in the last frame: check_folded NAME.
check_folded() {
	local file=$WORK/$1.folded total shown
	check "$1: the folded file was written" test -s "$file"
	sed "s/^/  $1.folded: /" "$file" || true
	check "$1: every folded line is comm;cpython-3.11;type;[write] pages" \
		awk '!/^[^;]+;cpython-3\.11;[^;]+;\[[a-z_]+\] [0-9]+$/ { bad = 1 } END { exit bad }' "$file"
	total=$(awk '{ s += $NF } END { print s + 0 }' "$file")
	shown=$(jq -n -r 'reduce inputs.processes[] as $p ({};
		if $p.cow_objects != null then .[$p.pid | tostring] = $p.cow_objects.pages else . end)
		| [.[]] | add // 0' "$FRAMES")
	check "$1: folded pages $total are the sampled pages shown $shown (+ the last read)" \
		in_range "$total" "$shown" $((shown + SLACK))
}

run_mode iter --objects --objects-sample 1 --sample-budget 0 --folded-objects "$WORK/iter.folded" \
	-- --mode iter
truth=$(rfield pages 4)
check_runtime iter cpython-3.11
check "iter: status says 1 in 1" jq_true '[inputs] | last | .objects.sample == 1'
near "iter: (str, refcount) pages" "$(obj_pages str refcount)" "$truth"
share "iter: refcount writes" "$(by_write refcount)" "$(by_write all)"
check_all_sampled iter
check_folded iter
near "iter: folded (str, refcount) pages" "$(folded_pages "$WORK/iter.folded" str refcount)" "$truth"

run_mode gc --objects --objects-sample 1 --sample-budget 0 --folded-objects "$WORK/gc.folded" \
	-- --mode gc
truth=$(rfield pages 6)
gc_plain=$(by_write gc_header)
near "gc: (Item, gc_header) pages" "$(obj_pages Item gc_header)" "$truth"
check_folded gc
near "gc: folded (Item, gc_header) pages" "$(folded_pages "$WORK/gc.folded" Item gc_header)" "$truth"
share "gc: gc_header writes" "$gc_plain" "$(by_write all)"

run_mode freeze --objects --objects-sample 1 --sample-budget 0 -- --mode gc --freeze
gc_frozen=$(by_write gc_header)
check "freeze: gc_header pages $gc_frozen below ${FREEZE_LEFT_PCT}% of the unfrozen $gc_plain" \
	test "$((gc_frozen * 100))" -le "$((gc_plain * FREEZE_LEFT_PCT))"
check "freeze: no gc_header copies of Item ($(obj_pages Item gc_header))" \
	in_range "$(obj_pages Item gc_header)" 0 "$SLACK"

run_mode bytes --objects --objects-sample 1 --sample-budget 0 -- --mode bytes
truth=$(rfield pages 8)
near "bytes: (block without object, payload) pages" \
	"$(obj_pages '(block without object)' payload)" "$truth"

run_mode sample --objects --objects-sample 8 --sample-budget 0 -- --mode iter
truth=$(rfield pages 4)
check "sample: status says 1 in 8" jq_true '[inputs] | last | .objects.sample == 8'
check "sample: (str, refcount) estimate $(obj_pages str refcount) within half of $truth" \
	in_range "$(obj_pages str refcount)" $((truth / 2)) $((truth * 3 / 2))

# A budget the reads exceed as soon as there are any (0.001% of a CPU is
# 10 us a second, a few reads): the rate in effect rises above the 1 in 1
# asked for, in the interval after the reads.
run_mode budget --objects --objects-sample 1 --sample-budget 0.001 -- --mode iter
check "budget: the rate rose above 1 in 1" jq_true '[inputs.objects.sample] | max > 1'

run_mode off -- --mode iter
check "off: no objects status, no cow_objects" \
	jq_true '[inputs] | length > 0 and all(has("objects") | not)
		and ([.[].processes[]] | all(has("cow_objects") | not))'

finish
