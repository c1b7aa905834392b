#!/usr/bin/env bash
# Record, replay and diff: -w writes a header line and every frame; -r
# gives the recorded frames back (batch JSON, as a user without root; the
# 0600 file refused to another user with a hint, given to them it replays);
# --diff of two cowload runs whose children write 1000 and 3000 pages
# finds a ratio of 3 per child, about 1 for the root; unrelated programs
# have nothing to match; Python with and without gc.freeze() (skipped
# without python3.11).
#
# Environment: see lib.sh; PYTHON (default /usr/bin/python3.11).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

PYTHON=${PYTHON:-/usr/bin/python3.11}
SCRIPTS=$(dirname "$0")/../workloads

# Record cowload with 4 children writing W pages each: record NAME W.
record() {
	run_cowtop "$1" -w "$WORK/$1.rec" -- "$COWLOAD" --pages 8000 --child-writes "$2,$2,$2,$2" --linger 1 \
		--report "$WORK/$1.report"
	expect_eq "$1: cowtop exit status" "$RC" 0
}

# The header line and the frames of a recording.
test_recording() {
	local rec=$WORK/a.rec
	check "a: the file is 0600" test "$(stat -c %a "$rec")" = 600
	check "a: the header line names schema, version, host, kernel, boot id, mechanism, options, start" \
		jq -e -s '.[0] | (.schema == 1) and (.cowtop | length > 0) and (.host | length > 0)
			and (.kernel | test("Linux")) and (.boot_id | length > 0)
			and (.mechanism | test("page_fault")) and (.options.delay > 0) and (.start > 0)
			and (.btime > 0) and (.clk_tck > 0)' "$rec" >/dev/null
	# start times count from the boot: a btime rounded to the second (as in
	# /proc/stat) would move every fork time by up to a second
	check "a: the header's btime is the boot time to 50 ms" \
		awk -v b="$(jq -n 'input.btime' "$rec")" -v now="$(date +%s.%N)" -v up="$(cut -d' ' -f1 /proc/uptime)" \
		'BEGIN { d = b - (now - up); exit !(d > -0.05 && d < 0.05) }'
	expect_eq "a: one line per frame after the header" "$(($(count_lines "$rec") - 1))" \
		"$(count_lines "$WORK/a.json")"
	check "a: the frames are the batch JSON frames, byte for byte" \
		cmp -s <(tail -n +2 "$rec") "$WORK/a.json"
}

# Replay in batch mode gives the recorded frames back (a group's cow_rate is
# the sum of rounded rates, so it may differ in the last digit), as a user
# without root.
test_replay_batch() {
	local copy=$WORK/pub/a.rec out=$WORK/replay.json
	mkdir -p "$WORK/pub"
	cp "$WORK/a.rec" "$copy"
	chmod 755 "$WORK" "$WORK/pub"
	chmod 644 "$copy"
	RC=0
	timeout 30 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$(public_copy "$COWTOP")" -r "$copy" -b -f json >"$out" 2>"$WORK/replay.err" || RC=$?
	expect_eq "replay as nobody: exit status" "$RC" 0
	check "replay: the frames come back as recorded" \
		cmp -s <(jq -c 'del(.groups[].cow_rate)' "$WORK/a.json") <(jq -c 'del(.groups[].cow_rate)' "$out")
	RC=0
	"$COWTOP" -r "$copy" -b -n 2 >"$WORK/replay.txt" 2>&1 || RC=$?
	expect_eq "replay -n 2 as text: exit status" "$RC" 0
	expect_eq "replay -n 2 as text: two frames" "$(grep -c '^cowtop ' "$WORK/replay.txt")" 2
}

# A recording is 0600 and root's: another user's replay is refused in one
# line that says how, and the way the README gives (the file given to the
# user) works.
test_replay_not_yours() {
	local mine=$WORK/pub/mine.rec err=$WORK/notyours.err
	RC=0
	timeout 30 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$(public_copy "$COWTOP")" -r "$WORK/a.rec" -b -n 1 >/dev/null 2>"$err" || RC=$?
	check "replay of root's 0600 recording as nobody: refused" test "$RC" -ne 0
	expect_eq "... in one line" "$(wc -l <"$err")" 1
	check "... that says Permission denied and how" \
		grep -qF "Permission denied (a recording is 0600, its recorder's: sudo chown \$USER FILE, or replay with sudo)" "$err"
	install -m 0600 -o nobody "$WORK/a.rec" "$mine"
	RC=0
	timeout 30 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$(public_copy "$COWTOP")" -r "$mine" -b -n 1 >/dev/null 2>"$err" || RC=$?
	expect_eq "replay of a recording given to nobody (0600, chown): exit status" "$RC" 0
}

# The B/A figure NAME of role ROLE in diff JSON: ratio ROLE NAME FIELD.
ratio() {
	jq -r --arg r "$1" --arg n "$2" --arg f "$3" \
		'.roles[] | select(.role == $r and .comm == "cowload") | .figures[] | select(.name == $n) | .[$f]' \
		"$WORK/diff.json"
}

# --diff of 1000 vs 3000 pages per child.
test_diff() {
	local f
	RC=0
	"$COWTOP" --diff "$WORK/a.rec" "$WORK/b.rec" -f json >"$WORK/diff.json" 2>"$WORK/diff.err" || RC=$?
	expect_eq "diff -f json: exit status" "$RC" 0
	expect_eq "diff: children matched" "$(jq -r '.roles[] | select(.role == "child") | .matched' "$WORK/diff.json")" 4
	for f in ratio_median ratio_min ratio_max; do
		check "diff: children's copies B/A $f $(ratio child copies $f) is 3 within 2%" \
			awk -v v="$(ratio child copies $f)" 'BEGIN { exit !(v >= 2.94 && v <= 3.06) }'
	done
	check "diff: children's cow/s over the first 10 s B/A is 3 within 2%" \
		awk -v v="$(ratio child "cow/s 0-10s" ratio_median)" 'BEGIN { exit !(v >= 2.94 && v <= 3.06) }'
	check "diff: the root's copies B/A is about 1 (it writes nothing)" \
		awk -v v="$(ratio root copies ratio_median)" 'BEGIN { exit !(v >= 0.5 && v <= 2) }'
	RC=0
	"$COWTOP" --diff "$WORK/a.rec" "$WORK/b.rec" >"$WORK/diff.txt" 2>&1 || RC=$?
	expect_eq "diff as text: exit status" "$RC" 0
	check "diff as text: a table per role" grep -q '^role child cowload: 4 in A, 4 in B, 4 matched by fork order' "$WORK/diff.txt"
	sed 's/^/    | /' "$WORK/diff.txt"
}

# Unrelated programs: nothing to match, status 1, one line.
test_diff_unrelated() {
	run_cowtop other -w "$WORK/other.rec" -- /bin/sleep 0.5
	run_cowtop_plain unrelated --diff "$WORK/a.rec" "$WORK/other.rec"
	expect_error unrelated 1 "cowtop: --diff found nothing to match: A's roots are cowload, B's are sleep (no process with the same name at the same depth)"
}

# Python 3.11 forking with and without gc.freeze(): the children copy far less with it.
test_python_freeze() {
	local v a
	if ! [ -x "$PYTHON" ]; then
		skip "python: no interpreter at $PYTHON"
		return
	fi
	for v in plain freeze; do
		a=
		[ "$v" = plain ] || a=--freeze
		# shellcheck disable=SC2086 # no option or one
		run_cowtop "py-$v" -u python:gc__start -u python:gc__done -w "$WORK/py-$v.rec" \
			-- "$PYTHON" "$SCRIPTS/gc_fork.py" --children 4 --pre-gc-delay 300 --linger 1 $a
		expect_eq "python $v: cowtop exit status" "$RC" 0
	done
	RC=0
	"$COWTOP" --diff "$WORK/py-plain.rec" "$WORK/py-freeze.rec" >"$WORK/py-diff.txt" 2>&1 || RC=$?
	expect_eq "python diff: exit status" "$RC" 0
	sed 's/^/    | /' "$WORK/py-diff.txt"
	"$COWTOP" --diff "$WORK/py-plain.rec" "$WORK/py-freeze.rec" -f json >"$WORK/py-diff.json"
	check "python diff: with gc.freeze() every child copies less than a fifth of what it copies without" \
		jq -e '.roles[] | select(.role == "child") | .figures[] | select(.name == "copies") | .ratio_max < 0.2' \
		"$WORK/py-diff.json" >/dev/null
}

setup
record a 1000
record b 3000
test_recording
test_replay_batch
test_replay_not_yours
test_diff
test_diff_unrelated
test_python_freeze
finish
