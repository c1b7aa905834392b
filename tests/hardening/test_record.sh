#!/usr/bin/env bash
# The recorder and replay under faults and hostile files: -w refuses a
# symlink, a FIFO (without blocking), a device and a file that is not a
# recording (and appends to one that is); a full disk is said once
# and the run goes on with whole lines only; --record-max-mib rotates to
# FILE.1 (never over a FILE.1 that is not a recording); a killed cowtop leaves whole lines but maybe the last; replay of
# a cut, corrupt, newer-schema, empty or foreign file says so exactly.
#
# Environment: see lib.sh.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# Every line of FILE is a whole JSON object (the last one too unless
# ALLOW_CUT is 1): whole_lines FILE [ALLOW_CUT].
whole_lines() {
	local n
	n=$(count_lines "$1")
	[ "${2:-0}" = 1 ] || [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || return 1
	head -n "$n" "$1" | jq -c . >/dev/null 2>&1
}

# A recording of a short cowload run: record NAME ARGS... (more cowtop args).
record() {
	local name=$1
	shift
	run_cowtop "$name" "$@" -- "$COWLOAD" --pages 2000 --child-writes 100,100 --linger 1 \
		--report "$WORK/$name.report"
}

# -w refuses what is not a regular file, before anything is watched.
test_refusals() {
	ln -s "$WORK/target" "$WORK/link"
	run_cowtop_plain link -b -n 1 -w "$WORK/link" -- /bin/true
	expect_error link 1 "cowtop: record: cannot write $WORK/link: is a symbolic link"
	check "link: the symlink's target was not created" test ! -e "$WORK/target"
	mkfifo "$WORK/fifo"
	run_cowtop_plain fifo -b -n 1 -w "$WORK/fifo" -- /bin/true
	expect_error fifo 1 "cowtop: record: cannot write $WORK/fifo: is a FIFO"
	run_cowtop_plain dev -b -n 1 -w /dev/null -- /bin/true
	expect_error dev 1 "cowtop: record: cannot write /dev/null: is a device"
	# a file that is no recording keeps its bytes and mode; so does an empty one
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$WORK/passwd"
	chmod 644 "$WORK/passwd"
	before=$(stat -c '%i %s %Y %a' "$WORK/passwd")
	run_cowtop_plain notrec -b -n 1 -w "$WORK/passwd" -- /bin/true
	expect_error notrec 1 \
		"cowtop: record: cannot write $WORK/passwd: it exists and is not a recording: cowtop appends only to its own"
	expect_eq "not a recording: inode, size, time and mode stay" "$(stat -c '%i %s %Y %a' "$WORK/passwd")" "$before"
	expect_eq "not a recording: its text stays" "$(cat "$WORK/passwd")" "root:x:0:0:root:/root:/bin/sh"
	: >"$WORK/empty"
	run_cowtop_plain emptyrec -b -n 1 -w "$WORK/empty" -- /bin/true
	expect_eq "an empty file: refused" "$RC" 1
	check "an empty file: stays empty" test ! -s "$WORK/empty"
}

# -w FILE of a recording appends to it: both runs replay.
test_append() {
	local rec=$WORK/twice.rec n
	run_cowtop_plain once -b -f json -n 2 -d 0.1 -w "$rec" -- sleep 1
	n=$(count_lines "$rec")
	run_cowtop_plain twice -b -f json -n 2 -d 0.1 -w "$rec" -- sleep 1
	expect_eq "append: exit status" "$RC" 0
	expect_eq "append: a header and two frames more" "$(count_lines "$rec")" $((n * 2))
	expect_eq "append: the first line is still the first header" \
		"$(head -c 19 "$rec")" '{"recording":true,"'
}

# A full disk: said once on stderr, the batch view goes on, lines stay whole.
test_full_disk() {
	local dir=$WORK/full rec
	mkdir "$dir"
	mount -t tmpfs -o size=8k tmpfs "$dir"
	MOUNTS+=("$dir")
	rec=$dir/r.rec
	record full -w "$rec"
	expect_eq "full: exit status" "$RC" 0
	expect_eq "full: said on stderr" "$(head -n 1 "$WORK/full.err")" \
		"cowtop: record: cannot write $rec: No space left on device (frames dropped until it works)"
	expect_eq "full: said once (and once more when a smaller frame fits again)" \
		"$(grep -c 'cannot write' "$WORK/full.err")" 1
	check "full: the batch view went on to the end" jq_true '[inputs] | last | .processes[0].state == "exited"'
	check "full: the recording holds whole lines only" whole_lines "$rec"
	check "full: it holds a header and frames" test "$(count_lines "$rec")" -ge 2
}

# A full disk under the full-screen view: on its status line, the view goes on.
test_full_disk_tui() {
	local dir=$WORK/full2 rec
	mkdir "$dir"
	mount -t tmpfs -o size=8k tmpfs "$dir"
	MOUNTS+=("$dir")
	rec=$dir/r.rec
	tui_start 160 30 "$WORK/full-tui.raw" "env LANG=C.UTF-8 TERM=xterm-256color $COWTOP -d 0.2 -w $rec -- $COWLOAD --pages 2000 --child-writes 100,100 --linger 30 --report $WORK/full-tui.report"
	expect "full disk, full screen: said on the status line" \
		eval 'screen | grep -qF "record: cannot write $rec: No space left on device"'
	expect "full disk, full screen: the view goes on" eval 'screen | grep -qE "^ *[0-9]+ [A-Z] "'
	keys q
	expect "full disk, full screen: q ends it with status 0" eval 'screen | grep -qF "COWTOP-EXIT=0"'
	awk '$1 == "main" || $1 == "child" { print $2 }' "$WORK/full-tui.report" | xargs -r kill -KILL 2>/dev/null || true
	check "full disk, full screen: the recording holds whole lines only" whole_lines "$rec"
}

# --record-max-mib: FILE.1 holds the older frames, each file starts with a header.
test_rotation() {
	local rec=$WORK/rot.rec n
	record rot -w "$rec" --record-max-mib 0.01
	expect_eq "rotate: exit status" "$RC" 0
	check "rotate: FILE.1 exists" test -f "$rec.1"
	for f in "$rec" "$rec.1"; do
		check "rotate: $(basename "$f") starts with a header" jq -e -n "input.schema == 1" "$f" >/dev/null
		check "rotate: $(basename "$f") is at most 10 KiB or one frame" \
			test "$(stat -c %s "$f")" -le $((10486 + $(tail -n 1 "$f" | wc -c)))
	done
	n=$(($(count_lines "$rec") + $(count_lines "$rec.1") - 2))
	check "rotate: the newest frames are all in the two files ($n)" test "$n" -ge 2
	check "rotate: the last frame written is the last of FILE" \
		test "$(tail -n 1 "$rec")" = "$(tail -n 1 "$FRAMES")"
	# FILE.1 that is not a recording is never replaced: said, the run goes on
	rec=$WORK/rot2.rec
	echo "keep me" >"$rec.1"
	record rot2 -w "$rec" --record-max-mib 0.01
	expect_eq "rotate over a foreign FILE.1: exit status" "$RC" 0
	expect_eq "rotate over a foreign FILE.1: said on stderr" "$(head -n 1 "$WORK/rot2.err")" \
		"cowtop: record: cannot write $rec: cannot rename it to $rec.1: it exists and is not a recording: cowtop appends only to its own (frames dropped until it works)"
	expect_eq "rotate over a foreign FILE.1: it keeps its text" "$(cat "$rec.1")" "keep me"
}

# A killed recorder: every line but maybe the last is whole, and it replays.
test_killed() {
	local rec=$WORK/kill.rec out
	start_cowtop killed -b -f json -d 0.1 -w "$rec" -- "$COWLOAD" --pages 2000 --child-writes 100 \
		--linger 30 --report "$WORK/killed.report"
	wait_lines "$rec" 5 20 || fail "killed: no frames recorded"
	kill -KILL "$COWTOP_PID"
	{ reap "$COWTOP_PID" || true; } 2>/dev/null
	# the workload outlives a killed cowtop: stop it by the pids it reported
	eventually 5 grep -q '^child ' "$WORK/killed.report" || true
	awk '$1 == "main" || $1 == "child" { print $2 }' "$WORK/killed.report" | xargs -r kill -KILL 2>/dev/null || true
	check "killed: every line but the last is whole" whole_lines "$rec" 1
	out=$(timeout 20 "$COWTOP" -r "$rec" -b -f json 2>"$WORK/killed-replay.err" | wc -l) || true
	check "killed: it replays ($out frames)" test "$out" -ge 4
}

# Replay of bad files: the exact message, status 1 (0 with a warning for a cut line).
test_bad_files() {
	local rec=$WORK/a.rec f=$WORK/bad.rec n
	record a -w "$rec"
	n=$(($(count_lines "$rec") - 1))
	head -c -5 "$rec" >"$f"
	run_cowtop_plain cut -r "$f" -b -f json
	expect_eq "cut: exit status" "$RC" 0
	expect_eq "cut: the frames before the cut line" "$(count_lines "$WORK/cut.out")" $((n - 1))
	expect_eq "cut: the warning" "$(cat "$WORK/cut.err")" \
		"cowtop: warning: $f: line $((n + 1)) is cut short (the recorder stopped mid-line): reading only the $((n - 1)) frames before it"
	{ head -n 2 "$rec"; echo 'x{"time":1}'; tail -n +3 "$rec"; } >"$f"
	run_cowtop_plain corrupt -r "$f" -b
	expect_error corrupt 1 "cowtop: $f:3: corrupt line (not a frame)"
	{ head -n 2 "$rec"; echo '{"time":1,"processes":[{]}'; } >"$f"
	run_cowtop_plain corrupt2 -r "$f" -b
	expect_eq "corrupt inside: exit status" "$RC" 1
	expect_eq "corrupt inside: the message" "$(cat "$WORK/corrupt2.err")" \
		"cowtop: $f:3: corrupt line: quoted object property name expected"
	# processes are read one at a time: the second one of a real frame made
	# corrupt gives the message of the line read whole, with its number
	sed '3s/,{"pid":/,{"pid":}/' "$rec" >"$f"
	check "corrupt process: the second process of line 3 is made corrupt" grep -q '{"pid":}' "$f"
	run_cowtop_plain corrupt3 -r "$f" -b
	expect_eq "corrupt process: exit status" "$RC" 1
	expect_eq "corrupt process: the message" "$(cat "$WORK/corrupt3.err")" \
		"cowtop: $f:3: corrupt line: unexpected character"
	{ echo '{"recording":true,"schema":9,"cowtop":"9.0"}'; tail -n +2 "$rec"; } >"$f"
	run_cowtop_plain newer -r "$f" -b
	expect_error newer 1 "cowtop: $f was recorded by a newer cowtop (schema 9; this one reads schema 1)"
	: >"$f"
	run_cowtop_plain empty -r "$f" -b
	expect_error empty 1 "cowtop: $f is empty: not a cowtop recording"
	run_cowtop_plain foreign -r /etc/passwd -b
	expect_error foreign 1 "cowtop: /etc/passwd: not a cowtop recording (line 1 is not its header)"
	run_cowtop_plain missing -r "$WORK/none.rec" -b
	expect_error missing 1 "cowtop: cannot read $WORK/none.rec: No such file or directory"
	run_cowtop_plain fifo-replay -r "$WORK/fifo" -b
	expect_error fifo-replay 1 "cowtop: cannot read $WORK/fifo: not a regular file"
}

hard_setup
test_refusals
test_append
test_full_disk
test_full_disk_tui
test_rotation
test_killed
test_bad_files
hard_finish
