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

# One closing line over every test script and program that ran, the
# sanitizer run and distcheck included.
extra_pass=0
extra_fail=0
summarize() {
	local pass fail
	pass=$(sed -n 's/^# PASS: *//p' test-suite.log 2>/dev/null || echo 0)
	fail=$(sed -n 's/^# FAIL: *//p' test-suite.log 2>/dev/null || echo 0)
	echo "$((${pass:-0} + extra_pass)) passed, $((${fail:-0} + extra_fail)) failed"
}
# The kernel matrix (tests/kernels) must run here: a kernel that cannot be
# fetched or booted fails. The release tarball's check below skips it: the
# same scripts, booting the same kernels a second time.
if ! COWTOP_KERNEL_MATRIX=required make -j1 check; then
	summarize
	for f in tests/unit/*.log tests/monitoring/*.log tests/integration/*.log tests/tui/*.log tests/hardening/*.log; do
		[ -f "$f" ] && { echo "==== $f"; tail -n 60 "$f"; }
	done
	exit 1
fi

# The unit, integration and TUI tests again, against an ASan/UBSan build.
san_rc=0
make sanitize-check 2>&1 | tee sanitize-check.log || san_rc=$?
extra_pass=$(sed -n 's/^sanitize-check: \([0-9]*\) passed.*/\1/p' sanitize-check.log)
extra_fail=$(sed -n 's/^sanitize-check: [0-9]* passed, \([0-9]*\) failed/\1/p' sanitize-check.log)
extra_pass=${extra_pass:-0}
extra_fail=${extra_fail:-1}
if [ "$san_rc" -ne 0 ]; then
	[ "$extra_fail" -gt 0 ] || extra_fail=1
	summarize
	exit 1
fi

# A release tarball builds and passes (its tests one at a time, like above:
# several at once would share the machine's two CPUs with a fork storm).
# The kernel matrix and the package were tested from this tree above.
if ! COWTOP_KERNEL_MATRIX=off COWTOP_DEB_TEST=off make -j"$(nproc)" distcheck AM_MAKEFLAGS=-j1; then
	echo "distcheck failed: the release tarball does not build or pass (see above)"
	for f in cowtop-*/_build/sub/tests/*/*.log; do
		grep -q '^FAIL' "$f" 2>/dev/null && { echo "==== $f"; tail -n 60 "$f"; }
	done
	extra_fail=$((extra_fail + 1))
	summarize
	exit 1
fi
summarize
