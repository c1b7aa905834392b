#!/bin/bash
# The sharing figures against independent truth: a parent dirties PAGES
# pages and forks children that each write their own number of them, then
# idle. While they idle, the kernel's page tables (/proc/PID/pagemap: pages
# present and pages mapped by this process alone) and a direct read of
# /proc/PID/smaps_rollup are taken; cowtop's shared_pct, uss_kib, smaps
# fields, inherited_kib and group figures must agree with them. The parent
# runs in a memory cgroup of its own with a known limit, for the headroom.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TRUTH=$(dirname "$0")/pagemap-truth.py
PAGES=25600
CG=
CG_LIMIT_KIB=$((3 * 1024 * 1024))

# The workload's memory cgroup, with a limit: sets CG.
cg_setup() {
	memcg_make cowtop-test $((CG_LIMIT_KIB * 1024))
}

# The field of a smaps_rollup copy, in kB: smaps_field FILE NAME.
smaps_field() {
	awk -v n="$2:" '$1 == n { print $2; exit }' "$1"
}

# Pass if A is within PCT % of B, or within MIN of it, whichever is looser:
# near DESC A B PCT MIN.
near() {
	local desc=$1 a=$2 b=$3 p=$4 m=$5
	if [ -z "$a" ] || [ "$a" = null ]; then
		fail "$desc: not reported"
	elif awk -v a="$a" -v b="$b" -v p="$p" -v m="$m" 'BEGIN {
		d = a - b; if (d < 0) d = -d; l = b * p / 100; if (l < m) l = m; exit !(d <= l) }'; then
		pass "$desc: $a vs $b"
	else
		fail "$desc: $a vs $b (more than $p% and $m apart)"
	fi
}

# The first process object of pid whose smaps reading was taken at or after
# unix time T: reading_after PID T.
reading_after() {
	jq -c -n --argjson p "$1" --argjson t "$2" 'first(inputs | .time as $ft
		| .processes[] | select(.pid == $p and .smaps_age != null
		and ($ft - .smaps_age) >= $t))' "$FRAMES"
}

# The first frame at or after unix time T whose group of root has every
# member read after T: group_after ROOT T.
group_after() {
	jq -c -n --argjson r "$1" --argjson t "$2" 'first(inputs | .time as $ft
		| . as $f | (.groups // [])[] | select(.root == $r and .unread == 0
		and .smaps_age != null and ($ft - .smaps_age) >= $t) | {g: ., f: $f})' "$FRAMES"
}

# Check one process's figures against the truth and the direct read.
check_process() {
	local pid=$1 t=$2 role=$3 obj truth field want got
	obj=$(reading_after "$pid" "$t")
	if [ -z "$obj" ]; then
		fail "$role $pid: no smaps reading after the writes"
		return
	fi
	truth=$(awk -v p="$pid" '$1 == p' "$WORK/truth.txt")
	near "$role $pid: uss_kib vs pages mapped by it alone (pagemap)" \
		"$(jq .uss_kib <<<"$obj")" "$(awk '{ print $3 }' <<<"$truth")" 2 256
	for field in pss_kib:Pss pss_anon_kib:Pss_Anon shared_clean_kib:Shared_Clean \
		shared_dirty_kib:Shared_Dirty private_dirty_kib:Private_Dirty \
		anon_kib:Anonymous swap_kib:Swap; do
		want=$(smaps_field "$WORK/smaps.$pid" "${field#*:}")
		got=$(jq ".${field%%:*}" <<<"$obj")
		near "$role $pid: ${field%%:*} vs a direct read of smaps_rollup" "$got" "$want" 1 16
	done
	# the page tables: the process is idle, they stay as they were read
	want=$(smaps_field "$WORK/status.$pid" VmPTE)
	expect_eq "$role $pid: pte_kib vs VmPTE of a direct read of status" "$(jq .pte_kib <<<"$obj")" "$want"
	[ "$role" = child ] || return 0
	got=$(jq .inherited_kib <<<"$obj")
	check_value "child $pid" inherited_kib "$got" $((PAGES * 4)) $((PAGES * 4 * 101 / 100 + 2048))
	# shared_pct is of the inherited memory: compare the KiB it stands for
	near "child $pid: shared memory (shared_pct of inherited_kib) vs pagemap" \
		"$(jq '.shared_pct * .inherited_kib / 100 | round' <<<"$obj")" \
		"$(awk '{ print $4 }' <<<"$truth")" 2 256
}

# Check the group of the workload's parent in the first frame where all of
# it was read after T.
check_group() {
	local main=$1 t=$2 gf g f mean max n
	gf=$(group_after "$main" "$t")
	if [ -z "$gf" ]; then
		fail "group of $main: no frame with every member read after the writes"
		return
	fi
	g=$(jq -c .g <<<"$gf")
	f=$(jq -c .f <<<"$gf")
	expect_eq "group of $main: workers" "$(jq .workers <<<"$g")" 3
	n=$(jq --argjson r "$main" '[.processes[] | select(.ppid == $r and .state != "exited")
		| .uss_kib] | length' <<<"$f")
	mean=$(jq --argjson r "$main" '[.processes[] | select(.ppid == $r and .state != "exited")
		| .uss_kib] | add / length | floor' <<<"$f")
	max=$(jq --argjson r "$main" '[.processes[] | select(.ppid == $r and .state != "exited")
		| .uss_kib] | max' <<<"$f")
	expect_eq "group of $main: $n workers in the frame" "$n" 3
	near "group of $main: mean worker USS" "$(jq .worker_uss_mean_kib <<<"$g")" "$mean" 0 1
	expect_eq "group of $main: max worker USS" "$(jq .worker_uss_max_kib <<<"$g")" "$max"
	expect_eq "group of $main: footprint is the members' PSS" "$(jq .pss_kib <<<"$g")" \
		"$(jq --argjson r "$main" '[.processes[] | select((.pid == $r or .ppid == $r)
			and .state != "exited") | .pss_kib] | add' <<<"$f")"
	# every worker read after it wrote and idled: settled (frame.h's rule)
	expect_eq "group of $main: headroom settled" "$(jq .headroom_settled <<<"$g")" true
	expect_eq "group of $main: headroom in MemAvailable" "$(jq .headroom <<<"$g")" \
		"$(jq -n --argjson a "$(jq .mem_available_kib <<<"$f")" \
			--argjson m "$(jq .worker_uss_mean_kib <<<"$g")" '$a / $m | floor')"
	if [ -n "$CG" ]; then
		expect_eq "group of $main: cgroup limit read" "$(jq .cgroup_limit_kib <<<"$g")" "$CG_LIMIT_KIB"
		expect_eq "group of $main: headroom in the cgroup's limit" \
			"$(jq .headroom_cgroup <<<"$g")" \
			"$(jq '(.cgroup_limit_kib - .cgroup_usage_kib) / .worker_uss_mean_kib | floor' <<<"$g")"
		near "group of $main: cgroup usage vs memory.usage_in_bytes" \
			"$(jq .cgroup_usage_kib <<<"$g")" "$CG_USAGE_KIB" 5 1024
	fi
}

test_sharing() {
	local main kids t pid i
	new_report share
	start_workload share --pages "$PAGES" --child-writes 2000,8000,16000 --linger 8
	main=$LOAD_PID
	if cg_setup; then
		echo "$main" >"$CG/cgroup.procs"
	else
		CG=
		skip "no writable memory cgroup: headroom in a limit not checked"
	fi
	start_cowtop share -b -f json -d 0.5 --smaps-budget 100 -p "$main"
	wait_lines "$FRAMES" 1 15 || die "cowtop printed no frame within 15s"
	kill -USR1 "$main"
	for ((i = 0; i < 100; i++)); do
		[ "$(report_pids child | wc -l)" -lt 3 ] || break
		sleep 0.1
	done
	kids=$(report_pids child)
	sleep 2 # the children have written and idle
	t=$(date +%s.%N)
	# shellcheck disable=SC2086 # pid list
	python3 "$TRUTH" "$main" $kids >"$WORK/truth.txt"
	for pid in $main $kids; do
		cat "/proc/$pid/smaps_rollup" >"$WORK/smaps.$pid"
		cat "/proc/$pid/status" >"$WORK/status.$pid"
	done
	[ -z "$CG" ] || CG_USAGE_KIB=$(($(cat "$CG/memory.usage_in_bytes") / 1024))
	sleep 2 # frames with readings after t
	wait_workload "$main"
	sleep_intervals 2
	stop_cowtop
	validate_frames
	check_process "$main" "$t" parent
	for pid in $kids; do
		check_process "$pid" "$t" child
	done
	check_group "$main" "$t"
	memcg_remove
}

setup
# the test's memory cgroup goes too, however the test ends
trap 'cleanup; memcg_remove' EXIT
test_sharing
finish
