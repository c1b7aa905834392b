#!/bin/sh
# Run every unit test again under an environment no test should depend on:
# C locale, no TERM, a 1x1 terminal, unbuffered Python. A test that passes
# only with what the caller happened to export fails here.
#
# make check sets abs_top_builddir and UNIT_TESTS (the unit test programs
# Makefile.am lists, relative to the build directory).
set -u
: "${abs_top_builddir:?run it through make check}"
: "${UNIT_TESTS:?run it through make check}"

passed=0
failed=0
out=$(mktemp) || exit 99
trap 'rm -f "$out"' EXIT
for t in $UNIT_TESTS; do
	env -u TERM PYTHONUNBUFFERED=1 LANG=C LC_ALL=C COLUMNS=1 LINES=1 \
		"$abs_top_builddir/$t" >"$out" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS: $t"
	else
		failed=$((failed + 1))
		echo "FAIL: $t (exit $rc)"
		sed 's/^/    | /' "$out"
	fi
done
echo "hostile-env: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
