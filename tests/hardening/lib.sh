# shellcheck shell=bash
# shellcheck source-path=SCRIPTDIR
# Helpers shared by cowtop's hardening tests, on top of the integration
# tests' helpers (pass, fail, check, expect_eq, setup, finish, run_cowtop,
# start_cowtop, BG_PIDS, WORK...), which this file sources. Source it from a
# test script that runs with `set -euo pipefail`.
#
# Environment (besides that of tests/integration/lib.sh):
#   HARDLOAD   hostile workload binary (default ./tests/hardening/hardload)

# shellcheck source=../integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

HARDLOAD=${HARDLOAD:-./tests/hardening/hardload}
SOCK=cowtop-hard-$$
SESSION=hard
ESC=$'\e'
MOUNTS=()
HL_PID=
HL_BG=
PANE_COWTOP=

# The names cowtop's BPF programs carry.

# Check the environment as the integration tests do, and what these tests
# need on top; make the paths absolute (tmux panes start elsewhere).
hard_setup() {
	setup
	trap hard_cleanup EXIT
	local tool
	for tool in tmux bpftool script setpriv unshare sudo; do
		command -v "$tool" >/dev/null || die "$tool is needed"
	done
	[ -x "$HARDLOAD" ] || die "hostile workload not found at '$HARDLOAD' (set HARDLOAD)"
	COWTOP=$(realpath "$COWTOP")
	COWLOAD=$(realpath "$COWLOAD")
	HARDLOAD=$(realpath "$HARDLOAD")
	COWTOP_COMM=$(basename "$COWTOP" | cut -c1-15) # its name in /proc/PID/comm
}

# Clean up, then print the "N passed, N failed" line as the last one and
# exit 0 only if nothing failed.
hard_finish() {
	trap - EXIT
	hard_cleanup
	finish
}

# Stop the tmux server and the background processes (quietly: no job
# notices), unmount what was mounted, then the usual cleanup.
hard_cleanup() {
	local m pid
	tmux_stop
	for pid in "${BG_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	BG_PIDS=()
	for m in "${MOUNTS[@]}"; do
		umount -l "$m" 2>/dev/null || true
	done
	MOUNTS=()
	cleanup
}

# The bytes of a printf format, as hex: hex FORMAT.
hex() {
	# shellcheck disable=SC2059 # the format is the point
	printf "$1" | od -An -tx1 | tr -d ' \n'
}

# Start hardload in the background: start_hardload NAME MODE ARGS... Waits
# for its "ready PID" line; sets HL_PID (that pid) and HL_BG (the job).
start_hardload() {
	local name=$1 out
	shift
	out=$WORK/$name.out
	rm -f "$out"
	"$HARDLOAD" "$@" >"$out" 2>"$WORK/$name.load.err" &
	HL_BG=$!
	BG_PIDS+=("$HL_BG")
	wait_lines "$out" 1 10 || die "$name: hardload printed no ready line"
	HL_PID=$(awk '$1 == "ready" { print $2; exit }' "$out")
	[ -n "$HL_PID" ] || die "$name: unexpected ready line"
}

# Whether a process has gone: no such pid, or only its zombie is left.
gone() {
	local s
	s=$(LC_ALL=C sed -z 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || true
	[ -z "$s" ] || [ "$s" = Z ]
}

# Wait up to SECONDS for a process to be gone: wait_gone PID SECONDS.
wait_gone() {
	local tries
	tries=$(awk -v s="$2" 'BEGIN { print int(s * 20) }')
	while ! gone "$1"; do
		[ "$tries" -gt 0 ] || return 1
		tries=$((tries - 1))
		sleep 0.05
	done
}

# The high-water mark of a process's resident memory, in KiB (0 if gone).
hwm_kib() {
	awk '$1 == "VmHWM:" { print $2; found = 1 } END { if (!found) print 0 }' \
		"/proc/$1/status" 2>/dev/null || echo 0
}

# Poll a process's VmHWM until it is gone; print the last value read.
hwm_until_gone() {
	local pid=$1 v last=0
	while ! gone "$pid"; do
		v=$(hwm_kib "$pid")
		[ "$v" -eq 0 ] || last=$v
		sleep 0.1
	done
	echo "$last"
}

# The BPF programs and links a live process holds, one "prog ID" or
# "link ID" a line (from the fdinfo of its descriptors).
bpf_held() {
	{ cat /proc/"$1"/fdinfo/* 2>/dev/null || true; } |
		awk '$1 == "prog_id:" { print "prog", $2 } $1 == "link_id:" { print "link", $2 }' | sort -u
}

# Program and link ids loaded in the kernel now, as bpf_held prints them.
bpf_loaded() {
	{ bpftool -j prog show 2>/dev/null || echo '[]'; } | jq -r '.[] | "prog \(.id)"'
	{ bpftool -j link show 2>/dev/null || echo '[]'; } | jq -r '.[] | "link \(.id)"'
}

# Whether none of the objects listed (as bpf_held prints them) is loaded.
bpf_all_gone() {
	[ -z "$(comm -12 <(sort -u <<<"$1") <(bpf_loaded | sort -u))" ]
}

# Wait up to 3 s for the objects listed to be unloaded (the kernel frees
# them after their last descriptor closes, a grace period later).
wait_bpf_gone() {
	local i
	for ((i = 0; i < 60; i++)); do
		bpf_all_gone "$1" && return 0
		sleep 0.05
	done
	return 1
}

# No escape character in a file.
no_esc() {
	! grep -q "$ESC" "$1"
}

# Every line of a file is one JSON value.
json_lines() {
	[ "$(jq -c . "$1" 2>/dev/null | wc -l)" -eq "$(wc -l <"$1")" ]
}

# Run a command line on a fresh terminal; everything written to it goes to
# $WORK/NAME.tty, its status to RC: on_tty NAME COMMAND.
on_tty() {
	RC=0
	timeout -k 5 60 script -q -e -c "$2" /dev/null </dev/null >"$WORK/$1.tty" 2>&1 || RC=$?
}

# What a terminal run wrote, without carriage returns.
tty_text() {
	tr -d '\r' <"$WORK/$1.tty"
}

# ---------------------------------------------------------------------------
# A full-screen cowtop in a detached tmux pane, on our own tmux server.
# ---------------------------------------------------------------------------
# shellcheck source=../tui/tmux.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tui/tmux.sh"

# Check a condition within 10 s: expect DESC CMD [ARGS...]; on failure show
# the screen.
expect() {
	local desc=$1
	shift
	if eventually 10 "$@"; then
		pass "$desc"
	else
		fail "$desc"
		screen 2>/dev/null | sed 's/^/    | /' || true
	fi
}



# Start a shell command line in a fresh pane of COLSxLINES, every byte the
# pane gets recorded in RAW: tui_start COLS LINES RAW COMMAND. The command
# waits a moment so the recording misses nothing. Sets PANE_COWTOP to the
# pid of the cowtop process in the pane (through sudo, if any); empty when
# it had already ended when looked for (a short run on a loaded machine: the
# test's own checks then judge what it did).
tui_start() {
	local cols=$1 lines=$2 raw=$3 cmd=$4 pane
	t kill-session -t "$SESSION" 2>/dev/null || true
	: >"$raw"
	t new-session -d -s "$SESSION" -x "$cols" -y "$lines" \
		"sleep 0.5; $cmd; echo COWTOP-EXIT=\$?; sleep 600"
	t pipe-pane -t "$SESSION" -O "cat >>'$raw'"
	pane=$(t display -p -t "$SESSION" '#{pane_pid}')
	PANE_COWTOP=
	eventually 10 started_or_ended "$pane" || die "cowtop did not start in the pane: $(screen)"
	# shellcheck disable=SC2034 # used by the test scripts
	PANE_COWTOP=$(pane_cowtop "$pane" || true)
}

# Whether a cowtop runs below the pane PANE, or has run and ended.
started_or_ended() {
	pane_cowtop "$1" >/dev/null || screen | grep -q 'COWTOP-EXIT='
}

# The pid of the first cowtop process below pid (children first).
pane_cowtop() {
	local kid found
	for kid in $(pgrep -P "$1" || true); do
		if [ "$(cat "/proc/$kid/comm" 2>/dev/null)" = "$COWTOP_COMM" ]; then
			echo "$kid"
			return 0
		fi
	done
	for kid in $(pgrep -P "$1" || true); do
		found=$(pane_cowtop "$kid") && { echo "$found"; return 0; }
	done
	return 1
}

# The bytes of a file (or of a printf format, with -f) as " xx xx ... ".
spaced_hex() {
	if [ "$1" = -f ]; then
		# shellcheck disable=SC2059 # the format is the point
		printf "$2" | od -An -v -tx1
	else
		od -An -v -tx1 "$1"
	fi | tr -s ' \n' '  ' | sed 's/^ */ /; s/ *$/ /'
}

# Whether the bytes of a printf format occur in a file: raw_has FILE FORMAT.
raw_has() {
	spaced_hex "$1" | grep -qF -- "$(spaced_hex -f "$2")"
}
