#!/bin/bash
# objects.sh: what --objects costs per sampled copy, in one run of
# interleaved rounds. tests/workloads/objfork.py --mode iter: a child
# iterating over 50000 strings copies about 1200 pages, each by a
# reference-count write, and times its own loop (so start-up and the
# tracer's attach are never part of a figure). Variants:
#   (a) untraced
#   (b) watched by cowtop (no --objects)
#   (o1) cowtop --objects --objects-sample 1: every copy's object read
#   (o8) cowtop --objects (the default sampling, 1 in 8)
# Printed: the median loop time of each, its ratio to (a) and to (b), and
# the time per copied page that (o1) and (o8) add to (b); and the kernel's
# own measure (us_per_sample in cowtop's frames). A benchmark, not a test.
#
# Usage: sudo bench/objects.sh [--rounds K]
# Environment: COWTOP (default ./cowtop), PYTHON (default /usr/bin/python3.11)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
COWTOP=${COWTOP:-./cowtop}
PYTHON=${PYTHON:-/usr/bin/python3.11}
rounds=7
[ "${1:-}" = --rounds ] && rounds=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One run of variant V: run V COWTOP_ARGS... (none: untraced).
run() {
	local v=$1 d load c=
	shift
	d=$(mktemp -d "$tmp/run.XXXX")
	"$PYTHON" "$here/../tests/workloads/objfork.py" --mode iter --go "$d/go" \
		--stop "$d/stop" --report "$d/rep" &
	load=$!
	until grep -q '^ready' "$d/rep" 2>/dev/null; do sleep 0.05; done
	if [ $# -gt 0 ]; then
		"$COWTOP" -b -f json -d 0.5 "$@" -p "$load" >"$d/out.json" 2>/dev/null &
		c=$!
		until [ -s "$d/out.json" ]; do sleep 0.05; done
	fi
	touch "$d/go"
	until grep -q '^done' "$d/rep"; do sleep 0.05; done
	sleep 1
	touch "$d/stop"
	wait "$load"
	if [ -n "$c" ]; then
		kill -INT "$c" 2>/dev/null || true
		wait "$c" || true
		jq -r 'select(.objects) | .objects.us_per_sample // empty' "$d/out.json" |
			tail -1 >>"$tmp/$v.us"
	fi
	awk '$1 == "done" { print $8 }' "$d/rep" >>"$tmp/$v.ns"
	awk '$1 == "pages" { print $4 }' "$d/rep" >>"$tmp/pages"
}

variants=(a b o1 o8)
for ((r = 0; r < rounds; r++)); do
	for ((i = 0; i < ${#variants[@]}; i++)); do
		v=${variants[$(((i + r) % ${#variants[@]}))]}
		case $v in
		a) run a ;;
		b) run b --smaps-budget 0 ;;
		o1) run o1 --smaps-budget 0 --objects --objects-sample 1 ;;
		o8) run o8 --smaps-budget 0 --objects ;;
		esac
	done
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
pages=$(median "$tmp/pages")
a=$(median "$tmp/a.ns")
b=$(median "$tmp/b.ns")
echo "rounds $rounds, pages copied per run about $pages (the strings' pages)"
for v in a b o1 o8; do
	m=$(median "$tmp/$v.ns")
	us=
	[ -s "$tmp/$v.us" ] && us=$(median "$tmp/$v.us")
	awk -v v="$v" -v m="$m" -v a="$a" -v b="$b" -v p="$pages" -v us="$us" 'BEGIN {
		printf "(%s) loop %.2f ms  x%.3f of (a)  x%.3f of (b)", v, m / 1e6, m / a, m / b
		if (v ~ /^o/) printf "  +%.2f us per copy over (b)", (m - b) / p / 1e3
		if (us != "") printf "  kernel us_per_sample %s", us
		printf "\n" }'
done
