#!/bin/bash
# cowtop --cgroup PATH: every process of a cgroup subtree, decided in the
# kernel: one already there at start is found, one moved in later is
# picked up, its forks are counted from their first instruction (exact
# counts, as for -p), one moved out is dropped ("left"), a process outside
# never shows. Both a cgroup v2 path (relative to the unified mount) and a
# v1 controller's path (memory/...). Then the errors: a missing cgroup, and
# --unit on a machine without systemd (or a unit that is not running).
# shellcheck disable=SC2317 # functions called through check, expect and trap
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

V2_ROOT=/sys/fs/cgroup/unified
V1_ROOT=/sys/fs/cgroup/memory
[ -e /sys/fs/cgroup/cgroup.subtree_control ] && V2_ROOT=/sys/fs/cgroup
NAME=cowtop-cg-$$
CGS=()

# Record a skipped check.
skip() {
	echo "skip: $*"
}

# Remove the test's cgroups once their processes are gone.
cg_cleanup() {
	local cg i pid
	for cg in "${CGS[@]}"; do
		[ -d "$cg" ] || continue
		# shellcheck disable=SC2013 # one pid a line
		for pid in $(cat "$cg/cgroup.procs" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null || true
		done
		for ((i = 0; i < 50; i++)); do
			rmdir "$cg" 2>/dev/null && break
			sleep 0.1
		done
	done
}

# Make a cgroup under root: cg_make ROOT; prints its path.
cg_make() {
	[ -w "$1/cgroup.procs" ] && mkdir "$1/$NAME" 2>/dev/null || return 1
	echo "$1/$NAME"
}

# Start a background sleep; sets SLEEPER.
sleeper() {
	sleep 300 &
	SLEEPER=$!
	BG_PIDS+=("$SLEEPER")
}

# Kill and reap background sleeps quietly: stop_sleepers PID...
stop_sleepers() {
	local pid
	for pid in "$@"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}

# Poll the newest frame for a pid's state, up to 30 s (a loaded machine may
# take several refreshes to show a move): state_is PID STATE.
# shellcheck disable=SC2317 # called through check
state_is() {
	local i
	for ((i = 0; i < 600; i++)); do
		if tail -n 1 "$FRAMES" 2>/dev/null |
			jq -e --argjson p "$1" --arg s "$2" 'any(.processes[]; .pid == $p and .state == $s)' \
				>/dev/null 2>&1; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# The state of pid in the frame where it appears last, and whether it shows
# again after having left: left_then_gone PID.
left_then_gone() {
	local last
	last=$(jq -r -n --argjson p "$1" '[inputs | [.processes[] | select(.pid == $p) | .state]] |
		(map(length > 0) | rindex(true)) as $i | if $i == null then "never" else "\($i)" end' "$FRAMES")
	[ "$last" != never ] &&
		[ "$(sed -n "$((last + 1))p" "$FRAMES" | jq -r --argjson p "$1" '.processes[] | select(.pid == $p) | .state')" = left ]
}

# The subtree of a v2 cgroup: present, moved in, forks counted, moved out.
test_v2() {
	local cg pre mover stranger main pid
	if ! cg=$(cg_make "$V2_ROOT"); then
		skip "no writable cgroup v2 hierarchy at $V2_ROOT"
		return
	fi
	CGS+=("$cg")
	sleeper
	pre=$SLEEPER
	echo "$pre" >"$cg/cgroup.procs"
	sleeper
	mover=$SLEEPER
	sleeper
	stranger=$SLEEPER
	new_report v2
	start_workload v2 --check --child-writes 1000,2000 --chain-writes 300 --linger 1
	main=$LOAD_PID

	start_cowtop v2 -b -f json -d "$INTERVAL" --cgroup "$NAME"
	wait_lines "$FRAMES" 1 15 || fail "v2: no frame within 15s"
	check "v2: a process already in the cgroup is found" state_is "$pre" S
	echo "$mover" >"$cg/cgroup.procs"
	check "v2: a process moved in is picked up" state_is "$mover" S
	echo "$main" >"$cg/cgroup.procs"
	check "v2: the workload moved in is picked up" state_is "$main" S
	kill -USR1 "$main"
	wait_workload "$main"
	echo "$pre" >"$V2_ROOT/cgroup.procs"
	check "v2: a process moved out is shown as left" state_is "$pre" left
	sleep_intervals 3
	stop_cowtop

	validate_frames
	check_workload_self
	for pid in $(report_pids); do
		check_pid_counts "$pid"
	done
	check "v2: the one moved out is never shown again" left_then_gone "$pre"
	# shellcheck disable=SC2016 # jq variables
	check "v2: the workload's group has its cgroup's memory pressure" jq_true \
		'[inputs.groups[] | select(.root == $m) | .cgroup_psi_memory.some_avg10] | any(type == "number")' \
		--argjson m "$main"
	expect_eq "v2: a process outside never shows" "$(proc_field "$stranger" state)" ""
	stop_sleepers "$pre" "$mover" "$stranger"
}

# A v1 controller's cgroup: moved in, moved out.
test_v1() {
	local cg pid
	if ! cg=$(cg_make "$V1_ROOT"); then
		skip "no writable cgroup v1 memory hierarchy"
		return
	fi
	CGS+=("$cg")
	sleeper
	pid=$SLEEPER
	start_cowtop v1 -b -f json -d "$INTERVAL" --cgroup "memory/$NAME"
	wait_lines "$FRAMES" 1 15 || fail "v1: no frame within 15s"
	echo "$pid" >"$cg/cgroup.procs"
	check "v1: a process moved in is picked up" state_is "$pid" S
	echo "$pid" >"$V1_ROOT/cgroup.procs"
	check "v1: a process moved out is shown as left" state_is "$pid" left
	stop_cowtop
	stop_sleepers "$pid"
}

# A cowtop run that must fail: expect_refusal NAME TEXT ARGS...
expect_refusal() {
	local name=$1 text=$2 rc=0
	shift 2
	timeout -k 5 20 "$COWTOP" -b -n 1 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?
	expect_eq "$name: exit status" "$rc" 1
	check "$name: says why in one line" \
		test "$(wc -l <"$WORK/$name.err")" -eq 1 -a "$(grep -c -- "$text" "$WORK/$name.err")" -eq 1
}

test_errors() {
	expect_refusal missing "no such cgroup" --cgroup "$NAME-missing"
	if [ -d /run/systemd/system ]; then
		expect_refusal unit "not running" --unit "cowtop-test-$$.service"
	else
		expect_refusal unit "does not run systemd" --unit "cowtop-test-$$.service"
	fi
}

setup
trap 'cleanup; cg_cleanup' EXIT
test_v2
test_v1
test_errors
finish
