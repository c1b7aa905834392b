#!/bin/bash
# cowtop -- COMMAND: the traced command and all its descendants are counted
# from their first instruction; cowtop exits with the command's status.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Checks every run of a cowload under cowtop gets.
check_run() {
	local name=$1 root
	expect_eq "$name: cowtop exit status" "$RC" "${2:-0}"
	validate_frames
	check_workload_self
	root=$(report_pids main | head -n 1)
	expect_eq "$name: root depth" "$(proc_field "$root" depth)" 0
	expect_eq "$name: root comm" "$(proc_field "$root" comm)" cowload
	check_tree exited
	check_no_strangers
}

# Children with distinct counts written in rounds, a chain of descendants
# and writes of the parent to pages no child writes.
test_tree() {
	local pid
	new_report tree
	run_cowtop tree -- "$COWLOAD" --report "$REPORT" --check \
		--child-writes 1000,2000,3000 --chain-writes 300,400,500 \
		--parent-writes 700 --rounds 3 --round-ms 150
	check_run tree
	check "tree: several frames during the run" \
		test "$(count_lines "$FRAMES")" -ge 2
	for pid in $(report_pids child); do
		expect_rate "$pid"
	done
}

# Fifty children that write 100 pages each and exit within milliseconds.
test_short() {
	local n=0 pid
	new_report short
	run_cowtop short -- "$COWLOAD" --report "$REPORT" --check \
		--short 50 --short-writes 100 --child-writes 300
	check_run short
	for pid in $(report_pids short); do
		[ -z "$(proc_field "$pid" cow)" ] || n=$((n + 1))
	done
	expect_eq "short: short-lived children reported" "$n" 50
}

# A child writes then executes cowload again, whose own exec child writes
# then executes /bin/true.
test_exec() {
	local pid outer='' inner=''
	new_report exec
	run_cowtop exec -- "$COWLOAD" --report "$REPORT" --check \
		--exec-writes 400 -- "$COWLOAD" --report "$REPORT" --check \
		--child-writes 300 --chain-writes 100,150 --exec-writes 250
	check_run exec
	for pid in $(report_pids exec); do
		if [[ " $(report_roles "$pid") " == *" main "* ]]; then
			outer=$pid
		else
			inner=$pid
		fi
	done
	expect_eq "exec: comm after executing cowload" \
		"$(proc_field "$outer" comm)" cowload
	expect_eq "exec: comm after executing /bin/true" \
		"$(proc_field "$inner" comm)" true
}

# The main process and one child write the same pages at the same time.
test_race() {
	new_report race
	run_cowtop race -- "$COWLOAD" --report "$REPORT" --check \
		--race 4000 --parent-writes 200 --child-writes 100
	check_run race
}

# Writes to pages the main process only read: zero fills where the kernel
# maps such pages to its shared zero page, copies where each got a page of
# its own (the workload measures which, and reports wrote and zero to
# match); read() into shared pages copies them from kernel mode. The
# second run makes the workload behave as on a kernel without the zero
# page, so both kinds are checked on either: test_zero_kread NAME [ARGS].
test_zero_kread() {
	local name=$1 pid w z
	shift
	new_report "$name"
	run_cowtop "$name" -- "$COWLOAD" --report "$REPORT" --check \
		--zero 1000 --kread 1500 "$@"
	check_run "$name"
	pid=$(report_pids zero)
	w=$(report_sum "$pid" wrote)
	z=$(report_sum "$pid" zero)
	expect_eq "$name: the zero child's writes are either all zero fills or all copies" \
		$((w + z)) 1000
	expect_range "$pid" "$z" $((z + SLACK)) zero_fill "$name: zero fills"
	expect_range "$pid" "$w" $((w + $(slack_for "$pid"))) cow_pages \
		"$name: $([ "$z" -gt 0 ] && echo 'zero fills are no copies' || echo 'no zero page: copies')"
	check_cow_kernel "$(report_pids kread)" 1500
}

# When frames carry the optional cow_kernel field (copies made by
# kernel-mode writes), the kread child's copies must all be there.
check_cow_kernel() {
	local pid=$1 k=$2 v
	v=$(jq -n -r --argjson p "$pid" '[inputs.processes[] | select(.pid == $p)
		| .cow_kernel // empty] | last // empty' "$FRAMES")
	[ -n "$v" ] || return 0
	if in_range "$v" "$k" $((k + SLACK)); then
		pass "pid $pid (kread): cow_kernel $v in [$k, $((k + SLACK))]"
	else
		fail "pid $pid (kread): cow_kernel $v not in [$k, $((k + SLACK))]"
	fi
}

# read() from a regular file into shared pages.
test_kread_file() {
	local file=$WORK/kread.data
	head -c 65536 /dev/urandom >"$file"
	new_report kfile
	run_cowtop kfile -- "$COWLOAD" --report "$REPORT" --check \
		--kread 600 --kread-file "$file"
	check_run kfile
	check_cow_kernel "$(report_pids kread)" 600
}

# Write faults resolved by reuse, each followed by a write(2) that
# allocates a page-cache page: no copies. A detector that does not know its
# fault has ended takes each allocation for a copy. With
# COWTOP_NO_IN_USER_FAULT=1, the way of kernels without
# task_struct.in_user_fault (built without cgroup-v1 memory).
test_reuse_io() {
	local how=$1 pid excl cow reuse
	new_report "reuse_$how"
	[ "$how" = flag ] || export COWTOP_NO_IN_USER_FAULT=1
	run_cowtop "reuse_$how" -- python3 "$(dirname "$0")/../workloads/reuse_io.py" \
		3000 "$WORK/reuse_io.data" "$REPORT"
	unset COWTOP_NO_IN_USER_FAULT
	expect_eq "reuse io ($how): cowtop exit status" "$RC" 0
	check "reuse io ($how): fallbacks named" jq_true \
		'[inputs.fallbacks] | all(. == $f)' --arg f "$([ "$how" = flag ] || echo fault-end:count)"
	read -r pid excl < <(awk '$1 == "reuse_io" { print $2, $6 }' "$REPORT")
	cow=$(proc_field "$pid" cow)
	reuse=$(proc_field "$pid" reuse)
	# The process's other copies (interpreter start-up, its fork) are a
	# few hundred; each reuse fault taken for a copy adds one.
	check_value "reuse io ($how) pid $pid" "reuses (of $excl exclusive pages written)" \
		"$reuse" "$excl" 1000000
	check_value "reuse io ($how) pid $pid" "copies" "$cow" 0 $((excl / 2))
}

# cowtop exits with the command's exit status. The command and its child
# live a few milliseconds, far less than one refresh (-d 2 here): the one
# frame is rated over a whole refresh, not over those milliseconds, and
# their RSS and VSZ were never read, so they are null, not 0 (nor the RSS
# of cowtop's fork, read before the exec).
test_status() {
	new_report status
	INTERVAL=2 run_cowtop status -- "$COWLOAD" --report "$REPORT" --exit-code 7 \
		--child-writes 10
	expect_eq "status: exit status passed through" "$RC" 7
	INTERVAL=2 validate_frames
	check "status: rss_kib and vsz_kib null for processes never read" \
		jq_true '[inputs.processes[]] | length == 2
			and all(.[]; .rss_kib == null and .vsz_kib == null)'
	check "status: the one frame is rated over a whole refresh" \
		jq_true '[inputs] | length == 1 and .[0].interval == 2'
}

# The last frame of a run holds the command's exit. When the refresh timer
# and the command's exit wait together (cowtop stopped meanwhile, as under
# load), the tick shows the exit before the command is reaped; the reaping
# must not add a second, empty frame after it.
test_last_frame() {
	local fifo=$WORK/last.fifo root tries=100
	mkfifo "$fifo"
	start_cowtop last -b -f json -d "$INTERVAL" -- sh -c 'read -r x <"$1"' sh "$fifo"
	if ! wait_lines "$FRAMES" 1 15; then
		fail "last: no first frame within 15 s"
		stop_cowtop
		return
	fi
	root=$(head -n 1 "$FRAMES" | jq '.processes[0].pid')
	kill -STOP "$COWTOP_PID"
	sleep_intervals 2 # the timer expires first, then the command exits
	echo go >"$fifo"
	while [ "$(awk '{ print $3 }' "/proc/$root/stat" 2>/dev/null)" != Z ] && ((tries-- > 0)); do
		sleep 0.05
	done
	kill -CONT "$COWTOP_PID"
	RC=0
	reap "$COWTOP_PID" || RC=$?
	expect_eq "last: exit status" "$RC" 0
	check "last: the last frame shows the command exited" \
		jq_true '[inputs] | last | .processes | length > 0 and all(.state == "exited")'
	check "last: no two frames at the same time" \
		jq_true '[inputs.time] | . == unique'
}

# Commands that cannot be executed: a message and exit status 127.
test_no_command() {
	local nox=$WORK/not-executable
	run_cowtop missing -- "$WORK/no-such-command"
	expect_eq "missing command: exit status" "$RC" 127
	check "missing command: message on stderr" test -s "$WORK/missing.err"
	printf '#!/bin/sh\nexit 0\n' >"$nox"
	chmod 0644 "$nox"
	run_cowtop noexec -- "$nox"
	expect_eq "non-executable command: exit status" "$RC" 127
	check "non-executable command: message on stderr" test -s "$WORK/noexec.err"
}

# --command-output FILE: the command's stdout and stderr (and its
# children's) in FILE, none in cowtop's own output; FILE created new, 0600;
# an existing file or a symlink refused before the command runs (its
# contents untouched, the symlink's target not created). The exits, with
# their cause, are markers: the command's (exit 0), a child's code and a
# child's signal.
test_command_output() {
	local out=$WORK/cmd.out taken=$WORK/taken.out ran=$WORK/ran sh
	local child_exit=$WORK/child.exit child_sig=$WORK/child.sig
	sh='echo to-stdout; echo to-stderr >&2; sh -c "echo \$\$ >$1; exit 7";
	    sh -c "echo \$\$ >$2; kill -SEGV \$\$"; exit 0'
	run_cowtop output --command-output "$out" -- sh -c "$sh" sh "$child_exit" "$child_sig"
	expect_eq "output: exit status" "$RC" 0
	validate_frames
	# (the shell says "Segmentation fault" there too: its stderr)
	expect_eq "output: the file holds stdout and stderr" "$(grep -x 'to-std.*' "$out" | tr '\n' ' ')" \
		"to-stdout to-stderr "
	expect_eq "output: the file's mode" "$(stat -c %a "$out")" 600
	expect_eq "output: none of it in cowtop's output" "$(cat "$FRAMES" "$WORK/output.err" | grep -c to-std)" 0
	check "output: a marker for the child's exit 7" jq_true \
		'[inputs.markers[]? | select(.pid == $p) | {probe, args}] == [{probe: "exit:code", args: [7]}]' \
		--argjson p "$(cat "$child_exit")"
	check "output: a marker for the child killed by SIGSEGV" jq_true \
		'[inputs.markers[]? | select(.pid == $p) | .probe] == ["exit:SIGSEGV"]' \
		--argjson p "$(cat "$child_sig")"
	check "output: a marker for the command's exit 0" jq_true \
		'[inputs] as $f | ($f[0].processes[] | select(.depth == 0) | .pid) as $root
		 | [$f[].markers[]? | select(.pid == $root) | {probe, args}] == [{probe: "exit:code", args: [0]}]'
	echo "someone else's" >"$taken"
	run_cowtop taken --command-output "$taken" -- sh -c ": >$ran"
	expect_error taken 1 "it exists"
	expect_eq "output: the existing file untouched" "$(cat "$taken")" "someone else's"
	check "output: the command did not run" test ! -e "$ran"
	ln -s "$WORK/link-target" "$WORK/link"
	run_cowtop link --command-output "$WORK/link" -- true
	expect_error link 1 "symbolic link"
	check "output: nothing made through the symlink" test ! -e "$WORK/link-target"
	run_cowtop nocmd --command-output "$WORK/nocmd.out" -p 1
	expect_error nocmd 2 "--command-output"
	check "output: no file without a command" test ! -e "$WORK/nocmd.out"
}

# Usage errors: exit status 2 and a one-line message on stderr.
test_usage() {
	local name rc
	local -a cases=(
		"--no-such-option -- /bin/true"
		"-p notapid"
		"-p"
		"-d notanumber -- /bin/true"
	)
	for name in "${cases[@]}"; do
		rc=0
		# shellcheck disable=SC2086 # the cases are word lists
		timeout -k 5 "$TIMEOUT" "$COWTOP" -b -f json $name \
			>"$WORK/usage.out" 2>"$WORK/usage.err" </dev/null || rc=$?
		expect_eq "usage '$name': exit status" "$rc" 2
		expect_eq "usage '$name': stderr lines" \
			"$(count_lines "$WORK/usage.err")" 1
	done
}

setup
test_tree
test_short
test_exec
test_race
test_zero_kread zero
test_zero_kread nozero --no-zero-page
test_kread_file
test_reuse_io flag
test_reuse_io count
test_status
test_last_frame
test_no_command
test_usage
test_command_output
finish
