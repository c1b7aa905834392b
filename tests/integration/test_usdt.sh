#!/bin/bash
# cowtop -u PROVIDER:NAME: copies per phase between USDT probes and probe
# hits as markers, for a C workload with known counts (phaseload), a
# preforking Ruby script (GC marking in children) and a preforking Python
# script (gc.collect() in children, with and without gc.freeze()), and
# cowtop --list-usdt.
#
# Environment (besides lib.sh's):
#   PHASELOAD            phaseload binary (default ./tests/workloads/phaseload)
#   COWTOP_TEST_RUBY     Ruby interpreter (default ruby); its libruby must have
#                        USDT probes (Debian's has), else the Ruby part is
#                        skipped
#   COWTOP_TEST_PYTHON   Python interpreter (default /usr/bin/python3.11, the
#                        Debian build, which has USDT probes); skipped when it
#                        has no python:gc__start probe
#
# Oracle for phaseload: a child asked to write A pages, then B inside its
# phase, then C must show cow_by_phase["cowtest:phase"] in [B, B + SLACK]
# and cow_by_phase["outside"] in [A + C, A + C + slack] (lib.sh's slack; a
# threaded child also THREAD_SLACK). Measured: the phase holds exactly B,
# "outside" A + C + 0..3 (single thread), A + C + 10..11 (threaded).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# fork(3), pthread_create() and the exit of a thread dirty a few more shared
# pages of glibc and ld.so than the raw fork of single-threaded children;
# about 10 measured
readonly THREAD_SLACK=16

PHASELOAD=${PHASELOAD:-./tests/workloads/phaseload}
RUBY=${COWTOP_TEST_RUBY:-ruby}
PYTHON=${COWTOP_TEST_PYTHON:-/usr/bin/python3.11}
SCRIPTS=$(dirname "$0")/../workloads

# phaseload counts used by most runs
readonly OUTSIDE=300 INSIDE=1200 AFTER=200

# Start a phaseload with --wait-signal (see start_workload).
start_phaseload() {
	COWLOAD=$PHASELOAD start_workload "$@"
}

# Pids of the children (roles child and thread) of a phaseload REPORT.
phase_children() {
	report_pids child
	report_pids thread
}

# The index of a phaseload child in REPORT.
report_index() {
	awk -v p="$1" '$1 == "child" && $2 == p { print $NF; exit }' "$REPORT"
}

# Check the markers of one phaseload process: exactly one phase__begin and
# one phase__end with the phase number PHASE, in this order, then (with an
# INDEX) one mark with args 7,INDEX,42 after them:
# check_phase_markers PID PHASE [INDEX].
check_phase_markers() {
	local pid=$1 phase=$2 index=${3:-} tb te tm
	expect_eq "pid $pid: phase__begin markers" \
		"$(marker_args "$pid" cowtest:phase__begin | cut -d, -f1 | tr '\n' ' ')" \
		"$phase "
	expect_eq "pid $pid: phase__end markers (partner of a given probe)" \
		"$(marker_args "$pid" cowtest:phase__end | cut -d, -f1 | tr '\n' ' ')" \
		"$phase "
	tb=$(marker_lines "$pid" cowtest:phase__begin | cut -f1 | head -n 1)
	te=$(marker_lines "$pid" cowtest:phase__end | cut -f1 | head -n 1)
	if [ -n "$index" ]; then
		expect_eq "pid $pid: mark markers" \
			"$(marker_args "$pid" cowtest:mark | tr '\n' ' ')" \
			"7,$index,42 "
		tm=$(marker_lines "$pid" cowtest:mark | cut -f1 | head -n 1)
	else
		expect_eq "pid $pid: no mark marker" \
			"$(marker_count "$pid" cowtest:mark)" 0
		tm=$te
	fi
	check "pid $pid: marker times in order (begin $tb, end $te, mark $tm)" \
		awk -v b="${tb:-x}" -v e="${te:-x}" -v m="${tm:-x}" \
		'BEGIN { exit !(b != "x" && e != "x" && m != "x" &&
			b + 0 <= e + 0 && e + 0 <= m + 0) }'
}

# Check the counts per phase and the markers of every process of a phaseload
# REPORT: check_phaseload [EXTRA_SLACK for the children].
check_phaseload() {
	local extra=${1:-0} pid main inside outside
	validate_usdt_frames
	check_workload_self
	check_marker_pids
	for pid in $(phase_children); do
		inside=$(report_sum "$pid" inside)
		outside=$(report_sum "$pid" outside)
		expect_phase "$pid" cowtest:phase "$inside" $((inside + SLACK)) \
			"$(report_roles "$pid") $(report_index "$pid")"
		expect_phase "$pid" outside "$outside" \
			$((outside + $(slack_for "$pid") + extra)) \
			"$(report_roles "$pid") $(report_index "$pid")"
		check_phase_markers "$pid" $(($(report_index "$pid") + 1)) \
			"$(report_index "$pid")"
	done
	main=$(report_pids main)
	inside=$(report_sum "$main" inside)
	if [ "$inside" -gt 0 ]; then
		expect_phase "$main" cowtest:phase "$inside" $((inside + SLACK)) main
		check_phase_markers "$main" 0
	else
		expect_phase "$main" cowtest:phase 0 0 main
		expect_eq "main $main: no phase markers" \
			"$(marker_count "$main" cowtest:phase__begin)" 0
	fi
	expect_phase "$main" outside 0 "$(slack_for "$main")" main
}

# (a) Children that write outside, inside, then outside their phase, and a
# main process that writes inside its own phase; -u names one half of the
# pair only.
test_phases() {
	new_report phases
	run_cowtop phases -u cowtest:phase__begin -u cowtest:mark -- \
		"$PHASELOAD" --report "$REPORT" --check --children 3 \
		--outside "$OUTSIDE" --inside "$INSIDE" --after "$AFTER" \
		--parent-inside 500
	expect_eq "phases: cowtop exit status" "$RC" 0
	validate_frames
	check_tree exited
	check_no_strangers
	check_phaseload
}

# (a) The phase belongs to the faulting thread: a second thread writes the
# A and C pages while the first one has the phase open. The probe is named
# by the other half of the pair and with the object's path.
test_threads() {
	new_report threads
	run_cowtop threads -u "$PHASELOAD:cowtest:phase__end" -u cowtest:mark -- \
		"$PHASELOAD" --report "$REPORT" --check --children 2 --threads \
		--outside "$OUTSIDE" --inside "$INSIDE" --after "$AFTER"
	expect_eq "threads: cowtop exit status" "$RC" 0
	validate_frames
	check_no_strangers
	check_phaseload "$THREAD_SLACK"
}

# (a) A command given by a relative path: its object is the one mapped after
# the exec, each probe hit is one marker.
test_relative() {
	local dir cowtop pid
	dir=$(cd "$(dirname "$PHASELOAD")" && pwd)
	cowtop=$(cd "$(dirname "$COWTOP")" && pwd)/$(basename "$COWTOP")
	new_report relative
	pushd "$dir" >/dev/null
	COWTOP=$cowtop run_cowtop relative -u cowtest:mark -- \
		"./$(basename "$PHASELOAD")" --report "$REPORT" --children 2 \
		--inside 10
	popd >/dev/null
	expect_eq "relative: cowtop exit status" "$RC" 0
	validate_frames
	for pid in $(phase_children); do
		expect_eq "relative: pid $pid: one mark marker per hit" \
			"$(marker_args "$pid" cowtest:mark | tr '\n' ' ')" \
			"7,$(report_index "$pid"),42 "
	done
}

# (a) cowtop -p on a phaseload that waits for a signal, and a phaseload
# nobody watches that fires the same probes.
test_pid() {
	local main stranger
	new_report pid
	start_phaseload pid --check --children 2 --outside "$OUTSIDE" \
		--inside "$INSIDE" --after "$AFTER" --parent-inside 300 --linger 0.3
	main=$LOAD_PID
	REPORT=$WORK/stranger.report start_phaseload stranger --children 1 \
		--outside 10 --inside 100 --after 10
	stranger=$LOAD_PID
	start_cowtop pid -b -f json -d "$INTERVAL" -u cowtest:phase__begin \
		-u cowtest:mark -p "$main"
	release_shown "pid: cowtop -p -u" "$main" "$stranger" || return 0
	validate_frames
	check_tree exited
	check_no_strangers
	check_phaseload
}

# Pids of the children listed in a gc_fork REPORT.
gc_children() {
	awk '$1 == "child" { print $2 }' "$REPORT"
}

# What every run of a forking GC script must show: cowtop's clean end,
# well-formed frames and markers, no stranger, its 3 children.
check_gc_run() {
	expect_eq "$1: cowtop exit status" "$RC" 0
	validate_frames
	validate_usdt_frames
	check_no_strangers
	check_marker_pids
	expect_eq "$1: children reported" "$(gc_children | wc -l)" 3
}

# Does the output of --list-usdt (a header line, then PROVIDER NAME ...)
# list PROVIDER:NAME? has_probe FILE PROVIDER NAME
# shellcheck disable=SC2317 # called through check
has_probe() {
	awk -v p="$2" -v n="$3" 'NR > 1 && $1 == p && $2 == n { f = 1 }
		END { exit !f }' "$1"
}

# Does an ELF object hold a USDT probe NAME (in its .note.stapsdt)? Asked
# without cowtop, to tell a machine without probes from a failure of cowtop.
# object_has_probe FILE NAME
object_has_probe() {
	[ -r "$1" ] && grep -qaF -- "$2" "$1"
}

# Start an idle Ruby in the background; wait until libruby is mapped. Sets
# IDLE_RUBY and LIBRUBY (the path of libruby, empty if it is not mapped).
start_idle_ruby() {
	local tries=100
	LIBRUBY=
	# leaves quietly on SIGTERM (a job killed by a signal makes bash talk)
	"$RUBY" -e 'Signal.trap("TERM") { exit!(0) }; sleep 60' \
		</dev/null >/dev/null 2>&1 &
	IDLE_RUBY=$!
	BG_PIDS+=("$IDLE_RUBY")
	while [ -z "$LIBRUBY" ] && ((tries-- > 0)); do
		sleep 0.05
		LIBRUBY=$(awk '$6 ~ /libruby/ { print $6; exit }' \
			"/proc/$IDLE_RUBY/maps" 2>/dev/null || true)
	done
	[ -n "$LIBRUBY" ]
}

# Stop the idle Ruby.
stop_idle_ruby() {
	kill -TERM "$IDLE_RUBY" 2>/dev/null || true
	reap "$IDLE_RUBY" || true
	IDLE_RUBY=
}

# (b) Ruby: children of a preforking script run GC.start; marking writes the
# mark bits of the heap pages they share with the parent.
test_ruby() {
	local pid c total=0 phase_total=0
	if ! command -v "$RUBY" >/dev/null; then
		skip "ruby: no Ruby interpreter ($RUBY)"
		return
	fi
	if ! start_idle_ruby; then
		stop_idle_ruby
		skip "ruby: $RUBY does not map libruby"
		return
	fi
	stop_idle_ruby
	if ! object_has_probe "$LIBRUBY" gc__mark__begin; then
		skip "ruby: $LIBRUBY has no ruby:gc__mark__begin probe"
		return
	fi
	new_report ruby
	INTERVAL=0.5 run_cowtop ruby -u ruby:gc__mark__begin -- \
		"$RUBY" "$SCRIPTS/gc_fork.rb" --report "$REPORT" --children 3 \
		--gc-runs 3
	check_gc_run ruby
	for pid in $(gc_children); do
		check "ruby child $pid: at least 3 ruby:gc__mark__begin markers ($(marker_count "$pid" ruby:gc__mark__begin))" \
			test "$(marker_count "$pid" ruby:gc__mark__begin)" -ge 3
		check "ruby child $pid: ruby:gc__mark__end markers (partner)" \
			test "$(marker_count "$pid" ruby:gc__mark__end)" -ge 3
		c=$(phase_cow "$pid" ruby:gc__mark)
		check "ruby child $pid: copies while marking (${c:-none} of $(last_cow "$pid"))" \
			test "${c:-0}" -gt 0
		phase_total=$((phase_total + ${c:-0}))
		total=$((total + $(last_cow "$pid")))
	done
	echo "ruby: children copied $total pages, $phase_total of them in ruby:gc__mark"
}

# Run gc_fork.py under cowtop; check markers and attribution. Sets
# PY_PHASE and PY_TOTAL: pages the children copied in python:gc, in all.
# run_python NAME [--freeze]
run_python() {
	local name=$1 pid c starts
	shift
	PY_PHASE=0
	PY_TOTAL=0
	new_report "$name"
	run_cowtop "$name" -u python:gc__start -- "$PYTHON" \
		"$SCRIPTS/gc_fork.py" --report "$REPORT" --children 3 \
		--gc-runs 3 "$@"
	check_gc_run "$name"
	for pid in $(gc_children); do
		# gc.collect() collects generation 2
		starts=$(marker_args "$pid" python:gc__start | cut -d, -f1 |
			grep -cx 2 || true)
		check "$name child $pid: at least 3 python:gc__start markers of generation 2 ($starts)" \
			test "$starts" -ge 3
		check "$name child $pid: python:gc__done markers (partner)" \
			test "$(marker_count "$pid" python:gc__done)" -ge 3
		c=$(phase_cow "$pid" python:gc)
		check "$name child $pid: cow_by_phase has python:gc (${c:-none} of $(last_cow "$pid"))" \
			test -n "$c"
		PY_PHASE=$((PY_PHASE + ${c:-0}))
		PY_TOTAL=$((PY_TOTAL + $(last_cow "$pid")))
	done
	echo "$name: children copied $PY_TOTAL pages, $PY_PHASE of them in python:gc"
}

# (c) Python: children run gc.collect(), which writes the GC header of every
# object it examines; after gc.freeze() in the parent it skips them.
test_python() {
	local plain plain_total frozen frozen_total
	if ! [ -x "$PYTHON" ]; then
		skip "python: no interpreter at $PYTHON"
		return
	fi
	if ! object_has_probe "$PYTHON" gc__start; then
		skip "python: $PYTHON has no python:gc__start probe"
		return
	fi
	run_python python
	plain=$PY_PHASE plain_total=$PY_TOTAL
	check "python: copies while collecting ($plain)" test "$plain" -gt 0
	run_python python-freeze --freeze
	frozen=$PY_PHASE frozen_total=$PY_TOTAL
	echo "python: copies in python:gc without gc.freeze() $plain (of $plain_total), with $frozen (of $frozen_total)"
	# measured: about 13000 pages per child without, 30 with
	check "python: gc.freeze() cuts copies while collecting ($frozen vs $plain)" \
		test $((frozen * 10)) -lt "$plain"
}

# (d) cowtop --list-usdt PID|PATH, and errors of --list-usdt and -u.
test_list() {
	local notelf=$WORK/not-elf
	run_cowtop_plain list-phaseload --list-usdt "$PHASELOAD"
	expect_eq "list phaseload: exit status" "$RC" 0
	# shellcheck disable=SC2016 # awk fields
	check "list phaseload: header line first" \
		awk 'NR == 1 { exit !(toupper($0) ~ /PROVIDER/ && toupper($0) ~ /NAME/) }' \
		"$WORK/list-phaseload.out"
	check "list phaseload: cowtest phase__begin" \
		has_probe "$WORK/list-phaseload.out" cowtest phase__begin
	check "list phaseload: cowtest phase__end" \
		has_probe "$WORK/list-phaseload.out" cowtest phase__end
	check "list phaseload: cowtest mark" \
		has_probe "$WORK/list-phaseload.out" cowtest mark

	if [ -x "$PYTHON" ]; then
		run_cowtop_plain list-python --list-usdt "$PYTHON"
		expect_eq "list $PYTHON: exit status" "$RC" 0
		check "list $PYTHON: python gc__start" \
			has_probe "$WORK/list-python.out" python gc__start
		check "list $PYTHON: python gc__done" \
			has_probe "$WORK/list-python.out" python gc__done
	else
		skip "list: no Python interpreter at $PYTHON"
	fi

	if command -v "$RUBY" >/dev/null && start_idle_ruby &&
		object_has_probe "$LIBRUBY" gc__mark__begin; then
		run_cowtop_plain list-ruby --list-usdt "$IDLE_RUBY"
		expect_eq "list ruby pid: exit status" "$RC" 0
		# shellcheck disable=SC2016 # awk fields
		check "list ruby pid: ruby gc__mark__begin in libruby" \
			awk 'NR > 1 && $1 == "ruby" && $2 == "gc__mark__begin" &&
				$NF ~ /libruby/ { f = 1 } END { exit !f }' \
			"$WORK/list-ruby.out"
	else
		skip "list: no Ruby interpreter with USDT probes ($RUBY)"
	fi
	[ -z "${IDLE_RUBY:-}" ] || stop_idle_ruby

	printf 'not an ELF file\n' >"$notelf"
	run_cowtop_plain list-notelf --list-usdt "$notelf"
	expect_error list-notelf 1 "not an ELF file"
	run_cowtop_plain list-nopid --list-usdt 999999999
	expect_error list-nopid 1 "no process with PID 999999999"
	run_cowtop_plain list-noprobes --list-usdt /bin/true
	expect_error list-noprobes 1 "no USDT probes"
}

# (d) Errors of -u: malformed SPECs are usage errors, a probe found nowhere
# is a runtime error naming it.
test_u_errors() {
	local spec i=0
	for spec in bogus cowtest: :mark; do
		i=$((i + 1))
		echo "u-bad$i: -u '$spec'"
		run_cowtop_plain "u-bad$i" -b -f json -u "$spec" -- /bin/true
		expect_error "u-bad$i" 2
	done
	run_cowtop_plain u-nosuch -b -f json -u nosuch:probe -- /bin/true
	expect_error u-nosuch 1 "nosuch"
}

setup
[ -x "$PHASELOAD" ] || die "phaseload not found at '$PHASELOAD' (set PHASELOAD)"
test_phases
test_threads
test_relative
test_pid
test_ruby
test_python
test_list
test_u_errors
finish
