#!/usr/bin/env bash
# Hardening: the terminal cowtop is given.
#  - sizes 500x200, 20x5, 1x1 and bursts of resizes: it keeps running, lays
#    out at once, never draws wider than the pane, does not spin;
#  - an unknown terminal type, or none: one clear line, exit 1, nothing
#    attached, the command not started, the terminal untouched;
#  - LANG=C: ASCII only on the terminal;
#  - standard output (or input) not a terminal, no -b: batch output, as
#    documented.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The widest line on screen fits in n columns.
width_at_most() {
	local w
	w=$(screen | while IFS= read -r l; do echo "${#l}"; done | sort -n | tail -n 1)
	[[ ${w:-0} -le $1 ]]
}

# Rows: a PID, then the state or, on a narrow screen, COMMAND.
nrows_at_least() {
	[ "$(screen | grep -cE '^ *[0-9]+ [^ ]')" -ge "$1" ]
}

# CPU ticks (user + system) a process used so far.
cpu_ticks() {
	LC_ALL=C sed -z 's/.*) //' "/proc/$1/stat" 2>/dev/null | tr '\0' ' ' | awk '{ print $12 + $13 }'
}

# Less than a quarter of a CPU over a second.
not_spinning() {
	local a b
	a=$(cpu_ticks "$1")
	sleep 1
	b=$(cpu_ticks "$1")
	[ $((b - a)) -lt 25 ]
}

cowtop_alive() {
	! gone "$PANE_COWTOP"
}

test_sizes() {
	local i
	tui_start 500 200 "$WORK/sizes.raw" "LANG=C.UTF-8 '$COWTOP' -d 0.3"
	expect "500x200: the footer on line 200" line_has 200 "Help"
	expect "500x200: the header on line 1" line_has 1 "cowtop "
	expect "500x200: nothing wider than the pane" width_at_most 500
	expect "500x200: rows shown" nrows_at_least 5
	for ((i = 0; i < 200; i++)); do
		t resize-window -t "$SESSION" -x $((RANDOM % 300 + 1)) -y $((RANDOM % 100 + 1))
	done
	t resize-window -t "$SESSION" -x 1 -y 1
	sleep 0.5
	check "a burst of 200 resizes, then 1x1: still running" cowtop_alive
	for ((i = 0; i < 60; i++)); do
		t resize-window -t "$SESSION" -x $((i % 3 + 1)) -y $((i % 4 + 1))
	done
	sleep 0.5
	check "a burst of tiny sizes: still running" cowtop_alive
	check "1x1 and tiny sizes: not spinning" not_spinning "$PANE_COWTOP"
	t resize-window -t "$SESSION" -x 20 -y 5
	expect "20x5: the footer on line 5" line_has 5 "Help"
	expect "20x5: a row shown" nrows_at_least 1
	expect "20x5: nothing wider than the pane" width_at_most 20
	t resize-window -t "$SESSION" -x 120 -y 40
	expect "120x40 again: the footer on line 40" line_has 40 "Help"
	expect "120x40 again: the full history title" screen_has "history (max "
	expect "120x40 again: nothing wider than the pane" width_at_most 120
	keys q
	expect "quits" screen_has "COWTOP-EXIT=0"
	t kill-session -t "$SESSION" 2>/dev/null || true
}

# TERM=VALUE (or unset with "-"): expect_bad_term VALUE TEXT.
expect_bad_term() {
	local term=$1 text=$2 name=term-${1//[^a-z]/_} env before leaked marker=$WORK/started
	rm -f "$marker"
	if [ "$term" = - ]; then
		env="env -u TERM"
	else
		env="env TERM=$term"
	fi
	before=$(our_prog_ids)
	on_tty "$name" "$env $(printf %q "$COWTOP") -- sh -c 'touch $marker; sleep 5'"
	expect_eq "TERM '$term': exit status" "$RC" 1
	expect_eq "TERM '$term': one line" "$(tty_text "$name")" "cowtop: $text"
	check "TERM '$term': the terminal untouched (no escape sequence)" no_esc "$WORK/$name.tty"
	sleep 0.3
	check "TERM '$term': the command was not started" test ! -e "$marker"
	leaked=$(leaked_progs "$before")
	expect_eq "TERM '$term': no BPF program left" "${leaked// /}" ""
}

test_bad_term() {
	expect_bad_term xyz-unknown \
		"unknown terminal type 'xyz-unknown': cannot show the full-screen view (use -b for text)"
	expect_bad_term - "TERM is not set: cannot show the full-screen view (use -b for text)"
	expect_bad_term dumb \
		"terminal type 'dumb' cannot move the cursor: cannot show the full-screen view (use -b for text)"
	# the demo too: refused before its workload starts
	on_tty dumb-demo "env TERM=dumb $(printf %q "$COWTOP") --demo"
	expect_eq "TERM=dumb --demo: exit status" "$RC" 1
	expect_eq "TERM=dumb --demo: one line" "$(tty_text dumb-demo)" \
		"cowtop: terminal type 'dumb' cannot move the cursor: cannot show the full-screen view (use -b for text)"
}

# Tree lines drawn in ASCII on screen.
ascii_tree() {
	screen | grep -qE '^ *[0-9]+ [A-Z?] .*(\|-|`-) '
}

# No 8-bit byte in a file.
no_8bit() {
	! LC_ALL=C grep -q $'[\x80-\xff]' "$1"
}

test_ascii_locale() {
	tui_start 120 30 "$WORK/ascii.raw" "LANG=C LC_ALL= '$COWTOP' -d 0.3"
	expect "LANG=C: tree lines drawn in ASCII" ascii_tree
	keys q
	expect "LANG=C: quits" screen_has "COWTOP-EXIT=0"
	check "LANG=C: no 8-bit byte written to the terminal" no_8bit "$WORK/ascii.raw"
	t kill-session -t "$SESSION" 2>/dev/null || true
}

test_not_a_tty() {
	# standard output a file, input a terminal
	on_tty notty-out "$(printf %q "$COWTOP") -n 2 -d 0.2 >$WORK/notty.txt"
	expect_eq "stdout not a terminal: exit status" "$RC" 0
	check "stdout not a terminal: batch text" grep -qE '^cowtop [0-9:]+  interval' "$WORK/notty.txt"
	expect_eq "stdout not a terminal: two frames" "$(grep -c '^cowtop ' "$WORK/notty.txt")" 2
	check "stdout not a terminal: no escape sequence" no_esc "$WORK/notty.txt"
	check "stdout not a terminal: nothing written to the terminal" test ! -s "$WORK/notty-out.tty"
	# JSON asked for: JSON
	on_tty notty-json "$(printf %q "$COWTOP") -f json -n 2 -d 0.2 >$WORK/notty.json"
	check "stdout not a terminal, -f json: JSON lines" json_lines "$WORK/notty.json"
	# standard input not a terminal, output one
	on_tty notty-in "$(printf %q "$COWTOP") -n 2 -d 0.2 </dev/null"
	expect_eq "stdin not a terminal: exit status" "$RC" 0
	check "stdin not a terminal: batch text on the terminal" grep -qE '^cowtop [0-9:]+  interval' "$WORK/notty-in.tty"
	check "stdin not a terminal: no escape sequence" no_esc "$WORK/notty-in.tty"
}

main() {
	hard_setup
	test_sizes
	test_bad_term
	test_ascii_locale
	test_not_a_tty
	hard_finish
}

main "$@"
