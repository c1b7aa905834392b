#!/bin/bash
# objtab.sh: what the object table (--objects, src/model/objects.c) costs a
# tick, this tree's build against another revision's, side by side in one
# run. bench/objtab.c feeds the table as the object feed does (every
# counter of every process set each tick, in an order of its own; names
# given when asked; the exited processes pruned; a snapshot for the
# frame); it is linked once with this tree's libcowcore.a and once with
# the other revision's objects.c in front of it. Rounds alternate the two
# builds. The snapshots must come out the same, or it says so. A
# benchmark, not a test: no privileges, no BPF.
#
# Usage: bench/objtab.sh [--procs "N ..."] [--rows M] [--ticks K]
#                        [--rounds R] [--churn C] [--old REV]
#   --procs "N ..."  process counts, one line each (default "50 200 1000")
#   --rows M         rows of each process (default 16)
#   --ticks K        ticks timed by each run (default 10)
#   --rounds R       runs of each build per line (default 3)
#   --churn C        processes replaced each tick (default 1)
#   --old REV        the revision compared against (default main)
# Environment: BUILD  the built tree holding libcowcore.a (default .)
#              CC     compiler (default cc)
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${BUILD:-.}
procs="50 200 1000"
rows=16
ticks=10
rounds=3
churn=1
old=main
while [ $# -gt 0 ]; do
	case $1 in
	--procs) procs=${2:-}; shift 2 ;;
	--rows) rows=$(count_arg "$1" "${2:-}"); shift 2 ;;
	--ticks) ticks=$(count_arg "$1" "${2:-}"); shift 2 ;;
	--rounds) rounds=$(count_arg "$1" "${2:-}"); shift 2 ;;
	--churn) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--churn needs a number, got '${2:-}'"
		churn=$2; shift 2 ;;
	--old) old=${2:-}; shift 2 ;;
	*) die "usage: $prog [--procs \"N ...\"] [--rows M] [--ticks K] [--rounds R] [--churn C] [--old REV]" ;;
	esac
done
for n in $procs; do
	count_arg --procs "$n" >/dev/null
done
[ -f "$build/libcowcore.a" ] || die "no $build/libcowcore.a: build cowtop first, or set BUILD"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$top" show "$old:src/model/objects.c" >"$tmp/objects_old.c" 2>"$tmp/git.err" ||
	die "cannot read src/model/objects.c at $old: $(head -1 "$tmp/git.err")"
cflags=(-O2 -std=gnu11 -I"$top/src" -I"$top/src/collect" -I"$top/src/model")
"${CC:-cc}" "${cflags[@]}" -c "$tmp/objects_old.c" -o "$tmp/objects_old.o" ||
	die "cannot build objects.c of $old"
"${CC:-cc}" "${cflags[@]}" "$here/objtab.c" "$tmp/objects_old.o" "$build/libcowcore.a" -lelf \
	-o "$tmp/objtab-old" || die "cannot build objtab against $old"
"${CC:-cc}" "${cflags[@]}" "$here/objtab.c" "$build/libcowcore.a" -lelf -o "$tmp/objtab-new" ||
	die "cannot build objtab against this tree"

note "old: objects.c of $old ($(git -C "$top" rev-parse --short "$old")); new: this tree's build"
printf '%6s %6s %12s %12s %7s %11s %11s %12s %12s %7s\n' procs rows "set old us" "set new us" ratio \
	"prune old" "prune new" "tick old us" "tick new us" ratio
for n in $procs; do
	: >"$tmp/old.set"; : >"$tmp/new.set"; : >"$tmp/old.prune"; : >"$tmp/new.prune"
	: >"$tmp/old.tick"; : >"$tmp/new.tick"
	for r in $(seq "$rounds"); do
		order="old new"
		[ $((r % 2)) -eq 0 ] && order="new old"
		for b in $order; do
			"$tmp/objtab-$b" --procs "$n" --rows "$rows" --ticks "$ticks" --churn "$churn" \
				>"$tmp/out" || die "objtab-$b failed"
			read -r _ set _ prune _ snap _ _ _ _ _ check <"$tmp/out"
			echo "$set" >>"$tmp/$b.set"
			echo "$prune" >>"$tmp/$b.prune"
			echo $((set + prune + snap)) >>"$tmp/$b.tick"
			echo "$check" >>"$tmp/$b.check"
		done
	done
	[ "$(sort -u "$tmp/old.check" "$tmp/new.check" | wc -l)" -eq 1 ] ||
		note "$n processes: the snapshots differ between the builds"
	rm -f "$tmp/old.check" "$tmp/new.check"
	m() { stats "$tmp/$1" | awk '{ printf "%.1f", $1 / 1000 }'; }
	so=$(m old.set); sn=$(m new.set); to=$(m old.tick); tn=$(m new.tick)
	awk -v n="$n" -v r="$rows" -v so="$so" -v sn="$sn" -v po="$(m old.prune)" -v pn="$(m new.prune)" \
		-v to="$to" -v tn="$tn" 'BEGIN {
		printf "%6d %6d %12.1f %12.1f %7.3f %11.1f %11.1f %12.1f %12.1f %7.3f\n",
			n, r, so, sn, sn / (so ? so : 1), po, pn, to, tn, tn / (to ? to : 1) }'
done
