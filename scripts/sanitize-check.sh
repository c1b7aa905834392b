#!/usr/bin/env bash
# Build cowtop and the unit tests with AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer in a build directory of its own, then run every
# unit test, and the integration and TUI tests against that cowtop. Any
# sanitizer report, or any failed test, fails the check.
#
# Usage (as root: the integration and TUI tests load BPF programs):
#   scripts/sanitize-check.sh [BUILD_DIR]    (default: $TMPDIR/cowtop-sanitize)
# SANITIZE_UNIT_ONLY=1 runs the unit tests alone, which needs no root.
#
# The unit tests run with detect_stack_use_after_return: a pointer kept into
# a returned frame reads memory that still looks valid without it.
#
# Built with clang (SANITIZE_CC to change it): GCC's UBSan runtime writes its
# reports to standard error only, where a full-screen test would hide them;
# clang's follows log_path, so every report lands in BUILD_DIR/reports.
#
# The workloads the tests run are built without sanitizers: shadow memory
# writes would add page copies to the counts the tests check.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${TMPDIR:-/tmp}/cowtop-sanitize}
san_cflags="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer"
san_ldflags="-fsanitize=address,undefined"
cc=${SANITIZE_CC:-clang}
unit_only=${SANITIZE_UNIT_ONLY:-0}

tools="$cc make"
if [ "$unit_only" != 1 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "sanitize-check: must run as root (the tests load BPF programs)" >&2
		exit 1
	fi
	tools="$tools tmux jq"
fi
for tool in $tools; do
	command -v "$tool" >/dev/null || {
		echo "sanitize-check: $tool is needed (scripts/deps.sh installs it)" >&2
		exit 1
	}
done

# A tree configured in place cannot be built elsewhere: build a copy of its
# sources then (tracked and new files, not what the build made).
src=$top
if [ -f "$top/config.status" ]; then
	src=$build/src
	rm -rf "$src"
	mkdir -p "$src"
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$top" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 tar -cf - --no-recursion) | (cd "$src" && tar -xf -)
	else
		make -C "$top" -s distdir distdir="$src" >/dev/null
	fi
fi
[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)

# Run a build step quietly; show its output only when it fails.
quiet() {
	if ! "$@" >"$build/build.log" 2>&1; then
		tail -n 40 "$build/build.log" >&2
		echo "sanitize-check: build failed: $*" >&2
		exit 1
	fi
}

mkdir -p "$build/obj"
cd "$build/obj"
echo "sanitize-check: configuring in $build/obj"
quiet "$src/configure" -q CC="$cc" CFLAGS="$san_cflags" LDFLAGS="$san_ldflags"
# The unit tests Makefile.am lists, so a new one is checked here too.
list=$(make -s --no-print-directory print-unit-tests)
read -ra unit_tests <<<"$list"
if [ "${#unit_tests[@]}" -eq 0 ]; then
	echo "sanitize-check: Makefile lists no unit test" >&2
	exit 1
fi
echo "sanitize-check: building the unit tests with $cc $san_cflags"
# test_symbolize runs a program built for it (check_PROGRAMS, not a test)
quiet make -j"$(nproc)" "${unit_tests[@]}" tests/unit/symtarget
if [ "$unit_only" != 1 ]; then
	echo "sanitize-check: building cowtop with $cc $san_cflags"
	quiet make -j"$(nproc)" cowtop.skel.h iter.skel.h
	quiet make -j"$(nproc)" cowtop
	quiet make -j"$(nproc)" tests/workloads/cowload tests/workloads/phaseload \
	tests/workloads/regionload tests/workloads/siteload tests/workloads/forkload \
	tests/workloads/stackload tests/workloads/dlopenload CFLAGS="-O2 -g" LDFLAGS=
fi

logs=$build/reports
rm -rf "$logs"
mkdir -p "$logs"
asan_options="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
export srcdir=$src

passed=0
failed=0
# Run one test, its output in $logs/NAME.log; count and show the result.
run_test() {
	local name=$1
	shift
	if "$@" >"$logs/$name.log" 2>&1; then
		passed=$((passed + 1))
		echo "PASS: $name ($(tail -n 1 "$logs/$name.log"))"
	else
		failed=$((failed + 1))
		echo "FAIL: $name (log: $logs/$name.log)"
		tail -n 20 "$logs/$name.log" | sed 's/^/    | /'
	fi
}

for t in "${unit_tests[@]}"; do
	ASAN_OPTIONS="$asan_options:detect_stack_use_after_return=1:log_path=$logs/asan" \
		run_test "$(basename "$t")" "$build/obj/$t"
done

if [ "$unit_only" != 1 ]; then
	export ASAN_OPTIONS="$asan_options:log_path=$logs/asan"
	export COWTOP=$build/obj/cowtop
	export COWLOAD=$build/obj/tests/workloads/cowload
	export PHASELOAD=$build/obj/tests/workloads/phaseload
	export REGIONLOAD=$build/obj/tests/workloads/regionload
	export SITELOAD=$build/obj/tests/workloads/siteload
	export FORKLOAD=$build/obj/tests/workloads/forkload
	export STACKLOAD=$build/obj/tests/workloads/stackload
	export DLOPENLOAD=$build/obj/tests/workloads/dlopenload
	for t in "$src"/tests/integration/test_*.sh "$src"/tests/tui/test_tui.sh; do
		run_test "$(basename "$t" .sh)" bash "$t"
	done
fi

reports=$(find "$logs" -maxdepth 1 -type f \( -name 'asan.*' -o -name 'ubsan.*' \) | sort)
# a report that went to standard error anyway, seen in a test's output
if grep -lE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$logs"/*.log >/dev/null 2>&1; then
	reports="$reports $(grep -lE 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$logs"/*.log)"
fi
if [ -n "${reports// /}" ]; then
	failed=$((failed + 1))
	echo "FAIL: sanitizer reports:"
	for r in $reports; do
		echo "==== $r"
		head -n 40 "$r"
	done
else
	echo "sanitize-check: no sanitizer report"
fi
echo "sanitize-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
