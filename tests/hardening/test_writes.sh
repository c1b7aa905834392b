#!/usr/bin/env bash
# Hardening: output that cannot be written. A write error on stdout (a full
# device, a full filesystem) is one line on stderr and exit status 1, for
# batch frames and for --help, --version and --list-usdt alike; a JSON line
# reaches a file whole or not at all; a closed pipe stays a quiet exit.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# expect_write_error NAME ARGS...: run cowtop with stdout on /dev/full.
expect_write_error() {
	local name=$1 rc=0 err
	shift
	"$COWTOP" "$@" >/dev/full 2>"$WORK/err" || rc=$?
	err=$(cat "$WORK/err")
	if [ "$rc" = 1 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] &&
		[[ $err == "cowtop: cannot write the output: No space left on device" ]]; then
		pass "$name to /dev/full: status 1, one line"
	else
		fail "$name to /dev/full: status $rc, stderr: $err"
	fi
}

test_full_device() {
	expect_write_error "batch text" -b -n 3 -d 0.2
	expect_write_error "batch JSON" -b -n 3 -d 0.2 -f json
	expect_write_error "--help" --help
	expect_write_error "--version" --version
	expect_write_error "--list-usdt" --list-usdt "$(realpath "${PHASELOAD:-./tests/workloads/phaseload}")"
}

# A tmpfs too small for the frames: every line in it is whole. The frames
# are of one small process (a few KiB each), so some fit before it fills.
test_full_filesystem() {
	local dir=$WORK/small rc=0 idle
	mkdir -p "$dir"
	mount -t tmpfs -o size=64k tmpfs "$dir"
	MOUNTS+=("$dir")
	sleep 60 &
	idle=$!
	BG_PIDS+=("$idle")
	"$COWTOP" -b -n 200 -d 0.1 -f json -p "$idle" >>"$dir/out.json" 2>"$WORK/err" || rc=$?
	expect_eq "a full filesystem: status 1" "$rc" 1
	check "a full filesystem: said so on stderr" grep -q "No space left on device" "$WORK/err"
	check "a full filesystem: some frames were written" test -s "$dir/out.json"
	check "a full filesystem: every line is whole JSON" \
		python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$dir/out.json"
	check "a full filesystem: the file ends with a newline" \
		test "$(tail -c1 "$dir/out.json" | od -An -c | tr -d ' ')" = '\n'
}

# A reader that had enough is not an error.
test_closed_pipe() {
	local rc
	set +o pipefail
	"$COWTOP" -b -n 50 -d 0.1 -f json 2>"$WORK/err" | head -1 >/dev/null
	rc=${PIPESTATUS[0]}
	set -o pipefail
	expect_eq "a closed pipe: status 0" "$rc" 0
	check "a closed pipe: nothing on stderr" test ! -s "$WORK/err"
}

main() {
	hard_setup
	test_full_device
	test_full_filesystem
	test_closed_pipe
	hard_finish
}

main "$@"
