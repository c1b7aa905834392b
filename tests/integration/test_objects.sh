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
# truth.
#   early  the master launched by cowtop (--) forks EARLY_CHILDREN iter
#          children as soon as it has built its objects, long before
#          cowtop's first frame (-d EARLY_INTERVAL; the master says how big
#          the frames file was when it forked): the runtime must be known
#          by then (found at the exec), so every copy of every child is
#          read: each child's (str, refcount) pages near the truth, and its
#          sampled pages its copies;
#   attach the same with cowtop attached (-p) to the master before it is
#          released (the runtime known before cowtop's programs run);
#   prefork the same with the children forked before cowtop is attached,
#          each waiting to be released (their runtime known before they are
#          watched).
# Each run samples at the rate it asks for (--sample-budget 0: the
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
readonly LOW_PCT=90 FREEZE_LEFT_PCT=15 SHARE_PCT=60 EARLY_INTERVAL=3 EARLY_CHILDREN=3
OBJ_LOAD=("$PYTHON" "$OBJFORK")
OBJ_READY_WAIT=30

setup
[ -x "$PYTHON" ] || { echo "SKIP: no python at $PYTHON"; exit 77; }
command -v curl >/dev/null || die "curl is required (Debian package curl, see scripts/deps.sh)"

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

# The children's pids (report lines "child PID mode MODE").
children() {
	awk '$1 == "child" { print $2 }' "$REPORT"
}

# Wait up to S seconds for N lines starting with WORD: wait_count WORD N S.
wait_count() {
	local tries=$(($3 * 20))
	until [ "$(awk -v w="$1" '$1 == w' "$REPORT" | wc -l)" -ge "$2" ]; do
		[ "$tries" -gt 0 ] || return 1
		tries=$((tries - 1))
		sleep 0.05
	done
}

# The child's last appearance, with or without cow_objects.
readonly CHILD_ROW='reduce inputs.processes[] as $p (null; if $p.pid == $child then $p else . end)'

# Wait for the children to finish and be shown exited; sets CHILDREN:
# children_shown NAME.
children_shown() {
	local tries=400 c
	wait_count done "$EARLY_CHILDREN" 60 || die "$1: the children did not finish"
	CHILDREN=$(children)
	for c in $CHILDREN; do
		wait_shown_exited "$c" "$CHILD_ROW" tries
	done
}

# Launch objfork.py --early under cowtop (--), its children in mode iter:
# run_early NAME. Leaves CHILDREN set.
run_early() {
	local name=$1 tries=200
	new_report "$name"
	start_cowtop "$name" -b -f json -d "$EARLY_INTERVAL" --objects --objects-sample 1 \
		--sample-budget 0 -- "$PYTHON" "$OBJFORK" --mode iter --early \
		--children "$EARLY_CHILDREN" --frames "$WORK/$name.json" \
		--stop "$WORK/$name.stop" --report "$REPORT"
	children_shown "$name"
	touch "$WORK/$name.stop"
	# The command ends, then cowtop with it (its status is the command's).
	while kill -0 "$COWTOP_PID" 2>/dev/null && [ "$tries" -gt 0 ]; do
		tries=$((tries - 1))
		sleep 0.05
	done
	[ "$tries" -gt 0 ] || stop_cowtop
	RC=0
	reap "$COWTOP_PID" || RC=$?
	expect_eq "$name: cowtop's status is the command's" "$RC" 0
}

# Whether cowtop answers HTTP on PORT (any status: before its first frame
# too); its loop answers only once its start-up is over: answers PORT.
answers() {
	local code
	code=$(curl -s --max-time 1 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/metrics") || true
	[ "${code:-000}" != 000 ]
}

# Attach cowtop (-p) to objfork.py, wait until its start-up is over (its
# exporter answers), release the master (its children in mode iter, forked
# then, or before with --prefork and waiting): run_attach NAME ARGS...
run_attach() {
	local name=$1 load port tries=200
	shift
	new_report "$name"
	"$PYTHON" "$OBJFORK" --mode iter --children "$EARLY_CHILDREN" --go "$WORK/$name.go" \
		--frames "$WORK/$name.json" --stop "$WORK/$name.stop" --report "$REPORT" "$@" \
		2>"$WORK/$name.load.err" &
	load=$!
	BG_PIDS+=("$load")
	wait_word "$REPORT" ready 30 || die "$name: workload not ready"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	start_cowtop "$name" -b -f json -d "$EARLY_INTERVAL" --exporter --listen "127.0.0.1:$port" \
		--objects --objects-sample 1 --sample-budget 0 -p "$load"
	until answers "$port"; do
		[ "$tries" -gt 0 ] || die "$name: cowtop does not answer on port $port"
		tries=$((tries - 1))
		sleep 0.05
	done
	touch "$WORK/$name.go"
	children_shown "$name"
	touch "$WORK/$name.stop"
	reap "$load" || fail "$name: workload exit status"
	stop_cowtop
}

# The children's copies all read, near the truth: early_checks NAME.
early_checks() {
	local truth before cow
	truth=$(rfield pages 4)
	before=$(rfield fork 4)
	if [ "$before" = 0 ]; then
		pass "$1: the children wrote before cowtop's first frame"
	else
		# Not a failure of cowtop: this run did not test what it is for.
		echo "note: $1: the children wrote after cowtop's first frame ($before bytes)"
	fi
	for CHILD in $CHILDREN; do
		check "$1: child $CHILD's runtime detected" jq_true \
			"$CHILD_OBJ"' | .cow_objects.runtime == "cpython-3.11"' --argjson child "$CHILD"
		near "$1: child $CHILD's (str, refcount) pages" "$(obj_pages str refcount)" "$truth"
		cow=$(jq -n -r --argjson child "$CHILD" "$CHILD_ROW"' | .cow_pages' "$FRAMES")
		check "$1: child $CHILD's sampled pages $(by_write all) are its copies $cow" \
			in_range "$(by_write all)" $((cow - SLACK)) "$cow"
	done
}

run_early early
early_checks early
run_attach attach
early_checks attach
run_attach prefork --prefork
early_checks prefork

run_mode off -- --mode iter
check "off: no objects status, no cow_objects" \
	jq_true '[inputs] | length > 0 and all(has("objects") | not)
		and ([.[].processes[]] | all(has("cow_objects") | not))'

finish
