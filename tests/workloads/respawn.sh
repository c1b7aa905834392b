#!/bin/bash
# A master that keeps N workers running and starts a new one for each that
# dies, as a preforking server does. Workers are sleeps titled in argv like
# unicorn's ("respawn-worker[K] SECONDS", K counting every start) while
# their name (comm) stays "sleep". Each start is reported as "worker PID K"
# on standard output. TERM or INT stops the master and its workers.
# Usage: respawn.sh [N] [SECONDS]
n=${1:-2}
secs=${2:-600}
k=0
trap 'kill $(jobs -p) 2>/dev/null; exit 0' TERM INT
while :; do
	while [ "$(jobs -rp | wc -l)" -lt "$n" ]; do
		k=$((k + 1))
		(exec -a "respawn-worker[$k]" sleep "$secs") &
		echo "worker $! $k"
	done
	wait -n
done
