#!/bin/bash
# Pids far above 32768 (kernel.pid_max raised, as systemd does on 64-bit
# machines): a tree whose every pid is above 4,000,000 is watched and its
# copies counted exactly, with -p and watching everything. pid_max and the
# next pid are put back however the test ends.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PID_MAX=/proc/sys/kernel/pid_max
LAST_PID=/proc/sys/kernel/ns_last_pid
HIGH=4000000 # pids from here: near the end of the largest pid_max (4194304)
PID_MAX_WAS=

# Put kernel.pid_max back, then the usual clean-up.
restore() {
	[ -z "$PID_MAX_WAS" ] || echo "$PID_MAX_WAS" >"$PID_MAX" 2>/dev/null || true
	cleanup
}

# Raise pid_max and make the next pids start above $HIGH.
go_high() {
	[ -n "$PID_MAX_WAS" ] || PID_MAX_WAS=$(cat "$PID_MAX")
	echo 4194304 >"$PID_MAX" || die "cannot raise kernel.pid_max"
	echo "$HIGH" >"$LAST_PID" || die "cannot write kernel.ns_last_pid"
}

# A tree of every kind of child, above $HIGH, watched with -p (run_high
# pid) or with everything (run_high all): counts against the tree's report.
run_high() {
	local name=$1 main pid
	local -a how=()
	new_report "$name"
	go_high
	start_workload "$name" --check --pages 8000 --child-writes 700,1300 \
		--chain-writes 300,500 --parent-writes 400 --race 600 --short 5 \
		--short-writes 40 --linger 1
	main=$LOAD_PID
	if [ "$main" -le "$HIGH" ]; then
		fail "$name: the workload got pid $main, not one above $HIGH"
		kill -KILL "$main" 2>/dev/null || true
		return
	fi
	[ "$name" = all ] || how=(-p "$main")
	start_cowtop "$name" -b -f json -d "$INTERVAL" "${how[@]}"
	release_shown "$name: cowtop" "$main" || return 0

	check_workload_self
	for pid in $(report_pids); do
		check "$name: pid $pid is above $HIGH" test "$pid" -gt "$HIGH"
	done
	check "$name: no process lost" jq_true '[inputs | .lost, .lost_processes] | all(. == 0)'
	check_tree exited
	[ "$name" = all ] || check_no_strangers
}

setup
trap restore EXIT
trap 'exit 130' INT TERM HUP
[ -w "$LAST_PID" ] || {
	skip "no writable $LAST_PID (a kernel without checkpoint/restore)"
	finish
}
run_high pid
run_high all
finish
