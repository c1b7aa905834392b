#!/usr/bin/env bash
# Hardening: hostile processes under watch.
#  - huge command lines (MiBs, 500000 empty arguments): cowtop's memory
#    stays bounded (VmHWM), in batch mode and on screen;
#  - pid reuse: a process that gets a watched child's pid (forced through
#    ns_last_pid) is never shown as that child: another start time, its own
#    counts; no rate is ever negative;
#  - processes vanishing while they are read, thousands a second, watching
#    everything and with -p: nothing on stderr, every one shown once as
#    exited or not at all, no row of a process that is gone stays;
#  - a process whose main thread has exited while another runs
#    (pthread_exit in main) is shown alive with its memory (RSS, VSZ from a
#    live thread), and shown exited when it ends; -p of a zombie is
#    refused in one line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# How much more a cowtop watching huge command lines may hold at its peak
# than one watching small ones (KiB). The command lines add up to 20.5 MiB.
readonly BIG_SLACK_KIB=8192

# Peak memory of a batch cowtop watching the given pids for 2 s (KiB).
batch_hwm() {
	local name=$1 pid
	shift
	start_cowtop "$name" -b -f json -d 0.2 -n 10 "$@"
	pid=$COWTOP_PID
	HWM=$(hwm_until_gone "$pid")
	RC=0
	reap "$pid" || RC=$?
}

# Peak memory of a full-screen cowtop watching the given pids for 3 s.
tui_hwm() {
	local raw=$WORK/$1.raw v
	shift
	tui_start 200 50 "$raw" "'$COWTOP' -d 0.2 $*"
	sleep 3
	v=$(hwm_kib "$PANE_COWTOP")
	keys q
	eventually 10 screen_has "COWTOP-EXIT=0" || v=-1
	t kill-session -t "$SESSION" 2>/dev/null || true
	HWM=$v
}

test_bigargs() {
	local small big=() i base tbase
	start_hardload small hold 60
	small=$HL_PID
	batch_hwm base-batch -p "$small"
	base=$HWM
	tui_hwm base-tui -p "$small"
	tbase=$HWM
	for i in 1 2 3 4; do
		start_hardload "big$i" bigargs big 5 60
		big+=("$HL_PID")
	done
	start_hardload empty bigargs empty 500000 60
	big+=("$HL_PID")
	for i in "${big[@]}"; do
		[ "$(wc -c <"/proc/$i/cmdline")" -gt 400000 ] || die "pid $i has no huge command line"
	done
	local args=()
	for i in "${big[@]}"; do
		args+=(-p "$i")
	done
	batch_hwm big-batch "${args[@]}"
	expect_eq "huge command lines: batch cowtop exit status" "$RC" 0
	expect_eq "huge command lines: nothing on stderr" "$(wc -c <"$WORK/big-batch.err")" 0
	validate_frames
	for i in "${big[@]}"; do
		expect_eq "huge command lines: pid $i shown by name" \
			"$(jq -n -r --argjson p "$i" '[inputs.processes[] | select(.pid == $p)] | last | .comm' "$FRAMES")" hardload
	done
	if [ "$HWM" -le $((base + BIG_SLACK_KIB)) ]; then
		pass "huge command lines: batch VmHWM ${HWM} KiB <= ${base} + ${BIG_SLACK_KIB}"
	else
		fail "huge command lines: batch VmHWM ${HWM} KiB > ${base} + ${BIG_SLACK_KIB}"
	fi
	tui_hwm big-tui "${args[*]}"
	if [ "$HWM" -gt 0 ] && [ "$HWM" -le $((tbase + BIG_SLACK_KIB)) ]; then
		pass "huge command lines: full-screen VmHWM ${HWM} KiB <= ${tbase} + ${BIG_SLACK_KIB}"
	else
		fail "huge command lines: full-screen VmHWM ${HWM} KiB (-1: did not quit) > ${tbase} + ${BIG_SLACK_KIB}"
	fi
	for i in "${BG_PIDS[@]}"; do
		kill "$i" 2>/dev/null || true
	done
}

# The (start_time, comm) pairs shown for pid, one a line, in frame order.
shown_as() {
	jq -n -r --argjson p "$1" 'inputs.processes[] | select(.pid == $p) | "\(.start_time) \(.comm) \(.state) \(.cow_pages)"' "$FRAMES"
}

test_reuse() {
	local a b sa sb out=$WORK/reuse.out
	start_hardload reuse reuse 50 5 2
	start_cowtop reuse -b -f json -d 0.2 -p "$HL_PID"
	wait_lines "$FRAMES" 1 10 || die "reuse: no first frame"
	kill -USR1 "$HL_PID"
	wait_lines "$out" 3 20 || die "reuse: the pid was not reused: $(cat "$WORK/reuse.load.err")"
	a=$(awk '$1 == "a" { print $2 }' "$out")
	b=$(awk '$1 == "b" { print $2 }' "$out")
	expect_eq "reuse: the second child got the first one's pid" "$b" "$a"
	reap "$HL_BG" || true
	reap_cowtop_after_load
	expect_eq "reuse: cowtop ended with its watched processes" "$RC" 0
	validate_frames
	sa=$(shown_as "$a" | awk '$2 == "reuse-a" { print $1; exit }')
	sb=$(shown_as "$a" | awk '$2 == "reuse-b" { print $1; exit }')
	check "reuse: both processes shown" test -n "$sa" -a -n "$sb"
	check "reuse: with different start times" test "$sa" != "$sb"
	expect_eq "reuse: the first never shown with the second's name" \
		"$(shown_as "$a" | awk -v s="$sa" '$1 == s && $2 == "reuse-b"' | wc -l)" 0
	expect_eq "reuse: the second never shown with the first's name" \
		"$(shown_as "$a" | awk -v s="$sb" '$1 == s && $2 == "reuse-a"' | wc -l)" 0
	expect_eq "reuse: the first shown exited once, never after" \
		"$(shown_as "$a" | awk -v s="$sa" '$1 == s { n++; if ($3 == "exited") e = n } END { print (e == n) ":" (e > 0) }')" "1:1"
	expect_eq "reuse: the second shown exited at its end" \
		"$(shown_as "$a" | awk -v s="$sb" '$1 == s { last = $3 } END { print last }')" exited
	local ca cb
	ca=$(shown_as "$a" | awk -v s="$sa" '$1 == s { c = $4 } END { print c }')
	cb=$(shown_as "$a" | awk -v s="$sb" '$1 == s { if ($4 > m) m = $4 } END { print m + 0 }')
	check "reuse: the first's copies ($ca) are its 50 writes" in_range "$ca" 50 $((50 + SLACK))
	check "reuse: the second's copies ($cb) are its own 5, none carried over" in_range "$cb" 5 $((5 + SLACK))
	check "reuse: no rate is ever negative" jq_true '[inputs.processes[].cow_rate] | all(. >= 0)'
	# the kernel keeps copies by region per pid and start time: the
	# second's never include the first's (read once both have exited:
	# their counts are final then)
	check "reuse: each one's copies by region are its own, never more than its copies" jq_true \
		'[inputs.processes[] | select(.state == "exited")
		  | ((.cow_by_region | del(.other) | [.[]] | add) // 0) <= .cow_pages] | all'

	# On screen: the exited first child lingers next to the second, each
	# with its own counts.
	start_hardload reuse2 reuse 50 5 30
	tui_start 150 30 "$WORK/reuse.raw" "'$COWTOP' -d 0.3 --linger 60 -p $HL_PID"
	eventually 10 screen_has "$HL_PID" || die "reuse: nothing on screen"
	kill -USR1 "$HL_PID"
	wait_lines "$WORK/reuse2.out" 3 20 || die "reuse: the pid was not reused on screen"
	a=$(awk '$1 == "a" { print $2 }' "$WORK/reuse2.out")
	expect "reuse on screen: the pid shows once exited (X), once running" two_rows "$a"
	keys q
	t kill-session -t "$SESSION" 2>/dev/null || true
	kill "$HL_BG" 2>/dev/null || true
}

# Two rows of pid: one exited with at least 50 copies, one running with fewer.
two_rows() {
	local r
	r=$(screen | grep -E "^ *$1 [A-Z] " | awk '{ print $2, $4 }' | sort)
	[ "$(wc -l <<<"$r")" -eq 2 ] || return 1
	awk '$1 == "S" && $2 < 50 { s = 1 } $1 == "X" && $2 >= 50 { x = 1 } END { exit !(s && x) }' <<<"$r"
}

# Checks of a run in which processes came and went by thousands.
check_churn() {
	local what=$1 storm=$2
	expect_eq "$what: exit status" "$RC" 0
	expect_eq "$what: nothing on stderr" "$(wc -c <"$WORK/$what.err")" 0
	check "$what: one valid JSON object per line" json_lines "$FRAMES"
	expect_eq "$what: no row without a name" \
		"$(jq -n '[inputs.processes[] | select(.comm == "")] | length' "$FRAMES")" 0
	expect_eq "$what: no live row of unknown name ('?')" \
		"$(jq -n '[inputs.processes[] | select(.comm == "?" and .state != "exited")] | length' "$FRAMES")" 0
	expect_eq "$what: unknown names ('?') only when records were lost" "$(jq -s '
		([.[].processes[] | select(.comm == "?")] | length) == 0 or ([.[].lost] | max) > 0' "$FRAMES")" true
	expect_eq "$what: a process shown exited once, never after" "$(jq -s '
		[.[].processes[] | {k: "\(.pid) \(.start_time)", s: .state}]
		| group_by(.k) | map([.[].s])
		| map(select((map(select(. == "exited")) | length) > 1
			or ((index("exited") // -1) >= 0 and index("exited") != length - 1)))
		| length' "$FRAMES")" 0
	expect_eq "$what: the storm's children all gone from the last frame" \
		"$(tail -n 1 "$FRAMES" | jq --argjson p "$storm" '[.processes[] | select(.ppid == $p and .state != "exited")] | length')" 0
	expect_eq "$what: the storm's children are shown" \
		"$(jq -n --argjson p "$storm" '[inputs.processes[] | select(.ppid == $p)] | length > 100' "$FRAMES")" true
}

test_churn() {
	local storm
	# watching everything: a storm and a shell spawning short commands
	start_hardload storm-all storm 3 3000
	storm=$HL_PID
	(
		end=$((SECONDS + 4))
		while [ $SECONDS -lt $end ]; do
			/bin/true
			sh -c 'sleep 0.01 & exec true'
		done
	) &
	BG_PIDS+=($!)
	kill -USR1 "$storm"
	FRAMES=
	run_cowtop churn-all -n 25
	check_churn churn-all "$storm"
	# watching the storm with -p, batch text too
	start_hardload storm-p storm 3 3000
	storm=$HL_PID
	start_cowtop churn-p -b -f json -d 0.2 -p "$storm"
	wait_lines "$FRAMES" 1 10 || die "churn: no first frame"
	kill -USR1 "$storm"
	reap "$HL_BG" || true
	reap_cowtop_after_load
	check_churn churn-p "$storm"
	local forked seen lost
	forked=$(awk '$1 == "forked" { print $2 }' "$WORK/storm-p.out")
	seen=$(jq -n -r --argjson p "$storm" '[inputs.processes[] | select(.ppid == $p) | "\(.pid) \(.start_time)"] | unique | length' "$FRAMES")
	lost=$(jq -n '[inputs.lost] | max' "$FRAMES")
	check "churn-p: every child shown or counted lost ($seen shown + $lost lost >= $forked forked)" \
		test $((seen + lost)) -ge "$forked"
	start_hardload storm-t storm 2 3000
	kill -USR1 "$HL_PID"
	run_cowtop_plain churn-text -b -d 0.2 -n 12 -p "$HL_PID"
	expect_eq "churn-text: exit status" "$RC" 0
	expect_eq "churn-text: nothing on stderr" "$(wc -c <"$WORK/churn-text.err")" 0
}

# The last JSON frame's entry of a pid: field FIELD.
last_field() {
	tail -n 1 "$FRAMES" | jq -r --argjson p "$1" ".processes[] | select(.pid == \$p) | .$2"
}

test_leader_exit() {
	local pid zpid
	start_hardload leader leaderexit 16 3
	pid=$HL_PID
	run_cowtop leader -n 2 -p "$pid"
	expect_eq "main thread exited: exit status" "$RC" 0
	expect_eq "main thread exited: state is the live thread's" "$(last_field "$pid" state)" S
	check "main thread exited: RSS holds its 16 MiB" test "$(last_field "$pid" rss_kib)" -ge 16384
	check "main thread exited: VSZ not 0" test "$(last_field "$pid" vsz_kib)" -gt 0
	run_cowtop leader-end -p "$pid"
	expect_eq "main thread exited: batch ends when the process does" "$RC" 0
	expect_eq "main thread exited: last frame shows it exited" "$(last_field "$pid" state)" exited
	start_hardload zombie zombie 30
	read -r _ _ zpid <"$WORK/zombie.out"
	run_cowtop_plain zombie -b -n 1 -p "$zpid"
	expect_error zombie 1 "PID $zpid has exited (a zombie its parent has not reaped)"
	kill "$HL_BG" 2>/dev/null || true
}

main() {
	hard_setup
	test_leader_exit
	test_bigargs
	test_reuse
	test_churn
	hard_finish
}

main "$@"
