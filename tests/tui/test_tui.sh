#!/usr/bin/env bash
# TUI tests: run cowtop's full-screen view in a detached tmux pane of fixed
# size, drive it with send-keys and read the screen back with capture-pane.
# Runs in UTF-8 (LANG=C.UTF-8), ASCII (LANG=C) and --ascii modes, then the
# sharing view (memory columns, group line) with every process read, the
# regions and copy-sites panes on regionload, the objects pane on a CPython
# workload (skipped without python3.11), then with USDT probes on a Ruby
# workload (skipped without a Ruby that has them).
#
# Environment:
#   COWTOP   cowtop binary (default ./cowtop)
#   COWLOAD  workload binary (default ./tests/workloads/cowload)
#   REGIONLOAD  regions workload binary (default ./tests/workloads/regionload)
#   COWTOP_TUI_MODES  modes to run (default "utf8 ascii-locale ascii-flag sharing regions objects
#                     usdt")
#   COWTOP_TEST_KEEP  1: keep the work directory
#
# Needs root (cowtop loads eBPF programs) and tmux.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR

COWTOP=${COWTOP:-./cowtop}
COWLOAD=${COWLOAD:-./tests/workloads/cowload}
REGIONLOAD=${REGIONLOAD:-./tests/workloads/regionload}
MODES=${COWTOP_TUI_MODES:-utf8 ascii-locale ascii-flag sharing regions objects usdt}
OBJFORK=$(dirname "$0")/../workloads/objfork.py
SOCK=cowtop-tui-$$
SESSION=tui
PASSED=0
FAILED=0
WORK=
DIR=
PANE_PID=
COWTOP_PID=
# The sharing view's group line: three workers, footprint, worker USS,
# headroom ("+N workers", "settling" until settled, or "-" when not known).
GROUP_RE=
ESC=$'\e'
# shellcheck source=tests/tui/tmux.sh
. "$(dirname "$0")/tmux.sh"
# shellcheck source=tests/tui/checks.sh
. "$(dirname "$0")/checks.sh"


# The screen with its attributes as escape sequences.
screen_attrs() {
	t capture-pane -e -p -t "$SESSION"
}

# Check that a command succeeds within 10 seconds: expect DESC CMD [ARGS...].
expect() {
	local desc=$1
	shift
	if eventually 10 "$@"; then
		pass "$MODE: $desc"
	else
		fail "$MODE: $desc"
	fi
}

# Type a literal string.
type_text() {
	t send-keys -t "$SESSION" -l "$1"
	sleep 0.15
}

# The process rows on screen: lines that start with a PID and a state.
rows() {
	screen | grep -E '^ *[0-9]+ [A-Z?] ' || true
}

# The PIDs of the rows, in screen order, one a line.
row_pids() {
	rows | awk '{ print $1 }'
}

# The row of pid on screen.
row_of() {
	rows | awk -v pid="$1" '$1 == pid'
}

# The PID of the selected row: the one drawn in the selection colours.
sel_pid() {
	screen_attrs | sed -n "s/^\(\(${ESC}\[[0-9;]*m\)*\) *\([0-9][0-9]*\) [A-Z?] .*/\1 \3/p" |
		grep -E '(\[|;)(46|7)(;|m)' | awk '{ print $NF }' | head -n 1
}

# The report line fields of the workload: pid of role R with W writes.
report_pid() {
	awk -v role="$1" -v w="$2" '$1 != "main" && $8 == role && $6 == w { print $2 }' "$DIR/report"
}

# The main workload pid.
main_pid() {
	awk '$1 == "main" { print $2; exit }' "$DIR/report"
}

# Conditions polled by expect.
nrows_is() { [[ $(rows | wc -l) -eq $1 ]]; }
first_pid_is() { [[ $(row_pids | head -n 1) == "$1" ]]; }
sel_is() { [[ $(sel_pid) == "$1" ]]; }
pane_lines_is() { [[ $(screen | wc -l) -eq $1 ]]; }
cowtop_alive() { kill -0 "$COWTOP_PID"; }
cowtop_gone() { ! kill -0 "$COWTOP_PID"; }

# Row n on screen is pid: row_at_is N PID.
row_at_is() {
	[[ $(row_pids | sed -n "${1}p") == "$2" ]]
}

# The last row is the selected one.
sel_is_last() {
	[[ $(sel_pid) == "$(row_pids | tail -n 1)" ]]
}

# The flat list draws no tree lines.
no_tree_lines() {
	! rows | grep -qE -- "$TREE_RE"
}

# Nothing of USDT probes on screen when none were asked for.
no_usdt_shown() {
	screen_lacks "probes" && screen_lacks "Log" && screen_lacks "phases"
}

# The history title lost its long form for want of room.
title_shrunk() {
	screen | grep -qE ' (max [^ ]+/s|history) +COMMAND' && screen_lacks "CoW/s history"
}

# Rows in ascending PID order.
pids_ascending() {
	local p
	p=$(row_pids)
	[[ -n $p && $p == "$(sort -n <<<"$p")" ]]
}

# The busiest child is the first row below the main process (tree) or the
# first row (flat).
busiest_first() {
	if [[ $1 == tree ]]; then
		[[ $(row_pids | sed -n 2p) == "$BUSY" ]]
	else
		first_pid_is "$BUSY"
	fi
}

# Children drawn below the main process with tree lines, the main without.
tree_lines() {
	local main child
	main=$(row_of "$MAIN")
	[[ -n $main && $(row_pids | head -n 1) == "$MAIN" ]] || return 1
	grep -qE -- "$TREE_RE" <<<"$main" && return 1
	for child in "$BUSY" "$MID" "$IDLE" "$EVIL"; do
		row_of "$child" | grep -qE -- "$TREE_RE" || return 1
	done
}

# The table uses only the glyphs of the mode.
glyphs_ok() {
	if [[ $UTF8 == 1 ]]; then
		rows | grep -q '[▁▂▃▄▅▆▇█]'
	else
		! screen | LC_ALL=C grep -q $'[\x80-\xff]' && rows | grep -qE '[_.:=+*#%@-]{5}'
	fi
}

# A hostile name is shown escaped, and the screen was not cleared by it.
hostile_escaped() {
	row_of "$EVIL" | grep -qF 'x\e[2Jevil' && line_has 1 "cowtop "
}

# The header clock and rows do not move while paused.
frozen() {
	local a b
	a=$(screen)
	sleep 1.3
	b=$(screen)
	[[ $a == "$b" ]]
}

# The screen changes within a second and a bit.
not_frozen() {
	! frozen
}

# Exactly one snapshot in the work directory, mode 0600, no escapes, and
# every row on screen is one of its lines.
snapshot_matches() {
	local f line shown
	f=$(find "$DIR" -maxdepth 1 -name 'cowtop-*.txt')
	[[ -n $f && $(wc -l <<<"$f") -eq 1 ]] || return 1
	[[ $(stat -c %a "$f") == 600 ]] || return 1
	! grep -q "$ESC" "$f" || return 1
	grep -qE '^ +PID S ' "$f" || return 1
	shown=$(rows)
	[[ -n $shown ]] || return 1
	while IFS= read -r line; do
		line=${line%"${line##*[! ]}"}
		grep -qxF -- "$line" "$f" || return 1
	done <<<"$shown"
	[[ $(grep -cE '^ *[0-9]+ [A-Z?] ' "$f") -eq $(wc -l <<<"$shown") ]] || return 1
	head -n 1 "$f" | grep -q '^cowtop '
}

# No temporary file left beside the snapshot.
no_temp_files() {
	[[ -z $(find "$DIR" -maxdepth 1 -name '.cowtop-*') ]]
}

# The widest line on screen fits in n columns.
width_at_most() {
	local w
	w=$(screen | while IFS= read -r l; do echo "${#l}"; done | sort -n | tail -n 1)
	[[ ${w:-0} -le $1 ]]
}

# Start cowtop on the workload in a fresh 120x40 pane.
start() {
	local lang=$1 opts=$2 evil
	DIR=$WORK/$MODE
	mkdir -p "$DIR"
	evil="$DIR/x${ESC}[2Jevil"
	ln -s "$(command -v sleep)" "$evil"
	t new-session -d -s "$SESSION" -x 120 -y 40 \
		"cd '$DIR' && LANG=$lang LC_ALL= '$COWTOP' $opts -d 0.5 -- '$COWLOAD' \
		--child-writes 100,1000,12000 --rounds 1200 --round-ms 100 --exec-writes 10 \
		--report '$DIR/report' -- '$evil' 300; echo COWTOP-EXIT=\$?; sleep 600"
	PANE_PID=$(t display -p -t "$SESSION" '#{pane_pid}')
	eventually 10 pgrep -P "$PANE_PID" >/dev/null || die "cowtop did not start"
	COWTOP_PID=$(pgrep -P "$PANE_PID" | head -n 1)
	eventually 10 test -s "$DIR/report" || die "the workload did not start"
	eventually 10 grep -q 'role exec' "$DIR/report" || die "the workload did not fork"
	MAIN=$(main_pid)
	BUSY=$(report_pid child 12000)
	MID=$(report_pid child 1000)
	IDLE=$(report_pid child 100)
	EVIL=$(report_pid exec 10)
}

# Whether pid is still one of the workload's processes (not a reused pid).
ours() {
	[[ $(readlink "/proc/$1/exe" 2>/dev/null) == "$COWLOAD" ]] ||
		{ tr '\0' '\n' <"/proc/$1/cmdline"; } 2>/dev/null | grep -qF -- "$DIR/"
}

# Stop the pane and whatever the workload left running.
stop() {
	local p
	t kill-session -t "$SESSION" 2>/dev/null || true
	if [[ -n $DIR && -f $DIR/report ]]; then
		while read -r _ p _; do
			if ours "$p"; then
				kill "$p" 2>/dev/null || true
			fi
		done <"$DIR/report"
	fi
}

# Tree lines, sparklines, sorting by CoW rate, hostile names.
test_layout() {
	expect "five processes shown" nrows_is 5
	expect "children appear under their parent with tree lines" tree_lines
	expect "the busiest child is first under its parent" busiest_first tree
	expect "sparkline glyphs of the mode" glyphs_ok
	expect "the history column shows its scale" screen_has "history (max "
	expect "a hostile process name is escaped" hostile_escaped
	expect "lost events are shown" screen_has "lost 0"
	expect "no probes: no probe count, no log hint" no_usdt_shown
	keys l
	expect "without probes, l says how to get some" screen_has "no USDT probes attached"
	keys t
	expect "flat list: the busiest process first" busiest_first flat
	expect "flat list has no tree lines" no_tree_lines
	keys t
	expect "tree again" tree_lines
	keys N
	expect "sorting by PID" pids_ascending
	keys C
	expect "back to sorting by CoW rate" busiest_first tree
}

# Follow keeps the selection on its process while rows move.
test_follow() {
	keys Home j
	expect "the selection moves down" sel_is "$BUSY"
	keys F
	expect "follow is announced" screen_has "following PID $BUSY"
	keys N
	expect "sorting by PID moves the followed row" row_at_is 4 "$BUSY"
	expect "the selection stayed on the followed process" sel_is "$BUSY"
	keys R
	expect "reversed, the selection still follows" sel_is "$BUSY"
	keys C j
	expect "moving by hand stops following" screen_lacks "following"
	keys Home
	expect "Home selects the first row" sel_is "$MAIN"
	keys End
	expect "End selects the last row" sel_is_last
}

# Focus on a subtree and back out.
test_focus() {
	keys Home j
	expect "the busiest child selected" sel_is "$BUSY"
	keys Enter
	expect "focus shows only the selected subtree" nrows_is 1
	expect "the focused process is the row" first_pid_is "$BUSY"
	keys BSpace
	expect "Backspace goes back to every process" nrows_is 5
	expect "the previously focused process is selected" sel_is "$BUSY"
	keys Home f
	expect "focus on the parent keeps its children" nrows_is 5
	expect "the focus is announced" screen_has "focus on PID $MAIN"
	keys j Enter
	expect "nested focus" nrows_is 1
	keys Escape
	sleep 0.3
	expect "Esc goes back one level" nrows_is 5
	keys u
	expect "u leaves the last focus" screen_lacks "focus PID"
}

# Filter by name, help, delay.
test_filter_help_delay() {
	keys /
	type_text evil
	keys Enter
	expect "the filter keeps the match and its parent" nrows_is 2
	expect "the filter is shown" screen_has 'filter "evil"'
	keys Escape
	sleep 0.3
	expect "Esc clears the filter" nrows_is 5
	keys "\\"
	type_text nomatch
	expect "the filter applies while typed" nrows_is 0
	keys Escape
	sleep 0.3
	expect "Esc in the prompt clears it" nrows_is 5
	keys h
	expect "help lists the follow key" screen_has "follow the selected process"
	expect "help lists the snapshot key" screen_has "write the view as text to ./cowtop-"
	keys x
	expect "any key leaves the help" screen_has "COMMAND"
	keys d
	type_text 2
	keys Enter
	expect "the refresh interval changes" screen_has "refresh 2.0s"
	keys s
	type_text 0.5
	keys Enter
	expect "and changes back" screen_has "refresh 0.5s"
	keys d
	type_text 0.01
	keys Enter
	expect "a too-short interval is refused" screen_has "invalid delay"
}

# Pause freezes the view; the snapshot writes what is shown.
test_pause_snapshot() {
	keys Space
	expect "pause is shown" screen_has "[PAUSED]"
	expect "nothing moves while paused" frozen
	keys w
	expect "the status line says where the snapshot went" screen_has "snapshot written to ./cowtop-"
	expect "the snapshot holds exactly the rows on screen" snapshot_matches
	expect "no temporary file is left" no_temp_files
	keys Space
	expect "resumed" screen_lacks "[PAUSED]"
	expect "the view moves again" not_frozen
}

# Resizes re-lay out at once; tiny sizes do not crash.
test_resize() {
	t resize-window -t "$SESSION" -x 80 -y 20
	expect "80x20: twenty lines" pane_lines_is 20
	expect "80x20: the footer is on the last line" line_has 20 "Help"
	expect "80x20: nothing wider than the pane" width_at_most 80
	expect "80x20: the history title shrinks" title_shrunk
	expect "80x20: rows still shown" nrows_is 5
	t resize-window -t "$SESSION" -x 20 -y 5
	expect "20x5: the footer is on line 5" line_has 5 "Help"
	expect "20x5: a row still shown, PID and COMMAND" eval '[[ $(screen | grep -cE "^ *[0-9]+ [^ ]") -eq 1 ]]'
	t resize-window -t "$SESSION" -x 1 -y 1
	sleep 1
	expect "1x1: still running" cowtop_alive
	t resize-window -t "$SESSION" -x 120 -y 40
	expect "120x40 again: the footer is on line 40" line_has 40 "Help"
	expect "120x40 again: every row back" nrows_is 5
	expect "120x40 again: the history title with its scale" screen_has "history (max "
}

# q quits and gives the terminal back.
test_quit() {
	expect "full screen while running" pane_flag_is alternate_on 1
	keys q
	expect "cowtop exits on q" screen_has "COWTOP-EXIT=0"
	expect "the process is gone" cowtop_gone
	expect "the normal screen is back" pane_flag_is alternate_on 0
	expect "the cursor is visible again" pane_flag_is cursor_flag 1
}

# The row of pid is drawn dimmed (SGR 2).
dimmed() {
	screen_attrs | grep -E "^(${ESC}\[[0-9;]*m)* *$1 [A-Z?] " | grep -qE '(\[|;)2(;|m)'
}

# The row of pid is shown, not dimmed.
not_dimmed() {
	[[ -n $(row_of "$1") ]] && ! dimmed "$1"
}

# Field n of the row of pid.
row_field() {
	row_of "$1" | awk -v n="$2" '{ print $n }'
}

# Field n of the row of pid is v: row_field_is PID N V.
row_field_is() {
	[[ $(row_field "$1" "$2") == "$3" ]]
}

# Field n of the row of pid is a number of at least v.
row_field_at_least() {
	local f
	f=$(row_field "$1" "$2")
	[[ $f =~ ^[0-9]+$ ]] && ((f >= $3))
}

# The marker log's line of PID's exit, with its cause: log_exit PID CAUSE.
log_exit() {
	screen | grep -qE "^[0-9:.]+ +$1 .* $2 *$"
}

# Exited processes stay on screen, dimmed, with their final counts; the
# command's output goes to --command-output's file (not to the screen),
# and the exit is in the marker log with its cause.
test_exited() {
	local lang=$1 opts=$2 short
	DIR=$WORK/$MODE-exited
	mkdir -p "$DIR"
	t new-session -d -s "$SESSION" -x 120 -y 40 \
		"cd '$DIR' && LANG=$lang LC_ALL= '$COWTOP' $opts -d 0.5 --linger 120 \
		--command-output '$DIR/command.out' -- sh -c 'echo said-by-the-command; echo and-on-stderr >&2; \
		exec \"\$0\" \"\$@\"' '$COWLOAD' \
		--short 1 --short-writes 300 --child-writes 10 --rounds 600 \
		--report '$DIR/report'; echo COWTOP-EXIT=\$?; sleep 600"
	eventually 10 grep -q 'role short' "$DIR/report" || die "the workload did not fork"
	short=$(report_pid short 300)
	expect "an exited process stays, in state X" row_field_is "$short" 2 X
	expect "with its final count of copies" row_field_at_least "$short" 4 300
	expect "drawn dimmed" dimmed "$short"
	expect "a running process is not dimmed" not_dimmed "$(main_pid)"
	expect "the command's output went to its file" grep -qx said-by-the-command "$DIR/command.out"
	expect "... its standard error too" grep -qx and-on-stderr "$DIR/command.out"
	expect "... and not to the screen" screen_lacks said-by-the-command
	keys l
	expect "the marker log shows the exit with its cause" log_exit "$short" "exit:code 0"
	keys l
	keys q
	expect "quits" screen_has "COWTOP-EXIT=0"
	stop
}

# The column titles of the table.
title_line() {
	screen | grep -m 1 -E '^ +PID S '
}

# SHR%, FAM%, USS and PSS together in the titles of file or screen (RSS
# before them leaves first, below 84 columns).
mem_titles_in() {
	grep -qE ' SHR% +[^ ]*FAM% +[^ ]*USS +[^ ]*PSS '
}
mem_titles_shown() { title_line | mem_titles_in; }

# Every column, VSZ after the memory columns.
all_titles_shown() { title_line | grep -qE ' RSS +[^ ]*SHR% +[^ ]*FAM% +[^ ]*USS +[^ ]*PSS +[^ ]*VSZ +[^ ]*PTE '; }

# The memory columns and the history, VSZ gone first.
vsz_gone_mem_kept() {
	local l
	l=$(title_line)
	[[ -n $l ]] && mem_titles_in <<<"$l" && ! grep -qE 'VSZ' <<<"$l" && rows | grep -q '[▁▂▃▄▅▆▇█]'
}

# One row on input, with two percentages, then two sizes, in the SHR%,
# FAM%, USS and PSS fields.
row_mem_read() {
	awk '{ n++; ok = $6 ~ /^[0-9]+%$/ && $7 ~ /^[0-9]+%$/ && $8 ~ /^[0-9.]+[KMG]$/ && $9 ~ /^[0-9.]+[KMG]$/ }
		END { exit !(n == 1 && ok) }'
}

# Every worker of the workload has its memory figures on screen.
workers_read() {
	local p
	for p in "$BUSY" "$MID" "$IDLE"; do
		row_of "$p" | row_mem_read || return 1
	done
}

# The history of pid is blank: no glyph of the sparkline.
history_blank() {
	local r
	r=$(row_of "$1")
	[[ -n $r ]] && ! grep -q '[▁▂▃▄▅▆▇█]' <<<"$r"
}

# The only sort mark in the titles is on column title t.
sort_mark_on() {
	local l
	l=$(title_line)
	[[ $l == *"▼$1 "* || $l == *"▲$1 "* ]] && [[ $(grep -oF -e ▼ -e ▲ <<<"$l" | wc -l) -eq 1 ]]
}

# Field n of the rows as numbers, in screen order: sizes in KiB, percentages
# without their sign, "-" where not known.
col_numbers() {
	rows | awk -v n="$1" '{
		v = $n; u = substr(v, length(v)); x = substr(v, 1, length(v) - 1) + 0
		if (u == "%" || u == "K") print x
		else if (u == "M") print x * 1024
		else if (u == "G") print x * 1048576
		else print "-" }'
}

# Field n of the rows is in order: col_ordered N asc|desc. Unknown figures
# come last; at least two different figures, else any order would pass.
col_ordered() {
	col_numbers "$1" | awk -v dir="$2" '
		$1 == "-" { unknown = 1; next }
		unknown { bad = 1 }
		n && (dir == "asc" ? $1 < prev : $1 > prev) { bad = 1 }
		n && $1 != prev { distinct = 1 }
		{ prev = $1; n++ }
		END { exit !(n >= 2 && distinct && !bad) }'
}

# A group line of the workload (GROUP_RE) in the input.
group_in() {
	grep -qE "$GROUP_RE"
}
group_shown() { screen | group_in; }

# The snapshot has the memory titles, the workers' figures, the group line
# under the header and the groups at the end, and no escapes.
snapshot_sharing() {
	local f=$DIR/snapshot.txt p
	[[ -f $f ]] && ! grep -q "$ESC" "$f" && mem_titles_in <"$f" || return 1
	for p in "$BUSY" "$MID" "$IDLE"; do
		# the table's row (the command lines section starts with the pid too)
		awk -v pid="$p" '$1 == pid && $2 ~ /^[A-Z]$/' "$f" | row_mem_read || return 1
	done
	[[ $(grep -cE "$GROUP_RE" "$f") -eq 2 ]] && grep -q '^groups: ' "$f" &&
		grep -A1 '^groups: ' "$f" | tail -n 1 | group_in
}

# The sharing view on a workload whose every process is read: the memory
# columns and their sort keys, the SHR% history, the group line, the narrow
# layout and the snapshot.
test_sharing() {
	DIR=$WORK/$MODE
	mkdir -p "$DIR"
	t new-session -d -s "$SESSION" -x 160 -y 40 \
		"cd '$DIR' && LANG=C.UTF-8 LC_ALL= '$COWTOP' -d 0.5 --smaps-budget 100 -o '$DIR/snapshot.txt' \
		-- '$COWLOAD' --child-writes 100,1000,12000 --rounds 1200 --round-ms 100 \
		--report '$DIR/report'; echo COWTOP-EXIT=\$?; sleep 600"
	eventually 10 grep -q 'role child' "$DIR/report" || die "the workload did not fork"
	MAIN=$(main_pid)
	BUSY=$(report_pid child 12000)
	MID=$(report_pid child 1000)
	IDLE=$(report_pid child 100)
	GROUP_RE="^group $MAIN cowload: 3 workers  footprint [0-9.]+[KMG]  USS mean [0-9.]+[KMG] max [0-9.]+[KMG]  headroom (\+[0-9]+ workers|settling|-)"
	GROUP_RE+="( |$)"
	expect "160 columns: SHR%, FAM%, USS and PSS titles" mem_titles_shown
	expect "each worker shows its share and sizes" workers_read
	expect "the group line: workers, footprint, headroom" group_shown
	expect "the header shows the age of the oldest reading" line_has 3 "oldest reading "
	keys m
	expect "m: the history shows SHR%" screen_has "SHR% history (full 100%)"
	expect "m: no more CoW/s history" screen_lacks "CoW/s history"
	expect "m: the main process, with no share known, has a blank history" history_blank "$MAIN"
	keys m
	expect "m again: the CoW/s history" screen_has "CoW/s history (max "
	expect "m again: no more SHR% history" screen_lacks "SHR% history"
	keys t S
	expect "S marks SHR% as the sort column" sort_mark_on "SHR%"
	expect "S: least shared first, unknown last" col_ordered 6 asc
	keys Y
	expect "Y marks FAM% as the sort column" sort_mark_on "FAM%"
	expect "Y: least shared with the family first" col_ordered 7 asc
	keys U
	expect "U marks USS as the sort column" sort_mark_on USS
	expect "U: largest USS first" col_ordered 8 desc
	keys P
	expect "P marks PSS as the sort column" sort_mark_on PSS
	expect "P: largest PSS first" col_ordered 9 desc
	keys C t
	expect "back to the tree by CoW rate" sort_mark_on "CoW/s"
	keys w
	expect "the snapshot goes to the -o file" screen_has "snapshot written to $DIR/snapshot.txt"
	expect "the snapshot has the memory columns and the group" snapshot_sharing
	t resize-window -t "$SESSION" -x 98 -y 40
	expect "98 columns: every column" all_titles_shown
	t resize-window -t "$SESSION" -x 97 -y 40
	expect "97 columns: VSZ goes first, the memory columns stay" vsz_gone_mem_kept
	t resize-window -t "$SESSION" -x 80 -y 40
	expect "80 columns: the memory columns and the history stay" vsz_gone_mem_kept
	t resize-window -t "$SESSION" -x 160 -y 40
	expect "160 columns again: the memory columns are back" mem_titles_shown
	keys q
	expect "quits" screen_has "COWTOP-EXIT=0"
	stop
}

# Pages regionload's child writes in each region, and the slack of each as
# in the regions integration test: 16 pages per region, 8 for other.
readonly R_HEAP=2000 R_ANON=1500 R_STACK=64 R_DATA=128 R_FILE=300
readonly R_SLACK=16 R_OTHER_SLACK=8

# The copies of a region in the regions pane on input: region_count REGION.
region_count() {
	awk -v r="$1" '$1 == r && $2 ~ /^[0-9<]+%$/ { print $3; exit }'
}

# Every region of the child in the regions pane on input, within its slack.
regions_in() {
	local text n
	text=$(cat)
	grep -qF "copies by region: pid $CHILD regionload" <<<"$text" || return 1
	for n in heap:$R_HEAP stack:$R_STACK anon:$R_ANON file:libregiondata.so:$R_DATA \
		"file:$FILE_NAME:$R_FILE" other:0; do
		count_near "$(region_count "${n%:*}" <<<"$text")" "${n##*:}" \
			"$([[ ${n%:*} == other ]] && echo $R_OTHER_SLACK || echo $R_SLACK)" || return 1
	done
}
regions_shown() { screen | regions_in; }

# A count n within [w, w + slack]: count_near N W SLACK.
count_near() {
	[[ $1 =~ ^[0-9]+$ ]] && (($1 >= $2 && $1 <= $2 + $3))
}

# The snapshot ends with the regions pane of the child: after the groups,
# its title, then only its lines.
snapshot_regions() {
	local f=$DIR/snapshot.txt
	[[ -f $f ]] && ! grep -q "$ESC" "$f" || return 1
	[[ $(grep -n '^copies by region: ' "$f" | tail -n 1 | cut -d: -f1) -gt \
		$(grep -n '^groups: ' "$f" | cut -d: -f1) ]] || return 1
	sed -n '/^copies by region: /,$p' "$f" | regions_in &&
		sed -n '/^copies by region: /,$p' "$f" | tail -n 1 | grep -q '^  file:NAME: '
}

# The copies of site "FN (regionload)" in the copy-sites pane.
site_count() {
	screen | awk -v fn="$1" 'NF >= 3 && $(NF - 1) == fn && $NF == "(regionload)" && $1 ~ /%$/ { print $2; exit }'
}

# Every writer of the child is a site with the pages it wrote, write_heap
# first.
sites_shown() {
	local n
	[[ $(screen | sed -n '/^Top copy sites of /,$p' | grep -m 1 -E '^ *[0-9.<]+% ' |
		awk '{ print $(NF - 1) }') == write_heap ]] || return 1
	for n in write_heap:$R_HEAP write_mmap:$R_ANON write_stack:$R_STACK write_data:$R_DATA \
		write_file:$R_FILE; do
		count_near "$(site_count "${n%:*}")" "${n##*:}" "$R_SLACK" || return 1
	done
}

# The regions pane and the copy-sites pane on regionload: its child writes
# each region from a function of its own once stacks are being captured
# (every copy's stack: --sample-budget 0, as the counts are exact).
test_regions() {
	local main
	DIR=$WORK/$MODE
	mkdir -p "$DIR"
	# the workload's "ready" line goes to a file, not over the screen
	t new-session -d -s "$SESSION" -x 160 -y 40 \
		"cd '$DIR' || exit; '$REGIONLOAD' --heap $R_HEAP --mmap $R_ANON --stack $R_STACK --data $R_DATA \
		--file $R_FILE --file-dir '$DIR' --linger 300 --wait-signal --report '$DIR/report' >'$DIR/out' & \
		LANG=C.UTF-8 LC_ALL= '$COWTOP' -d 0.5 --sample-budget 0 -o '$DIR/snapshot.txt' -p \$!; \
		echo COWTOP-EXIT=\$?; sleep 600"
	eventually 10 grep -q '^ready ' "$DIR/out" || die "the workload did not start"
	main=$(main_pid)
	expect "the waiting workload is shown" nrows_is 1
	keys c
	expect "c: the header says stacks are on" line_has 3 "stacks on: "
	expect "c: the copy-sites pane of the selected process" screen_has "Top copy sites of $main"
	kill -USR1 "$main"
	eventually 10 grep -q '^child ' "$DIR/report" || die "the workload did not fork"
	CHILD=$(awk '$1 == "child" { print $2 }' "$DIR/report")
	FILE_NAME=$(awk '$1 == "child" { print $NF }' "$DIR/report")
	expect "the child appears" nrows_is 2
	keys Home j
	expect "the child is selected" sel_is "$CHILD"
	expect "the header shows the cost of a capture" line_has 3 " us/copy"
	expect "the child's sites: each writer with its pages, write_heap first" sites_shown
	keys Tab Down Enter
	expect "Tab, Down, Enter: the stack of write_mmap" screen_has "Stack of write_mmap (regionload): "
	expect "its innermost frame is write_mmap" screen_has "  #0  write_mmap (regionload)"
	expect "the stack replaces the list" screen_lacks "write_heap (regionload)"
	keys Escape
	sleep 0.3
	expect "Esc: the list again" sites_shown
	keys Tab r
	expect "r: the child's copies by region, as it wrote them" regions_shown
	expect "r: the regions pane replaces the table" nrows_is 0
	keys w
	expect "w: the snapshot goes to the -o file" screen_has "snapshot written to $DIR/snapshot.txt"
	expect "w: the snapshot ends with the child's regions" snapshot_regions
	keys o
	expect "o on the regions pane, without --objects: the objects pane says how to get it" \
		screen_has "copies by object: not read (start cowtop with --objects)"
	keys r r
	expect "r again: the table" nrows_is 2
	expect "r again: no regions pane" screen_lacks "copies by region"
	keys c
	expect "c again: the header no longer says stacks are on" screen_lacks "stacks on"
	expect "c again: no copy-sites pane" screen_lacks "Top copy sites"
	keys q
	expect "quits" screen_has "COWTOP-EXIT=0"
	stop
}

# The child's pages of (str, refcount) in the objects pane on input are
# within [90% of the pages holding the master's strings (its own count),
# + 32] (the child's own code uses strings on other pages: 18 more seen).
objects_str_in() {
	local truth n
	truth=$(awk '$1 == "pages" { print $4; exit }' "$DIR/report")
	n=$(awk '$1 == "str" && $2 == "refcount" { print $3; exit }')
	[[ $n =~ ^[0-9]+$ ]] && ((n >= truth * 90 / 100 && n <= truth + 32))
}
objects_str_shown() { screen | objects_str_in; }

# The snapshot ends with the child's objects pane.
snapshot_objects() {
	grep -q "^copies by object: pid $CHILD " "$DIR/snapshot.txt" &&
		sed -n '/^copies by object: /,$p' "$DIR/snapshot.txt" | objects_str_in
}

# The objects pane (--objects) on objfork.py, whose child iterates over the
# master's strings: reference-count writes on str, as many pages as hold them.
test_objects() {
	local main
	if ! command -v python3.11 >/dev/null; then
		echo "skip: $MODE: no python3.11"
		return 0
	fi
	DIR=$WORK/$MODE
	mkdir -p "$DIR"
	t new-session -d -s "$SESSION" -x 160 -y 40 \
		"cd '$DIR' || exit; python3.11 '$OBJFORK' --mode iter --go '$DIR/go' --stop '$DIR/stop' \
		--report '$DIR/report' 2>'$DIR/err' & \
		LANG=C.UTF-8 LC_ALL= '$COWTOP' -d 0.5 --linger 600 --objects --objects-sample 1 --sample-budget 0 \
		-o '$DIR/snapshot.txt' -p \$!; \
		echo COWTOP-EXIT=\$?; sleep 600"
	eventually 30 grep -q '^ready ' "$DIR/report" || die "the workload did not start"
	main=$(main_pid)
	# ctypes' helpers (children of the master) linger too: only python rows
	keys /
	type_text python3.11
	keys Enter
	expect "the waiting workload is shown" nrows_is 1
	keys o
	# Its runtime is known from the attach on, so a copy it makes itself
	# (a page written after its ctypes helpers forked) may be read already:
	# the pane is its own, whatever it read (the title without a read is
	# test_ui_objpane's).
	expect "o: the master's pane" screen_has "copies by object: pid $main python3.11"
	keys o
	expect "o again: the table" nrows_is 1
	touch "$DIR/go"
	eventually 30 grep -q '^done ' "$DIR/report" || die "the child did not finish"
	CHILD=$(awk '$1 == "child" { print $2 }' "$DIR/report")
	expect "the child appears" nrows_is 2
	keys Home j
	expect "the child is selected" sel_is "$CHILD"
	keys o
	expect "o: the child's pane, its runtime" screen_has "copies by object: pid $CHILD python3.11, cpython-3.11: "
	expect "o: (str, refcount) on as many pages as hold the strings" objects_str_shown
	expect "o: the pane replaces the table" nrows_is 0
	expect "o: what refcount writes are" screen_has "refcount ob_refcnt: any use of the object"
	expect "o: the footer says how back" screen_has "o Esc"
	keys w
	expect "w: the snapshot goes to the -o file" screen_has "snapshot written to $DIR/snapshot.txt"
	expect "w: the snapshot ends with the child's objects pane" snapshot_objects
	keys Escape
	expect "Esc: the table" nrows_is 2
	keys q
	expect "quits" screen_has "COWTOP-EXIT=0"
	touch "$DIR/stop"
	stop
}

# Whether the Ruby on the PATH has the GC probes.
ruby_with_probes() {
	local lib
	command -v ruby >/dev/null || return 1
	# the libruby it maps, else the interpreter itself (a static build)
	lib=$(ruby -e 'puts File.foreach("/proc/self/maps").map { |l| l.split[5] }
		.find { |f| f.to_s.include?("libruby") } || File.readlink("/proc/self/exe")' 2>/dev/null) ||
		return 1
	[[ -f $lib ]] && "$COWTOP" --list-usdt "$lib" 2>/dev/null | grep -q 'gc__mark__begin'
}

# A forking Ruby program whose children run the GC for a while: the copies
# they make while marking are counted in the phase ruby:gc__mark.
write_gc_workload() {
	cat >"$1" <<-'RUBY'
		a = Array.new(300_000) { |i| "s#{i}" }
		3.times { GC.start }
		sleep 1
		main = Process.pid
		2.times do
		  fork do
		    80.times { break if Process.ppid != main; GC.start; sleep 0.3 }
		    exit!(0)
		  end
		end
		Process.waitall
		a.size
	RUBY
}

# A line of the probe log: a clock to the millisecond, a pid, ruby, a GC probe.
log_line_shown() {
	screen | grep -qE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} +[0-9]+ ruby +ruby:gc__mark__(begin|end)'
}

# The selected child's copies split between the mark phase and the rest.
phase_split_shown() {
	screen | grep -qE '^phases pid [0-9]+ ruby: ruby:gc__mark ([0-9]+|<1)%'
}

# A probe mark in a row's sparkline.
marks_shown() {
	rows | grep -qE '[◆◇]'
}

# The snapshot ends with the phase split of the children, free of escapes.
snapshot_phases() {
	local f
	f=$(find "$DIR" -maxdepth 1 -name 'cowtop-*.txt')
	[[ -n $f ]] && ! grep -q "$ESC" "$f" && grep -q '^copies per phase' "$f" &&
		grep -qE '^pid [0-9]+ ruby: ruby:gc__mark [0-9<]+% \([0-9]+\)' "$f"
}

# USDT probes: their count, marks, the phase line, the log pane, snapshots.
test_usdt() {
	if ! ruby_with_probes; then
		echo "skip: $MODE: no Ruby with USDT probes"
		return 0
	fi
	DIR=$WORK/$MODE
	mkdir -p "$DIR"
	write_gc_workload "$DIR/gc.rb"
	t new-session -d -s "$SESSION" -x 120 -y 40 \
		"cd '$DIR' && LANG=C.UTF-8 LC_ALL= '$COWTOP' -d 0.5 -u ruby:gc__mark__begin -- ruby gc.rb; \
		echo COWTOP-EXIT=\$?; sleep 600"
	expect "the header counts the probes and the phase" screen_has "probes 2 (1 phase)"
	expect "the phase line is shown" screen_has "phases pid "
	expect "the main process and its two children" nrows_is 3
	expect "probe marks in the sparklines" marks_shown
	keys Home j
	expect "the phase split of the selected child" phase_split_shown
	expect "the footer offers the log" screen_has "Log"
	keys l
	expect "the log pane has its title" screen_has "TIME             PID COMMAND"
	expect "the log shows probe hits" log_line_shown
	keys w
	expect "the snapshot has the phase split" snapshot_phases
	keys l
	expect "l hides the log again" screen_lacks "TIME             PID COMMAND"
	keys q
	expect "quits" screen_has "COWTOP-EXIT="
	t kill-session -t "$SESSION" 2>/dev/null || true
}

# One mode: UTF-8, ASCII by locale, ASCII by flag, or USDT probes.
run_mode() {
	local lang opts=
	MODE=$1
	if [[ $MODE == usdt ]]; then
		test_usdt
		return
	fi
	if [[ $MODE == sharing ]]; then
		test_sharing
		return
	fi
	if [[ $MODE == regions ]]; then
		test_regions
		return
	fi
	if [[ $MODE == objects ]]; then
		test_objects
		return
	fi
	case $MODE in
	utf8) lang=C.UTF-8 UTF8=1 TREE_RE='(├─|└─) ' ;;
	ascii-locale) lang=C UTF8=0 TREE_RE='(\|-|`-) ' ;;
	ascii-flag) lang=C.UTF-8 opts=--ascii UTF8=0 TREE_RE='(\|-|`-) ' ;;
	*) die "unknown mode $MODE" ;;
	esac
	start "$lang" "$opts"
	test_layout
	test_follow
	test_focus
	test_filter_help_delay
	test_pause_snapshot
	test_resize
	test_quit
	stop
	test_exited "$lang" "$opts"
}

# Remove what the tests made, unless asked to keep it or something failed.
cleanup() {
	stop
	tmux_stop
	if [[ -n $WORK && ${COWTOP_TEST_KEEP:-0} != 1 && $FAILED -eq 0 ]]; then
		rm -rf "$WORK"
	elif [[ -n $WORK ]]; then
		echo "work directory kept: $WORK"
	fi
}

main() {
	local m
	[[ $(id -u) -eq 0 ]] || die "must run as root: cowtop loads eBPF programs"
	command -v tmux >/dev/null || die "tmux is needed"
	[[ -x $COWTOP ]] || die "no cowtop binary at $COWTOP"
	[[ -x $COWLOAD ]] || die "no workload binary at $COWLOAD"
	[[ -x $REGIONLOAD ]] || die "no workload binary at $REGIONLOAD"
	COWTOP=$(realpath "$COWTOP")
	COWLOAD=$(realpath "$COWLOAD")
	REGIONLOAD=$(realpath "$REGIONLOAD")
	OBJFORK=$(realpath "$OBJFORK")
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-tui.XXXXXX")
	trap cleanup EXIT
	for m in $MODES; do
		run_mode "$m"
	done
	echo "$PASSED passed, $FAILED failed"
	[[ $FAILED -eq 0 ]]
}

main "$@"
