#!/bin/bash
# cowtop --track-first-clone PID: only the first child PID forks once cowtop
# runs, and that child's descendants, are watched.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Start cowtop on the workload started last; release it; collect frames.
track_and_release() {
	local name=$1 main=$2
	start_cowtop "$name" --track-first-clone "$main" -b -f json -d "$INTERVAL"
	# there may be no frame before the clone: wait for one, or a while
	wait_lines "$FRAMES" 1 "$ATTACH_WAIT" || true
	kill -USR1 "$main"
	wait_workload "$main"
	sleep_intervals 3
	stop_cowtop
	validate_frames
	check_workload_self
}

# Check the only reported pids are the given ones, with their counts.
check_tracked() {
	local pid
	check_no_strangers_of "$@"
	for pid in "$@"; do
		check_pid_counts "$pid"
		check_pid_tree "$pid"
		check_pid_exited "$pid"
	done
}

# Check FRAMES holds no pid but the given ones.
check_no_strangers_of() {
	local extra
	extra=$(frame_pids | grep -vxF -f <(printf '%s\n' "$@") || true)
	expect_eq "only the first clone and its descendants" "${extra//$'\n'/ }" ""
}

# The first clone is the head of a chain; earlier and later children and
# the parent itself are not watched.
test_chain() {
	local main pid head
	new_report chain
	start_workload chain --check --early-writes 500 \
		--chain-writes 400,600,300 --child-writes 1000 \
		--parent-writes 200 --linger 1
	main=$LOAD_PID
	track_and_release chain "$main"
	# shellcheck disable=SC2046 # pid lists
	check_tracked $(report_pids chain)
	head=$(awk -v m="$main" '$1 == "child" && $4 == m && $8 == "chain" { print $2 }' "$REPORT")
	expect_eq "first clone's ppid" "$(proc_field "$head" ppid)" "$main"
	expect_absent "$main" "the parent"
	for pid in $(report_pids early) $(report_pids child); do
		expect_absent "$pid" "role $(report_roles "$pid")"
	done
}

# The first clone writes and exits within milliseconds.
test_short() {
	local main first pid
	new_report short
	start_workload short --check --short 5 --short-writes 200 \
		--parent-writes 300
	main=$LOAD_PID
	track_and_release short "$main"
	first=$(report_pids short | head -n 1)
	check_tracked "$first"
	for pid in $(report_pids short | tail -n +2) $(report_pids holder); do
		expect_absent "$pid" "later child"
	done
}

setup
test_chain
test_short
finish
