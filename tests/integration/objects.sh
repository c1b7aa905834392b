# shellcheck shell=bash
# Helpers of the --objects tests (test_objects.sh on CPython, and
# test_objects_ruby.sh on Ruby); source it after lib.sh. The test sets
# OBJ_LOAD, the command that starts its objfork workload, and OBJ_READY_WAIT,
# the seconds that workload may take to report "ready".
#
# An objfork workload takes --go FILE, --stop FILE and --report FILE: it
# reports "ready", forks its child once FILE --go exists, reports "child PID"
# and "done" when the child has finished, and exits once FILE --stop exists.

OBJ_LOAD=()
OBJ_READY_WAIT=30
CHILD=

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

# Wait until FILTER's row of pid CHILD is shown exited, at most the 0.05 s
# steps left in the variable named TRIES (its counting goes on across
# calls): wait_shown_exited CHILD FILTER TRIES.
wait_shown_exited() {
	local -n left=$3
	until jq -n -e --argjson child "$1" "$2"' | .state == "exited"' \
		"$FRAMES" >/dev/null 2>&1; do
		[ "$left" -gt 0 ] || return 0
		left=$((left - 1))
		sleep 0.05
	done
}

# Run one fork of the workload under cowtop -p, and set CHILD:
# run_mode NAME COWTOP_ARGS... -- WORKLOAD_ARGS...
run_mode() {
	local name=$1 load tries=400 cargs=()
	shift
	while [ "$1" != "--" ]; do
		cargs+=("$1")
		shift
	done
	shift
	new_report "$name"
	"${OBJ_LOAD[@]}" --go "$WORK/$name.go" --stop "$WORK/$name.stop" \
		--report "$REPORT" "$@" 2>"$WORK/$name.load.err" &
	load=$!
	BG_PIDS+=("$load")
	wait_word "$REPORT" ready "$OBJ_READY_WAIT" || die "$name: workload not ready"
	start_cowtop "$name" -b -f json -d "$INTERVAL" "${cargs[@]}" -p "$load"
	wait_lines "$FRAMES" 1 30 || die "$name: cowtop showed no frame"
	touch "$WORK/$name.go"
	wait_word "$REPORT" "done" 60 || die "$name: the child did not finish"
	CHILD=$(rfield child 2)
	wait_shown_exited "$CHILD" "$CHILD_OBJ" tries
	touch "$WORK/$name.stop"
	reap "$load" || fail "$name: workload exit status"
	stop_cowtop
}

# Pages of the child's rows of TYPE and write kinds WRITE...: obj_pages TYPE WRITE...
obj_pages() {
	local t=$1
	shift
	jq -n -r --argjson child "$CHILD" --arg t "$t" --arg w "$*" "$CHILD_OBJ"'
		| [(.cow_objects.top // [])[]
		   | select(.type == $t and (.write as $x | $w | split(" ") | index($x)))
		   | .pages] | add // 0' "$FRAMES"
}

# The child's pages of write kind WRITE, and over all kinds: by_write WRITE|all.
by_write() {
	jq -n -r --argjson child "$CHILD" --arg w "$1" "$CHILD_OBJ"'
		| if $w == "all" then .cow_objects.pages // 0
		  else .cow_objects.by_write[$w] // 0 end' "$FRAMES"
}

# Check VALUE within [LOW_PCT% of TRUTH, TRUTH + SLACK_]: near DESC VALUE TRUTH [SLACK_].
near() {
	local slack=${4:-$SLACK}
	check "$1: $2 in [${LOW_PCT}% of $3, $3 + $slack]" \
		in_range "$2" $(($3 * LOW_PCT / 100)) $(($3 + slack))
}

# Check PART is at least SHARE_PCT% of WHOLE: share DESC PART WHOLE.
share() {
	check "$1: $2 of $3 sampled pages (>= ${SHARE_PCT}%)" \
		test "$(($2 * 100))" -ge "$(($3 * SHARE_PCT))"
}

# Check the child's runtime was detected as RUNTIME: check_runtime NAME RUNTIME.
check_runtime() {
	check "$1: runtime detected" jq_true "$CHILD_OBJ"' | .cow_objects.runtime == $rt' \
		--argjson child "$CHILD" --arg rt "$2"
}

# Check that, reading 1 copy in 1, the child's sampled pages are its copies
# (SLACK pages aside): check_all_sampled NAME.
check_all_sampled() {
	local cow
	cow=$(jq -n -r --argjson child "$CHILD" "$CHILD_OBJ"' | .cow_pages' "$FRAMES")
	check "$1: sampled pages $(by_write all) are the child's copies $cow (1 in 1)" \
		in_range "$(by_write all)" $((cow - SLACK)) "$cow"
}
