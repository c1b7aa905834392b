#!/usr/bin/env bash
# Replay in the full-screen view: a cowload run whose children write 1000,
# 2000 and 3000 pages in rounds is recorded, then replayed in a tmux pane
# (as a user without root): frame k on screen shows the values recorded in
# frame k; the time keys (pause, step, marker, jump, speed) move as the help
# says; sort, focus, filter and snapshot work as live; q leaves cleanly.
# A replay acts on nothing live: with a live process at a recorded pid, k
# and d are not offered and k Enter signals nobody.
#
# Environment: COWTOP, COWLOAD (defaults ./cowtop, ./tests/workloads/cowload),
# COWTOP_TEST_KEEP (1: keep the work directory). Needs root (to record) and tmux.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR

COWTOP=${COWTOP:-./cowtop}
COWLOAD=${COWLOAD:-./tests/workloads/cowload}
SOCK=cowtop-replay-$$
SESSION=replay
PASSED=0
FAILED=0
WORK=
REC=
NFRAMES=
# shellcheck source=tests/tui/tmux.sh
. "$(dirname "$0")/tmux.sh"
# shellcheck source=tests/tui/checks.sh
. "$(dirname "$0")/checks.sh"
. "$(dirname "$0")/../public.sh"


cleanup() {
	tmux_stop
	[ -n "$WORK" ] || return 0
	if [ "$FAILED" -gt 0 ] || [ "${COWTOP_TEST_KEEP:-0}" = 1 ]; then
		echo "work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}

# The process rows on screen: lines that start with a PID and a state.
rows() {
	screen | grep -E '^ *[0-9]+ [A-Z?] ' || true
}

# The PIDs of the rows, in screen order.
row_pids() {
	rows | awk '{ print $1 }'
}

# The COW column (total copies) of pid's row.
row_cow() {
	rows | awk -v pid="$1" '$1 == pid { print $4 }'
}

# Frame k (from 1) of the recording: the cow_pages of pid.
rec_cow() {
	jq -n -r --argjson k "$1" --argjson p "$2" \
		'[inputs | select(.recording == null)][$k - 1].processes[] | select(.pid == $p) | .cow_pages' "$REC"
}

# The header says REPLAY k/N.
at_frame() { screen | grep -qE "REPLAY $1/$NFRAMES "; }
screen_has() { screen | grep -qF -- "$1"; }
row_cow_is() { [[ $(row_cow "$1") == "$2" ]]; }
first_pid_is() { [[ $(row_pids | head -n 1) == "$1" ]]; }
nrows_is() { [[ $(rows | wc -l) -eq $1 ]]; }
file_has() { [ -f "$1" ] && grep -qF -- "$2" "$1"; }

# Frame k on screen has each child's recorded copies.
frame_shows_recorded() {
	local k=$1 pid
	for pid in $CHILDREN; do
		row_cow_is "$pid" "$(rec_cow "$k" "$pid")" || return 1
	done
}

[ "$(id -u)" -eq 0 ] || die "must run as root (the recording loads eBPF programs)"
command -v tmux >/dev/null || die "tmux is required"
COWTOP=$(realpath "$COWTOP")
COWLOAD=$(realpath "$COWLOAD")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-replay.XXXXXX")
trap cleanup EXIT
REC=$WORK/run.rec
timeout 60 "$COWTOP" -b -f json -d 0.2 -w "$REC" -- "$COWLOAD" --pages 8000 --child-writes 1000,2000,3000 \
	--rounds 5 --round-ms 300 --linger 0.5 --report "$WORK/report" >/dev/null </dev/null ||
	die "recording failed"
NFRAMES=$(($(wc -l <"$REC") - 1))
CHILDREN=$(awk '$1 == "child" { print $2 }' "$WORK/report")
BIG=$(awk '$1 == "child" && $6 == 3000 { print $2 }' "$WORK/report")
MAIN=$(awk '$1 == "main" { print $2 }' "$WORK/report")
[ "$NFRAMES" -ge 8 ] || die "only $NFRAMES frames recorded"
chmod 755 "$WORK"
chmod 644 "$REC"
chown nobody "$WORK"

t new-session -d -s "$SESSION" -x 160 -y 30 \
	"setpriv --reuid=nobody --regid=nogroup --clear-groups env LANG=C.UTF-8 TERM=xterm-256color $(public_copy "$COWTOP") -r $REC -o $WORK/snap.txt; echo exit=\$?; sleep 30"
expect "replay starts, as nobody, with REPLAY and the recorded host in the header" \
	eval 'screen | grep -qE "REPLAY [0-9]+/$NFRAMES .* host $(hostname)"'
expect "it plays to the last frame by itself and stops there" at_frame "$NFRAMES"
expect "... saying so" screen_has "end of the recording"
# Pause while playing, slowed down so that a frame takes 3.2 s: the checks
# wait for what the screen shows, not for a time, and the replay cannot
# reach its end between the two presses even on a slow machine.
keys : '#' 1 Enter
expect "':#1' goes back to the first frame, paused" eval 'screen | grep -qE "REPLAY 1/$NFRAMES x1 paused"'
keys - - - -
keys Space
expect "Space plays on from there" eval 'screen | grep -qE "REPLAY ([2-9]|[1-9][0-9]+)/$NFRAMES x0.0625 playing"'
keys Space
expect "Space pauses" eval 'screen | grep -qE "REPLAY [0-9]+/$NFRAMES x0.0625 paused"'
PAUSED_AT=$(screen | sed -nE "s|.*REPLAY ([0-9]+)/$NFRAMES .*|\1|p" | head -n 1)
sleep 4 # longer than a frame at this speed
if at_frame "$PAUSED_AT"; then pass "... and stays on frame $PAUSED_AT"; else fail "a paused replay went on from frame $PAUSED_AT"; fi
keys + + + +
expect "back to the recorded speed" eval 'screen | grep -qE "REPLAY [0-9]+/$NFRAMES x1 paused"'
keys : '#' 3 Enter
expect "':#3' jumps to frame 3" at_frame 3
expect "frame 3 shows the copies recorded in frame 3" frame_shows_recorded 3
keys Right
expect "Right: one frame forward" at_frame 4
expect "frame 4 shows the copies recorded in frame 4" frame_shows_recorded 4
keys Left Left
expect "Left Left: two frames back" at_frame 2
expect "frame 2 shows the copies recorded in frame 2" frame_shows_recorded 2
keys ')'
expect "')' scrolls COMMAND in a replay" screen_has "COMMAND (scrolled 8)"
expect "... and stays on frame 2" at_frame 2
keys '('
expect "'(' scrolls it back" eval '! screen_has "COMMAND (scrolled"'
keys :
t send-keys -t "$SESSION" -l "+0"
keys Enter
expect "':+0' jumps to the first frame" at_frame 1
# the frames (from 1) where more processes show exited than in the frame before
EXITS=$(jq -n -r '[inputs | select(.recording == null) | [.processes[] | select(.state == "exited")] | length] |
	. as $n | range(1; length) | select($n[.] > $n[. - 1]) | . + 1' "$REC" | tr '\n' ' ')
FIRST_EXIT=${EXITS%% *}
# HH:MM:SS: the first frame at or after that second of the recorded day
T5=$(jq -n -r '[inputs | select(.recording == null)][4].time' "$REC")
HMS=$(date -d "@${T5%.*}" +%H:%M:%S)
K=$(jq -n -r --argjson t "${T5%.*}" '[inputs | select(.recording == null) | .time] | map(select(. < $t)) | length + 1' "$REC")
keys :
t send-keys -t "$SESSION" -l "$HMS"
keys Enter
expect "':$HMS' jumps to the first frame at or after it (frame $K)" at_frame "$K"
expect "... and shows that frame's recorded time" screen_has "cowtop $HMS"
expect "the header's refresh is the recorder's" screen_has "refresh 0.2s"
keys : '#' 1 Enter
expect "':#1' jumps to the first frame" at_frame 1
keys n
expect "n: the next frame with an exit (frame $FIRST_EXIT of those with exits: $EXITS)" at_frame "$FIRST_EXIT"
expect "... and a child shows exited there" eval '[[ $(rows | awk "\$2 == \"X\"" | wc -l) -ge 1 ]]'
keys '{'
expect "{: there is no marker before it" screen_has "no probe hit or exit before this frame"
keys + +
expect "+ +: four times as fast" screen_has " x4 "
keys - - - -
expect "- - - -: a quarter of the speed" screen_has " x0.25 "
keys : '#' 3 Enter N
expect "N sorts by pid in replay: the main process first" first_pid_is "$MAIN"
keys T
expect "T sorts by total copies: the 3000-page child first among the children" \
	eval '[[ $(row_pids | sed -n 2p) == "$BIG" ]]'
keys Down Enter
expect "Enter focuses the selected child: one row" nrows_is 1
keys w
expect "w writes a snapshot of the replayed frame" file_has "$WORK/snap.txt" "REPLAY 3/$NFRAMES"
expect "... with the recorded copies" file_has "$WORK/snap.txt" "$(rec_cow 3 "$BIG")"
keys BSpace
expect "Backspace leaves the focus" nrows_is 4
keys / cow Enter
expect "the filter works in replay" nrows_is 4
keys Escape h NPage
expect "the help lists the time keys" screen_has "replay: one frame back"
keys q q
expect "q ends the replay with status 0" screen_has "exit=0"

# A replay never acts on the live machine. A live sleep is given the pid of
# the recording's main process (a pid reused since, as on any other host or
# boot), and cowtop replays as root, who could signal it: k and d are not
# offered, k Enter signals nobody, d asks for no delay.
SLEEPER=
stop_sleeper() { [ -z "$SLEEPER" ] || kill -KILL "$SLEEPER" 2>/dev/null || true; }
# Whether pid is alive: sleeping or running, not a zombie waiting to be reaped.
alive() { grep -qE '^State:\s+[SR]' "/proc/$1/status"; }
trap 'stop_sleeper; cleanup' EXIT
sleep 600 &
SLEEPER=$!
disown "$SLEEPER" # killed at the end without a word from the shell
jq -c --argjson m "$MAIN" --argjson p "$SLEEPER" \
	'if .recording then . else .processes |= map(select(.pid == $m) | .pid = $p | .nspid = $p) end' \
	"$REC" >"$WORK/reused.rec"
t kill-session -t "$SESSION"
t new-session -d -s "$SESSION" -x 160 -y 30 \
	"env LANG=C.UTF-8 TERM=xterm-256color $COWTOP -r $WORK/reused.rec; echo exit=\$?; sleep 30"
expect "reused pid: the replay shows the live sleep's pid" eval 'rows | grep -qE "^ *$SLEEPER "'
keys Space
expect "reused pid: the footer offers no Kill" eval '! footer | grep -qF Kill'
expect "... and no Delay" eval '! footer | grep -qF Delay'
expect "... but Quit" eval 'footer | grep -qF Quit'
keys k
expect "reused pid: k says a replay signals nobody" eval 'status_line | grep -qF "signals go to live processes only"'
keys Enter
expect "... and the live sleep survived k Enter" alive "$SLEEPER"
keys d
expect "reused pid: d asks for no delay" eval 'status_line | grep -qF "refresh interval is a live run"'
keys 5 Enter
expect "... and the live sleep survived d 5 Enter" alive "$SLEEPER"
keys q
expect "reused pid: q ends the replay with status 0" screen_has "exit=0"
expect "reused pid: the live sleep is still there at the end" alive "$SLEEPER"
stop_sleeper
echo "$(basename "$0" .sh): $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
