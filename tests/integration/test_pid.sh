#!/bin/bash
# cowtop -p PID: an existing tree (children that exist before cowtop starts
# included) and every descendant forked later are counted from then on.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PAGES=20000

# Wait up to 5 s for a frame listing all the given pids.
# shellcheck disable=SC2317 # called through check
wait_listed() {
	local tries=100 pids
	pids=$(printf '%s,' "$@")
	while ((tries-- > 0)); do
		if tail -n 1 "$FRAMES" 2>/dev/null | jq -e --arg p "${pids%,}" '
			($p | split(",") | map(tonumber)) - [.processes[].pid]
			| length == 0' >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# Two watched trees started with --wait-signal, and one that is not watched.
test_pid() {
	local main1 main2 stranger pid early
	new_report pid
	start_workload tree --check --pages "$PAGES" \
		--early-writes 800,1600 --child-writes 1200 \
		--chain-writes 300,600 --parent-writes 500 --race 1000 \
		--zero 400 --kread 700 --short 10 --short-writes 50 \
		--rounds 2 --round-ms 200 --linger 1
	main1=$LOAD_PID
	start_workload other --check --child-writes 900 --linger 1
	main2=$LOAD_PID
	REPORT=$WORK/stranger.report start_workload stranger --child-writes 100
	stranger=$LOAD_PID
	early=$(report_pids early)

	start_cowtop pid -b -f json -d "$INTERVAL" -p "$main1" -p "$main2"
	if ! wait_lines "$FRAMES" 1 15; then
		fail "cowtop -p printed no frame within 15s"
		stop_cowtop
		return
	fi
	# shellcheck disable=SC2086 # pid lists
	check "existing processes listed before they write" \
		wait_listed "$main1" "$main2" $early

	kill -USR1 "$main1" "$main2" "$stranger"
	wait_workload "$main1"
	wait_workload "$main2"
	wait_workload "$stranger"
	sleep_intervals 3
	stop_cowtop

	validate_frames
	check_workload_self
	expect_eq "root depth" "$(proc_field "$main1" depth)" 0
	expect_eq "second root depth" "$(proc_field "$main2" depth)" 0
	check_tree exited
	check_no_strangers
	for pid in $early; do
		expect_range "$pid" "$(report_sum "$pid" wrote)" \
			$(($(report_sum "$pid" wrote) + SLACK)) cow_pages \
			"child that existed before cowtop"
	done
	pid=$(proc_field "$main1" max_rss_kib)
	check "rss_kib of the root covers its pre-touched pages (${pid:-none} KiB)" \
		in_range "${pid:-0}" $((PAGES * 4)) $((PAGES * 4 * 4))
}

setup
test_pid
finish
