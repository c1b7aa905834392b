# shellcheck shell=bash
# Helpers shared by cowtop's integration tests; source it from a test script
# that runs with `set -euo pipefail`.
#
# Environment:
#   COWTOP                  cowtop binary (default ./cowtop)
#   COWLOAD                 workload binary (default ./tests/workloads/cowload)
#   COWTOP_TEST_INTERVAL    cowtop -d value (default 0.2)
#   COWTOP_TEST_TIMEOUT     seconds one cowtop run may take (default 60)
#   COWTOP_TEST_ATTACH_WAIT seconds to wait for a first frame before a workload
#                           is released when cowtop may print none (default 3)
#   COWTOP_TEST_KEEP        1: keep the work directory even when all passed
#
# Oracle: a process that was asked to write W shared pages must be reported
# with W <= cow_pages <= W + slack, where slack is made of:
#   SLACK          pages any process copies besides its work: its stack, the
#                  thread block the kernel updates (rseq), lazily bound GOT
#                  entries and ld.so data; about 4 measured with cowload
#   FORK_SLACK     per child it forks: after fork(), whichever of parent or
#                  child first writes a shared stack page copies it; up to
#                  2.5 write faults per fork measured on the main process
#   STARTUP_SLACK  a process that starts cowload (pid with a "main" line):
#                  ld.so relocations and libc start-up and exit writes to
#                  file-private pages, about 25 measured
#   EXEC_SLACK     a process that executes another program: relocations of
#                  the new image, about 7 measured for /bin/true
# Zero fills must be in [Z, Z + SLACK] and never counted as copies. A race
# pair (main process and race child writing the same N pages) must have
# copied N pages between them (own writes and slack aside), and resolved
# about N faults by reuse. Every frame must follow the JSON contract with
# "lost" 0; cow_pages of a pid never decreases; a pid that exited shows
# "exited" in its last appearance and never again after it.

. "$(dirname "${BASH_SOURCE[0]}")/../public.sh"

readonly SLACK=16
readonly FORK_SLACK=3
readonly STARTUP_SLACK=32
readonly EXEC_SLACK=32

COWTOP=${COWTOP:-./cowtop}
COWLOAD=${COWLOAD:-./tests/workloads/cowload}
INTERVAL=${COWTOP_TEST_INTERVAL:-0.2}
TIMEOUT=${COWTOP_TEST_TIMEOUT:-60}
# shellcheck disable=SC2034 # used by the test scripts
ATTACH_WAIT=${COWTOP_TEST_ATTACH_WAIT:-3}

PASSED=0
FAILED=0
BG_PIDS=()
WORK=
FRAMES=
SUMMARY=
REPORT=
RC=0
COWTOP_PID=

# Print a message on stderr and exit 1: the test cannot run at all.
die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# Record a passed check.
pass() {
	PASSED=$((PASSED + 1))
	echo "ok: $*"
}

# Record a failed check.
fail() {
	FAILED=$((FAILED + 1))
	echo "FAIL: $*"
}

# Check that a condition command succeeds: check DESC CMD [ARGS...].
check() {
	local desc=$1
	shift
	if "$@"; then
		pass "$desc"
	else
		fail "$desc"
	fi
}

# Run jq -e quietly on FRAMES: jq_true FILTER [JQ OPTIONS...].
jq_true() {
	local filter=$1
	shift
	jq -n -e "$@" "$filter" "$FRAMES" >/dev/null 2>&1
}

# Compare two strings: expect_eq DESC ACTUAL EXPECTED.
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1 ($2)"
	else
		fail "$1: got '$2', expected '$3'"
	fi
}

# Check a number is within [LOW, HIGH]: in_range VALUE LOW HIGH.
in_range() {
	[[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

# Wait for a background process started here; forget it: reap PID.
reap() {
	local pid=$1 rc=0 i
	wait "$pid" || rc=$?
	for i in "${!BG_PIDS[@]}"; do
		[ "${BG_PIDS[$i]}" != "$pid" ] || unset "BG_PIDS[$i]"
	done
	return "$rc"
}

# Stop background processes, keep or remove the work directory.
cleanup() {
	local pid
	for pid in "${BG_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
	done
	[ -n "$WORK" ] || return 0
	if [ "$FAILED" -gt 0 ] || [ "${COWTOP_TEST_KEEP:-0}" = 1 ]; then
		echo "work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
}

# Check the environment; create the work directory.
setup() {
	[ "$(id -u)" -eq 0 ] ||
		die "must run as root: cowtop loads eBPF programs and the workload reads page frame numbers"
	command -v jq >/dev/null || die "jq is required (Debian package jq)"
	command -v timeout >/dev/null || die "timeout (coreutils) is required"
	[ -x "$COWTOP" ] || die "cowtop binary not found at '$COWTOP' (set COWTOP)"
	[ -x "$COWLOAD" ] || die "workload not found at '$COWLOAD' (set COWLOAD)"
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-test.XXXXXX")
	trap cleanup EXIT
}

# Print the "N passed, N failed" line; exit 0 only if nothing failed.
finish() {
	echo "$(basename "$0" .sh): $PASSED passed, $FAILED failed"
	if [ "$FAILED" -eq 0 ]; then
		exit 0
	fi
	exit 1
}

# Run cowtop in the foreground in JSON batch mode: run_cowtop NAME ARGS...
# Frames go to $WORK/NAME.json (FRAMES), stderr to $WORK/NAME.err; RC is
# cowtop's exit status (124 if it timed out).
run_cowtop() {
	local name=$1
	shift
	FRAMES=$WORK/$name.json
	SUMMARY=
	RC=0
	timeout -k 5 "$TIMEOUT" "$COWTOP" -b -f json -d "$INTERVAL" "$@" \
		>"$FRAMES" 2>"$WORK/$name.err" </dev/null || RC=$?
	[ "$RC" -ne 124 ] || fail "$name: cowtop did not finish within ${TIMEOUT}s"
}

# Start cowtop in the background: start_cowtop NAME ARGS... (all of its
# arguments, output options included). Sets FRAMES and COWTOP_PID.
start_cowtop() {
	local name=$1
	shift
	FRAMES=$WORK/$name.json
	SUMMARY=
	# background jobs of a script ignore SIGINT: give it back to cowtop
	env --default-signal=INT "$COWTOP" "$@" \
		>"$FRAMES" 2>"$WORK/$name.err" </dev/null &
	COWTOP_PID=$!
	BG_PIDS+=("$COWTOP_PID")
}

# Stop the background cowtop with SIGINT and collect its status in RC.
stop_cowtop() {
	local i
	RC=0
	kill -INT "$COWTOP_PID" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		kill -0 "$COWTOP_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$COWTOP_PID" 2>/dev/null; then
		fail "cowtop still running 10s after SIGINT"
		kill -KILL "$COWTOP_PID" 2>/dev/null || true
	fi
	reap "$COWTOP_PID" || RC=$?
	case $RC in
	0 | 130) pass "cowtop stopped on SIGINT (status $RC)" ;;
	*) fail "cowtop exit status $RC after SIGINT (expected 0 or 130)" ;;
	esac
}

# Once the watched load has ended: wait up to S seconds (default 10) for the
# batch cowtop (COWTOP_PID) to end with it, and reap it; its exit status goes
# to RC: reap_cowtop_after_load [S].
reap_cowtop_after_load() {
	local i tries=$((${1:-10} * 10))
	for ((i = 0; i < tries; i++)); do
		kill -0 "$COWTOP_PID" 2>/dev/null || break
		sleep 0.1
	done
	RC=0
	reap "$COWTOP_PID" || RC=$?
}

# Count complete lines in a file (0 if missing).
count_lines() {
	[ -f "$1" ] || {
		echo 0
		return
	}
	wc -l <"$1"
}

# Wait up to SECONDS for FILE to hold at least N lines: wait_lines FILE N S.
wait_lines() {
	local file=$1 n=$2 tries
	tries=$(awk -v s="$3" 'BEGIN { print int(s * 20) }')
	while [ "$(count_lines "$file")" -lt "$n" ]; do
		[ "$tries" -gt 0 ] || return 1
		tries=$((tries - 1))
		sleep 0.05
	done
}

# Start a new report file $WORK/NAME.report and make it REPORT. Several
# workloads may append to the same report.
new_report() {
	REPORT=$WORK/$1.report
	: >"$REPORT"
}

# Start a cowload with --wait-signal in the background, reporting to REPORT,
# and wait for its "ready PID" line: start_workload NAME ARGS... Sets
# LOAD_PID, the pid of that cowload.
start_workload() {
	local name=$1 out ready
	shift
	out=$WORK/$name.out
	"$COWLOAD" --wait-signal --report "$REPORT" "$@" >"$out" 2>"$WORK/$name.load.err" &
	LOAD_PID=$!
	BG_PIDS+=("$LOAD_PID")
	wait_lines "$out" 1 10 || die "$name: workload printed no ready line"
	ready=$(awk '$1 == "ready" { print $2 }' "$out")
	[ "$ready" = "$LOAD_PID" ] || die "$name: unexpected ready line"
}

# Wait for a background workload and check its exit status:
# wait_workload PID.
wait_workload() {
	local rc=0
	reap "$1" || rc=$?
	expect_eq "workload $1 exit status" "$rc" 0
}

# Once cowtop (started with start_cowtop) has shown its first frame, release
# the waiting workloads (SIGUSR1), wait for them and for 3 more intervals,
# and stop cowtop: release_shown NAME PID... If no frame comes within 15 s,
# the check fails, cowtop is stopped and the status is 1 (nothing released).
release_shown() {
	local name=$1 pid
	shift
	if ! wait_lines "$FRAMES" 1 15; then
		fail "$name printed no frame within 15s"
		stop_cowtop
		return 1
	fi
	kill -USR1 "$@" || die "$name: cannot release $*"
	for pid in "$@"; do
		wait_workload "$pid"
	done
	sleep_intervals 3
	stop_cowtop
}

# Check the workload checked itself (--check) and found nothing wrong: a
# failure here is a problem of the machine or of cowload, not of cowtop.
check_workload_self() {
	local bad
	bad=$(awk '$1 == "done" && $NF != "ok"' "$REPORT")
	if [ -z "$bad" ] && grep -q '^done ' "$REPORT"; then
		pass "workload self-check (pagemap) ok"
	else
		fail "workload self-check failed, counts below are not cowtop's fault: ${bad:-no done lines}"
	fi
}

# Check every frame against the JSON contract; echo nothing.
validate_frames() {
	local n
	n=$(count_lines "$FRAMES")
	if [ "$n" -eq 0 ]; then
		fail "no frame printed ($FRAMES)"
		return
	fi
	if ! jq -e . "$FRAMES" >/dev/null 2>&1 ||
		[ "$(jq -c . "$FRAMES" | wc -l)" -ne "$n" ]; then
		fail "output is not one JSON object per line ($FRAMES)"
		return
	fi
	# shellcheck disable=SC2016 # jq variables
	check "$n frames follow the JSON contract" jq_true '
		def num: type == "number";
		def nat: num and . >= 0 and . == floor;
		def proc: type == "object" and (.pid | nat) and (.ppid | nat)
			and (.comm | type == "string") and (.depth | nat)
			and (.state | type == "string" and length > 0)
			and (.start_time | nat) and (.cow_pages | nat)
			and (.cow_rate | num and . >= 0) and (.reuse | nat)
			and (.zero_fill | nat) and (.rss_kib | nat or . == null)
			and (.vsz_kib | nat or . == null);
		def frame: type == "object" and (.time | num) and (.interval | num and . > 0)
			and (.mechanism | type == "string") and (.lost | nat)
			and (.processes | type == "array" and all(.[]; proc));
		[inputs] | all(.[]; frame)
			and ([.[].time] as $t | $t == ($t | sort))'
	# a test whose load may outrun the reader (ALLOW_LOST=1) checks instead
	# that what was lost is counted: see its own checks
	[ "${ALLOW_LOST:-0}" = 1 ] || check "no lost events" jq_true '[inputs.lost] | all(. == 0)'
	# a rate over a vanishing interval is a spike (16 copies in 0.4 ms read
	# as 40000/s): no frame covers less than a quarter of -d (printed with
	# three decimals, hence the rounding)
	# shellcheck disable=SC2016 # jq variables
	check "no frame rated over less than a quarter of -d $INTERVAL" jq_true \
		'[inputs.interval] | all(. >= $min)' \
		--argjson min "$(awk -v i="$INTERVAL" 'BEGIN { printf "%.4f", i / 4 - 0.0005 }')"
}

# Build the per-pid summary of FRAMES (tab separated, one line per pid):
# pid cow zero_fill reuse state comm ppid depth max_rate monotonic
# reappeared start_time_stable appearances max_rss_kib
summarize() {
	SUMMARY=$FRAMES.tsv
	jq -r -s '
		[to_entries[] | .key as $i | (.value.processes // [])[]
		 | . + {_i: $i}]
		| group_by(.pid)[] | sort_by(._i) as $g | $g[-1] as $l
		| [$l.pid, $l.cow_pages, $l.zero_fill, $l.reuse, $l.state,
		   $l.comm, $l.ppid, $l.depth, ([$g[].cow_rate] | max),
		   (if [range(1; $g | length)
			| select($g[.].cow_pages < $g[. - 1].cow_pages)]
		       | length == 0 then "yes" else "no" end),
		   (if [$g[:-1][] | select(.state == "exited")] | length == 0
		    then "no" else "yes" end),
		   (if [$g[].start_time] | unique | length == 1
		    then "yes" else "no" end),
		   ($g | length), ([$g[].rss_kib] | max)]
		| @tsv' "$FRAMES" >"$SUMMARY" 2>/dev/null || : >"$SUMMARY"
}

# Print one summary field of a pid (empty if the pid was never reported):
# proc_field PID FIELD, FIELD one of the names listed at summarize.
proc_field() {
	local col
	[ -n "$SUMMARY" ] || summarize
	case $2 in
	cow | cow_pages) col=2 ;;
	zero_fill) col=3 ;;
	reuse) col=4 ;;
	state) col=5 ;;
	comm) col=6 ;;
	ppid) col=7 ;;
	depth) col=8 ;;
	max_rate) col=9 ;;
	monotonic) col=10 ;;
	reappeared) col=11 ;;
	start_time_stable) col=12 ;;
	appearances) col=13 ;;
	max_rss_kib) col=14 ;;
	*) die "proc_field: unknown field $2" ;;
	esac
	awk -F '\t' -v p="$1" -v c="$col" '$1 == p { print $c }' "$SUMMARY"
}

# The cow_pages of PID in its last appearance in FRAMES.
last_cow() {
	proc_field "$1" cow
}

# All pids that appear in FRAMES.
frame_pids() {
	[ -n "$SUMMARY" ] || summarize
	cut -f1 "$SUMMARY"
}

# Assert a pid's last reported value is in range:
# expect_range PID LOW HIGH [FIELD (default cow_pages)] [LABEL].
expect_range() {
	local pid=$1 low=$2 high=$3 field=${4:-cow_pages} label=${5:-}
	check_value "pid $pid${label:+ ($label)}" "$field" "$(proc_field "$pid" "$field")" "$low" "$high"
}

# Pass if WHO's WHAT, value V, is in [LOW, HIGH]; fail if not, or if V is
# empty (not reported): check_value WHO WHAT V LOW HIGH.
check_value() {
	local who=$1 what=$2 v=$3 low=$4 high=$5
	if [ -z "$v" ]; then
		fail "$who: no $what reported"
	elif in_range "$v" "$low" "$high"; then
		pass "$who: $what $v in [$low, $high]"
	else
		fail "$who: $what $v not in [$low, $high]"
	fi
}

# Pids that have a line in REPORT, optionally only those of ROLE.
report_pids() {
	awk -v r="${1:-}" '($1 == "main" || $1 == "child") &&
		(r == "" || $8 == r) && !seen[$2]++ { print $2 }' "$REPORT"
}

# Sum a report field over the lines of a pid: report_sum PID FIELD, FIELD
# one of wrote, zero, race.
report_sum() {
	awk -v p="$1" -v f="$2" '($1 == "main" || $1 == "child") && $2 == p {
		for (i = 3; i < NF; i += 2) if ($i == f) s += $(i + 1)
	} END { print s + 0 }' "$REPORT"
}

# Print the roles of a pid, space separated.
report_roles() {
	awk -v p="$1" '($1 == "main" || $1 == "child") && $2 == p {
		printf "%s%s", sep, $8; sep = " " } END { print "" }' "$REPORT"
}

# Print the ppid a child line gives for a pid (empty for a main line only).
report_ppid() {
	awk -v p="$1" '$1 == "child" && $2 == p { print $4; exit }' "$REPORT"
}

# Count the children a pid forked according to REPORT.
report_nchildren() {
	awk -v p="$1" '$1 == "child" && $4 == p { n++ } END { print n + 0 }' "$REPORT"
}

# The race partner of the main process whose pid is given (empty if none).
report_race_child() {
	awk -v p="$1" '$1 == "child" && $4 == p && $8 == "race" { print $2 }' "$REPORT"
}

# Slack allowed for a pid, from what REPORT says it did.
slack_for() {
	local pid=$1 roles s
	roles=" $(report_roles "$pid") "
	s=$((SLACK + FORK_SLACK * $(report_nchildren "$pid")))
	[[ $roles != *" main "* ]] || s=$((s + STARTUP_SLACK))
	[[ $roles != *" exec "* ]] || s=$((s + EXEC_SLACK))
	echo "$s"
}

# Check copies and zero fills of one reported pid against REPORT.
check_pid_counts() {
	local pid=$1 w z r s
	w=$(report_sum "$pid" wrote)
	z=$(report_sum "$pid" zero)
	r=$(report_sum "$pid" race)
	s=$(slack_for "$pid")
	expect_range "$pid" "$w" $((w + r + s)) cow_pages "$(report_roles "$pid")"
	expect_range "$pid" "$z" $((z + SLACK)) zero_fill "$(report_roles "$pid")"
}

# Check the parent/depth relation and life cycle of one reported pid.
check_pid_tree() {
	local pid=$1 ppid pdepth depth
	ppid=$(report_ppid "$pid")
	if [ -n "$ppid" ] && [ -n "$(proc_field "$ppid" depth)" ]; then
		expect_eq "pid $pid: ppid" "$(proc_field "$pid" ppid)" "$ppid"
		pdepth=$(proc_field "$ppid" depth)
		depth=$(proc_field "$pid" depth)
		expect_eq "pid $pid: depth is its parent's + 1" "$depth" $((pdepth + 1))
	fi
	expect_eq "pid $pid: cow_pages never decreases" "$(proc_field "$pid" monotonic)" yes
	expect_eq "pid $pid: start_time stable" "$(proc_field "$pid" start_time_stable)" yes
}

# Sleep for N intervals and a bit, so frames cover what just happened.
sleep_intervals() {
	sleep "$(awk -v i="$INTERVAL" -v n="$1" 'BEGIN { print i * n + 0.3 }')"
}

# Check a pid's last appearance says it exited, and none came after it.
check_pid_exited() {
	expect_eq "pid $1: last state" "$(proc_field "$1" state)" exited
	expect_eq "pid $1: reported after it exited" "$(proc_field "$1" reappeared)" no
}

# Check that the race pair copied every race page once between them:
# check_race MAIN_PID.
check_race() {
	local main=$1 child n cm cc wm low high rm rc
	child=$(report_race_child "$main")
	[ -n "$child" ] || return 0
	n=$(report_sum "$main" race)
	cm=$(last_cow "$main")
	cc=$(last_cow "$child")
	if [ -z "$cm" ] || [ -z "$cc" ]; then
		fail "race: pair $main/$child not reported"
		return
	fi
	wm=$(report_sum "$main" wrote)
	low=$n
	high=$((n + $(slack_for "$main") + $(slack_for "$child")))
	if in_range $((cm - wm + cc)) "$low" "$high"; then
		pass "race: $main and $child copied $((cm - wm + cc)) of $n shared pages, in [$low, $high]"
	else
		fail "race: $main and $child copied $((cm - wm + cc)) of $n shared pages, not in [$low, $high]"
	fi
	rm=$(proc_field "$main" reuse)
	rc=$(proc_field "$child" reuse)
	low=$((n > SLACK ? n - SLACK : 0))
	if in_range $((rm + rc)) "$low" "$high"; then
		pass "race: $((rm + rc)) reuses, in [$low, $high]"
	else
		fail "race: $((rm + rc)) reuses, not in [$low, $high]"
	fi
}

# Check that a pid never appears in FRAMES: expect_absent PID LABEL.
expect_absent() {
	if [ -z "$(proc_field "$1" cow)" ]; then
		pass "pid $1 ($2) not reported"
	else
		fail "pid $1 ($2) reported but not watched"
	fi
}

# Check that a pid's cow_rate was positive in some frame.
expect_rate() {
	local r
	r=$(proc_field "$1" max_rate)
	if awk -v r="${r:-0}" 'BEGIN { exit !(r > 0) }'; then
		pass "pid $1: cow_rate reached $r"
	else
		fail "pid $1: cow_rate never positive (${r:-not reported})"
	fi
}

# Check that FRAMES holds only pids of REPORT.
check_no_strangers() {
	local extra
	extra=$(frame_pids | grep -vxF -f <(report_pids) || true)
	expect_eq "no process outside the watched trees" "${extra//$'\n'/ }" ""
}

# Run the checks every watched tree gets: counts, tree, life cycle.
# check_tree [exited]: with "exited", every process must have exited.
check_tree() {
	local pid
	for pid in $(report_pids); do
		check_pid_counts "$pid"
		check_pid_tree "$pid"
		[ "${1:-}" != exited ] || check_pid_exited "$pid"
	done
	for pid in $(report_pids main); do
		check_race "$pid"
	done
}

# ---------------------------------------------------------------------------
# USDT probes (cowtop -u): phases and markers
#
# With -u, every process object carries "cow_by_phase" (copies per phase
# "PROVIDER:PHASE" and "outside", adding up to cow_pages) and every frame may
# carry "markers": [{"time", "pid", "probe": "PROVIDER:NAME", "args"}].
# ---------------------------------------------------------------------------

# Report a part of a test that cannot run here (not counted as passed).
skip() {
	echo "skip: $*"
}

# Run cowtop in the foreground with exactly the given arguments (no batch
# options added): run_cowtop_plain NAME ARGS... stdout goes to
# $WORK/NAME.out, stderr to $WORK/NAME.err; RC is the exit status.
run_cowtop_plain() {
	local name=$1
	shift
	RC=0
	timeout -k 5 "$TIMEOUT" "$COWTOP" "$@" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null || RC=$?
	[ "$RC" -ne 124 ] || fail "$name: cowtop did not finish within ${TIMEOUT}s"
}

# Check a run of run_cowtop_plain failed as expected: exit status STATUS and
# exactly one line on stderr, containing TEXT if given:
# expect_error NAME STATUS [TEXT].
expect_error() {
	local name=$1 status=$2 text=${3:-} err
	err=$WORK/$name.err
	expect_eq "$name: exit status" "$RC" "$status"
	expect_eq "$name: stderr lines" "$(count_lines "$err")" 1
	if [ -n "$text" ]; then
		check "$name: message says '$text'" grep -qF -- "$text" "$err"
	fi
}

# The cow_by_phase[KEY] of PID in its last appearance in FRAMES (empty if
# the pid or the key is missing): phase_cow PID KEY.
phase_cow() {
	jq -n -r --argjson p "$1" --arg k "$2" '
		[inputs.processes[]? | select(.pid == $p)] | last
		| .cow_by_phase[$k]? // empty' "$FRAMES" 2>/dev/null
}

# Assert cow_by_phase[KEY] of PID is in [LOW, HIGH]:
# expect_phase PID KEY LOW HIGH [LABEL].
expect_phase() {
	local pid=$1 key=$2 low=$3 high=$4 label=${5:-}
	check_value "pid $pid${label:+ ($label)}" "cow_by_phase[\"$key\"]" "$(phase_cow "$pid" "$key")" "$low" "$high"
}

# Print the markers of PID (any pid if empty) and PROBE, one per line in
# frame order: TIME TAB ARGS (comma separated). marker_lines PID PROBE.
marker_lines() {
	jq -n -r --arg p "$1" --arg probe "$2" '
		inputs | (.markers // [])[]
		| select(($p == "" or .pid == ($p | tonumber))
			 and .probe == $probe)
		| [.time, (.args | map(tostring) | join(","))] | @tsv' \
		"$FRAMES" 2>/dev/null
}

# Print the args (comma separated) of every marker of PID and PROBE.
marker_args() {
	marker_lines "$1" "$2" | cut -f2
}

# Count the markers of PID (any pid if empty) and PROBE.
marker_count() {
	marker_lines "$1" "$2" | wc -l
}

# Print every pid that has a marker in FRAMES.
marker_pids() {
	jq -n -r '[inputs | (.markers // [])[].pid] | unique[]' "$FRAMES" \
		2>/dev/null
}

# Check the USDT parts of every frame against the JSON contract: each
# process has cow_by_phase (non-negative integers, "outside" among them) whose
# sum is its cow_pages, and markers are well formed.
validate_usdt_frames() {
	# shellcheck disable=SC2016 # jq variables
	check "every process has cow_by_phase with \"outside\"" jq_true '
		def nat: type == "number" and . >= 0 and . == floor;
		[inputs.processes[]] | length > 0 and all(.[];
			(.cow_by_phase | type == "object" and has("outside"))
			and all(.cow_by_phase[]; nat))'
	# shellcheck disable=SC2016 # jq variables
	check "cow_by_phase adds up to cow_pages in every frame" jq_true '
		[inputs.processes[]]
		| all(.[]; ([.cow_by_phase[]] | add) == .cow_pages)'
	# shellcheck disable=SC2016 # jq variables
	check "markers are well formed" jq_true '
		def nat: type == "number" and . >= 0 and . == floor;
		def int: type == "number" and . == floor;
		[inputs | .markers // [] | if type == "array" then .[]
		 else error("markers is not an array") end]
		| all(.[]; type == "object" and (.time | type == "number"
			and . > 1000000000) and (.pid | nat)
			and (.probe | type == "string" and test("^[^:]+:[^:]+$"))
			and (.args | type == "array" and length <= 3
				and all(.[]; int or . == null)))'
}

# Check every marker comes from a pid of REPORT (the watched processes).
check_marker_pids() {
	local extra
	extra=$(marker_pids | grep -vxF -f <(report_pids) || true)
	expect_eq "markers only from watched processes" "${extra//$'\n'/ }" ""
}

# A cgroup v1 memory cgroup for a test: memcg_make NAME BYTES [NOSWAP]
# creates it with that limit (and the same limit on memory+swap with
# NOSWAP, when the kernel has it), sets CG, and fails when the memory
# hierarchy cannot be written.
MEMCG_ROOT=/sys/fs/cgroup/memory
memcg_make() {
	[ -w "$MEMCG_ROOT/cgroup.procs" ] || return 1
	CG=$MEMCG_ROOT/$1-$$
	mkdir "$CG" || return 1
	echo "$2" >"$CG/memory.limit_in_bytes"
	[ -z "${3-}" ] || [ ! -e "$CG/memory.memsw.limit_in_bytes" ] ||
		echo "$2" >"$CG/memory.memsw.limit_in_bytes"
}

# Remove CG once its processes are killed (nothing when there is none).
memcg_remove() {
	local i pid
	[ -n "${CG-}" ] && [ -d "$CG" ] || return 0
	# shellcheck disable=SC2013 # one pid a line
	for pid in $(cat "$CG/cgroup.procs" 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	for ((i = 0; i < 50; i++)); do
		rmdir "$CG" 2>/dev/null && return 0
		sleep 0.1
	done
}

# cowtop's BPF program names.
readonly PROG_NAMES='^(on_page_fault_user|on_page_fault_kernel|on_mm_page_alloc|on_process_fork|on_process_exec|on_process_exit|on_usdt|on_oom_victim|on_direct_reclaim_begin|on_direct_reclaim_end|on_memcg_reclaim_begin|on_memcg_reclaim_end|on_cgroup_attach|dump_procs)$'

# Ids of loaded programs that carry cowtop's program names.
our_prog_ids() {
	{ bpftool -j prog show 2>/dev/null || echo '[]'; } |
		jq -r --arg re "$PROG_NAMES" '.[] | select((.name // "") | test($re)) | .id' | sort -u
}

# Program ids held by some process's descriptor.
held_prog_ids() {
	{ cat /proc/[0-9]*/fdinfo/* 2>/dev/null || true; } | awk '$1 == "prog_id:" { print $2 }' | sort -u
}

# Programs named like cowtop's, loaded since BEFORE (an our_prog_ids
# list), that no process holds: left behind. Programs of a cowtop that
# another user runs meanwhile are held by it and do not count. The kernel
# frees programs in deferred work after their last descriptor closes, so
# it takes up to 3 s (a loaded machine) for the list to empty.
leaked_progs() {
	local i left
	for ((i = 0; i < 60; i++)); do
		left=$(comm -13 <(printf '%s\n' "$1") <(our_prog_ids) | comm -23 - <(held_prog_ids) | tr '\n' ' ')
		[ -n "${left// /}" ] || break
		sleep 0.05
	done
	printf '%s' "$left"
}
