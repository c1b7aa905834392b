#!/bin/bash
# memory.sh: how much memory cowtop holds watching every process, on a
# machine with many extra idle processes, once its histories are full.
#
# With N extra idle processes (children of bench/idle.c that only pause()),
# each variant runs for TICKS refreshes of S seconds (the histories hold 128
# values: past that, nothing more is kept however long it runs), then its
# VmRSS and VmHWM are read from /proc/PID/status, and the kernel memory of
# the BPF maps it holds (bpftool's memlock figure of each, the process map
# on its own too); for (b), the time from its start to its first frame on
# screen:
#
#   (a) cowtop -b -f json -d S > /dev/null, watching every process
#   (b) the full-screen cowtop -d S, watching every process, in a detached
#       tmux session of 200x50 (the sparklines as wide as that allows)
#   (c) the same, paused (Z) halfway: the frame shown and the newest one
#       are both held
#
# Then the start of the batch output: the time from starting
# cowtop -b -f json -d 0.1 to the first byte of its first frame (one
# interval, 0.1 s, included), the median of 3.
#
# A benchmark, not a test: it prints figures and never fails on them.
#
# Usage: sudo bench/memory.sh [--count N] [--ticks T] [--delay S]
# Environment: COWTOP  cowtop binary (default ./cowtop)
#              CC      compiler for the idle-process helper (default cc)
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

count=5000
ticks=150
delay=0.5
cols=200
lines=50
cowtop=${COWTOP:-./cowtop}
tmp=
idle_pid=
run_pid=
nap_pid=
pid_max_was=

usage()
{
	cat <<EOF
usage: $prog [--count N] [--ticks T] [--delay S]
  --count N   extra idle processes (default $count)
  --ticks T   refreshes each variant runs before it is measured (default $ticks)
  --delay S   refresh period, seconds (default $delay)
EOF
}

cleanup()
{
	[ -n "$nap_pid" ] && kill "$nap_pid" 2>/dev/null
	[ -n "$run_pid" ] && stop_child "$run_pid"
	tm kill-server 2>/dev/null || true
	[ -n "$idle_pid" ] && stop_child "$idle_pid" TERM
	[ -n "$pid_max_was" ] && echo "$pid_max_was" >/proc/sys/kernel/pid_max
	[ -n "$tmp" ] && rm -rf "$tmp"
	return 0
}

# tmux on the benchmark's own socket.
tm()
{
	tmux -S "$tmp/tmux.sock" "$@"
}

# The kernel memory of the BPF maps process $1 holds (bpftool's memlock),
# in MiB: all of them, then its process map alone.
kmem_of()
{
	local ids f

	ids=$(for f in /proc/"$1"/fdinfo/*; do
		awk '/^map_id:/ { print $2 }' "$f" 2>/dev/null
	done | sort -un | paste -sd, -)
	command -v bpftool >/dev/null && [ -n "$ids" ] || { echo "- -"; return; }
	bpftool map show --json 2>/dev/null | jq -r --argjson ids "[$ids]" '
		[.[] | select(.id as $i | $ids | index($i))] as $m
		| "\(([$m[].bytes_memlock] | add) / 1048576 * 10 | round / 10)"
		  + " \(([$m[] | select(.name == "procs") | .bytes_memlock] | add // 0)
			/ 1048576 * 10 | round / 10)"'
}

# Seconds from $1 (EPOCHREALTIME) until the tmux pane shows a frame.
first_screen()
{
	local t0=$1 i

	for ((i = 0; i < 3000; i++)); do
		if tm capture-pane -p -t bench 2>/dev/null | grep -q 'processes [0-9]'; then
			awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", b - a }'
			return
		fi
		sleep 0.01
	done
	echo -
}

# Seconds from start to the first byte of the batch output at -d 0.1.
first_batch()
{
	local t0

	t0=$EPOCHREALTIME
	"$cowtop" -b -f json -d 0.1 2>/dev/null | head -c 1 >/dev/null
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", b - a }'
}

# The VmRSS and VmHWM of process $1, in MiB (one decimal).
mem_of()
{
	awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 }
		END { printf "%.1f %.1f\n", r / 1024, h / 1024 }' "/proc/$1/status"
}

# Run variant $1 for the ticks; print its line.
measure()
{
	local v=$1 secs rss hwm kmem kprocs first=- t0
	secs=$(awk -v t="$ticks" -v d="$delay" 'BEGIN { print t * d }')

	case $v in
	a)	"$cowtop" -b -f json -d "$delay" >/dev/null 2>"$tmp/err" &
		run_pid=$! ;;
	b|c)	t0=$EPOCHREALTIME
		tm new-session -d -s bench -x "$cols" -y "$lines" "$cowtop" -d "$delay"
		first=$(first_screen "$t0")
		run_pid=$(tm list-panes -t bench -F '#{pane_pid}') ;;
	esac
	if [ "$v" = c ]; then
		pause_for "$(awk -v s="$secs" 'BEGIN { print s / 2 }')"
		tm send-keys -t bench Z
		pause_for "$(awk -v s="$secs" 'BEGIN { print s / 2 }')"
	else
		pause_for "$secs"
	fi
	alive "$run_pid" || die "variant $v ended early: $(cat "$tmp/err" 2>/dev/null)"
	read -r rss hwm < <(mem_of "$run_pid")
	read -r kmem kprocs < <(kmem_of "$run_pid")
	case $v in
	a)	stop_child "$run_pid"; run_pid= ;;
	b|c)	tm kill-server 2>/dev/null || true
		gone_within "$run_pid" 5 || true
		run_pid= ;;
	esac
	printf '%-44s %6s %6s %8s %8s %8s %8s %8s\n' "$2" "$total" "$ticks" "$rss" "$hwm" \
		"$kmem" "$kprocs" "$first"
}

while [ $# -gt 0 ]; do
	case $1 in
	--count) count=$(count_arg "$1" "${2-}"); shift ;;
	--ticks) ticks=$(count_arg "$1" "${2-}"); shift ;;
	--delay) delay=$(seconds_arg "$1" "${2-}"); shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || die "needs root (cowtop loads BPF programs)"
[ -x "$cowtop" ] || die "no cowtop binary at $cowtop (set COWTOP)"
command -v tmux >/dev/null || die "tmux is needed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-bench-memory.XXXXXX")
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
"${CC:-cc}" -O2 -Wall -o "$tmp/idle" "$(dirname "$0")/idle.c" 2>"$tmp/cc.err" ||
	die "cannot build the idle-process helper: $(head -n 5 "$tmp/cc.err")"
raise_limits "$count"
"$tmp/idle" "$count" >"$tmp/idle.out" 2>"$tmp/idle.err" &
idle_pid=$!
# forks slow down as processes pile up: 50,000 took 7 minutes here
for ((i = 0; i < 600 + count / 5; i++)); do
	grep -q '^ready' "$tmp/idle.out" 2>/dev/null && break
	alive "$idle_pid" || die "cannot start $count idle processes: $(tail -n 2 "$tmp/idle.err")"
	sleep 0.1
done
grep -q '^ready' "$tmp/idle.out" || die "the idle processes were not all started"
total=$(nprocs)
note "$total processes; each variant runs $ticks refreshes of ${delay}s"
printf '%-44s %6s %6s %8s %8s %8s %8s %8s\n' variant procs ticks "RSS MiB" "HWM MiB" \
	"BPF MiB" "procs" "start s"
measure a "(a) batch JSON, every process"
measure b "(b) full screen ${cols}x${lines}, every process"
measure c "(c) the same, paused halfway"
for i in 1 2 3; do first_batch; done >"$tmp/first"
echo "batch output: start to the first byte at -d 0.1: median $(stats "$tmp/first" 2 | cut -d' ' -f1) s (min, max: $(stats "$tmp/first" 2 | cut -d' ' -f2-))"
