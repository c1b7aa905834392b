#!/usr/bin/env bash
# Replay of a large recording: how long until the first frame, and how much
# memory, for a recording of SIZE MiB (default 100). A benchmark, not a test:
# it prints figures and never fails because of them.
#
# The recording is made of real frames: cowtop records every process for
# three frames (needs root), or the frames of --from FILE, repeated one
# second apart until the file holds SIZE MiB. Printing every frame in batch
# mode is the cost of reading through (what --diff pays).
#
# Usage: bench/replay.sh [--size MIB] [--from RECORDING] [--keep]
# Environment: COWTOP (default ./cowtop).
set -euo pipefail

COWTOP=${COWTOP:-./cowtop}
SIZE=100
FROM=
KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
	--size) SIZE=$2; shift 2 ;;
	--from) FROM=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	*) echo "usage: $0 [--size MIB] [--from RECORDING] [--keep]" >&2; exit 2 ;;
	esac
done
command -v jq >/dev/null || { echo "$0: jq is needed" >&2; exit 1; }
DIR=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-bench-replay.XXXXXX")
# shellcheck disable=SC2064 # expand now
[ "$KEEP" = 1 ] || trap "rm -rf '$DIR'" EXIT
if [ -z "$FROM" ]; then
	FROM=$DIR/seed.rec
	"$COWTOP" -b -f json -d 0.5 -n 3 -w "$FROM" >/dev/null
fi
BIG=$DIR/big.rec
# the header, then the seed's frames again and again with times one second apart
awk -v target=$((SIZE << 20)) '
	NR == 1 { print; bytes = length($0) + 1; next }
	{ sub(/^\{"time":[0-9.]+/, ""); line[n++] = $0 }
	END {
		for (k = 0; bytes < target; k++) {
			printf "{\"time\":%.3f%s\n", 1.8e9 + k, line[k % n]
			bytes += length(line[k % n]) + 24
		}
	}' "$FROM" >"$BIG"
frames=$(($(wc -l <"$BIG") - 1))
echo "recording: $(($(stat -c %s "$BIG") >> 20)) MiB, $frames frames of $(tail -n 1 "$BIG" | jq '.processes | length') processes, $(($(tail -n 1 "$BIG" | wc -c) >> 10)) KiB a line"
# open (index the whole file) and show the first frame, then one in the middle
for n in 1 "$frames"; do
	/usr/bin/time -f "%e %M" -o "$DIR/time" "$COWTOP" -r "$BIG" -b -f json -n "$n" >/dev/null
	read -r secs kib <"$DIR/time"
	echo "open, index and print $n frame(s): $secs s, max RSS $((kib >> 10)) MiB (cowtop -r FILE -b -f json -n $n)"
done
