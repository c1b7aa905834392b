#!/bin/bash
# cowtop -p attached to a parent that forks short-lived children without
# pause (a server's master under connection churn): no child forked once
# cowtop's fork program runs, and none alive once cowtop has printed its
# first frame, may be missing from its output.
#
# Oracle: the workload's own report. Each child appends "born PID" first and
# "exit PID" last. The test appends "following" to the same file once
# cowtop holds its sched_process_fork link (/proc/PID/fdinfo says so), and
# "attached" once cowtop has printed its first frame. The file's order is
# the order of events: every child born after "following" was forked while
# the fork program ran, and every child that exited after "attached" was
# alive after the attach; each must be in cowtop's frames, as a child of
# the parent, and no frame may show a process twice. Children forked before
# the fork program ran that exited before the first frame are not expected
# (nothing saw them). The run repeats a few attaches, each to a new parent.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

FORKLOAD=${FORKLOAD:-./tests/workloads/forkload}
RUNS=${COWTOP_TEST_ATTACH_RUNS:-5}
CHILDREN_AFTER=150 # children to see born after the attach, per run

# Wait up to S seconds for N "born" lines after the "attached" line of the
# report: wait_born N S.
# shellcheck disable=SC2317 # called through check
wait_born() {
	local tries
	tries=$(awk -v s="$2" 'BEGIN { print int(s * 20) }')
	while [ "$(awk '$1 == "attached" { a = 1 } a && $1 == "born" { n++ } END { print n + 0 }' \
		"$REPORT")" -lt "$1" ]; do
		[ "$tries" -gt 0 ] || return 1
		tries=$((tries - 1))
		sleep 0.05
	done
}

# The children the report says were alive after the attach, one a line.
alive_after_attach() {
	awk '$1 == "attached" { a = 1 } a && $1 == "exit" { print $2 }' "$REPORT" | sort -u
}

# The children the report says were forked once the fork program ran.
born_following() {
	awk '$1 == "following" { a = 1 } a && $1 == "born" { print $2 }' "$REPORT" | sort -u
}

# Whether process $1 holds a BPF link to sched_process_fork.
# shellcheck disable=SC2317 # called through check
holds_fork_link() {
	grep -qs '^tp_name:[[:space:]]*sched_process_fork$' /proc/"$1"/fdinfo/*
}

# Wait up to S seconds for cowtop to hold its fork link: wait_fork_link S.
wait_fork_link() {
	local tries
	tries=$(awk -v s="$1" 'BEGIN { print int(s * 1000) }')
	while ! holds_fork_link "$COWTOP_PID"; do
		[ "$tries" -gt 0 ] || return 1
		tries=$((tries - 1))
		sleep 0.001
	done
}

# Check that every pid of list $2 is in list $3, or counted lost: when the
# machine starves cowtop's reader (tens of thousands of processes to scan
# at attach, a load in the hundreds), ring-buffer records are lost and said
# to be in "lost"; a child missing is then one of those, never silent.
# expect_shown DESC WANT SHOWN.
expect_shown() {
	local missing n lost
	missing=$(comm -23 <(echo "$2") <(echo "$3") | tr '\n' ' ')
	n=$(echo "$missing" | wc -w)
	lost=$(jq -n '[inputs.lost] | max // 0' "$FRAMES")
	if [ -z "$2" ]; then
		fail "$1: the report names none"
	elif [ -z "$missing" ]; then
		pass "$1: all $(echo "$2" | wc -l) shown"
	elif [ "$n" -le "$lost" ]; then
		pass "$1: $n of $(echo "$2" | wc -l) not shown, all counted lost ($lost records lost)"
	else
		fail "$1: $n of $(echo "$2" | wc -l) never shown and only $lost lost: $missing"
	fi
}

# The pids shown as children of $1 in any frame, one a line.
shown_children() {
	jq -r --argjson root "$1" '.processes[] | select(.ppid == $root) | .pid' "$FRAMES" | sort -u
}

# One attach to a new forking parent: attach_once RUN.
attach_once() {
	local run=$1 load out shown dup
	new_report "attach$run"
	out=$WORK/forkload$run.out
	"$FORKLOAD" --report "$REPORT" --life 20 --max 8 >"$out" 2>"$WORK/forkload$run.err" &
	load=$!
	BG_PIDS+=("$load")
	wait_lines "$out" 1 10 || die "forkload printed no ready line"
	# the parent is forking before cowtop starts
	wait_lines "$REPORT" 20 10 || die "forkload forked no children"

	start_cowtop "attach$run" -b -f json -d "$INTERVAL" -p "$load"
	if wait_fork_link 15; then
		echo following >>"$REPORT"
	else
		fail "run $run: cowtop holds no fork link within 15s"
	fi
	# bounded, not timed: attaching reads every process of the machine once
	if ! wait_lines "$FRAMES" 1 60; then
		fail "run $run: cowtop -p printed no frame within 60s"
		stop_cowtop
		kill -TERM "$load"
		reap "$load" || true
		return
	fi
	echo attached >>"$REPORT"
	check "run $run: $CHILDREN_AFTER children born after the first frame" wait_born "$CHILDREN_AFTER" 60
	kill -TERM "$load"
	wait_workload "$load"
	grep -q '^done ' "$REPORT" || fail "run $run: forkload wrote no done line"
	# its last exits reach a frame; then the parent's own exit
	wait_lines "$FRAMES" "$(($(count_lines "$FRAMES") + 3))" 15 || true
	stop_cowtop
	ALLOW_LOST=1 validate_frames

	shown=$(shown_children "$load")
	expect_shown "run $run: children forked once the fork program ran" "$(born_following)" "$shown"
	expect_shown "run $run: children alive after the first frame" "$(alive_after_attach)" "$shown"
	dup=$(jq -r '[.processes[] | [.pid, .start_time]] | group_by(.) | map(select(length > 1))
		| .[] | .[0][0]' "$FRAMES" | sort -un | tr '\n' ' ')
	expect_eq "run $run: no process shown twice in a frame" "$dup" ""
}

setup
[ -x "$FORKLOAD" ] || die "workload not found at '$FORKLOAD' (set FORKLOAD)"
for ((r = 1; r <= RUNS; r++)); do
	attach_once "$r"
done
finish
