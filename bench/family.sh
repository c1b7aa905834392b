#!/bin/bash
# family.sh: what one FAM% reading of a process costs, read the way kernels
# without PAGEMAP_SCAN are read (every page mapped: "walk-all") and the way
# kernels with it are (pagemap only for the ranges PAGEMAP_SCAN finds
# present: "scan"), side by side, on two processes: one with a sparse
# mapping (1 TiB NORESERVE, 64 pages written: a reserved arena, a
# sanitizer's shadow) and one with a busy heap (200 MiB, every page
# written). bench/famwalk.c times cowtop's own reader,
# procfs_read_family_way(), in interleaved rounds; wall and CPU times are
# printed (wall time grows with the machine's load, CPU time less). The
# figures read must be the same both ways, or it says so. A benchmark, not
# a test.
#
# Usage: sudo bench/family.sh [--sparse GIB] [--heap MIB] [--rounds K]
#   --sparse GIB  size of the sparse mapping (default 1024)
#   --heap MIB    size of the busy heap (default 200)
#   --rounds K    readings each way of the heap (default 15); the sparse
#                 mapping gets at most 3 (its walk-all takes seconds)
# Environment: BUILD  the built tree holding libcowcore.a (default .)
#              CC     compiler (default cc)
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD:-.}
sparse=1024
heap=200
rounds=15
while [ $# -gt 0 ]; do
	case $1 in
	--sparse) sparse=$(count_arg "$1" "${2:-}"); shift 2 ;;
	--heap) heap=$(count_arg "$1" "${2:-}"); shift 2 ;;
	--rounds) rounds=$(count_arg "$1" "${2:-}"); shift 2 ;;
	*) die "usage: $prog [--sparse GIB] [--heap MIB] [--rounds K]" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "must run as root (pagemap hides frame numbers otherwise)"
[ -f "$build/libcowcore.a" ] || die "no $build/libcowcore.a: build cowtop first, or set BUILD"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${CC:-cc}" -O2 -std=gnu11 -I"$top/src" -I"$top/src/collect" -I"$top/src/model" \
	"$here/famwalk.c" "$build/libcowcore.a" -o "$tmp/famwalk" ||
	die "cannot build famwalk"

note "kernel $(uname -r); the sparse mapping's walk-all takes seconds a reading"
sparse_rounds=$((rounds < 3 ? rounds : 3))
"$tmp/famwalk" --sparse "$sparse" --rounds "$sparse_rounds" | tee "$tmp/sparse" ||
	note "the sparse mapping: the figures differ, or it failed (status $?)"
"$tmp/famwalk" --heap "$heap" --rounds "$rounds" | tee "$tmp/heap" ||
	note "the heap: the figures differ, or it failed (status $?)"

# Side by side: the medians of each way, and walk-all over scan.
echo
printf '%-22s %14s %14s %8s %14s %14s %8s\n' process "walk-all ms" "scan ms" ratio \
	"walk-all cpu" "scan cpu" ratio
for f in sparse heap; do
	awk -v name="$(head -1 "$tmp/$f" | cut -d, -f1)" '
		$1 == "walk-all" { w = $3; wc = $10 }
		$1 == "scan" { s = $3; sc = $10 }
		END { printf "%-22s %14.3f %14.3f %8.1f %14.3f %14.3f %8.1f\n",
			name, w, s, w / s, wc, sc, wc / sc }' "$tmp/$f"
done
