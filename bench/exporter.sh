#!/bin/bash
# exporter.sh: what the metrics exporter costs, with many watched processes.
#
# A helper forks N idle children (default 5000) under one parent; cowtop
# --exporter -d 1 -p HELPER watches the parent and its N children. Two
# variants, each started afresh: the default series (per group and role)
# and --metrics-by pid (a series per process as well), after a reference
# run of batch text output with no exporter (CPU only). For each:
#
#   - cowtop's CPU% over a window with nobody scraping;
#   - cowtop's CPU% over a window of the same length scraped once a second;
#   - the latency of K scrapes in a row (a scrape that comes while a frame
#     is being built waits for it: one thread) (curl's time_total: connect, request,
#     the whole body), median, min and max, and the body's size and samples.
#
# A benchmark, not a test: it prints figures and never fails on them.
#
# Usage: sudo bench/exporter.sh [--procs N] [--window S] [--scrapes K]
# Environment: COWTOP  cowtop binary (default ./cowtop)
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

procs=5000
window=10
scrapes=50
cowtop=${COWTOP:-./cowtop}
tmp=
helper_pid=
tool_pid=
nap_pid=

usage()
{
	cat <<EOF
usage: $prog [--procs N] [--window S] [--scrapes K]
  --procs N     idle processes watched besides their parent (default $procs)
  --window S    seconds of CPU accounting per window (default $window)
  --scrapes K   scrapes in a row for the latency figures (default $scrapes)
environment: COWTOP (default ./cowtop)
EOF
}

# On exit: stop cowtop and the helper (it kills its children), remove files.
cleanup()
{
	[ -n "$nap_pid" ] && kill "$nap_pid" 2>/dev/null
	[ -n "$tool_pid" ] && stop_child "$tool_pid"
	[ -n "$helper_pid" ] && stop_child "$helper_pid" TERM
	[ -n "$tmp" ] && rm -rf "$tmp"
	return 0
}

# Start the helper: N children that pause, dying with it; waits for "ready".
start_helper()
{
	cat >"$tmp/idle.py" <<'EOF'
import ctypes, os, signal, sys
n = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
kids = []
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the helper
        signal.pause()
        os._exit(0)
    kids.append(pid)
def stop(sig, frame):
    for k in kids:
        os.kill(k, signal.SIGKILL)
    for k in kids:
        os.waitpid(k, 0)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
print("ready", flush=True)
while True:
    signal.pause()
EOF
	python3 "$tmp/idle.py" "$procs" >"$tmp/idle.out" &
	helper_pid=$!
	for ((i = 0; i < 1200; i++)); do
		grep -q ready "$tmp/idle.out" 2>/dev/null && return 0
		sleep 0.1
	done
	die "the helper did not fork $procs children"
}

# A free TCP port on 127.0.0.1.
free_port()
{
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# CPU% of our cowtop over $window seconds; with $1 = scrape, scraped every
# second meanwhile.
cpu_window()
{
	local a b t0 t1 end

	a=$(ticks "$tool_pid")
	t0=$(date +%s.%N)
	if [ "${1-}" = scrape ]; then
		end=$(awk -v t="$t0" -v w="$window" 'BEGIN { printf "%.3f", t + w }')
		while awk -v e="$end" -v n="$(date +%s.%N)" 'BEGIN { exit !(n < e) }'; do
			curl -s -o /dev/null --max-time 5 "$url" || true
			sleep 1
		done
	else
		pause_for "$window"
	fi
	b=$(ticks "$tool_pid")
	t1=$(date +%s.%N)
	awk -v d=$((b - a)) -v hz="$(getconf CLK_TCK)" -v s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		'BEGIN { printf "%.2f", 100 * d / hz / s }'
}

# The reference: cowtop -b -f text to /dev/null, no exporter; CPU only.
run_reference()
{
	local idle
	"$cowtop" -b -f text -d 1 -p "$helper_pid" >/dev/null 2>"$tmp/cowtop.err" &
	tool_pid=$!
	pause_for 5 # warm-up, as long as the variants' at least
	idle=$(cpu_window)
	printf '%-22s %9s %8s  %-26s %8s %8s\n' "reference: -b, no http" - - - "$idle" -
	stop_child "$tool_pid"
	tool_pid=
}

# One variant: label, then cowtop's extra options.
run_variant()
{
	local label=$1 port i idle busy lat size samples
	shift
	port=$(free_port)
	url=http://127.0.0.1:$port/metrics
	"$cowtop" --exporter --listen "127.0.0.1:$port" -d 1 -p "$helper_pid" "$@" \
		>/dev/null 2>"$tmp/cowtop.err" &
	tool_pid=$!
	for ((i = 0; i < 300; i++)); do
		curl -sf -o "$tmp/body" --max-time 5 "$url" 2>/dev/null &&
			[ "$(grep -c '^cowtop_processes' "$tmp/body")" -gt 0 ] && break
		alive "$tool_pid" || die "cowtop ended: $(cat "$tmp/cowtop.err")"
		sleep 0.1
	done
	pause_for 3 # warm-up: the first /proc scan and smaps readings
	idle=$(cpu_window)
	busy=$(cpu_window scrape)
	: >"$tmp/lat"
	for ((i = 0; i < scrapes; i++)); do
		curl -s -o "$tmp/body" -w '%{time_total}\n' --max-time 10 "$url" |
			awk '{ printf "%.3f\n", $1 * 1000 }' >>"$tmp/lat"
	done
	lat=$(stats "$tmp/lat" 3)
	size=$(wc -c <"$tmp/body")
	samples=$(grep -cv '^#' "$tmp/body" || true)
	printf '%-22s %9s %8s  %-26s %8s %8s\n' "$label" "$size" "$samples" "$lat" "$idle" "$busy"
	stop_child "$tool_pid"
	tool_pid=
}

while [ $# -gt 0 ]; do
	case $1 in
	--procs) procs=$(count_arg "$1" "${2-}"); shift 2 ;;
	--window) window=$(seconds_arg "$1" "${2-}"); shift 2 ;;
	--scrapes) scrapes=$(count_arg "$1" "${2-}"); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "must run as root (cowtop loads BPF programs)"
[ -x "$cowtop" ] || die "cowtop not found at '$cowtop' (set COWTOP)"
command -v curl >/dev/null || die "curl is needed"
command -v python3 >/dev/null || die "python3 is needed"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-bench-exporter.XXXXXX")
trap cleanup EXIT
trap 'exit 130' INT TERM

note "forking $procs idle processes"
start_helper
echo "cowtop --exporter -d 1 watching $((procs + 1)) processes; CPU% over ${window}s windows;"
echo "latency of $scrapes scrapes in a row, ms (median min max)"
printf '%-22s %9s %8s  %-26s %8s %8s\n' variant bytes samples "latency median min max" "cpu idle" "cpu 1/s"
run_reference
run_variant "default (group, role)"
run_variant "--metrics-by pid" --metrics-by pid
