#!/usr/bin/env bash
# Fresh machine to a passing test suite: install packages, build from this
# tree, run every test (unit, integration as root with real BPF, TUI), then
# check that a release tarball builds and passes too.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
autoreconf -fi
./configure --enable-werror
make -j"$(nproc)"

# One closing line over every test script and program that ran.
summarize() {
	local pass fail
	pass=$(sed -n 's/^# PASS: *//p' test-suite.log 2>/dev/null || echo 0)
	fail=$(sed -n 's/^# FAIL: *//p' test-suite.log 2>/dev/null || echo 0)
	echo "${pass:-0} passed, ${fail:-0} failed"
}
if ! make -j1 check; then
	summarize
	for f in tests/unit/*.log tests/integration/*.log tests/tui/*.log; do
		[ -f "$f" ] && { echo "==== $f"; tail -n 60 "$f"; }
	done
	exit 1
fi
make -j"$(nproc)" distcheck
summarize
