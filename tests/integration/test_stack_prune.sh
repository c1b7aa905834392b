#!/bin/bash
# cowtop --stacks over a long run: the kernel's stack map holds a fixed
# number of stacks, so the stacks of processes gone must be given back or
# every new stack fails once it is full. Here the map is made small
# (COWTOP_STACK_ENTRIES=256) and stackload forks 800 children one after
# another, each copying PAGES pages under a stack of its own (800 distinct
# stacks, about three times what the map holds).
#
# Oracle (stackload's own report: children N pages P): the folded output
# of the whole run holds at least half of the P pages under write_pages,
# the children's writing function, and half of their distinct stacks (the
# rest: captures lost to collisions in the hash buckets of the map, which
# grow with the stacks not yet given back: about 1/8 here, up to 1/3 on a
# loaded machine, whose refreshes come late).
# Without the stacks of exited children given back, the map is full after
# a few hundred children and about 1/4 of the pages and stacks are found. The folded
# lines of the children stay, though the children left the table long
# before the end; and the last 40 children, forked when the map had long
# been filled once, are there with their whole path (at least 10; without
# the pruning about 2).
#
#
# The status of the captures (JSON "stacks"): in every frame the failures
# by cause add up to "failed"; ids_limit is the size asked for and
# ids_used stays within it, above 0 at some refresh (stackload itself
# lives the whole run and copies after each fork: its stacks are held).
# With the map full (16 ids, 64 children under distinct stacks, no
# refresh before the end: no id given back), at most 16 children's stacks
# get an id, so every copy of at least 48 children is lost for want of
# room: failed_collision (plus failed_walk, for a stack that could not be
# walked at all) >= 48 * PAGES, from the children and pages stackload
# reports. The exporter serves the same figures as the JSON frame of the
# same refresh: cowtop_stack_capture_failures_total by reason,
# cowtop_stack_ids and cowtop_stack_ids_limit (promtool and a strict
# OpenMetrics parser accept both formats).
#
# Ids no counter refers to: with the counter map full (16 counters,
# COWTOP_STACK_COUNTERS; 1024 ids, few collisions), stackload's children
# copy under stacks of their own, each getting an id, most of them no
# counter. Three refreshes after the last of them captures were uncounted
# (else the counter map never filled: the case proves nothing), and, read
# with bpftool, every id the stack map holds is one a counter refers to,
# and ids_used is how many it holds. Without the ids given back, those of
# stackload's children stay there.
#
# Environment (besides lib.sh's): STACKLOAD (default ./tests/workloads/stackload).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom.sh"

STACKLOAD=${STACKLOAD:-./tests/workloads/stackload}
readonly CHILDREN=800 PAGES=8 GAP_MS=30

# The stack ids the kernel holds for cowtop PID, and those its counters
# refer to, read with bpftool from the maps PID has open: one id a line,
# sorted, in OUT.held and OUT.counted. kernel_ids PID OUT
kernel_ids() {
	local id name
	: >"$2.held"
	: >"$2.counted"
	for id in $(awk '/^map_id:/ { print $2 }' /proc/"$1"/fdinfo/* 2>/dev/null | sort -u); do
		name=$(bpftool -j map show id "$id" | jq -r .name)
		case $name in
		stack_map)
			bpftool -j map dump id "$id" | /usr/bin/python3 -c 'import json, sys
for e in json.load(sys.stdin):
    print(int.from_bytes(bytes(int(b, 16) for b in e["key"]), "little"))' | sort -u >"$2.held" ;;
		stack_pages)
			bpftool -j map dump id "$id" | jq -r '.[].formatted.key.stack_id' | sort -u >"$2.counted" ;;
		esac
	done
}

setup
[ -x "$STACKLOAD" ] || die "stackload not found at '$STACKLOAD' (set STACKLOAD)"

# A bad size is refused with one line, before anything is loaded.
RC=0
COWTOP_STACK_ENTRIES=12x "$COWTOP" -b -n 1 --stacks >"$WORK/bad.out" 2>"$WORK/bad.err" || RC=$?
expect_eq "bad size: exit status" "$RC" 1
check "bad size: one line naming the variable" \
	grep -qx "cowtop: COWTOP_STACK_ENTRIES: '12x' is not a number from 16 to 1048576" "$WORK/bad.err"
RC=0
COWTOP_STACK_COUNTERS=8 "$COWTOP" -b -n 1 --stacks >"$WORK/bad.out" 2>"$WORK/bad.err" || RC=$?
expect_eq "bad counters: exit status" "$RC" 1
check "bad counters: one line naming the variable" \
	grep -qx "cowtop: COWTOP_STACK_COUNTERS: '8' is not a number from 16 to 4194304" "$WORK/bad.err"

F=$WORK/run.folded
REPORT=$WORK/stackload.out
# Every copy's stack (no CPU budget): the test counts the stacks folded.
# shellcheck disable=SC2016 # the inner shell expands them
COWTOP_STACK_ENTRIES=256 run_cowtop run --stacks --sample-budget 0 --folded "$F" -- \
	sh -c '"$1" "$2" "$3" "$4" >"$5"' sh "$STACKLOAD" $CHILDREN $PAGES $GAP_MS "$REPORT"
expect_eq "run: exit status" "$RC" 0
read -r _ n _ pages <"$REPORT"
expect_eq "run: children forked" "$n" $CHILDREN
found=$(awk '/;write_pages \(stackload\) [0-9]+$/ { s += $NF } END { print s + 0 }' "$F")
check "run: $found of the children's $pages pages folded under write_pages (>= 1/2)" \
	test "$found" -ge $((pages / 2))
# the children's stacks are told apart by their step_a/step_b path
distinct=$(grep -c ';write_pages (stackload) [0-9]*$' "$F" || true)
check "run: $distinct distinct children's stacks folded (>= 1/2 of $CHILDREN)" \
	test "$distinct" -ge $((CHILDREN / 2))
# A capture that fails (the map is small: many do) drops its copy, counted
# as failed; its weight never goes to the next stack captured on the CPU,
# which is another child's as often as not: no child's stack counts more
# than the PAGES it wrote.
over=$(awk -v p=$PAGES '/;write_pages \(stackload\) [0-9]+$/ && $NF > p' "$F" | wc -l)
check "run: $over children's stacks count more than their $PAGES pages (0)" test "$over" -eq 0

# The folded line of child I, as an extended regex: main, then step_a for
# each bit of I set (lowest first), else step_b, then write_pages. The
# innermost step may be missing (an unwinder by frame pointers can skip
# the caller of a leaf function): 11 bits, then maybe the 12th.
child_line() {
	local b line='main \(stackload\)'
	for ((b = 0; b < 15; b++)); do
		(($1 >> b & 1)) && line+=';step_a \(stackload\)' || line+=';step_b \(stackload\)'
	done
	printf '%s(;step_[ab] \\(stackload\\))?;write_pages \\(stackload\\) %s$\n' "$line" $PAGES
}
last=0
for ((i = CHILDREN - 40; i < CHILDREN; i++)); do
	grep -qE "$(child_line $i)" "$F" && last=$((last + 1))
done
check "run: $last of the last 40 children's stacks folded whole (>= 10)" test "$last" -ge 10

check "run: failed = failed_collision + failed_walk + failed_uncounted in every frame" \
	jq_true '[inputs | .stacks] | length > 0
		and all(.failed == .failed_collision + .failed_walk + .failed_uncounted)'
check "run: ids_limit 256, ids_used within it in every frame" \
	jq_true '[inputs | .stacks] | all(.ids_limit == 256 and .ids_used >= 0 and .ids_used <= 256)'
# shellcheck disable=SC2153 # FRAMES is set by run_cowtop
used=$(jq -n '[inputs | .stacks.ids_used] | max' "$FRAMES")
check "run: stack ids in use at some refresh: $used (> 0)" test "$used" -gt 0

# The map full: no refresh (-d 60, the last -d given) before the end.
REPORT=$WORK/full.out
# shellcheck disable=SC2016 # the inner shell expands them
COWTOP_STACK_ENTRIES=16 run_cowtop full --stacks --sample-budget 0 -d 60 -- \
	sh -c '"$1" "$2" "$3" 0 >"$4"' sh "$STACKLOAD" 64 $PAGES "$REPORT"
expect_eq "full: exit status" "$RC" 0
read -r _ n _ _ <"$REPORT"
read -r frames limit failed coll walk unc < <(jq -n -r '[inputs] | [length] + (last.stacks
	| [.ids_limit, .failed, .failed_collision, .failed_walk, .failed_uncounted] | map(. // -1))
	| @tsv' "$FRAMES")
expect_eq "full: one frame, at the end" "$frames" 1
expect_eq "full: ids_limit" "$limit" 16
bound=$(((n - limit) * PAGES))
check "full: $coll collisions + $walk unwalked >= ($n - $limit children) * $PAGES pages ($bound)" \
	test $((coll + walk)) -ge "$bound"
check "full: collisions counted ($coll > 0)" test "$coll" -gt 0
expect_eq "full: failed = the sum of its causes" "$failed" $((coll + walk + unc))

# The exporter: a scrape taken after stackload is done matches a frame.
port=$(free_port)
REPORT=$WORK/exp.out
# shellcheck disable=SC2016 # the inner shell expands them
COWTOP_STACK_ENTRIES=16 start_cowtop exp -b -f json -d 0.2 --exporter --listen "127.0.0.1:$port" \
	--stacks --sample-budget 0 -- sh -c '"$1" 64 "$2" 0 >"$3"; until [ -e "$4" ]; do sleep 0.1; done' \
	sh "$STACKLOAD" $PAGES "$REPORT" "$WORK/exp.stop"
wait_port "$port" || die "cowtop does not answer on port $port: $(cat "$WORK/exp.err")"
wait_lines "$FRAMES" 1 20 || fail "exp: no first frame"
for ((i = 0; i < 200; i++)); do
	[ -s "$REPORT" ] && break
	sleep 0.1
done
check "exp: stackload done" test -s "$REPORT"
wait_lines "$FRAMES" $(($(count_lines "$FRAMES") + 2)) 20 || fail "exp: no frame after stackload"
curl -sS -f --max-time 5 -o "$WORK/exp.txt" "http://127.0.0.1:$port/metrics" || fail "exp: scrape"
curl -sS -f --max-time 5 -H 'Accept: application/openmetrics-text; version=1.0.0' -o "$WORK/exp.om" \
	"http://127.0.0.1:$port/metrics" || fail "exp: OpenMetrics scrape"
touch "$WORK/exp.stop"
reap_cowtop_after_load
expect_eq "exp: exit status" "$RC" 0
check "exp: the scrape passes promtool" promtool check metrics <"$WORK/exp.txt"
check "exp: the OpenMetrics scrape passes a strict parser, with the stack families" \
	/usr/bin/python3 -c 'import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
why = {s.labels.get("reason") for s in fams["cowtop_stack_capture_failures"].samples}
sys.exit(not (fams["cowtop_stack_capture_failures"].type == "counter"
              and why == {"collision", "walk", "uncounted"}
              and fams["cowtop_stack_ids"].type == fams["cowtop_stack_ids_limit"].type == "gauge"))' \
	"$WORK/exp.om"
scraped=$(awk '$1 ~ /^cowtop_stack_/ { v[$1] = $2 }
	END { printf "%s %s %s %s %s", v["cowtop_stack_capture_failures_total{reason=\"collision\"}"],
		v["cowtop_stack_capture_failures_total{reason=\"walk\"}"],
		v["cowtop_stack_capture_failures_total{reason=\"uncounted\"}"],
		v["cowtop_stack_ids"], v["cowtop_stack_ids_limit"] }' "$WORK/exp.txt")
# shellcheck disable=SC2016 # jq's own variable
check "exp: the scrape ($scraped) is the figures of a JSON frame" \
	jq_true '[inputs.stacks | "\(.failed_collision) \(.failed_walk) \(.failed_uncounted) \(.ids_used) \(.ids_limit)"]
		| any(.[]; . == $s)' --arg s "$scraped"

# Ids with no counter: the counter map full, stacks captured all the same.
# The shell waits on FIFOs, not in a loop of sleeps: nothing copies while
# the maps are read.
REPORT=$WORK/orph.out
mkfifo "$WORK/orph.stop"
# shellcheck disable=SC2016 # the inner shell expands them
COWTOP_STACK_ENTRIES=1024 COWTOP_STACK_COUNTERS=16 start_cowtop orph -b -f json -d 0.5 \
	--stacks --sample-budget 0 -- sh -c '"$1" 300 4 0 >"$2"; read -r _ <"$3"' \
	sh "$STACKLOAD" "$REPORT" "$WORK/orph.stop"
for ((i = 0; i < 600; i++)); do
	[ -s "$REPORT" ] && break
	sleep 0.1
done
check "orphans: stackload done" test -s "$REPORT"
n0=$(count_lines "$FRAMES")
wait_lines "$FRAMES" $((n0 + 4)) 30 || fail "orphans: no third frame after stackload"
# Nothing copies now (the shell waits): the maps stand still. Read them, then one more frame.
kernel_ids "$COWTOP_PID" "$WORK/orph"
n1=$(count_lines "$FRAMES")
wait_lines "$FRAMES" $((n1 + 1)) 30 || fail "orphans: no frame after the maps were read"
echo stop >"$WORK/orph.stop"
reap_cowtop_after_load
read -r unc used < <(sed -n "$((n1 + 1))p" "$FRAMES" | jq -r '.stacks | [.failed_uncounted, .ids_used] | @tsv')
check "orphans: the counter map was full (${unc:-?} captures uncounted > 0)" test "${unc:-0}" -gt 0
held=$(wc -l <"$WORK/orph.held")
check "orphans: the kernel holds ids ($held)" test "$held" -gt 0
lone=$(comm -23 "$WORK/orph.held" "$WORK/orph.counted" | wc -l)
expect_eq "orphans: ids held that no counter refers to" "$lone" 0
expect_eq "orphans: ids_used is what the kernel holds" "${used:-?}" "$held"

finish
