#!/usr/bin/env bash
# Replay of a large recording: how long until the first frame, and how much
# memory, for a recording of SIZE MiB (default 100). A benchmark, not a test:
# it prints figures and never fails because of them.
#
# The recording is made of real frames: cowtop records every process for
# three frames (needs root), or the frames of --from FILE, repeated one
# second apart until the file holds SIZE MiB. Printing every frame in batch
# mode is the cost of reading through (what --diff pays, measured too).
#
# With tmux, the full-screen replay is also opened, paused, and made to jump
# to the last frame (':' #N), which reads up to 128 frames before it again to
# rebuild the histories: its peak RSS (VmHWM) and RSS after the jump.
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
# the header, then the seed's frames again and again with times one second
# apart (the first "time": of a frame is its own: a quote inside a string is
# escaped)
awk -v target=$((SIZE << 20)) '
	NR == 1 { print; bytes = length($0) + 1; next }
	{ line[n++] = $0 }
	END {
		for (k = 0; bytes < target; k++) {
			l = line[k % n]
			sub(/"time":[0-9.]+/, sprintf("\"time\":%.3f", 1.8e9 + k), l)
			print l
			bytes += length(l) + 1
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

# --diff reads both recordings through
# (time says first when it failed: the figures are its last line)
/usr/bin/time -f "%e %M" -o "$DIR/time" "$COWTOP" --diff "$BIG" "$BIG" >/dev/null || true
read -r secs kib < <(tail -n 1 "$DIR/time")
echo "diff of the recording with itself: $secs s, max RSS $((kib >> 10)) MiB (cowtop --diff FILE FILE)"
# the full-screen view: open, pause, jump to the last frame
command -v tmux >/dev/null || { echo "jump: skipped (no tmux)"; exit 0; }
SOCK=cowtop-bench-replay-$$
tm() { tmux -L "$SOCK" "$@"; }
screen() { tm capture-pane -p -t bench 2>/dev/null; }
# wait up to 60 s for the header to say REPLAY $1/N
at() {
	local i
	for ((i = 0; i < 600; i++)); do
		screen | grep -qE "REPLAY $1/$frames " && return 0
		sleep 0.1
	done
	return 1
}
# shellcheck disable=SC2064 # expand now
trap "tmux -L '$SOCK' kill-server 2>/dev/null; rm -f '${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK'
	[ '$KEEP' = 1 ] || rm -rf '$DIR'" EXIT
tm new-session -d -s bench -x 160 -y 50 "exec '$COWTOP' -r '$BIG'"
pid=$(tm display-message -p -t bench '#{pane_pid}')
if ! at 1; then
	echo "jump: the full-screen view did not show frame 1"
	exit 0
fi
tm send-keys -t bench ' '
first=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status")
start=$(date +%s.%N)
tm send-keys -t bench : '#' "$frames" Enter
if ! at "$frames"; then
	echo "jump: the full-screen view did not reach frame $frames"
	exit 0
fi
end=$(date +%s.%N)
read -r hwm rss < <(awk '$1 == "VmHWM:" { h = $2 } $1 == "VmRSS:" { r = $2 } END { print h, r }' "/proc/$pid/status")
echo "full screen, first frame: max RSS $((first >> 10)) MiB"
echo "full screen, jump to frame $frames: $(awk "BEGIN { printf \"%.2f\", $end - $start }") s, max RSS $((hwm >> 10)) MiB, RSS after $((rss >> 10)) MiB (cowtop -r FILE, ':#$frames')"
tm send-keys -t bench q
