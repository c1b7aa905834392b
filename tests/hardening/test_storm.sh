#!/usr/bin/env bash
# Hardening: a fork storm under watch. Thousands of short-lived children a
# second for 30 s, watched with -p on the storm's parent by the full-screen
# view (-d 1, in tmux) and by a batch JSON run side by side:
#  - the view stays responsive: the header clock advances at every refresh,
#    keys still work promptly;
#  - cowtop's memory stays bounded (VmHWM): exited processes linger on
#    screen, but not tens of thousands of them;
#  - nothing is lost without being counted: every child is shown, or
#    counted in "lost" (JSON), and the header shows the count.
# Then a deliberately tiny ring buffer (--ringbuf-kib 4) and a fork burst:
# records are lost, and "lost" says so, in JSON, on screen and in a snapshot.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

STORM_SECONDS=${COWTOP_STORM_SECONDS:-30}
readonly STORM_RATE=4000      # children a second asked for
# what makes a storm: a machine that forks slower storms for longer (up to
# five times as long), so the checks below always see this many
readonly STORM_MIN=$((STORM_SECONDS * 1000))
readonly TUI_HWM_MAX_KIB=81920
readonly BATCH_HWM_MAX_KIB=81920

# The header clock (HH:MM:SS) on screen.
clock() {
	screen | head -n 1 | awk '$1 == "cowtop" { print $2 }'
}

# The header's third line gives "lost N", N matching a regex.
header_lost() {
	screen | sed -n 3p | grep -qE "lost $1( |$)"
}

# How long (seconds, 0.1 s steps) until the screen has text; 99 if never.
latency() {
	local i
	for ((i = 0; i < 50; i++)); do
		screen_has "$1" && {
			awk -v i="$i" 'BEGIN { printf "%.1f", i / 10 }'
			return
		}
		sleep 0.1
	done
	echo 99
}

# Press a key and check the view answers within 2 s.
key_answers() {
	local key=$1 text=$2 l
	keys "$key"
	l=$(latency "$text")
	if awk -v l="$l" 'BEGIN { exit !(l <= 2) }'; then
		pass "storm: key '$key' answered in ${l}s"
	else
		fail "storm: key '$key' not answered within 2 s"
	fi
}

# Every child of the storm is shown, or counted lost: check_counted NAME
# STORM_PID FORKED.
check_counted() {
	local seen lost
	seen=$(jq -n -r --argjson p "$2" '[inputs.processes[] | select(.ppid == $p) | "\(.pid) \(.start_time)"]
		| unique | length' "$FRAMES")
	lost=$(jq -n '[inputs.lost] | max' "$FRAMES")
	if [ $((seen + lost)) -ge "$3" ]; then
		pass "$1: every child shown or counted lost ($seen shown + $lost lost >= $3 forked)"
	else
		fail "$1: children missing without being counted ($seen shown + $lost lost < $3 forked)"
	fi
	LOST=$lost
}

test_storm() {
	local storm forked secs prev now stalls=0 samples=0 hwm=0 v batch bhwm=0
	start_hardload storm storm "$STORM_SECONDS" "$STORM_RATE" "$STORM_MIN"
	storm=$HL_PID
	tui_start 150 40 "$WORK/storm.raw" "LANG=C.UTF-8 '$COWTOP' -d 1 -p $storm"
	start_cowtop storm-batch -b -f json -d 1 -p "$storm"
	batch=$COWTOP_PID
	eventually 10 screen_has "COMMAND" || die "the view did not start: $(screen)"
	wait_lines "$FRAMES" 1 10 || die "the batch run printed no frame"
	kill -USR1 "$storm"
	prev=$(clock)
	local start=$SECONDS keys_done=0
	while kill -0 "$HL_BG" 2>/dev/null && ((SECONDS - start < 5 * STORM_SECONDS + 10)); do
		sleep 2
		now=$(clock)
		samples=$((samples + 1))
		[ "$now" != "$prev" ] || stalls=$((stalls + 1))
		prev=$now
		v=$(hwm_kib "$PANE_COWTOP")
		[ "$v" -le "$hwm" ] || hwm=$v
		v=$(hwm_kib "$batch")
		[ "$v" -le "$bhwm" ] || bhwm=$v
		if ((keys_done == 0 && SECONDS - start >= 8)); then
			keys_done=1
			key_answers t "  flat"
			key_answers t "  tree"
			key_answers N "sort pid"
			key_answers h "follow the selected process"
			key_answers x "history (max"
		fi
	done
	reap "$HL_BG" || true
	forked=$(awk '$1 == "forked" { print $2 }' "$WORK/storm.out")
	secs=$(awk '$1 == "seconds" { print $2 }' "$WORK/storm.out")
	check "storm: the workload forked ${forked:-no} children in ${secs:-?} s (a storm is $STORM_MIN)" \
		test "${forked:-0}" -ge "$STORM_MIN"
	expect_eq "storm: the header clock advanced at every refresh ($samples samples, 2 s apart)" "$stalls" 0
	expect "storm: the header shows the lost count" header_lost '[0-9]+'
	v=$(hwm_kib "$PANE_COWTOP")
	[ "$v" -le "$hwm" ] || hwm=$v
	if [ "$hwm" -gt 0 ] && [ "$hwm" -le "$TUI_HWM_MAX_KIB" ]; then
		pass "storm: full-screen VmHWM ${hwm} KiB <= ${TUI_HWM_MAX_KIB}"
	else
		fail "storm: full-screen VmHWM ${hwm} KiB > ${TUI_HWM_MAX_KIB}"
	fi
	key_answers q "COWTOP-EXIT=0"
	v=$(hwm_until_gone "$batch")
	[ "$v" -le "$bhwm" ] || bhwm=$v
	RC=0
	reap "$batch" || RC=$?
	expect_eq "storm: the batch run ended with the storm" "$RC" 0
	expect_eq "storm: nothing on the batch run's stderr" "$(wc -c <"$WORK/storm-batch.err")" 0
	check "storm: the batch run wrote one JSON object per line" json_lines "$FRAMES"
	if [ "$bhwm" -gt 0 ] && [ "$bhwm" -le "$BATCH_HWM_MAX_KIB" ]; then
		pass "storm: batch VmHWM ${bhwm} KiB <= ${BATCH_HWM_MAX_KIB}"
	else
		fail "storm: batch VmHWM ${bhwm} KiB > ${BATCH_HWM_MAX_KIB}"
	fi
	check_counted "storm (batch)" "$storm" "$forked"
	t kill-session -t "$SESSION" 2>/dev/null || true
}

test_tiny_ringbuf() {
	local burst forked stopped
	start_hardload burst storm 1 0
	burst=$HL_PID
	tui_start 150 30 "$WORK/burst.raw" "'$COWTOP' -d 0.5 --ringbuf-kib 4 -o '$WORK/burst.snap' -p $burst"
	start_cowtop burst-batch -b -f json -d 0.5 --ringbuf-kib 4 -p "$burst"
	eventually 10 screen_has "COMMAND" || die "the view did not start: $(screen)"
	wait_lines "$FRAMES" 1 10 || die "the batch run printed no frame"
	# Both cowtops sleep through the burst, so that it overflows their
	# 4 KiB ring buffers whatever else the machine is doing: a cowtop that
	# got the CPU in time would keep up and lose nothing.
	stopped=$(pgrep -f -- "--ringbuf-kib 4 " | tr '\n' ' ')
	[ -n "$stopped" ] || die "tiny ring buffer: no cowtop to pause"
	kill -STOP $stopped
	kill -USR1 "$burst"
	reap "$HL_BG" || true
	kill -CONT $stopped
	forked=$(awk '$1 == "forked" { print $2 }' "$WORK/burst.out")
	reap_cowtop_after_load
	expect_eq "tiny ring buffer: the batch run ended with the burst" "$RC" 0
	check_counted "tiny ring buffer" "$burst" "$forked"
	check "tiny ring buffer: JSON lost is not zero ($LOST)" test "$LOST" -gt 0
	expect_eq "tiny ring buffer: no process without a name in JSON (unknown is \"?\")" \
		"$(jq -n '[inputs.processes[] | select(.comm == "")] | length' "$FRAMES")" 0
	expect "tiny ring buffer: the header shows a lost count above zero" header_lost '[1-9][0-9]*'
	keys w
	eventually 10 test -s "$WORK/burst.snap" || true
	check "tiny ring buffer: the snapshot shows a lost count above zero" \
		grep -qE 'lost [1-9][0-9]*( |$)' "$WORK/burst.snap"
	keys q
	t kill-session -t "$SESSION" 2>/dev/null || true
}

main() {
	hard_setup
	test_storm
	test_tiny_ringbuf
	hard_finish
}

main "$@"
