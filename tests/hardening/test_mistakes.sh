#!/usr/bin/env bash
# Hardening: mistakes on the command line and missing privileges, made on a
# terminal (where the full-screen view would start): one line naming the
# problem, the documented exit status (2 usage, 1 runtime, 127 command not
# executable), the terminal untouched (nothing but that line is written),
# nothing attached or left loaded. Completes tests/integration/test_cli.sh,
# which checks the usual mistakes in batch mode. Files written at the end
# (--folded) are checked at the start; a kernel thread is no target.
# Then what cowtop needs and does not: it works without tracefs mounted, and
# with CAP_BPF and CAP_PERFMON alone as documented.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PHASELOAD=${PHASELOAD:-./tests/workloads/phaseload}

# A mistake on a terminal: expect_mistake STATUS TEXT ARGS... One line on
# the terminal, starting "cowtop: " and holding TEXT, no escape sequence,
# the exit status, no BPF program left.
expect_mistake() {
	local status=$1 text=$2 name before leaked out
	shift 2
	name=mistake-$((++NMISTAKE))
	before=$(our_prog_ids)
	on_tty "$name" "$(printf '%q ' "$COWTOP" "$@")"
	out=$(tty_text "$name")
	if [ "$RC" = "$status" ] && [ "$(wc -l <<<"$out")" -eq 1 ] && [[ $out == "cowtop: "*"$text"* ]] &&
		! grep -q "$ESC" "$WORK/$name.tty"; then
		pass "mistake $(printf '%q ' "$@")-> $status, one line: $out"
	else
		fail "mistake $(printf '%q ' "$@")-> status $RC (expected $status), wrote: $(cat -v "$WORK/$name.tty")"
	fi
	leaked=$(leaked_progs "$before")
	[ -z "${leaked// /}" ] || fail "mistake $(printf '%q ' "$@"): BPF programs left loaded: $leaked"
}

test_usage() {
	local many=() i
	for i in $(seq 1 65); do
		many+=(-p "$i")
	done
	expect_mistake 2 "empty snapshot file name" -o ''
	expect_mistake 2 "invalid iteration count" -n 0
	expect_mistake 2 "invalid iteration count" -n -1
	expect_mistake 2 "invalid iteration count" -n 1.5
	expect_mistake 2 "invalid delay" -d nan
	expect_mistake 2 "invalid delay" -d inf
	expect_mistake 2 "invalid delay" -d 1e9
	expect_mistake 2 "invalid PID" -p 0
	expect_mistake 2 "invalid PID" -p 99999999999
	expect_mistake 2 "invalid PID" --pid=
	expect_mistake 2 "needs a value" -p
	expect_mistake 2 "too many -p" "${many[@]}"
	expect_mistake 2 "invalid PID" --track-first-clone x
	expect_mistake 2 "invalid ring buffer size" --ringbuf-kib 6
	expect_mistake 2 "invalid linger" --linger -1
	expect_mistake 2 "invalid probe" -u nocolon
	expect_mistake 2 "no command after --" -d 0.5 --
	expect_mistake 2 "exclude each other" --demo -- true
	# numbers are plain decimals; out of range says so
	expect_mistake 2 "invalid delay '0x10': not a decimal number" -d 0x10
	expect_mistake 2 "invalid delay ' 1': not a decimal number" -d " 1"
	expect_mistake 2 "invalid delay '1e3': not a decimal number" -d 1e3
	expect_mistake 2 "invalid PID '+5': not a decimal number" -p +5
	expect_mistake 2 "invalid PID ' 5': not a decimal number" -p " 5"
	expect_mistake 2 "invalid iteration count '99999999999999999999': too large" -n 99999999999999999999
	expect_mistake 2 "invalid delay '100000': too large" -d 100000
	expect_mistake 2 "invalid PID '99999999999': too large" -p 99999999999
	expect_mistake 2 "invalid delay '0.01': too small" -d 0.01
	expect_mistake 2 "invalid delay '-1': negative" -d -1
	expect_mistake 2 "invalid iteration count '-3': negative" -n -3
	expect_mistake 2 "invalid delay '1e9': too large" -d 1e9
	# a flag does what it says, or is refused
	expect_mistake 2 "-f is the format of batch output: add -b" -f json
	expect_mistake 2 "-f is the format of batch output: add -b" -f text -p 1
	expect_mistake 2 "-o names the file of the full-screen view's snapshot key" -b -o "$WORK/x.txt"
	expect_mistake 2 "--linger is for the full-screen view" -b --linger 5
	expect_mistake 2 "--regions is for batch text" --regions
	expect_mistake 2 "--regions is for batch text" -b -f json --regions
	expect_mistake 2 "--ascii is for the screen and batch text" -b -f json --ascii
	expect_mistake 2 "--stacks-sample needs --stacks" -b --stacks-sample 10
	expect_mistake 2 "--list-usdt lists probes and exits" --list-usdt 1 -p 1
	check "-b -o: no file written" test ! -e "$WORK/x.txt"
}

# A kernel thread's pid other than $1 (stat's flags have PF_KTHREAD), or nothing.
kernel_thread_not() {
	local f pid
	for f in /proc/[0-9]*/stat; do
		pid=${f#/proc/}
		pid=${pid%/stat}
		[ "$pid" != "$1" ] || continue
		# field 9 after the comm's closing parenthesis: flags
		sed 's/.*) //' "$f" 2>/dev/null | awk '{ exit !(int($7 / 2097152) % 2) }' && { echo "$pid"; return; }
	done
}

test_runtime() {
	local tid pid kt
	start_hardload threads threads 60
	read -r _ pid tid <"$WORK/threads.out"
	expect_mistake 1 "$tid is a thread of process $pid; use -p $pid" -p "$tid"
	expect_mistake 1 "$tid is a thread of process $pid; use --track-first-clone $pid" --track-first-clone "$tid"
	expect_mistake 1 "no process with PID 999999999" -p 999999999
	expect_mistake 1 "no process with PID 999999999" --track-first-clone 999999999
	# kernel threads (PF_KTHREAD in stat's flags: kthreadd is PID 2) have no user memory
	expect_mistake 1 "PID 2 is a kernel thread: it has no user memory to copy on write" -p 2
	expect_mistake 1 "PID 2 is a kernel thread" --track-first-clone 2
	kt=$(kernel_thread_not 2)
	[ -z "$kt" ] || expect_mistake 1 "PID $kt is a kernel thread" -p "1,$kt"
	expect_mistake 1 "/nonexistent" --list-usdt /nonexistent
	expect_mistake 127 "cannot execute '/nonexistent/program'" -- /nonexistent/program
	expect_mistake 127 "cannot execute ''" -- ''
	kill "$HL_BG" 2>/dev/null || true
	test_folded_at_start
}

# --folded FILE is written at exit, and checked at the start: a file that
# exists (it keeps its bytes and mode), a symlink, a directory that is not
# there or takes no file are refused before anything runs.
test_folded_at_start() {
	local ro=$WORK/ro before
	printf 'keep me\n' >"$WORK/old.folded"
	chmod 644 "$WORK/old.folded"
	before=$(stat -c '%i %s %Y %a' "$WORK/old.folded")
	expect_mistake 1 "folded: cannot write $WORK/old.folded: it exists: cowtop writes only new files" \
		-n 2 -d 0.1 --folded "$WORK/old.folded" -- sleep 0.1
	expect_eq "folded: the existing file keeps inode, size, time and mode" \
		"$(stat -c '%i %s %Y %a' "$WORK/old.folded")" "$before"
	ln -s "$WORK/old.folded" "$WORK/link.folded"
	expect_mistake 1 "folded: cannot write $WORK/link.folded: is a symbolic link" \
		-n 2 -d 0.1 --folded "$WORK/link.folded" -- sleep 0.1
	expect_mistake 1 "folded: cannot write $WORK/none/x.folded: No such file or directory" \
		-n 2 -d 0.1 --folded "$WORK/none/x.folded" -- sleep 0.1
	mkdir "$ro"
	mount -t tmpfs -o ro,size=64k cowtop-test "$ro"
	MOUNTS+=("$ro")
	expect_mistake 1 "folded: cannot write $ro/x.folded: Read-only file system" \
		-n 2 -d 0.1 --folded "$ro/x.folded" -- sleep 0.1
}

# Not root, or root without the capabilities: refused in one line, on a
# terminal; and with CAP_BPF and CAP_PERFMON alone it works.
test_privileges() {
	local name before leaked
	before=$(our_prog_ids)
	on_tty unpriv "setpriv --reuid=65534 --regid=65534 --clear-groups $(printf %q "$(public_copy "$COWTOP")")"
	expect_eq "unprivileged user: exit status" "$RC" 1
	expect_eq "unprivileged user: one line, needs root" "$(tty_text unpriv)" \
		"cowtop: needs root (or CAP_BPF and CAP_PERFMON) to load BPF programs"
	on_tty nocaps "setpriv --bounding-set=-all --inh-caps=-all $(printf %q "$COWTOP") -p 1"
	expect_eq "root without capabilities: exit status" "$RC" 1
	expect_eq "root without capabilities: one line, needs root" "$(tty_text nocaps)" \
		"cowtop: needs root (or CAP_BPF and CAP_PERFMON) to load BPF programs"
	for name in unpriv nocaps; do
		check "$name: the terminal untouched (no escape sequence)" no_esc "$WORK/$name.tty"
	done
	leaked=$(leaked_progs "$before")
	expect_eq "refused runs leave no BPF program" "${leaked// /}" ""
	# the workload, as nobody too, reports into a directory of its own
	chmod 711 "$WORK"
	mkdir -m 777 "$WORK/nobody"
	REPORT=$WORK/nobody/caps.report
	RC=0
	FRAMES=$WORK/caps.json
	timeout -k 5 60 setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
		"$(public_copy "$COWTOP")" -b -f json -d 0.2 -- "$(public_copy "$COWLOAD")" \
		--child-writes 300 --report "$REPORT" \
		>"$FRAMES" 2>"$WORK/caps.err" </dev/null || RC=$?
	expect_eq "CAP_BPF and CAP_PERFMON alone (user nobody): exit status" "$RC" 0
	validate_frames
	check_tree exited
}

# No tracefs anywhere (unmounted in a mount namespace of the test's own):
# copies are counted, USDT phases too.
test_no_tracefs() {
	local script=$WORK/no-tracefs.sh
	cat >"$script" <<-'EOF'
		set -eu
		for m in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug; do
			while mountpoint -q "$m" 2>/dev/null; do umount -l "$m"; done
		done
		if grep -qE ' (tracefs|debugfs) ' /proc/self/mounts; then
			echo "tracefs still mounted" >&2
			exit 99
		fi
		"$@"
	EOF
	# Mounted outside first, so that the check below proves the namespace
	# hid a tracefs that exists rather than one that never was.
	if ! grep -qE ' tracefs ' /proc/self/mounts; then
		mount -t tracefs nodev /sys/kernel/tracing || die "cannot mount tracefs"
		MOUNTS=(/sys/kernel/tracing "${MOUNTS[@]}")
	fi
	new_report notracefs
	RC=0
	FRAMES=$WORK/notracefs.json
	timeout -k 5 60 unshare -m --propagation private sh "$script" \
		"$COWTOP" -b -f json -d 0.2 -- "$COWLOAD" --child-writes 200,400 --report "$REPORT" \
		>"$FRAMES" 2>"$WORK/notracefs.err" </dev/null || RC=$?
	expect_eq "no tracefs: exit status" "$RC" 0
	expect_eq "no tracefs: nothing on stderr" "$(cat "$WORK/notracefs.err")" ""
	validate_frames
	check_tree exited
	check "no tracefs: still mounted outside the test's namespace" grep -qE ' tracefs ' /proc/self/mounts
	RC=0
	FRAMES=$WORK/notracefs-usdt.json
	timeout -k 5 60 unshare -m --propagation private sh "$script" \
		"$COWTOP" -b -f json -d 0.2 -u cowtest:phase__begin -- "$PHASELOAD" --children 2 --inside 40 \
		--report /dev/null >"$FRAMES" 2>"$WORK/notracefs-usdt.err" </dev/null || RC=$?
	expect_eq "no tracefs, USDT probes: exit status" "$RC" 0
	check "no tracefs, USDT probes: copies counted in the phase" jq_true \
		'[inputs.processes[].cow_by_phase["cowtest:phase"] // 0] | max >= 40'
}

main() {
	NMISTAKE=0
	hard_setup
	[ -x "$PHASELOAD" ] || die "phase workload not found at '$PHASELOAD' (set PHASELOAD)"
	PHASELOAD=$(realpath "$PHASELOAD")
	command -v mountpoint >/dev/null || die "mountpoint (util-linux) is needed"
	test_usage
	test_runtime
	test_privileges
	test_no_tracefs
	hard_finish
}

main "$@"
