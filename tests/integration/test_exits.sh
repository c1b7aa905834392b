#!/bin/bash
# How watched processes end, and what their memory went through: children
# that exit with a code, die of SIGKILL and of SIGSEGV, stall in reclaim in
# a memory cgroup near its limit, and get OOM-killed there. Each must show
# its cause in JSON and in the full-screen view (tmux), the OOM kill and the
# stall as markers, the parent's respawn counts exact. Then the namespaces:
# inside a PID namespace cowtop refuses with one line; a workload in its own
# PID namespace watched from outside shows host and namespace pids; under a
# time namespace with another boot time the demo's workers show as /proc
# shows them.
#
# The stall is timed between vmscan:mm_vmscan_memcg_reclaim_begin/end: a
# process at its memory cgroup's limit reclaims there (cgroup reclaim), not
# in mm_vmscan_direct_reclaim_*, which only global reclaim fires.
#
# Needs root, a writable cgroup v1 memory controller (or it skips the memory
# parts), tmux for the screen part, and unshare (util-linux) for the rest.
# shellcheck disable=SC2317 # functions called through check, expect and trap
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/tui/tmux.sh
. "$(dirname "$0")/../tui/tmux.sh"

CG=
CG_LIMIT=$((32 * 1024 * 1024))
DDFILE=
WL=
# shellcheck disable=SC2034 # read by tmux.sh
SOCK=cowtop-exits-$$
SESSION=exits

# Record a skipped check.
skip() {
	echo "skip: $*"
}

# Remove the dd file and the memory cgroup once its processes are gone.
cg_cleanup() {
	rm -f "$DDFILE"
	memcg_remove
}

# A memory cgroup with a small limit, and no swap to escape to: sets CG.
cg_setup() {
	memcg_make cowtop-exits "$CG_LIMIT" noswap
}

# Write the workload: a bash script whose children end in known ways, each
# named with its pid in the report (argument 1). In the memory cgroup
# (argument 2, or none): dd writes a file through the page cache four times
# the limit, each block synced (clean page cache fills the cgroup: reclaim;
# with dirty pages piling up faster than writeback the cgroup v1 OOM killer
# could take dd instead, as seen under load), then dd reads /dev/zero into a buffer eight
# times the limit (OOM kill). Argument 3: seconds to sleep at the end.
write_workload() {
	WL=$WORK/ends.sh
	cat >"$WL" <<'EOF'
#!/bin/bash
report=$1 cg=$2 ddfile=$3 linger=$4
ulimit -c 0
child() { echo "$1 $2" >>"$report"; wait "$2" || true; }
sh -c 'exit 3' & child exit3 $!
sleep 30 & kill -KILL $! && child sigkill $!
sh -c 'kill -SEGV $$' & child sigsegv $!
if [ -n "$cg" ]; then
	sh -c 'echo $$ >"$1/cgroup.procs" && exec dd if=/dev/zero of="$2" bs=1M count=128 oflag=dsync status=none' \
		sh "$cg" "$ddfile" & child reclaim $!
	sh -c 'echo $$ >"$1/cgroup.procs" && exec dd if=/dev/zero of=/dev/null bs=256M count=1 status=none' \
		sh "$cg" 2>/dev/null & child oom $!
fi
echo "main $$" >>"$report"
sleep "$linger"
EOF
	chmod +x "$WL"
}

# The pid the workload named role.
role_pid() {
	awk -v r="$1" '$1 == r { print $2; exit }' "$REPORT"
}

# The last "exit" object of pid in FRAMES, compact.
last_exit() {
	jq -c -n --argjson p "$1" '[inputs.processes[] | select(.pid == $p)] | last | .exit' "$FRAMES"
}

# Expect pid's last exit object: expect_exit ROLE JSON.
expect_exit() {
	local pid
	pid=$(role_pid "$1")
	expect_eq "$1 (pid ${pid:-?}): exit" "$(last_exit "${pid:-0}")" "$2"
}

# Markers of kind probe for pid in FRAMES: count_markers PROBE PID.
count_markers() {
	jq -n --arg k "$1" --argjson p "$2" \
		'[inputs.markers[]? | select(.probe == $k and .pid == $p)] | length' "$FRAMES"
}

# The JSON run: causes, markers, reclaim stalls, respawns, PSI.
test_json() {
	local main dd oom n
	REPORT=$WORK/json.report
	run_cowtop json -- "$WL" "$REPORT" "$CG" "$DDFILE" 0
	expect_eq "json: cowtop exit status" "$RC" 0
	validate_frames
	expect_exit exit3 '{"code":3,"signal":null,"core":false,"oom":false}'
	expect_exit sigkill '{"code":null,"signal":"SIGKILL","core":false,"oom":false}'
	expect_exit sigsegv '{"code":null,"signal":"SIGSEGV","core":false,"oom":false}'
	main=$(role_pid main)
	expect_exit main '{"code":0,"signal":null,"core":false,"oom":false}'
	n=$(jq -n --argjson p "$main" '[inputs.processes[] | select(.ppid == $p) | .pid] | unique | length' "$FRAMES")
	expect_eq "json: children forked by the workload, as counted" \
		"$(jq -n --argjson p "$main" '[inputs.processes[] | select(.pid == $p)] | last | .children_forked' "$FRAMES")" "$n"
	expect_eq "json: ... and all of them exited" \
		"$(jq -n --argjson p "$main" '[inputs.processes[] | select(.pid == $p)] | last | .children_exited' "$FRAMES")" "$n"
	if [ -r /proc/pressure/memory ]; then
		check "json: memory pressure in every frame" \
			jq_true '[inputs.psi_memory.some_avg10] | all(type == "number" and . >= 0)'
	else
		check "json: memory pressure null without PSI" \
			jq_true '[inputs.psi_memory.some_avg10] | all(. == null)'
	fi
	if [ -z "$CG" ]; then
		skip "no writable memory cgroup: OOM kill and reclaim stalls not checked"
		return
	fi
	dd=$(role_pid reclaim)
	oom=$(role_pid oom)
	expect_exit reclaim '{"code":0,"signal":null,"core":false,"oom":false}'
	expect_exit oom '{"code":null,"signal":"SIGKILL","core":false,"oom":true}'
	expect_eq "json: one oom:kill marker for the victim" "$(count_markers oom:kill "$oom")" 1
	expect_eq "json: no oom:kill marker for the process that only stalled" \
		"$(count_markers oom:kill "$dd")" 0
	check "json: the dd at its cgroup's limit stalled in cgroup reclaim" \
		test "$(jq -n --argjson p "$dd" '[inputs.processes[] | select(.pid == $p)] | last | .reclaim.stalls' "$FRAMES")" -gt 0
	check "json: ... with a reclaim:memcg marker" test "$(count_markers reclaim:memcg "$dd")" -ge 1
	# shellcheck disable=SC2016 # jq variables
	check "json: ... and its stall time" jq_true \
		'[inputs.processes[] | select(.pid == $p)] | last | .reclaim.seconds > 0' --argjson p "$dd"
}

# The row of pid on the tmux screen holds text: row_has PID TEXT.
row_has() {
	screen | awk -v p="$1" '$1 == p' | grep -qF -- "$2"
}

# Poll a condition for 15 s: expect_screen DESC CMD [ARGS...].
expect_screen() {
	local desc=$1
	shift
	if eventually 15 "$@"; then
		pass "tui: $desc"
	else
		fail "tui: $desc"
		screen | sed 's/^/    | /' || true
	fi
}

# The full-screen run: each exited row says how it ended; the log pane
# has the OOM kill.
test_tui() {
	local n
	if ! command -v tmux >/dev/null; then
		skip "no tmux: the screen is not checked"
		return
	fi
	REPORT=$WORK/tui.report
	t new-session -d -s "$SESSION" -x 160 -y 40 \
		"LANG=C.UTF-8 '$COWTOP' -d 0.3 --linger 600 -o '$WORK/snap.txt' \
		-- '$WL' '$REPORT' '$CG' '$DDFILE' 600"
	eventually 30 grep -q '^main ' "$REPORT" || fail "tui: the workload did not finish its children"
	expect_screen "exit code after the name" row_has "$(role_pid exit3)" "[exit 3]"
	expect_screen "SIGKILL after the name" row_has "$(role_pid sigkill)" "[SIGKILL]"
	expect_screen "SIGSEGV after the name" row_has "$(role_pid sigsegv)" "[SIGSEGV]"
	expect_screen "an exited row in state X" row_has "$(role_pid sigsegv)" " X "
	if [ -n "$CG" ]; then n=6; else n=4; fi
	expect_screen "the group line counts the respawns" \
		screen_has "respawns $n forked $((n - 1)) exited"
	if [ -n "$CG" ]; then
		expect_screen "the OOM kill after the name" row_has "$(role_pid oom)" "[oom-killed]"
		t send-keys -t "$SESSION" l
		expect_screen "the OOM kill in the marker log" screen_has "oom:kill"
	fi
	t send-keys -t "$SESSION" w
	expect_screen "a snapshot is written" test -s "$WORK/snap.txt"
	check "tui: the snapshot says how each ended" \
		grep -q "sh \[SIGSEGV\]" "$WORK/snap.txt"
	[ -z "$CG" ] || check "tui: ... the OOM kill too" grep -q "dd \[oom-killed\]" "$WORK/snap.txt"
	t send-keys -t "$SESSION" q
	tmux_stop
}

# Inside a PID namespace: exit 1 with one line, nothing on stdout.
test_pidns() {
	local out err rc=0
	out=$WORK/pidns.out
	err=$WORK/pidns.err
	if ! unshare --pid --fork --mount-proc true 2>/dev/null; then
		skip "unshare --pid does not work here"
		return
	fi
	timeout -k 5 30 unshare --pid --fork --mount-proc "$COWTOP" --demo -b -n3 >"$out" 2>"$err" || rc=$?
	expect_eq "pidns: exit status" "$rc" 1
	expect_eq "pidns: nothing on stdout" "$(wc -c <"$out")" 0
	expect_eq "pidns: one line on stderr" "$(wc -l <"$err")" 1
	check "pidns: it says why" grep -q '^cowtop: cannot run inside a PID namespace' "$err"
}

# Under a time namespace whose boot time is 100000 s ahead: the demo's
# master once, with its four workers live, as /proc shows them.
test_timens() {
	local master
	if ! unshare -T --boottime 100000 true 2>/dev/null; then
		skip "unshare -T does not work here"
		return
	fi
	FRAMES=$WORK/timens.json
	timeout -k 5 60 unshare -T --boottime 100000 "$COWTOP" --demo -b -f json -n4 -d 0.3 \
		>"$FRAMES" 2>"$WORK/timens.err" || fail "timens: cowtop failed"
	expect_eq "timens: one demo-master" \
		"$(tail -n 1 "$FRAMES" | jq '[.processes[] | select(.comm == "demo-master")] | length')" 1
	master=$(tail -n 1 "$FRAMES" | jq '[.processes[] | select(.comm == "demo-master")][0].pid')
	expect_eq "timens: its four workers, live, its children" \
		"$(tail -n 1 "$FRAMES" | jq --argjson m "$master" \
			'[.processes[] | select(.comm == "demo-worker" and .ppid == $m and .state != "exited")] | length')" 4
	check "timens: every start time is the one /proc shows" jq_true '
		[inputs.processes[] | select(.state != "exited")] | all(.start_time > 10000000)'
}

# A workload in a PID namespace of its own, watched from outside: host pids
# as cowtop's namespace sees them, and each process's pid inside (nspid).
test_container() {
	local sh
	if ! unshare --pid --fork --mount-proc true 2>/dev/null; then
		skip "unshare --pid does not work here"
		return
	fi
	run_cowtop container -n 4 -- unshare --pid --fork --mount-proc \
		sh -c 'sleep 1 & sleep 1 & wait'
	expect_eq "container: cowtop exit status" "$RC" 0
	sh=$(jq -n '[inputs.processes[] | select(.comm == "sh")][0]' "$FRAMES")
	expect_eq "container: the namespace's first process is 1 inside" "$(jq .nspid <<<"$sh")" 1
	check "container: ... and not outside" test "$(jq .pid <<<"$sh")" -gt 1
	expect_eq "container: its two children, numbered inside" \
		"$(jq -n -c --argjson p "$(jq .pid <<<"$sh")" \
			'[inputs.processes[] | select(.ppid == $p) | .nspid] | unique' "$FRAMES")" "[2,3]"
	check "container: host processes have nspid = pid" jq_true \
		'[inputs.processes[] | select(.comm == "unshare")] | all(.nspid == .pid)'
}

setup
trap 'cleanup; tmux_stop; cg_cleanup' EXIT
cg_setup || CG=
DDFILE=$(mktemp /var/tmp/cowtop-exits.XXXXXX)
write_workload
test_json
test_tui
test_pidns
test_container
test_timens
finish
