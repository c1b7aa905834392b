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
# Environment (besides lib.sh's): COWTOP_TEST_PYTHON (default
# /usr/bin/python3.11).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PYTHON=${COWTOP_TEST_PYTHON:-/usr/bin/python3.11}
OBJFORK=$(dirname "$0")/../workloads/objfork.py
readonly LOW_PCT=90 FREEZE_LEFT_PCT=15 SHARE_PCT=60 EARLY_INTERVAL=3 EARLY_CHILDREN=3

setup
[ -x "$PYTHON" ] || { echo "SKIP: no python at $PYTHON"; exit 77; }
command -v curl >/dev/null || die "curl is required (Debian package curl, see scripts/deps.sh)"

# Wait up to S seconds for a line starting with WORD in FILE: wait_word FILE WORD S.
wait_word() {
	local tries=$(($3 * 20))
	until grep -q "^$2 " "$1" 2>/dev/null; do
		[ "$tries" -gt 0 ] || return 1
		tries=$((tries - 1))
		sleep 0.05
	done
}

# Field N of the report's line starting with WORD: rfield WORD N.
rfield() {
	awk -v w="$1" -v n="$2" '$1 == w { print $n; exit }' "$REPORT"
}

# The child's cow_objects in its last appearance (null until shown).
readonly CHILD_OBJ='reduce inputs.processes[] as $p (null;
	if $p.pid == $child and $p.cow_objects != null then $p else . end)'

# Run one fork of objfork.py under cowtop: run_mode NAME COWTOP_ARGS -- WORKLOAD_ARGS.
run_mode() {
	local name=$1 load tries=400 cargs=()
	shift
	while [ "$1" != "--" ]; do
		cargs+=("$1")
		shift
	done
	shift
	new_report "$name"
	"$PYTHON" "$OBJFORK" --go "$WORK/$name.go" --stop "$WORK/$name.stop" \
		--report "$REPORT" "$@" 2>"$WORK/$name.load.err" &
	load=$!
	BG_PIDS+=("$load")
	wait_word "$REPORT" ready 30 || die "$name: workload not ready"
	start_cowtop "$name" -b -f json -d "$INTERVAL" "${cargs[@]}" -p "$load"
	wait_lines "$FRAMES" 1 30 || die "$name: cowtop showed no frame"
	touch "$WORK/$name.go"
	wait_word "$REPORT" done 60 || die "$name: the child did not finish"
	CHILD=$(rfield child 2)
	# Until the child's counts are shown after its exit (bounded).
	until jq -n -e --argjson child "$CHILD" "$CHILD_OBJ"' | .state == "exited"' \
		"$FRAMES" >/dev/null 2>&1; do
		[ "$tries" -gt 0 ] || break
		tries=$((tries - 1))
		sleep 0.05
	done
	touch "$WORK/$name.stop"
	reap "$load" || fail "$name: workload exit status"
	stop_cowtop
}

# Pages of the child's row (TYPE, WRITE): obj_pages TYPE WRITE.
obj_pages() {
	jq -n -r --argjson child "$CHILD" --arg t "$1" --arg w "$2" "$CHILD_OBJ"'
		| [(.cow_objects.top // [])[] | select(.type == $t and .write == $w) | .pages]
		| add // 0' "$FRAMES"
}

# The child's pages of write kind WRITE, and over all kinds: by_write WRITE|all.
by_write() {
	jq -n -r --argjson child "$CHILD" --arg w "$1" "$CHILD_OBJ"'
		| if $w == "all" then .cow_objects.pages // 0
		  else .cow_objects.by_write[$w] // 0 end' "$FRAMES"
}

# Check VALUE within [LOW_PCT% of TRUTH, TRUTH + SLACK]: near DESC VALUE TRUTH.
near() {
	check "$1: $2 in [${LOW_PCT}% of $3, $3 + $SLACK]" \
		in_range "$2" $(($3 * LOW_PCT / 100)) $(($3 + SLACK))
}

# Check PART is at least SHARE_PCT% of WHOLE: share DESC PART WHOLE.
share() {
	check "$1: $2 of $3 sampled pages (>= ${SHARE_PCT}%)" \
		test "$(($2 * 100))" -ge "$(($3 * SHARE_PCT))"
}

run_mode iter --objects --objects-sample 1 --sample-budget 0 -- --mode iter
truth=$(rfield pages 4)
check "iter: runtime detected" jq_true \
	"$CHILD_OBJ"' | .cow_objects.runtime == "cpython-3.11"' --argjson child "$CHILD"
check "iter: status says 1 in 1" jq_true '[inputs] | last | .objects.sample == 1'
near "iter: (str, refcount) pages" "$(obj_pages str refcount)" "$truth"
share "iter: refcount writes" "$(by_write refcount)" "$(by_write all)"
cow=$(jq -n -r --argjson child "$CHILD" "$CHILD_OBJ"' | .cow_pages' "$FRAMES")
check "iter: sampled pages $(by_write all) are the child's copies $cow (1 in 1)" \
	in_range "$(by_write all)" $((cow - SLACK)) "$cow"

run_mode gc --objects --objects-sample 1 --sample-budget 0 -- --mode gc
truth=$(rfield pages 6)
gc_plain=$(by_write gc_header)
near "gc: (Item, gc_header) pages" "$(obj_pages Item gc_header)" "$truth"
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
		until jq -n -e --argjson child "$c" "$CHILD_ROW"' | .state == "exited"' \
			"$FRAMES" >/dev/null 2>&1; do
			[ "$tries" -gt 0 ] || break
			tries=$((tries - 1))
			sleep 0.05
		done
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
