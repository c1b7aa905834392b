#!/usr/bin/env bash
# Integration: command-line contract, errors and exit statuses, batch output,
# the demo, watching everything; nothing BPF left behind afterwards.
set -euo pipefail
COWTOP=${COWTOP:-./cowtop}
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

if [ "$(id -u)" -ne 0 ]; then
	echo "test_cli: must run as root (it loads BPF programs)" >&2
	exit 1
fi

. "$(dirname "$0")/lib.sh"
progs_before=$(our_prog_ids)

# Run cowtop with args; sets rc, out (stdout) and err (stderr).
run() {
	local o e
	o=$(mktemp) e=$(mktemp)
	set +e
	timeout 60 "$COWTOP" "$@" >"$o" 2>"$e" </dev/null
	rc=$?
	set -e
	out=$(cat "$o") err=$(cat "$e")
	rm -f "$o" "$e"
}

# expect_usage ARGS...: exit 2 and exactly one line of error naming --help.
expect_usage() {
	run "$@"
	if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ $err == *"--help"* ]] && [ -z "$out" ]; then
		ok "usage error for: $*"
	else
		bad "usage error for: $* (rc=$rc err=$err)"
	fi
}

for args in "-d 0" "-d -1" "-d abc" "-n 0" "-p x" "--bogus" "-f xml" "-s nope" "-d" "-p 1 --demo" "--" "stray"; do
	# shellcheck disable=SC2086
	expect_usage $args
done

run --help
[ "$rc" -eq 0 ] && [[ $out == *"--track-first-clone"* ]] && ok "--help" || bad "--help rc=$rc"

# A PID that does not exist, and a thread id, are runtime errors with one line.
run -b -n 1 -p 999999999
[ "$rc" -eq 1 ] && [[ $err == *"no process with PID 999999999"* ]] && ok "missing pid" || bad "missing pid rc=$rc err=$err"
sleep 30 & holder=$!
run -b -n 1 -p "$holder"
[ "$rc" -eq 0 ] && ok "existing pid" || bad "existing pid rc=$rc err=$err"
# A thread id (of any multi-threaded process on the machine) is refused.
thr=$(for t in /proc/[0-9]*/task/*; do p=${t#/proc/}; p=${p%%/*}; t=${t##*/}; [ "$p" != "$t" ] && { echo "$t"; break; }; done)
if [ -n "$thr" ]; then
	run -b -n 1 -p "$thr"
	[ "$rc" -eq 1 ] && [[ $err == *"is a thread of process"* ]] && ok "thread id refused" || bad "thread id rc=$rc err=$err"
fi
kill "$holder" 2>/dev/null || true

# A command that cannot be executed: exit 127 like a shell, one line.
run -b -- /nonexistent/program
[ "$rc" -eq 127 ] && [[ $err == *"cannot execute '/nonexistent/program'"* ]] && ok "exec failure 127" || bad "exec failure rc=$rc err=$err"

# Exit status of the command passes through.
run -b -d 0.2 -- sh -c 'exit 7'
[ "$rc" -eq 7 ] && ok "exit status passthrough" || bad "exit status rc=$rc"

# Not root: a clear one-line refusal, exit 1.
if command -v setpriv >/dev/null; then
	set +e
	WORK=$(mktemp -d)
	e=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$(public_copy "$COWTOP")" -b -n 1 2>&1 >/dev/null)
	r=$?
	set -e
	rm -rf "$WORK"
	[ "$r" -eq 1 ] && [[ $e == *"needs root"* ]] && ok "unprivileged refused" || bad "unprivileged rc=$r err=$e"
fi

# Batch text: a header line, a column line, and the processes.
run -b -n 2 -d 0.1 -- sh -c 'sleep 1'
[[ $out == *"cowtop "*"interval"*"[raw_tp:"* ]] && [[ $out == *"COMMAND"* ]] && [[ $out == *"sleep"* ]] && ok "batch text" || bad "batch text: $out"

# The demo: a master and workers that copy pages, in JSON.
run -b -f json -n 4 -d 0.5 --demo
if printf '%s\n' "$out" | jq -e -s 'length == 4 and (.[-1].processes | map(select(.comm == "demo-worker")) | length) == 4 and ([.[].processes[] | select(.comm == "demo-worker") | .cow_pages] | max) > 0' >/dev/null; then
	ok "demo shows 4 workers copying"
else
	bad "demo: $out"
fi

# Watching everything: pid 1 is in the tree, every line is valid JSON.
run -b -f json -n 2 -d 0.2
if printf '%s\n' "$out" | jq -e -s 'length == 2 and (.[0].processes | map(.pid) | index(1)) != null' >/dev/null; then
	ok "watch all"
else
	bad "watch all rc=$rc"
fi

# Nothing of ours stays loaded: no program that was not there before the
# runs and that no process holds (another cowtop may run meanwhile).
leaked=$(leaked_progs "$progs_before")
if [ -n "${leaked// /}" ]; then
	bad "BPF programs left loaded: $leaked"
else
	ok "no BPF programs left"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
