#!/bin/bash
# filter-paste.sh: the CPU a full-screen cowtop spends on a burst of keys
# typed into the filter prompt (a paste), watching every process.
#
# A detached tmux session of fixed size runs cowtop -d 10 (no refresh in
# the window); "/" opens the filter prompt, then N edits are pasted at
# once ("a" then Backspace, N/2 times: every key changes the filter). The
# figure is cowtop's utime+stime (from /proc/PID/stat) over the paste and
# the time after it to settle. Before the view was laid out once per batch
# of keys it was laid out once per key: with ~5,100 processes, 8,000 keys
# took about 6 s of CPU, now about 0.25 s. A benchmark: it prints figures
# and never fails on them.
#
# Usage: sudo bench/filter-paste.sh [--keys N] [--settle S]
# Environment: COWTOP  cowtop binary (default ./cowtop)
set -euo pipefail

prog=$(basename "$0")
keys=8000
settle=8
while [ $# -gt 0 ]; do
	case $1 in
	--keys) keys=$2; shift 2 ;;
	--settle) settle=$2; shift 2 ;;
	*) echo "usage: $prog [--keys N] [--settle S]" >&2; exit 2 ;;
	esac
done
COWTOP=$(realpath "${COWTOP:-./cowtop}")
sock=cowtop-bench-paste-$$
buf=$(mktemp)

t() { tmux -L "$sock" -f /dev/null "$@"; }

# CPU ticks (user + system) a process used so far.
ticks() {
	LC_ALL=C sed -z 's/.*) //' "/proc/$1/stat" | tr '\0' ' ' | awk '{ print $12 + $13 }'
}

cleanup() {
	t kill-server 2>/dev/null || true
	rm -f "$buf"
}
trap cleanup EXIT

python3 -c "import sys; sys.stdout.write('a\x7f' * ($keys // 2))" >"$buf"
t new-session -d -s paste -x 150 -y 50 "'$COWTOP' -d 10"
sleep 3
pid=$(t display -p -t paste '#{pane_pid}')
[ "$(cat "/proc/$pid/comm")" = "$(basename "$COWTOP" | cut -c1-15)" ] || { echo "$prog: cowtop did not start" >&2; exit 1; }
t send-keys -t paste /
sleep 0.5
before=$(ticks "$pid")
t load-buffer "$buf"
t paste-buffer -t paste
sleep "$settle"
after=$(ticks "$pid")
echo "$prog: $keys filter keys pasted, processes on the machine $(find /proc -maxdepth 1 -name '[0-9]*' | wc -l):" \
	"cowtop used $(awk -v d=$((after - before)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", d / hz }') s of CPU"
