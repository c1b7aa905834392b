#!/bin/bash
# Copies by memory region: a regionload child writes known numbers of pages
# in the brk heap, an anonymous mapping, its stack, a shared library's .data
# and a private file mapping its parent had only read; cow_by_region must say
# so, through -- COMMAND and through -p, and add up to cow_pages.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

REGIONLOAD=${REGIONLOAD:-./tests/workloads/regionload}

# Pages the child writes in each region.
readonly HEAP=2000 ANON=1500 STACK=64 DATA=128 FILE=300

# Slack per region: pages of a region the child copies besides its writes.
#   REGION_SLACK  heap: nothing else writes it (no malloc after fork);
#                 anon: the thread block the kernel updates on return from
#                 fork (rseq) and ld.so's own anonymous data; stack: the
#                 child's frames below the array (the fork return path, the
#                 writers, the sleep), pages its parent had touched; the
#                 files: nothing but the writes. SLACK covers all of these.
#   OTHER_SLACK   what the kernel side cannot classify, and counts of the
#                 child's last moments on other CPUs: none expected, a few
#                 allowed.
readonly REGION_SLACK=$SLACK
readonly OTHER_SLACK=8

# The regionload arguments of every run; the file goes into WORK.
load_args() {
	echo --heap "$HEAP" --mmap "$ANON" --stack "$STACK" --data "$DATA" \
		--file "$FILE" --file-dir "$WORK"
}

# Every process of every frame carries cow_by_region: heap, stack, anon and
# other always, files only with copies, the parts adding up to cow_pages at
# most (copies pending in the kernel when read are not classified yet), and
# to cow_pages exactly in a process's exit record.
check_region_contract() {
	check "$1: cow_by_region in every process, adding up to cow_pages" jq_true '
		def nat: type == "number" and . >= 0 and . == floor;
		def regions: type == "object"
			and (has("heap") and has("stack") and has("anon") and has("other"))
			and all(to_entries[]; (.value | nat)
				and (.key | IN("heap", "stack", "anon", "other")
					or (startswith("file:") and length > 5)))
			and all(to_entries[] | select(.key | startswith("file:")); .value > 0);
		[inputs.processes[]]
		| all(.[]; (.cow_by_region | regions)
			and (([.cow_by_region[]] | add) as $parts
				| $parts <= .cow_pages and (.exit == null or $parts == .cow_pages)))'
}

# A region's copies in the last appearance of PID (0 when the region is not
# listed): region_of PID REGION.
region_of() {
	jq -r -n --argjson p "$1" --arg r "$2" '
		[inputs.processes[] | select(.pid == $p)] | last
		| if . == null then "" else (.cow_by_region[$r] // 0) end' "$FRAMES"
}

# Check one region of PID: check_region PID REGION WROTE SLACK.
check_region() {
	check_value "pid $1 (child)" "$2" "$(region_of "$1" "$2")" "$3" $(($3 + $4))
}

# The regions of the child that REPORT names, and the contract.
check_child_regions() {
	local name=$1 child file
	child=$(awk '$1 == "child" { print $2 }' "$REPORT")
	file=$(awk '$1 == "child" { print $NF }' "$REPORT")
	[ -n "$child" ] || {
		fail "$name: no child in the report"
		return
	}
	validate_frames
	check_region_contract "$name"
	check_region "$child" heap "$HEAP" "$REGION_SLACK"
	check_region "$child" anon "$ANON" "$REGION_SLACK"
	check_region "$child" stack "$STACK" "$REGION_SLACK"
	check_region "$child" file:libregiondata.so "$DATA" "$REGION_SLACK"
	check_region "$child" "file:$file" "$FILE" "$REGION_SLACK"
	check_region "$child" other 0 "$OTHER_SLACK"
}

# cowtop -- regionload: the child from its first instruction.
test_command() {
	new_report command
	# shellcheck disable=SC2046 # word splitting of the arguments intended
	run_cowtop command -- "$REGIONLOAD" --report "$REPORT" $(load_args)
	expect_eq "command: cowtop exit status" "$RC" 0
	check_child_regions command
}

# A child that exits as soon as it has written (no linger): the copies of
# its last region were still pending on a CPU when it exited, and are
# counted in that region all the same, not as "other".
test_short_lived() {
	new_report short
	# shellcheck disable=SC2046 # word splitting of the arguments intended
	run_cowtop short -- "$REGIONLOAD" --report "$REPORT" $(load_args) --linger 0
	expect_eq "short-lived: cowtop exit status" "$RC" 0
	check_child_regions short-lived
}

# cowtop -p MAIN: attached while regionload waits, then released.
test_pid() {
	local main
	new_report pid
	# shellcheck disable=SC2046
	COWLOAD=$REGIONLOAD start_workload pid $(load_args)
	main=$LOAD_PID
	start_cowtop pid -b -f json -d "$INTERVAL" -p "$main"
	release_shown "pid: cowtop -p" "$main" || return 0
	check_child_regions pid
}

# --regions in batch text: a regions line for the child with the same
# fixed regions as JSON.
test_text() {
	local child line
	new_report text
	FRAMES=$WORK/text.txt
	# shellcheck disable=SC2046
	timeout -k 5 "$TIMEOUT" "$COWTOP" -b -d "$INTERVAL" --regions -- \
		"$REGIONLOAD" --report "$REPORT" $(load_args) >"$FRAMES" 2>"$WORK/text.err" ||
		fail "text: cowtop exit status $?"
	child=$(awk '$1 == "child" { print $2 }' "$REPORT")
	line=$(grep "^regions $child: heap " "$FRAMES" | tail -n 1 || true)
	check "text: regions line of the child ($line)" \
		test -n "$line"
	check "text: heap, stack, anon, the library and other in it" \
		grep -qE "^regions $child: heap [0-9]+  stack [0-9]+  anon [0-9]+  .*file:libregiondata.so [0-9]+  .*other [0-9]+$" \
		<<<"$line"
}

# --no-regions: every copy is "other", the first writes to the private
# file mapping included (still counted as copies); the total is the same.
test_no_regions() {
	local child file
	new_report no-regions
	# shellcheck disable=SC2046
	run_cowtop no-regions --no-regions -- "$REGIONLOAD" --report "$REPORT" $(load_args)
	expect_eq "no-regions: cowtop exit status" "$RC" 0
	child=$(awk '$1 == "child" { print $2 }' "$REPORT")
	file=$(awk '$1 == "child" { print $NF }' "$REPORT")
	validate_frames
	check_region_contract no-regions
	check_region "$child" heap 0 0
	check_region "$child" anon 0 0
	check_region "$child" stack 0 0
	check_region "$child" file:libregiondata.so 0 0
	check_region "$child" "file:$file" 0 0
	check_region "$child" other $((HEAP + ANON + STACK + DATA + FILE)) $((REGION_SLACK * 5 + OTHER_SLACK))
}

setup
[ -x "$REGIONLOAD" ] || die "workload not found at '$REGIONLOAD' (set REGIONLOAD)"
test_command
test_short_lived
test_pid
test_text
test_no_regions
finish
