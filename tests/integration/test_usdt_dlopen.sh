#!/bin/bash
# cowtop -u with a probe in a library the watched process loads later:
# dlopenload forks a child that dlopen()s libdlprobe.so (not linked: not
# mapped when cowtop starts), waits until the library's probes are attached
# (their semaphores raised, a bounded wait), then writes OUTSIDE pages,
# INSIDE pages in the phase dlprobe:work and AFTER pages.
#
# Oracle, from the workload's own report: the child saw the probes attached
# before its phase; its copies in dlprobe:work are the INSIDE pages it wrote
# (plus SLACK for its stack), those outside any phase at least OUTSIDE +
# AFTER (plus what dlopen itself copies, within DLOPEN_SLACK); one begin and
# one end marker, each once (an object attached twice reports every hit
# twice); the main process has no copies in the phase.
#
# The swap run has the library come in with no change of size: the main
# process reserved as much as the library maps before it forked, the child
# gives it back right after dlopen(), and says its size was the same
# before and after (the premise). A library found by polling sizes is
# missed then; the probes must still be attached. It runs twice: with the
# way cowtop picks here to see the mmap, and with COWTOP_NO_TRACEFS=1 (the
# raw_syscalls:sys_exit program; the same where tracefs is not mounted).
#
# Environment (besides lib.sh's): DLOPENLOAD (default ./tests/workloads/dlopenload).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DLOPENLOAD=${DLOPENLOAD:-./tests/workloads/dlopenload}
readonly OUTSIDE=300 INSIDE=1200 AFTER=200 DLOPEN_SLACK=64

setup
[ -x "$DLOPENLOAD" ] || die "dlopenload not found at '$DLOPENLOAD' (set DLOPENLOAD)"
command -v readelf >/dev/null || die "readelf not found (binutils)"

# The premise: the program does not link the library, and the library has
# the probes.
check "dlopenload does not link libdlprobe.so" \
	bash -c '! readelf -d "$1" | grep -q libdlprobe' sh "$DLOPENLOAD"
check "libdlprobe.so has dlprobe:work__begin" \
	bash -c 'readelf -n "$1" | grep -q "Name: work__begin"' sh "$(dirname "$DLOPENLOAD")/libdlprobe.so"

# Check a run's frames against its report: check_run NAME.
check_run() {
	local name=$1 child main
	validate_usdt_frames
	child=$(awk '$1 == "child" { print $2 }' "$REPORT")
	main=$(awk '$1 == "main" { print $2 }' "$REPORT")
	expect_eq "$name: the child saw the probes attached before its phase" \
		"$(report_sum "$child" attached)" 1
	expect_phase "$child" dlprobe:work "$(report_sum "$child" inside)" \
		$(($(report_sum "$child" inside) + SLACK)) "$name child"
	expect_phase "$child" outside "$(report_sum "$child" outside)" \
		$(($(report_sum "$child" outside) + DLOPEN_SLACK)) "$name child"
	expect_eq "$name: one begin marker" "$(marker_count "$child" dlprobe:work__begin)" 1
	expect_eq "$name: one end marker" "$(marker_count "$child" dlprobe:work__end)" 1
	expect_phase "$main" dlprobe:work 0 0 "$name main"
}

# A command: cowtop starts it; the library comes after its exec.
REPORT=$WORK/cmd.report
run_cowtop cmd -u dlprobe:work__begin -- "$DLOPENLOAD" --report "$REPORT" \
	--outside $OUTSIDE --inside $INSIDE --after $AFTER
expect_eq "cmd: cowtop exit status" "$RC" 0
check_run cmd

# The library swapped for a region of its size within microseconds: the
# start delay lets cowtop see the main process's final size before the fork.
# Twice: with the mmap tracepoint cowtop picks here (syscalls:sys_exit_mmap
# where tracefs is mounted), and with raw_syscalls:sys_exit.
for way in swap swap-raw; do
	REPORT=$WORK/$way.report
	[ "$way" = swap ] || export COWTOP_NO_TRACEFS=1
	run_cowtop "$way" -u dlprobe:work__begin -- "$DLOPENLOAD" --report "$REPORT" \
		--outside $OUTSIDE --inside $INSIDE --after $AFTER --swap --start-delay 1 --wait 10
	unset COWTOP_NO_TRACEFS
	expect_eq "$way: cowtop exit status" "$RC" 0
	expect_eq "$way: the child's size was the same before dlopen and after munmap" \
		"$(report_sum "$(awk '$1 == "child" { print $2 }' "$REPORT")" same_size)" 1
	check_run "$way"
done

# A process found running (-p): its library, loaded after cowtop started,
# is named with its path (a path-less probe must be found at start).
REPORT=$WORK/pid.report
"$DLOPENLOAD" --report "$REPORT" --outside $OUTSIDE --inside $INSIDE --after $AFTER \
	--start-delay 1 >/dev/null &
LOAD=$!
BG_PIDS+=("$LOAD")
run_cowtop pid -u "$(dirname "$DLOPENLOAD")/libdlprobe.so:dlprobe:work__begin" -p "$LOAD"
expect_eq "pid: cowtop exit status" "$RC" 0
wait_workload "$LOAD"
check_run pid

finish
