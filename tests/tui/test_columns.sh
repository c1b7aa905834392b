#!/usr/bin/env bash
# TUI tests of the table's columns, through tmux, on the demo (cowtop
# --demo): at 80x24 the copy and memory figures (CoW/s, COW, SHR%, USS,
# PSS) stay and VSZ goes first; at 200x50 every column, the sparkline
# capped and COMMAND near it; at 40x10 COMMAND stays; Left/Right scroll
# COMMAND sideways in a live run.
#
# Environment: COWTOP (cowtop binary), srcdir (the source tree),
# COWTOP_TEST_KEEP=1 keeps the work directory.
# Needs root (the demo is traced with eBPF) and tmux.
set -uo pipefail

COWTOP=${COWTOP:-./cowtop}
TOP=${srcdir:-.}
SOCK=cowtop-columns-$$
SESSION=columns
NSTARTS=0
PASSED=0
FAILED=0
WORK=
# shellcheck source=tests/tui/tmux.sh
. "$TOP/tests/tui/tmux.sh"
# shellcheck source=tests/tui/checks.sh
. "$TOP/tests/tui/checks.sh"

# The process rows on screen: lines that start with a PID.
rows() { screen | grep -E '^ *[0-9]+ ' || true; }
# The column titles: the line with PID and COMMAND.
title_line() { screen | grep -m 1 -E '^ +[^ ]*PID .*COMMAND' || true; }
title_has() { title_line | grep -qF -- "$1"; }
title_lacks() { local l; l=$(title_line); [[ -n $l ]] && ! grep -qF -- "$1" <<<"$l"; }
status_line() { screen | tail -n 2 | head -n 1; }
status_has() { status_line | grep -qF -- "$1"; }
screen_lacks() { ! screen | grep -qF -- "$1"; }
# The screen column (from 0) where the title TEXT starts.
title_col() {
	local l
	l=$(title_line)
	l=${l%%"$1"*}
	echo "${#l}"
}
# At least N demo rows on screen.
rows_at_least() { [[ $(rows | wc -l) -ge $1 ]]; }
# The titles of the demo's table hold every one of TITLES.
titles_all() {
	local w
	for w in "$@"; do title_has "$w" || return 1; done
}

# Start cowtop --demo in a fresh pane of the given size: start COLS LINES
# [ARGS...]. A new session is made before the old one is killed: killing the
# last session stops the server.
start() {
	local cols=$1 lines=$2 old=$SESSION
	shift 2
	SESSION=columns$((++NSTARTS))
	t new-session -d -s "$SESSION" -x "$cols" -y "$lines" \
		"XDG_CONFIG_HOME='$WORK/config' LANG=C.UTF-8 LC_ALL= '$COWTOP' --demo $*; echo COWTOP-EXIT=\$?; sleep 600"
	t kill-session -t "=$old" 2>/dev/null || true
	eventually 15 rows_at_least 3 || die "the demo did not start: $(screen)"
}

cleanup() {
	tmux_stop
	if [[ ${COWTOP_TEST_KEEP:-0} == 1 ]]; then
		echo "kept $WORK"
	elif [[ -n $WORK ]]; then
		rm -rf "$WORK"
	fi
}

# 80x24: the figures cowtop is about stay; VSZ and PTE give way.
test_80() {
	start 80 24
	expect "80x24: CoW/s COW SHR% USS PSS in the titles" titles_all "CoW/s" " COW " "SHR%" "USS" "PSS" "COMMAND"
	expect "80x24: VSZ has gone" title_lacks "VSZ"
	expect "80x24: PTE has gone" title_lacks "PTE"
	expect "80x24: the workers' rows show a SHR% figure" eval 'rows | grep -qE " [0-9]+% .*demo-worker"'
	t resize-window -t "$SESSION" -x 40 -y 10
	expect "40x10: CoW/s, COW and COMMAND stay" titles_all "CoW/s" " COW " "COMMAND"
	expect "40x10: the workers are named" eval 'rows | grep -q "demo-worker"'
}

# 200x50: every column; the sparkline capped, so COMMAND starts before
# column 140.
test_200() {
	local c
	t resize-window -t "$SESSION" -x 200 -y 50
	expect "200x50: every column" titles_all "CoW/s" " COW " "RSS" "SHR%" "USS" "PSS" "VSZ" "PTE" "COMMAND"
	c=$(title_col COMMAND)
	if [[ $c -lt 140 ]]; then pass "200x50: COMMAND starts at column $c"; else fail "200x50: COMMAND at column $c"; fi
}

# Left and Right scroll COMMAND in a live run; the tree lines stay.
test_scroll() {
	keys Right
	expect "Right scrolls COMMAND" title_has "COMMAND (scrolled 8)"
	expect "... the workers' names lose 8 columns" eval 'rows | grep -qE "─ ker( |$)"'
	expect "... said on the status line" status_has "COMMAND scrolled 8 columns"
	screen_lacks "time keys move in a recording" && pass "Right is not refused" || fail "Right is refused"
	keys Left
	expect "Left scrolls back" eval 'rows | grep -q "─ demo-worker"'
	expect "... and the title says nothing" title_has "COMMAND"
	expect "... nothing" title_lacks "scrolled"
}

trap cleanup EXIT
command -v tmux >/dev/null || die "tmux is needed"
[[ $(id -u) -eq 0 ]] || die "needs root (the demo is traced with eBPF)"
WORK=$(mktemp -d /tmp/cowtop-columns.XXXXXX)
mkdir -p "$WORK/config"

test_80
test_200
test_scroll
keys q
expect "q quits" screen_has "COWTOP-EXIT=0"
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
