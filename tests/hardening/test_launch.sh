#!/usr/bin/env bash
# Hardening: the command cowtop launches (with --).
#  - every way cowtop can end early leaves no command behind: a refused
#    terminal (LINES or COLUMNS out of range, TERM=dumb or unknown), an
#    option that does nothing in the output chosen, a bad probe, an
#    executable that cannot run, a batch output that cannot be written,
#    -n, q and the signals in the full-screen view, SIGINT, SIGTERM and
#    SIGHUP in batch mode, the terminal going away, even SIGKILL: the
#    command never started, or it is gone within a few seconds;
#  - the command runs in a process group of its own: a command that
#    signals its whole group (Apache's prefork at stop) does not hit
#    cowtop, whose last frame shows it exited and whose status is the
#    command's;
#  - batch mode on a terminal hands the terminal's foreground to the
#    command (Ctrl-C reaches the command, not cowtop), and takes it back;
#    Ctrl-Z in an interactive shell stops both, fg continues both;
#  - the full-screen view keeps the terminal: the command cannot read it;
#  - SIGTERM or SIGINT to a batch cowtop: the command is ended first, a last
#    frame shows it exited, and the exit status is the command's; without a
#    command, a last frame and status 0.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=0

# A command line that leaves its pid in a file, then runs for a long time:
# long_command NAME. The pid file is $WORK/NAME.pid.
long_command() {
	printf "sh -c 'echo \$\$ >%q; exec sleep 300'" "$WORK/$1.pid"
}

# The command of run NAME never started, or is gone within 5 s.
command_gone() {
	local f=$WORK/$1.pid pid
	[ -s "$f" ] || return 0
	pid=$(cat "$f")
	wait_gone "$pid" 5
}

# Check a run left no command: expect_no_command NAME WHAT.
expect_no_command() {
	if command_gone "$1"; then
		pass "$2: the command never started or is gone"
	else
		fail "$2: the command (pid $(cat "$WORK/$1.pid")) is still running"
		kill -KILL "$(cat "$WORK/$1.pid")" 2>/dev/null || true
	fi
}

# An early end on a terminal: early_exit STATUS TEXT ENV ARGS...; the
# command goes after the arguments.
early_exit() {
	local status=$1 text=$2 env=$3 name
	shift 3
	name=early-$((++N))
	on_tty "$name" "$env $(printf '%q ' "$(public_copy "$COWTOP")" "$@") -- $(long_command "$name")"
	expect_eq "$name ($env $*): exit status" "$RC" "$status"
	check "$name ($env $*): one line naming the problem" grep -qF -- "$text" "$WORK/$name.tty"
	expect_no_command "$name" "$name ($env $*)"
}

test_early_exits() {
	early_exit 1 "COLUMNS=99999999 is not a terminal size" "env COLUMNS=99999999" -d 0.5
	early_exit 1 "LINES=99999999 is not a terminal size" "env LINES=99999999" -d 0.5
	early_exit 1 "terminal type 'dumb' cannot move the cursor" "env TERM=dumb" -d 0.5
	early_exit 1 "unknown terminal type" "env TERM=xyz-unknown" -d 0.5
	early_exit 2 "-f is the format of batch output" "env" -f json
	early_exit 2 "-o names the file" "env" -b -o "$WORK/snap.txt"
	early_exit 2 "--linger is for the full-screen view" "env" -b --linger 3
	early_exit 2 "invalid probe" "env" -u nocolon
	early_exit 2 "invalid delay" "env" -d 0x10
	early_exit 1 "/nonexistent" "env" -u /nonexistent/lib.so:prov:name
	early_exit 1 "needs root" "setpriv --reuid=65534 --regid=65534 --clear-groups" -b
}

# Batch runs that end on their own before the command does.
test_batch_ends() {
	local name
	name="batch-full"
	RC=0
	timeout -k 5 30 "$COWTOP" -b -d 0.2 -- sh -c "echo \$\$ >$WORK/$name.pid; exec sleep 300" \
		>/dev/full 2>"$WORK/$name.err" </dev/null || RC=$?
	expect_eq "output to /dev/full: exit status" "$RC" 1
	expect_no_command "$name" "output to /dev/full"
	name="batch-n"
	RC=0
	timeout -k 5 30 "$COWTOP" -b -n 2 -d 0.2 -- sh -c "echo \$\$ >$WORK/$name.pid; exec sleep 300" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null || RC=$?
	expect_eq "-n 2: exit status" "$RC" 0
	expect_no_command "$name" "-n 2"
	name="batch-noexec"
	RC=0
	timeout -k 5 30 "$COWTOP" -b -d 0.2 -- /nonexistent/program \
		>"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null || RC=$?
	expect_eq "an executable that cannot run: exit status" "$RC" 127
}

# A batch cowtop in the background: batch_start NAME COMMAND-ARGS...;
# sets COWTOP_PID, waits for the command's pid file.
batch_start() {
	local name=$1
	shift
	FRAMES=$WORK/$name.json
	env --default-signal=INT "$COWTOP" -b -f json -d 0.2 -- "$@" >"$FRAMES" 2>"$WORK/$name.err" </dev/null &
	COWTOP_PID=$!
	BG_PIDS+=("$COWTOP_PID")
	eventually 10 test -s "$WORK/$name.pid" || die "$name: the command did not start"
}

# The last frame shows pid exited: last_exited FILE PID.
last_exited() {
	[ "$(tail -n 1 "$1" | jq --argjson p "$2" '[.processes[] | select(.pid == $p)][0].state')" = '"exited"' ]
}

# SIGINT, SIGTERM, SIGHUP to a batch cowtop, and SIGKILL.
test_batch_signals() {
	local sig name pid
	for sig in INT TERM HUP; do
		name=sig-$sig
		batch_start "$name" sh -c "echo \$\$ >$WORK/$name.pid; exec sleep 300"
		pid=$(cat "$WORK/$name.pid")
		sleep 0.5
		kill -s "$sig" "$COWTOP_PID"
		RC=0
		reap "$COWTOP_PID" || RC=$?
		expect_eq "batch SIG$sig: exit status is the command's (killed by SIGTERM)" "$RC" 143
		expect_no_command "$name" "batch SIG$sig"
		check "batch SIG$sig: every frame whole" json_lines "$FRAMES"
		check "batch SIG$sig: the last frame shows the command exited" last_exited "$FRAMES" "$pid"
	done
	# without a command: a last frame (covering the time since the last
	# one), exit 0
	start_hardload idle hold 60
	FRAMES=$WORK/sig-p.json
	env --default-signal=INT "$COWTOP" -b -f json -d 5 -p "$HL_PID" >"$FRAMES" 2>"$WORK/sig-p.err" </dev/null &
	COWTOP_PID=$!
	BG_PIDS+=("$COWTOP_PID")
	wait_lines "$FRAMES" 1 15 || die "sig-p: no first frame"
	kill -TERM "$COWTOP_PID"
	RC=0
	reap "$COWTOP_PID" || RC=$?
	expect_eq "batch -p, SIGTERM: exit status" "$RC" 0
	expect_eq "batch -p, SIGTERM: a last frame printed at once" "$(wc -l <"$FRAMES")" 2
	check "batch -p, SIGTERM: every frame whole" json_lines "$FRAMES"
	kill "$HL_BG" 2>/dev/null || true
	name="sig-KILL"
	batch_start "$name" sh -c "echo \$\$ >$WORK/$name.pid; exec sleep 300"
	kill -KILL "$COWTOP_PID"
	reap "$COWTOP_PID" || true
	expect_no_command "$name" "batch SIGKILL"
}

# Process group of a pid.
pgid_of() {
	LC_ALL=C sed -z 's/.*) //' "/proc/$1/stat" 2>/dev/null | tr '\0' ' ' | awk '{ print $3 }' || true
}

# A command that signals its whole process group and exits 3 (as Apache's
# prefork stops its workers): cowtop is not hit.
test_group_kill() {
	local name=group-kill pid cmd_pgid cowtop_pgid
	batch_start "$name" sh -c "echo \$\$ >$WORK/$name.pid; sleep 0.2 & sleep 0.2 & sleep 2; trap '' TERM; kill -TERM 0; wait; exit 3"
	pid=$(cat "$WORK/$name.pid")
	cmd_pgid=$(pgid_of "$pid")
	cowtop_pgid=$(pgid_of "$COWTOP_PID")
	if [ "$cmd_pgid" = "$pid" ] && [ "$cowtop_pgid" != "$cmd_pgid" ]; then
		pass "the command has a process group of its own"
	else
		fail "the command's process group is '$cmd_pgid', cowtop's '$cowtop_pgid'"
	fi
	RC=0
	reap "$COWTOP_PID" || RC=$?
	expect_eq "the command signalled its group: cowtop exits with its status" "$RC" 3
	check "the command signalled its group: the last frame shows it exited" last_exited "$FRAMES" "$pid"
}

# Batch mode on a terminal: Ctrl-C reaches the command only.
test_batch_ctrl_c() {
	local name=ctrlc pid
	tui_start 120 30 "$WORK/$name.raw" \
		"'$COWTOP' -b -d 0.3 -- sh -c 'echo \$\$ >$WORK/$name.pid; trap \"exit 7\" INT; while :; do sleep 0.1; done'"
	eventually 10 test -s "$WORK/$name.pid" || die "$name: the command did not start"
	pid=$(cat "$WORK/$name.pid")
	sleep 0.5
	keys C-c
	expect "batch on a terminal: Ctrl-C ends the command, cowtop exits with its status" \
		screen_has "COWTOP-EXIT=7"
	expect_no_command "$name" "batch on a terminal, Ctrl-C"
	t kill-session -t "$SESSION" 2>/dev/null || true
}

# Job control in an interactive shell: Ctrl-Z stops the command and cowtop
# with it (the shell reports the job stopped), fg continues both, then
# Ctrl-C reaches the command, whose status cowtop exits with.
test_batch_job_control() {
	local name=jobs
	t kill-session -t "$SESSION" 2>/dev/null || true
	t new-session -d -s "$SESSION" -x 150 -y 40 "bash --norc --noprofile -i"
	sleep 0.5
	# The loop forks its sleeps into the background and waits: dash runs a
	# command in the foreground with vfork, and a Ctrl-Z that stops the
	# child between its vfork and its exec leaves the shell waiting for it
	# uninterruptibly, never stopped (the job wedges the same way with no
	# cowtop in between).
	t send-keys -t "$SESSION" "'$COWTOP' -b -d 1 -- sh -c 'echo \$\$ >$WORK/$name.pid; trap \"exit 5\" INT; while :; do sleep 0.2 & wait; done'" Enter
	eventually 10 test -s "$WORK/$name.pid" || die "$name: the command did not start"
	sleep 1
	keys C-z
	expect "batch on a terminal: Ctrl-Z stops the job (cowtop with the command)" screen_has "Stopped"
	check "batch on a terminal: the command is stopped" stopped "$(cat "$WORK/$name.pid")"
	t send-keys -t "$SESSION" "clear; fg" Enter
	sleep 1.5
	check "batch on a terminal: fg continues the command" not_stopped "$(cat "$WORK/$name.pid")"
	keys C-c
	eventually 10 command_gone "$name" || true
	sleep 1
	# fg's status is the job's: cowtop's
	t send-keys -t "$SESSION" "echo JOB-EXIT=\$?" Enter
	expect "batch on a terminal: after fg, Ctrl-C ends the command, cowtop exits with its status" \
		screen_has "JOB-EXIT=5"
	expect_no_command "$name" "batch on a terminal, job control"
	t kill-session -t "$SESSION" 2>/dev/null || true
}

# The command's state letter.
state_of() {
	LC_ALL=C sed -z 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1
}

stopped() {
	[ "$(state_of "$1")" = T ]
}

not_stopped() {
	local s
	s=$(state_of "$1")
	[ -n "$s" ] && [ "$s" != T ]
}

# The full-screen view keeps the terminal: a command reading it is stopped
# (SIGTTIN), the keys go to cowtop; q ends cowtop and the command.
test_tui_keeps_terminal() {
	local name=tui-tty pid
	tui_start 120 30 "$WORK/$name.raw" \
		"'$COWTOP' -d 0.3 -- sh -c 'echo \$\$ >$WORK/$name.pid; exec cat /dev/tty'"
	eventually 10 test -s "$WORK/$name.pid" || die "$name: the command did not start"
	pid=$(cat "$WORK/$name.pid")
	if eventually 5 stopped "$pid"; then
		pass "full-screen view: the command reading the terminal is stopped (SIGTTIN)"
	else
		fail "full-screen view: the command reading the terminal is in state $(state_of "$pid")"
	fi
	keys q
	expect "full-screen view: q quits" screen_has "COWTOP-EXIT="
	expect_no_command "$name" "full-screen view, q"
	t kill-session -t "$SESSION" 2>/dev/null || true
}

# The full-screen view ended otherwise: a signal, -n, its terminal gone.
test_tui_ends() {
	local name how
	for how in INT TERM HUP n pane; do
		name=tui-$how
		if [ "$how" = n ]; then
			tui_start 120 30 "$WORK/$name.raw" "'$COWTOP' -d 0.2 -n 40 -- $(long_command "$name")"
		else
			tui_start 120 30 "$WORK/$name.raw" "'$COWTOP' -d 0.3 -- $(long_command "$name")"
		fi
		eventually 10 test -s "$WORK/$name.pid" || die "$name: the command did not start"
		case $how in
		n) ;;
		pane) t kill-pane -t "$SESSION" ;;
		*) kill -s "$how" "$PANE_COWTOP" ;;
		esac
		wait_gone "$PANE_COWTOP" 20 || fail "full-screen view ($how): cowtop still running"
		expect_no_command "$name" "full-screen view ($how)"
		t kill-session -t "$SESSION" 2>/dev/null || true
	done
}

main() {
	hard_setup
	test_early_exits
	test_batch_ends
	test_batch_signals
	test_group_kill
	test_batch_ctrl_c
	test_batch_job_control
	test_tui_keeps_terminal
	test_tui_ends
	hard_finish
}

main "$@"
