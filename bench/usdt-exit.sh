#!/bin/bash
# usdt-exit.sh: how long cowtop takes to exit after SIGINT with USDT probes
# attached, by number of probe sites (sitesload: sites:s300, sites:s3000).
#
# Each round starts sitesload (waiting for a signal), attaches cowtop -b -p
# to it with one probe, waits for the first frame (attach done), sends
# SIGINT and times until cowtop has exited. A benchmark, not a test: it
# prints figures and never fails on them.
#
# Usage: sudo bench/usdt-exit.sh [ROUNDS]
# Environment: COWTOP     cowtop binary (default ./cowtop)
#              SITESLOAD  default ./tests/workloads/sitesload
set -euo pipefail

COWTOP=${COWTOP:-./cowtop}
SITESLOAD=${SITESLOAD:-./tests/workloads/sitesload}
rounds=${1:-3}
work=$(mktemp -d)
sl=
trap 'kill -KILL $sl 2>/dev/null || true; rm -rf "$work"' EXIT

# Seconds since the epoch, with nanoseconds.
now() {
	date +%s.%N
}

# One round: prints the attach time and the exit time of one probe.
round() {
	local probe=$1 pid='' t0 t1 t2 cp i
	: >"$work/out"
	rm -f "$work/frames"
	"$SITESLOAD" --wait-signal >"$work/out" 2>/dev/null &
	sl=$!
	for ((i = 0; i < 100; i++)); do
		pid=$(awk '$1 == "ready" { print $2 }' "$work/out")
		[ -z "$pid" ] || break
		sleep 0.05
	done
	t0=$(now)
	# background jobs of a script ignore SIGINT: give it back to cowtop
	env --default-signal=INT "$COWTOP" -b -f json -d 0.5 -p "$pid" -u "$probe" \
		>"$work/frames" 2>"$work/err" &
	cp=$!
	for ((i = 0; i < 12000; i++)); do
		[ -s "$work/frames" ] && break
		sleep 0.05
	done
	t1=$(now)
	kill -INT "$cp"
	wait "$cp" || true
	t2=$(now)
	kill -KILL "$sl" 2>/dev/null || true
	wait "$sl" 2>/dev/null || true
	awk -v p="$probe" -v a="$t0" -v b="$t1" -v c="$t2" \
		'BEGIN { printf "%-12s attach %.2f s  exit after SIGINT %.3f s\n", p, b - a, c - b }'
}

for ((r = 0; r < rounds; r++)); do
	round sites:s300
	round sites:s3000
done
