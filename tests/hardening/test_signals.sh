#!/usr/bin/env bash
# Hardening: ends cowtop does not choose.
#  - SIGINT, SIGTERM, SIGQUIT, SIGHUP to the full-screen view (in tmux),
#    directly and through sudo: cowtop is gone within 2 s, the terminal is
#    restored (alternate screen left, cursor shown, mouse reports off),
#    every BPF program and link it held is unloaded;
#  - the terminal going away (an ssh connection dropping: tmux pane or
#    session killed), also with SIGHUP ignored and in batch mode: gone
#    within 2 s, no CPU spin, nothing left loaded;
#  - the same signals in batch mode: a clean end, the last frame whole;
#  - SIGKILL with USDT probes attached (-u): nothing left in the tracefs
#    probe lists, no program or link left once the process is gone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PHASELOAD=${PHASELOAD:-./tests/workloads/phaseload}
TRACEFS=/sys/kernel/tracing

# CPU ticks (user + system) a process used so far.
cpu_ticks() {
	LC_ALL=C sed -z 's/.*) //' "/proc/$1/stat" 2>/dev/null | tr '\0' ' ' | awk '{ print $12 + $13 }'
}

# Check that pid is gone within 2 s; if not, say how busy it is, kill it.
expect_gone() {
	local what=$1 pid=$2 a b
	if wait_gone "$pid" 2; then
		pass "$what: cowtop gone within 2 s"
		return
	fi
	a=$(cpu_ticks "$pid")
	sleep 1
	b=$(cpu_ticks "$pid")
	fail "$what: cowtop still there after 2 s (using $((b - a)) CPU ticks a second)"
	kill -KILL "$pid" 2>/dev/null || true
}

# Whether a process holds BPF programs or links.
holds_bpf() {
	[ -n "$(bpf_held "$1")" ]
}

# Check that the BPF objects a cowtop held are unloaded.
expect_unloaded() {
	if wait_bpf_gone "$2"; then
		pass "$1: its $(wc -l <<<"$2") BPF programs and links are unloaded"
	else
		fail "$1: BPF objects still loaded: $(comm -12 <(sort -u <<<"$2") <(bpf_loaded | sort -u) | tr '\n' ' ')"
	fi
}

# The full-screen view, ended by a signal or by its terminal going away:
# tui_end HOW [PREFIX] [OPTIONS]. HOW is a signal name, "pane" or
# "session"; PREFIX runs cowtop (sudo, env ...); with "via-sudo" the signal
# goes to sudo.
tui_end() {
	local how=$1 prefix=${2:-} opts=${3:--d 0.5} what held target
	what="$how${prefix:+ ($prefix)}${3:+ [$3]}"
	tui_start 100 30 "$WORK/sig.raw" "$prefix '$COWTOP' $opts"
	if [[ $opts != *-b* ]]; then
		eventually 10 pane_flag_is alternate_on 1 || fail "$what: no full screen"
	fi
	eventually 10 holds_bpf "$PANE_COWTOP" || die "$what: cowtop holds no BPF program"
	sleep 0.5
	held=$(bpf_held "$PANE_COWTOP")
	target=$PANE_COWTOP
	[[ $prefix != sudo* ]] || target=$(ps -o ppid= -p "$PANE_COWTOP" | tr -d ' ')
	case $how in
	pane) t kill-pane -t "$SESSION" ;;
	session) t kill-session -t "$SESSION" ;;
	*) kill -s "$how" "$target" ;;
	esac
	expect_gone "$what" "$PANE_COWTOP"
	if [ "$how" != pane ] && [ "$how" != session ]; then
		expect "$what: exit status 0" screen_has "COWTOP-EXIT=0"
		expect "$what: the alternate screen is left" pane_flag_is alternate_on 0
		expect "$what: the cursor is shown" pane_flag_is cursor_flag 1
		expect "$what: the mouse reports are off" pane_flag_is mouse_any_flag 0
	fi
	expect_unloaded "$what" "$held"
	t kill-session -t "$SESSION" 2>/dev/null || true
}

test_tui_signals() {
	local sig
	for sig in INT TERM QUIT HUP; do
		tui_end "$sig"
	done
	for sig in INT TERM QUIT HUP; do
		tui_end "$sig" sudo
	done
	tui_end pane
	tui_end session
	tui_end pane "env --ignore-signal=HUP"
	tui_end pane sudo
	tui_end pane "env --ignore-signal=HUP" "-b -d 0.2"
}

test_batch_signals() {
	local sig held
	for sig in INT TERM QUIT HUP; do
		start_cowtop "batch-$sig" -b -f json -d 0.2
		wait_lines "$FRAMES" 2 10 || die "batch $sig: no frames"
		held=$(bpf_held "$COWTOP_PID")
		kill -s "$sig" "$COWTOP_PID"
		expect_gone "batch $sig" "$COWTOP_PID"
		RC=0
		reap "$COWTOP_PID" || RC=$?
		expect_eq "batch $sig: exit status" "$RC" 0
		check "batch $sig: every frame whole" json_lines "$FRAMES"
		expect_unloaded "batch $sig" "$held"
	done
}

# Probe lists of tracefs (those the kernel has), concatenated.
probe_lists() {
	local f
	for f in uprobe_events kprobe_events; do
		[ ! -r "$TRACEFS/$f" ] || sed "s/^/$f: /" "$TRACEFS/$f"
	done
}

# Nothing in the probe lists names the probes or objects cowtop attached.
no_cowtop_probes() {
	! probe_lists | grep -qiE 'libbpf|cowtest|phaseload'
}

# -u run killed with SIGKILL: kill_usdt NAME COMMAND-LINE (a tmux pane)
# or, with "batch", in the background.
kill_usdt() {
	local what=$1 mode=$2 before held kids k
	before=$(probe_lists)
	if [ "$mode" = batch ]; then
		start_cowtop "$what" -b -f json -d 0.2 -u cowtest:phase__begin -u cowtest:mark -- \
			"$PHASELOAD" --children 2 --inside 10 --phase-ms 3000 --linger 5 --report /dev/null
		wait_lines "$FRAMES" 2 10 || die "$what: no frames"
		PANE_COWTOP=$COWTOP_PID
	else
		tui_start 120 30 "$WORK/$what.raw" "'$COWTOP' -d 0.3 -u cowtest:phase__begin -u cowtest:mark -- \
			'$PHASELOAD' --children 2 --inside 10 --phase-ms 3000 --linger 5 --report /dev/null"
		eventually 10 screen_has "probes" || die "$what: no probes on screen: $(screen)"
	fi
	sleep 0.5
	held=$(bpf_held "$PANE_COWTOP")
	check "$what: USDT links held while running" test "$(grep -c '^link' <<<"$held")" -gt 6
	kids=$(pgrep -P "$PANE_COWTOP" || true)
	kill -KILL "$PANE_COWTOP"
	expect_gone "$what" "$PANE_COWTOP"
	expect_unloaded "$what" "$held"
	expect_eq "$what: tracefs probe lists as before" "$(probe_lists)" "$before"
	check "$what: no probe of cowtop in tracefs" no_cowtop_probes
	for k in $kids; do
		kill -KILL "$k" 2>/dev/null || true
	done
	[ "$mode" != batch ] || reap "$COWTOP_PID" 2>/dev/null || true
	t kill-session -t "$SESSION" 2>/dev/null || true
}

test_sigkill() {
	if ! [ -r "$TRACEFS/uprobe_events" ]; then
		mount -t tracefs nodev "$TRACEFS" || die "cannot mount tracefs at $TRACEFS"
		MOUNTS=("$TRACEFS" "${MOUNTS[@]}")
	fi
	kill_usdt "SIGKILL, batch, -u" batch
	kill_usdt "SIGKILL, full screen, -u" tui
}

main() {
	hard_setup
	[ -x "$PHASELOAD" ] || die "phase workload not found at '$PHASELOAD' (set PHASELOAD)"
	PHASELOAD=$(realpath "$PHASELOAD")
	test_tui_signals
	test_batch_signals
	test_sigkill
	hard_finish
}

main "$@"
