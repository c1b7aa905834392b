#!/bin/bash
# A full process map (made small with COWTOP_PROCS_MAX) never loses a
# process silently: each one it cannot hold, found in /proc or forked, is
# listed and counted once in "lost_processes" (and "lost"), whatever it
# copies; the ones it holds are counted exactly.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The last frame's value of a top-level field.
last_field() {
	tail -n 1 "$FRAMES" | jq -r ".$1"
}

# -p a tree of 9 with room for 4: the root and 3 of the 5 children that
# exist before cowtop starts are held; the 2 others, found in /proc, and
# the 3 children forked later are refused. All 9 live until every one has
# been forked, so no room comes free in between.
test_tree() {
	local main pid held=0 zero=0 w listed=0
	new_report tree
	start_workload tree --check --pages 4000 --early-writes 300,310,320,330,340 \
		--child-writes 400,410,420 --linger 0.5
	main=$LOAD_PID
	COWTOP_PROCS_MAX=4 start_cowtop tree -b -f json -d "$INTERVAL" -p "$main"
	release_shown "tree: cowtop" "$main" || return 0

	check_workload_self
	expect_eq "processes refused, in lost_processes" "$(last_field lost_processes)" 5
	expect_eq "and in lost" "$(last_field lost)" 5
	for pid in $(report_pids); do
		[ -z "$(proc_field "$pid" cow)" ] || listed=$((listed + 1))
		[ "$(report_roles "$pid")" != main ] || continue
		w=$(report_sum "$pid" wrote)
		if in_range "$(proc_field "$pid" cow)" "$w" $((w + $(slack_for "$pid"))); then
			held=$((held + 1))
		elif [ "$(proc_field "$pid" cow)" = 0 ]; then
			zero=$((zero + 1))
		fi
	done
	expect_eq "every process of the tree listed" "$listed" 9
	expect_eq "children counted exactly (held)" "$held" 3
	expect_eq "children not counted at all (refused)" "$zero" 5
	for pid in $(report_pids); do
		check_pid_exited "$pid"
	done
}

# Processes on the machine now.
nprocs() {
	local pids=(/proc/[0-9]*)
	echo "${#pids[@]}"
}

# Processes the machine started since boot (/proc/stat).
forks() {
	awk '$1 == "processes" { print $2 }' /proc/stat
}

# Every process with room for one: a refused process that copies 20000
# pages is counted once, not once a copy. At most every process that
# existed or was forked during the run can be refused.
test_all() {
	local f0 n0 most main child got
	new_report all
	start_workload all --pages 20000 --child-writes 20000 --linger 0.5
	main=$LOAD_PID
	f0=$(forks)
	n0=$(nprocs)
	COWTOP_PROCS_MAX=1 start_cowtop all -b -f json -d "$INTERVAL"
	release_shown "all: cowtop" "$main" || return 0
	most=$((n0 + $(forks) - f0))
	got=$(last_field lost_processes)
	check "all: $got refused, at most the $most processes there were" \
		in_range "$got" 1 "$most"
	child=$(report_pids child)
	expect_eq "all: the refused child is listed" "$(proc_field "$child" cow)" 0
	expect_eq "all: lost is lost_processes" "$(last_field lost)" "$got"
}

setup
test_tree
test_all
finish
