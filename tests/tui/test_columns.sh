#!/usr/bin/env bash
# TUI tests of the table's columns, through tmux, on the demo (cowtop
# --demo): at 80x24 the copy and memory figures (CoW/s, COW, SHR%, USS,
# PSS) stay and VSZ goes first; at 200x50 every column, the sparkline
# capped and COMMAND near it; at 40x10 COMMAND stays; Left/Right scroll
# COMMAND sideways in a live run. htop's habits: F2 hides a column and the
# choice is kept in $XDG_CONFIG_HOME/cowtop/cowtoprc for the next run (a
# bad file is one warning; a symlink there is neither followed nor
# replaced); F3 searches and jumps without filtering; the mouse (xterm
# X10 reports typed into the pane) sorts by a clicked title and selects a
# clicked row.
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
# The screen column (from 0) where the title TEXT starts.
title_col() {
	local l
	l=$(title_line)
	l=${l%%"$1"*}
	echo "${#l}"
}
# The selected row's PID: the row drawn in the selection colours (cyan).
sel_pid() {
	t capture-pane -e -p -t "$SESSION" | grep -E $'^\e\\[30m\e\\[46m *[0-9]+ ' |
		sed -E $'s/\e\\[[0-9;]*m//g' | awk '{ print $1; exit }'
}
sel_is() { [[ $(sel_pid) == "$1" ]]; }
# The PID on screen line N (1-based).
pid_at_line() { screen | sed -n "$1p" | awk '{ print $1 }'; }
# The screen line (1-based) of the column titles.
title_y() { screen | grep -n -m 1 -E '^ +[^ ]*PID .*COMMAND' | cut -d: -f1; }
# A left click at screen column X, line Y (both 0-based), as an xterm
# reports it in X10 mode (what ncurses asks of a TERM=screen terminal).
click() {
	local x y
	x=$(printf "\\$(printf %03o $(($1 + 33)))")
	y=$(printf "\\$(printf %03o $(($2 + 33)))")
	t send-keys -t "$SESSION" -l $'\e[M '"$x$y"
	t send-keys -t "$SESSION" -l $'\e[M#'"$x$y"
	sleep 0.3
}
sort_is() { status_line | grep -qE "^sort $1 "; }
cfg() { cat "$WORK/config/cowtop/cowtoprc" 2>/dev/null; }

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

# F2: hide SHR%, kept for the next run; shown again, kept too.
test_setup() {
	start 100 24
	keys F2
	expect "F2 lists the columns" screen_has "[x] SHR%"
	keys Down Down Down Down Down Space
	expect "Space hides the picked column (SHR%)" screen_has "[ ] SHR%"
	keys Escape
	expect "Esc: back to the table, without SHR%" title_lacks "SHR%"
	expect "... said where it is kept" status_has "columns saved to $WORK/config/cowtop/cowtoprc"
	expect "the file says so" eval 'cfg | grep -qx "hidden_columns=SHR%"'
	expect "... 0600" eval '[[ $(stat -c %a "$WORK/config/cowtop/cowtoprc") == 600 ]]'
	start 100 24
	expect "the next run hides SHR% too" title_lacks "SHR%"
	expect "... and shows the others" titles_all "CoW/s" "USS" "PSS"
	keys F2 Down Down Down Down Down Space F2
	expect "shown again" title_has "SHR%"
	expect "the file says none hidden" eval 'cfg | grep -qx "hidden_columns="'
}

# A bad settings file is one warning and the defaults; a symlink in its
# place is read but never written through nor replaced.
test_setup_hostile() {
	printf 'hidden_columns=VSZ\n\x1b[2J\x01bad=\n' >"$WORK/config/cowtop/cowtoprc"
	start 100 24
	expect "a bad line: one warning naming file and line" \
		status_has "config $WORK/config/cowtop/cowtoprc line 2: not a setting"
	expect "... the good line still taken" title_lacks "VSZ"
	keys q
	expect "... and cowtop quits cleanly" screen_has "COWTOP-EXIT=0"
	rm -f "$WORK/config/cowtop/cowtoprc"
	echo "precious" >"$WORK/victim"
	ln -s "$WORK/victim" "$WORK/config/cowtop/cowtoprc"
	start 100 24
	keys F2 Down Down Down Down Down Space Escape
	expect "saving over a symlink is refused on the status line" \
		status_has "cannot write it: it is a symlink"
	expect "... the file it points to is untouched" eval '[[ $(cat "$WORK/victim") == precious ]]'
	expect "... the symlink stays" test -L "$WORK/config/cowtop/cowtoprc"
	rm -f "$WORK/config/cowtop/cowtoprc"
}

# F3: type, the selection jumps; F3: the next; Enter keeps it; nothing
# is filtered.
test_search() {
	local first
	keys N
	expect "sorted by PID" sort_is pid
	keys F3
	expect "F3 opens the search prompt" eval 'status_line | grep -q "^Search:"'
	t send-keys -t "$SESSION" -l "worker"
	sleep 0.3
	expect "typing jumps to the first worker" eval 'screen | grep -q "─ demo-worker" && [[ $(sel_pid) == $(pid_at_line $(( $(title_y) + 2 ))) ]]'
	first=$(sel_pid)
	keys F3
	expect "F3 again: the next worker" eval '[[ $(sel_pid) == $(pid_at_line $(( $(title_y) + 3 ))) ]]'
	keys Enter
	expect "Enter: back, every row still shown" eval '[[ $(rows | wc -l) -ge 5 ]]'
	screen_lacks "filter \"" && pass "a search is no filter" || fail "a search filtered"
	keys F3
	t send-keys -t "$SESSION" -l "zzz"
	sleep 0.3
	expect "no match says so" status_has "(no match)"
	keys Escape
	[[ -n $first ]] || fail "no first match"
}

# The mouse: a click on a title sorts by it (again: reversed), on a row
# selects it.
test_mouse() {
	local y x l pid
	y=$(($(title_y) - 1))
	l=$(title_line)
	l=${l%%" COW "*}
	x=$((${#l} + 3))
	click "$x" "$y"
	expect "a click on COW sorts by it" sort_is cow
	click "$x" "$y"
	expect "a click again reverses" sort_is "cow \(reversed\)"
	l=$(title_line)
	l=${l%%"PID "*}
	click "${#l}" "$y"
	expect "a click on PID sorts by it" sort_is pid
	pid=$(pid_at_line $((y + 4)))
	click 3 $((y + 3))
	expect "a click on a row selects it (PID $pid)" sel_is "$pid"
	pid=$(pid_at_line $((y + 3)))
	click 40 $((y + 2))
	expect "another row (PID $pid)" sel_is "$pid"
}

trap cleanup EXIT
command -v tmux >/dev/null || die "tmux is needed"
[[ $(id -u) -eq 0 ]] || die "needs root (the demo is traced with eBPF)"
WORK=$(mktemp -d /tmp/cowtop-columns.XXXXXX)
mkdir -p "$WORK/config/cowtop"

test_80
test_200
test_scroll
test_setup
test_setup_hostile
test_search
test_mouse
expect "the pane reports mouse events while cowtop runs" pane_flag_is mouse_any_flag 1
keys q
expect "q quits" screen_has "COWTOP-EXIT=0"
expect "... and turns the mouse reports off again" pane_flag_is mouse_any_flag 0
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
