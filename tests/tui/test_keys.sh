#!/usr/bin/env bash
# TUI tests of the keys htop and top users reach for, through tmux, on a
# master that respawns its workers (tests/workloads/respawn.sh): p shows
# the workers' titles (command lines), k sends a signal after a menu naming
# the process and the status line says what happened (the master then
# starts a new worker, which appears), ESRCH when the process has gone, Esc
# sends nothing; batch JSON and text carry the titles; Z pauses; b shows bytes; the footer names the function
# keys when wide, and at 80 columns keeps Quit while the header keeps the
# totals; K shows the kernel threads hidden at start.
#
# Environment: COWTOP (cowtop binary), srcdir (the source tree).
# Needs root (cowtop loads eBPF programs) and tmux.
set -uo pipefail

COWTOP=${COWTOP:-./cowtop}
TOP=${srcdir:-.}
SOCK=cowtop-keys-$$
SESSION=keys
NSTARTS=0
PASSED=0
FAILED=0
MASTER=
OUT=
# shellcheck source=tests/tui/tmux.sh
. "$TOP/tests/tui/tmux.sh"
# shellcheck source=tests/tui/checks.sh
. "$TOP/tests/tui/checks.sh"


# The process rows on screen: lines that start with a PID and a state.
rows() { screen | grep -E '^ *[0-9]+ [A-Z?] ' || true; }
row_of() { rows | awk -v pid="$1" '$1 == pid { print; found = 1 } END { exit !found }'; }
line_lacks() { ! screen | sed -n "$1p" | grep -qF -- "$2"; }
width_at_most() {
	local w
	w=$(screen | while IFS= read -r l; do echo "${#l}"; done | sort -n | tail -n 1)
	[[ ${w:-0} -le $1 ]]
}

# The pid of worker K as the master reported it.
worker() { awk -v k="$1" '$1 == "worker" && $3 == k { print $2 }' "$OUT"; }
live_workers() { pgrep -P "$MASTER" | wc -l; }
# Whether the master reported its worker K (evaluated at each try).
worker_reported() { [[ -n $(worker "$1") ]]; }
# Whether the master has N workers now (evaluated at each try).
workers_are() { [[ $(live_workers) -eq $1 ]]; }
# The row of the worker started after the first two: under the master,
# named, or titled when command lines are shown: new_worker_shown TEXT.
new_worker_shown() {
	local p
	p=$(worker 3)
	[[ -n $p ]] && row_of "$p" | grep -qF -- "─ $1"
}
# The row of pid shows it exited (X), or it has left the table.
exited_or_gone() { [[ -z $(row_of "$1") ]] || row_of "$1" | grep -qE "^ *$1 X "; }

# Start cowtop in a fresh pane of the given size: start COLS LINES ARGS...
# A new session is made before the old one is killed: killing the last
# session stops the server, and a new-session racing with that fails.
start() {
	local cols=$1 lines=$2 old=$SESSION
	shift 2
	SESSION=keys$((++NSTARTS))
	t new-session -d -s "$SESSION" -x "$cols" -y "$lines" \
		"LANG=C.UTF-8 LC_ALL= '$COWTOP' -d 0.5 $*; sleep 600"
	t kill-session -t "=$old" 2>/dev/null || true # "=": that name exactly, not a prefix
}

cleanup() {
	[[ -n $MASTER ]] && kill "$MASTER" 2>/dev/null
	tmux_stop
	[[ -n $OUT ]] && rm -f "$OUT"
}

# Kill a worker from the menu: named, sent, reported; a new worker appears.
test_kill() {
	local w1
	w1=$(worker 1)
	keys t /
	t send-keys -t "$SESSION" -l "respawn-worker[1]"
	keys Enter
	expect "names shown: the filter does not look at titles" eval "! row_of $w1"
	keys p
	expect "command lines shown (p): the filter matches a worker by its title" row_of "$w1"
	keys k
	expect "k opens the menu naming the process" status_has "to PID $w1 sleep (respawn-worker[1] 600)?"
	expect "the menu offers TERM to USR2" status_has "[TERM]  KILL   HUP   INT   QUIT   USR1   USR2"
	expect "the footer says how to pick, send, cancel" footer_has "EnterSend"
	keys Enter
	expect "the status line reports the signal sent" status_has "sent TERM to PID $w1 sleep (respawn-worker[1] 600)"
	expect "the worker got it and exited" exited_or_gone "$w1"
	keys Escape t p
	expect "the master's new worker appears in the tree" new_worker_shown sleep
	keys p
	expect "... with its own title" new_worker_shown "respawn-worker[3] 600"
	keys p
}

# The menu on a process that dies before Enter: ESRCH; Esc sends nothing.
test_kill_errors() {
	local w2
	w2=$(worker 2)
	keys t p /
	t send-keys -t "$SESSION" -l "respawn-worker[2]"
	keys Enter
	expect "worker 2 shown alone" row_of "$w2"
	keys F9
	expect "F9 opens the menu too" status_has "to PID $w2 "
	kill -KILL "$w2"
	eventually 10 test ! -e "/proc/$w2" || fail "worker 2 was not reaped"
	keys Right Enter
	expect "a process gone: the status line says ESRCH" status_has "No such process (ESRCH)"
	expect "... for the signal picked" status_has "cannot send KILL to PID $w2"
	keys Escape t p
	expect "worker 4 appears" row_of "$(worker 4)"
	# the selection stayed on worker 2, exited: k on the first row
	keys Home k
	expect "k opens the menu on the first row" status_has "[TERM]"
	keys Escape
	expect "Esc closes the menu, nothing sent" status_has "no signal sent"
}

# p, b, Z: command lines, bytes, pause.
test_view_keys() {
	expect "names at start: the workers show as sleep" screen_has "─ sleep"
	keys p
	expect "p: command lines, the workers' titles" screen_has "─ respawn-worker["
	keys p
	expect "p again: names" screen_has "─ sleep"
	keys b
	expect "b: copies in bytes" screen_has "CoW B/s"
	expect "b: the header rate in bytes" screen_has "iB/s  copies "
	keys b
	expect "b again: pages" screen_lacks "CoW B/s"
	keys Z
	expect "Z pauses" status_has "PAUSED"
	keys Z
	expect "Z again resumes" eval '! status_has PAUSED'
}

# The footer and header by width.
test_widths() {
	expect "wide: the footer names htop's function keys" footer_has "F10Quit"
	expect "wide: F1 Help, F9 Kill" footer_has "F9Kill"
	t resize-window -t "$SESSION" -x 80 -y 30
	expect "80 columns: the footer keeps Quit" footer_has "qQuit"
	expect "80 columns: the header drops the mechanism" line_lacks 1 "mechanism"
	expect "80 columns: the header keeps the totals" screen_has "copies "
	expect "80 columns: nothing wider than the screen" width_at_most 80
}

# Batch output of the same processes: cmdline in JSON and in text, and -p
# taking a list.
test_batch() {
	local w1 json text
	w1=$(worker 1)
	json=$("$COWTOP" -b -f json -n 2 -d 0.3 -p "$MASTER,$w1" 2>&1)
	if jq -e -s --argjson p "$w1" '[.[-1].processes[] | select(.pid == $p)] | length == 1 and
		.[0].cmdline == "respawn-worker[1] 600" and .[0].comm == "sleep"' <<<"$json" >/dev/null; then
		pass "JSON: the worker's cmdline is its title, its comm its name"
	else
		fail "JSON: cmdline of $w1: $(jq -c -s '.[-1].processes' <<<"$json" 2>&1 | head -c 600)"
	fi
	text=$("$COWTOP" -b -n 1 -p "$MASTER" 2>&1)
	if grep -qxF "cmdline $w1: respawn-worker[1] 600" <<<"$text"; then
		pass "batch text: a cmdline line for the worker"
	else
		fail "batch text: no cmdline line for $w1: $text"
	fi
}

# No process row, on a screen that can be read.
no_rows() { screen >/dev/null && [[ -z $(rows) ]]; }

# K: kernel threads hidden at start, shown after K (watching everything).
test_kthreads() {
	start 120 30
	expect "everything watched" screen_has "shown"
	keys /
	t send-keys -t "$SESSION" -l "kthreadd"
	keys Enter
	expect "kernel threads hidden at start" no_rows
	keys K
	expect "K shows them" row_of 2
	expect "... and says so" status_has "kernel threads shown"
	keys q
}

# The batch header's total of copies never goes down, though a worker
# exits in the middle and batch forgets it after the frame of its exit.
test_totals() {
	local out w totals
	out=$(mktemp "${TMPDIR:-/tmp}/cowtop-totals.XXXXXX") || return
	w=$(pgrep -P "$MASTER" | head -n 1)
	"$COWTOP" -b -n 8 -d 0.3 -p "$MASTER" >"$out" 2>&1 &
	sleep 1
	kill "$w"
	wait $!
	totals=$(sed -n 's/.*  cow \([0-9]*\) pages .*/\1/p' "$out" | tr '\n' ' ')
	if [[ $(wc -w <<<"$totals") -ge 6 ]] && sort -n -c <(tr ' ' '\n' <<<"$totals" | sed '/^$/d') 2>/dev/null &&
		grep -q "^cmdline $w:" "$out"; then
		pass "batch: the total of copies never goes down ($totals)"
	else
		fail "batch: totals went down or too few frames ($totals)"
	fi
	rm -f "$out"
}

main() {
	[[ $(id -u) -eq 0 ]] || die "must run as root: cowtop loads eBPF programs"
	command -v tmux >/dev/null || die "tmux is needed"
	[[ -x $COWTOP ]] || die "no cowtop binary at $COWTOP"
	COWTOP=$(realpath "$COWTOP")
	trap cleanup EXIT
	OUT=$(mktemp "${TMPDIR:-/tmp}/cowtop-keys.XXXXXX") || die "no temporary file"
	# Not through setsid: where the shell leads its process group, setsid
	# forks, $! is then setsid's pid, and the master is neither found nor
	# stopped at the end.
	"$TOP/tests/workloads/respawn.sh" 2 600 >"$OUT" &
	MASTER=$!
	eventually 10 workers_are 2 || die "the respawning master did not start"
	eventually 10 worker_reported 2 || die "no worker report"
	test_batch
	start 160 30 -p "$MASTER"
	eventually 10 screen_has "─ sleep" || die "cowtop did not show the workers: $(screen)"
	test_view_keys
	test_widths
	t resize-window -t "$SESSION" -x 160 -y 30
	test_kill
	test_kill_errors
	test_kthreads
	test_totals
	echo "$PASSED passed, $FAILED failed"
	[[ $FAILED -eq 0 ]]
}

main "$@"
