#!/bin/bash
# cowtop exits promptly on SIGINT however many USDT probe sites it attached:
# sitesload has probes with 300 and 3,000 sites. With one uprobe per site
# the kernel took ~0.11 s to take down each (3,000 sites: ~350 s in state
# D, deaf to signals); all sites of a probe are now one link. The wait is
# bounded (20 s) but not the measure: bench figures are in the closing note.
#
# Also: the probes' global arguments are read (work__start's first argument
# is the global sites_counter, its third the global sites_big); a phase one
# end of which cannot attach (big__done: more distinct sites than the
# kernel's table holds) is refused whole, before a command runs; probe hits
# beyond the 1024 a frame keeps are counted in markers_lost, exactly; -u
# with a target in another mount namespace examines the target's file, not
# the file at the same path in cowtop's namespace (there a FIFO).
#
# Environment (besides lib.sh's): SITESLOAD (default
# ./tests/workloads/sitesload).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SITESLOAD=${SITESLOAD:-./tests/workloads/sitesload}
hard_setup
[ -x "$SITESLOAD" ] || die "sitesload not found at '$SITESLOAD' (set SITESLOAD)"
SITESLOAD=$(realpath "$SITESLOAD")

# Start sitesload waiting for a signal: start_sitesload NAME [COMMAND...]
# (default: sitesload --wait-signal). Sets SL_PID.
start_sitesload() {
	local out=$WORK/sites.$1.out i
	: >"$out"
	if [ $# -eq 1 ]; then
		set -- "$1" "$SITESLOAD" --wait-signal
	fi
	"${@:2}" >"$out" 2>"$WORK/sites.$1.err" &
	SL_JOB=$!
	BG_PIDS+=("$SL_JOB")
	for ((i = 0; i < 100; i++)); do
		SL_PID=$(awk '$1 == "ready" { print $2 }' "$out")
		[ -z "$SL_PID" ] || return 0
		sleep 0.1
	done
	die "sitesload did not start"
}

# Stop the sitesload started last.
stop_sitesload() {
	kill -KILL "$SL_JOB" 2>/dev/null || true
	reap "$SL_JOB" 2>/dev/null || true
}

# ---- exit with 3,300 sites attached ----
start_sitesload exit
start_cowtop exit -b -f json -d 0.5 -p "$SL_PID" -u sites:s300 -u sites:s3000
wait_lines "$FRAMES" 1 30 || fail "exit: no first frame (attach failed?): $(head -c 300 "$WORK/exit.err")"
kill -INT "$COWTOP_PID"
for ((i = 0; i < 200; i++)); do
	kill -0 "$COWTOP_PID" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$COWTOP_PID" 2>/dev/null; then
	fail "exit: cowtop still running 20 s after SIGINT with 3,300 probe sites"
	kill -KILL "$COWTOP_PID" 2>/dev/null || true
else
	pass "exit: cowtop exited within 20 s of SIGINT with 3,300 probe sites"
fi
RC=0
reap "$COWTOP_PID" || RC=$?
expect_eq "exit: status after SIGINT" "$RC" 0
stop_sitesload

# ---- globals as arguments ----
run_cowtop globals -u sites:work__start -- "$SITESLOAD" --rounds 3 --start-delay 300
expect_eq "globals: exit status" "$RC" 0
expect_eq "globals: work__start args (sites_counter, round, sites_big)" \
	"$(marker_args "" sites:work__start | tr '\n' ' ')" \
	"1000,0,4886718345 1001,1,4886718345 1002,2,4886718345 "
expect_eq "globals: work__done args (the partner)" \
	"$(marker_args "" sites:work__done | tr '\n' ' ')" "1000,77 1001,77 1002,77 "

# ---- a phase half attachable is refused ----
run_cowtop refuse -u sites:big__start -- "$SITESLOAD" --start-delay 0
expect_eq "refuse: exit status (--)" "$RC" 1
check "refuse: one line names the phase and the real failure (--)" \
	grep -q "^cowtop: usdt: phase sites:big refused: cannot attach sites:big__done in .*: too many distinct probe sites" "$WORK/refuse.err"
check "refuse: the command never ran" sh -c "! grep -q 'sitesload: done' '$WORK/refuse.err'"
expect_eq "refuse: one line" "$(wc -l <"$WORK/refuse.err")" 1
start_sitesload refuse
run_cowtop refuse-p -n 2 -p "$SL_PID" -u sites:big__start
expect_eq "refuse: exit status (-p)" "$RC" 1
check "refuse: one line names the phase and the real failure (-p)" \
	grep -q "^cowtop: usdt: phase sites:big refused: cannot attach sites:big__done" "$WORK/refuse-p.err"
stop_sitesload

# ---- markers beyond the cap are counted ----
# 1,500 rounds are 3,000 hits within one 10 s frame; it keeps 1024.
run_cowtop cap -d 10 -u sites:work__start -- "$SITESLOAD" --rounds 1500 --start-delay 300
expect_eq "cap: exit status" "$RC" 0
# (the exits are markers too, the newest: never among the dropped)
expect_eq "cap: markers shown + markers_lost = hits" \
	"$(jq -n '[inputs | ([.markers[] | select(.probe | startswith("exit") | not)] | length)
		+ .markers_lost] | add' "$FRAMES")" 3000
check "cap: some frame dropped hits, and said so" \
	jq_true '[inputs | select(.markers_lost > 0 and (.markers | length) == 1024)] | length > 0'

# ---- a target in another mount namespace ----
# In the target's namespace, the path of its executable is a bind mount of
# sitesload; in cowtop's, the same path is a FIFO (never to be opened).
NSDIR=$WORK/ns
mkdir -p "$NSDIR"
mkfifo "$NSDIR/prog"
cp "$SITESLOAD" "$NSDIR/real"
start_sitesload ns unshare --mount --propagation private sh -c \
	"mount --bind '$NSDIR/real' '$NSDIR/prog' && exec '$NSDIR/prog' --wait-signal"
run_cowtop ns -n 2 -p "$SL_PID" -u sites:work__start
expect_eq "ns: -p of a process in another mount namespace finds its probe" "$RC" 0
check "ns: no error" test ! -s "$WORK/ns.err"
check "ns: --list-usdt PID lists the target's probes" \
	sh -c "'$COWTOP' --list-usdt '$SL_PID' | grep -q 'work__start'"
stop_sitesload

hard_finish
