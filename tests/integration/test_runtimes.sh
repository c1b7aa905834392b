#!/bin/bash
# shared_pct of the children of preforking interpreters, before and after
# their garbage collector runs: a Python script whose children run
# gc.collect(), without and with gc.freeze() in the parent, and a Ruby script
# whose children run GC.start. A full collection writes into the objects (or
# the heap pages) the child inherited, so the copies make shared_pct fall;
# gc.freeze() moves the parent's objects out of the collector's sight, so it
# falls much less.
#
# Each child idles PRE_GC_DELAY ms after fork (cowtop reads it while it still
# shares everything), collects, reports the unix times of its first and last
# collection ("gc" lines) and idles LINGER s (cowtop reads it again). A
# reading is placed by its time (frame time - smaps_age), never by how long
# anything took.
#
# Environment (besides lib.sh's):
#   COWTOP_TEST_RUBY     Ruby interpreter (default ruby)
#   COWTOP_TEST_PYTHON   Python interpreter (default /usr/bin/python3.11)
#
# Measured here (Python 3.11, Ruby 3.1), 10 runs of 3 children each, the
# children's shared_pct before -> after, range over all 30 (inherited_kib):
#   Python, no freeze:    99.69-99.83 -> 42.74-42.80 (91392-91520 KiB)
#   Python, gc.freeze():  99.69-99.84 -> 99.35-99.50 (91392-91520 KiB)
#   Ruby, GC.start:       99.71-100   -> 87.97-88.38 (41088-41216 KiB)
# Falls: Python 56.95-57.05 points without freeze, 0.33-0.34 with; Ruby
# 11.6-11.8 (marking writes the mark bits of the heap pages, about 5 MiB of
# the 40 MiB the child inherited). With freeze, the lowest figure after
# collecting was 56.55 points above the highest without. The figures barely
# vary: the margins below are about 70% of the smallest difference measured
# (half for Ruby), far enough to never flake, close enough to catch a figure
# that means something else.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

RUBY=${COWTOP_TEST_RUBY:-ruby}
PYTHON=${COWTOP_TEST_PYTHON:-/usr/bin/python3.11}
SCRIPTS=$(dirname "$0")/../workloads

readonly PRE_GC_DELAY=1000 LINGER=1.5
# a child that has not collected yet shares nearly all it inherited
readonly BEFORE_MIN=80
# margins in points of shared_pct (see the figures above)
readonly PY_FALL=40 FREEZE_GAIN=40 RUBY_FALL=6
# JSON times have millisecond precision: a reading counts as before (after)
# a collection only when it is this far before (after) it
readonly EPS=0.01

# Print the smaps readings of a live PID in FRAMES, one per line in order:
# TIME SHARED_PCT USS_KIB PRIVATE_DIRTY_KIB INHERITED_KIB.
readings() {
	jq -n -r --argjson p "$1" '[inputs | .time as $t | .processes[]
		| select(.pid == $p and .state != "exited" and .smaps_age != null)
		| [$t - .smaps_age, .shared_pct, .uss_kib, .private_dirty_kib,
		   .inherited_kib]] | unique_by(.[0])[] | @tsv' "$FRAMES"
}

# Pids of the children listed in a gc_fork REPORT.
gc_children() {
	awk '$1 == "child" { print $2 }' "$REPORT"
}

# A field of PID's "gc" report line: gc_time PID begin|end.
gc_time() {
	awk -v p="$1" -v f="$2" '$1 == "gc" && $2 == p {
		for (i = 3; i < NF; i += 2) if ($i == f) print $(i + 1) }' "$REPORT"
}

# A field of PID's "dirty" report line: dirty_kib PID before|after.
dirty_kib() {
	awk -v p="$1" -v f="$2" '$1 == "dirty" && $2 == p {
		for (i = 3; i < NF; i += 2) if ($i == f) print $(i + 1) }' "$REPORT"
}

# Is A >= B + M (numbers, maybe fractional)? ge A B M
# shellcheck disable=SC2317 # called through check
ge() {
	awk -v a="$1" -v b="$2" -v m="${3:-0}" 'BEGIN { exit !(a != "" && b != "" && a + 0 >= b + m) }'
}

# Run one workload under cowtop and check each child's reading before its
# first collection and after its last one. Sets AFTER_PCTS (the children's
# shared_pct after, space separated) and FALLS (before - after).
# run_gc NAME INTERPRETER SCRIPT ARGS...
run_gc() {
	local name=$1 pid b e before after n b_pct inh a_pct a_uss a_pd
	shift
	AFTER_PCTS=''
	FALLS=''
	new_report "$name"
	run_cowtop "$name" --smaps-budget 100 -- "$@" --report "$REPORT" \
		--children 3 --pre-gc-delay "$PRE_GC_DELAY" --linger "$LINGER"
	expect_eq "$name: cowtop exit status" "$RC" 0
	validate_frames
	check_no_strangers
	n=$(gc_children | wc -l)
	expect_eq "$name: children reported" "$n" 3
	for pid in $(gc_children); do
		b=$(gc_time "$pid" begin)
		e=$(gc_time "$pid" end)
		if [ -z "$b" ] || [ -z "$e" ]; then
			fail "$name child $pid: no gc line in the report"
			continue
		fi
		readings "$pid" >"$WORK/$name.$pid.tsv"
		before=$(awk -v t="$b" -v eps="$EPS" '$1 <= t - eps' "$WORK/$name.$pid.tsv" | tail -n 1)
		after=$(awk -v t="$e" -v eps="$EPS" '$1 >= t + eps' "$WORK/$name.$pid.tsv" | tail -n 1)
		if [ -z "$before" ] || [ -z "$after" ]; then
			fail "$name child $pid: needs a reading before its first collection and one after its last (found: ${before:+before }${after:+after})"
			continue
		fi
		read -r _ b_pct _ _ inh <<<"$before"
		read -r _ a_pct a_uss a_pd _ <<<"$after"
		check "$name child $pid: inherited_kib known ($inh)" ge "${inh/null/}" 1
		check "$name child $pid: shared_pct before collecting $b_pct >= $BEFORE_MIN" \
			ge "${b_pct/null/}" "$BEFORE_MIN"
		echo "$name child $pid: shared_pct $b_pct -> $a_pct, inherited $inh KiB, uss $a_uss KiB, private_dirty $a_pd KiB"
		AFTER_PCTS+="$a_pct "
		FALLS+="$(awk -v a="$b_pct" -v b="$a_pct" 'BEGIN { print a - b }') "
		check_uss "$name" "$pid" "$a_uss"
	done
}

# Compare cowtop's uss_kib after the collections with the Private_Dirty the
# child read itself right after them ("dirty" line): check_uss NAME PID USS.
# They differ by the child's Private_Clean (pages only it maps that it never
# wrote: none expected, the parent maps everything the child does), by what
# the child dirtied between its own read and cowtop's (writing the report
# line, going to sleep: a few pages), and by pages a sibling or the parent
# dropped in between (a page shared by two processes becomes private to the
# one left: the parent idles, siblings only copy pages the parent still
# maps, so none expected). Measured: cowtop's figure 8 to 148 KiB above the
# child's (Python), 56 to 84 KiB (Ruby). 1% or 512 KiB, whichever is looser,
# covers these with room and still catches a field read from the wrong line
# or in the wrong unit.
check_uss() {
	local name=$1 pid=$2 uss=$3 pd tol
	pd=$(dirty_kib "$pid" after)
	if [ -z "$pd" ] || [ "$pd" -lt 0 ]; then
		skip "$name child $pid: no Private_Dirty reported by the child"
		return
	fi
	tol=$((pd / 100))
	[ "$tol" -ge 512 ] || tol=512
	if [ "$uss" != null ] && in_range "$uss" $((pd - tol)) $((pd + tol)); then
		pass "$name child $pid: uss_kib $uss vs its own Private_Dirty $pd (within $tol)"
	else
		fail "$name child $pid: uss_kib $uss vs its own Private_Dirty $pd (more than $tol apart)"
	fi
}

# The smallest (min) or largest (max) of numbers: extreme min|max N...
extreme() {
	local op=$1
	shift
	printf '%s\n' "$@" | sort -g | if [ "$op" = min ]; then head -n 1; else tail -n 1; fi
}

# Python without and with gc.freeze().
test_python() {
	local plain_max f frozen_min
	if ! [ -x "$PYTHON" ]; then
		skip "python: no interpreter at $PYTHON"
		return
	fi
	run_gc python "$PYTHON" "$SCRIPTS/gc_fork.py"
	for f in $FALLS; do
		check "python: shared_pct falls by $f >= $PY_FALL after gc.collect()" ge "$f" "$PY_FALL"
	done
	# shellcheck disable=SC2086 # number list
	plain_max=$(extreme max $AFTER_PCTS)
	run_gc python-freeze "$PYTHON" "$SCRIPTS/gc_fork.py" --freeze
	# shellcheck disable=SC2086 # number list
	frozen_min=$(extreme min $AFTER_PCTS)
	check "python: after gc.collect(), the lowest shared_pct with gc.freeze() ($frozen_min) is >= $FREEZE_GAIN above the highest without ($plain_max)" \
		ge "$frozen_min" "$plain_max" "$FREEZE_GAIN"
}

# Ruby: GC.start marks every heap page; no other write (--writes 0).
test_ruby() {
	local f
	if ! command -v "$RUBY" >/dev/null; then
		skip "ruby: no Ruby interpreter ($RUBY)"
		return
	fi
	run_gc ruby "$RUBY" "$SCRIPTS/gc_fork.rb" --writes 0
	for f in $FALLS; do
		check "ruby: shared_pct falls by $f >= $RUBY_FALL after GC.start" ge "$f" "$RUBY_FALL"
	done
}

setup
test_python
test_ruby
finish
