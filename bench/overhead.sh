#!/bin/bash
# overhead.sh: measure what cowtop's tracing costs, side by side with an
# equivalent bpftrace script, in one run of interleaved rounds.
#
#   (a) a copy-on-write workload (bench/cowbench), untraced
#   (b) the same workload watched by cowtop (cowtop -b -f json -d 1 -- ...)
#   (f) the floor: the same workloads untraced but with empty BPF
#       programs (bench/floor.bpf.c) on the three hooks cowtop uses; every
#       line is also given as a ratio to this floor
#   (b) regions off: the same watched by cowtop --no-regions (copies not
#       split by memory region), so the cost of regions is (b)/(b-)
#   (bk) the same watched by cowtop -d 60 --smaps-budget 0: no frame is
#       drawn and no smaps_rollup read while the workload runs, so this is
#       the kernel side alone (the BPF programs), and (b)/(bk) is what
#       cowtop's user space adds while it runs beside the workload
#   (b0) with --compare PATH: the same watched by another cowtop build, so
#       a change is measured before and after in the same run
#   (b') the same with copies by code path on (cowtop --stacks
#       --sample-budget 0): a user stack captured and counted at every copy;
#       the kernel's own measure of a capture (us_per_copy in the frames) is
#       printed too
#   (b'') the same with --stacks on its default budget (--sample-budget 1,
#       -d 0.2 so that the rate adapts within the run): the sampling rate
#       reached and the share of a CPU the captures cost are printed too
#   (bu) the same with stacks on but no copy due (--stacks --stacks-sample
#       1000000): what every copy pays for the test of whether it is the
#       one sampled, the path of all copies not captured
#   with --compare, (b''0) and (bu0): (b'') and (bu) run with the other
#       build, so that the budget's first interval and the path of the
#       copies not sampled are measured before and after in the same run
#   (c) the same workload watched by bench/cow.bt under bpftrace -c
#   (d) processes cowtop does NOT watch (it watches an idle sleep instead):
#       a page-fault workload and the CoW workload, against their untraced
#       figures; the same with cow.bt watching the idle process
#
# Every variant runs the same binary, which times only its own faulting
# loops, so tracer start-up and tear-down are never part of a figure. Each
# round runs every variant once, in an order rotated from round to round,
# so that drift affects all variants alike. This is a benchmark, not a test:
# it prints figures and never fails on them.
#
# Usage: sudo bench/overhead.sh [--rounds K] [--pages N] [--reps R]
#                               [--no-bpftrace] [--no-cowtop] [--compare PATH]
# Environment: COWTOP   cowtop binary (default ./cowtop)
#              COWBENCH cowbench binary (default: bench/cowbench, built
#                       from bench/cowbench.c with cc -O2 when missing)
#              CC       compiler used for that (default cc)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prog=$(basename "$0")
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

rounds=7
pages=16384
reps=8
use_bpftrace=1
use_cowtop=1
cowtop=${COWTOP:-./cowtop}
compare=
ready_timeout=15	# seconds a tracer may take to get ready
run_timeout=600		# seconds one traced workload run may take

tmp=
idle_pid=
other_pid=
floor=
bg_pids=()

# Print the usage text.
usage()
{
	cat <<EOF
usage: $prog [--rounds K] [--pages N] [--reps R] [--no-bpftrace] [--no-cowtop]
             [--compare PATH]
  --rounds K     measured rounds, each runs every variant once (default $rounds)
  --pages N      pages written per fork / per mapping (default $pages)
  --reps R       forks (CoW) or mappings (page faults) per run (default $reps)
  --no-bpftrace  skip the bpftrace variants
  --no-cowtop    skip the cowtop variants (baseline and bpftrace only)
  --compare PATH also run the CoW workload under the cowtop at PATH (another
                 build: before and after a change, in the same run)
environment: COWTOP (default ./cowtop), COWBENCH, CC
EOF
}

# Stop background process $1 we started: signal $2 (default INT), then harder.
stop_pid()
{
	local pid=$1 sig=${2:-INT} i

	kill -"$sig" "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		sleep 1
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
}

# On exit: stop what is still running and remove the scratch directory.
cleanup()
{
	local pid

	for pid in "${bg_pids[@]}"; do
		kill -0 "$pid" 2>/dev/null && stop_pid "$pid"
	done
	[ -n "$idle_pid" ] && stop_pid "$idle_pid" TERM
	[ -n "$tmp" ] && rm -rf "$tmp"
	return 0
}

# Print the value of key $2 in a cowbench result file $1.
kv()
{
	awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1"
}

# Check a cowbench result file and append its time to variant $2's list.
record()
{
	local out=$1 var=$2 ns

	[ -s "$out" ] || die "$var: cowbench wrote no result (see $out.err)"
	ns=$(kv "$out" ns)
	[[ $ns =~ ^[0-9]+$ ]] || die "$var: bad result in $out"
	echo "$ns" >>"$tmp/$var.ns"
	kv "$out" minflt >>"$tmp/$var.minflt"
}

# Arguments of cowbench for workload $1 (cow or fault) writing to $2.
bench_args()
{
	echo "--mode $1 --pages $pages --rounds $reps --out $2"
}

# Run workload $1 untraced; record it as variant $2.
run_plain()
{
	local out=$tmp/run.out

	rm -f "$out"
	# shellcheck disable=SC2046
	"$bench" $(bench_args "$1" "$out") 2>"$out.err" ||
		die "$2: cowbench failed: $(cat "$out.err")"
	record "$out" "$2"
}

# Print "FOUND SUM": children of result $1 seen in cowtop's JSON frames $2
# and the sum of their largest "cow_pages" figures; "- -" if none can be found.
cowtop_counts()
{
	local res=$1 frames=$2 kids filter all

	kids=$(kv "$res" children | awk '{ printf "["; for (i = 1; i <= NF; i++)
		printf "%s\"%s\"", (i > 1 ? "," : ""), $i; printf "]" }')
	# shellcheck disable=SC2016 # a jq program, not shell
	filter='[ .. | objects | select(has("pid"))
		| { pid: (.pid | tostring),
		    cow: .cow_pages }
		| select((.cow | type) == "number")
		| select(.pid as $p | any($kids[]; . == $p)) ]
		| group_by(.pid) | map(map(.cow) | max)
		| if length == 0 then "- -"
		  else "\(length) \(add)" end'
	command -v jq >/dev/null || { echo "- -"; return; }
	# concatenated or one-per-line frames; else keep the lines that parse
	if ! all=$(jq -r -s --argjson kids "$kids" "$filter" "$frames" 2>/dev/null); then
		all=$(jq -R -c 'fromjson? // empty' "$frames" 2>/dev/null |
		      jq -r -s --argjson kids "$kids" "$filter" 2>/dev/null) ||
			all="- -"
	fi
	echo "${all:-- -}"
}

# Print "FOUND SUM" for the children of result $1 in cow.bt's output $2.
bpftrace_counts()
{
	local res=$1 log=$2

	awk -v kids=" $(kv "$res" children) " '
		/^@cow\[[0-9]+\]: [0-9]+$/ {
			pid = $1; gsub(/[^0-9]/, "", pid)
			if (index(kids, " " pid " ")) { n++; sum += $2 }
		}
		END { if (n) print n, sum; else print "- -" }' "$log"
}

# Run workload $1 as "cowtop -b -f json -d 1 [OPTIONS] -- cowbench" (the
# cowtop binary in $COWTOP_RUN, default $cowtop; a later -d wins); record it
# as variant $2; options are $3 and on.
run_cowtop_cmd()
{
	local out=$tmp/run.out frames=$tmp/frames.json bin=${COWTOP_RUN:-$cowtop}

	rm -f "$out" "$frames"
	# shellcheck disable=SC2046
	if ! timeout --foreground "$run_timeout" "$bin" -b -f json -d 1 "${@:3}" -- \
		"$bench" $(bench_args "$1" "$out") >"$frames" 2>"$tmp/cowtop.err"; then
		[ -s "$out" ] || die "$2: cowtop failed: $(tail -n 5 "$tmp/cowtop.err")"
		note "$2: cowtop exited non-zero (result kept): $(tail -n 1 "$tmp/cowtop.err")"
	fi
	record "$out" "$2"
	cowtop_counts "$out" "$frames" >>"$tmp/$2.counts"
	command -v jq >/dev/null || return 0
	jq -r 'select(.stacks) | .stacks.us_per_copy // empty' "$frames" 2>/dev/null |
		tail -n 1 >>"$tmp/$2.us"
	# the highest rate reached; the share of a CPU the captures cost in the
	# first interval of the burst (the first that cost anything: the
	# workload sets up its memory first), the median of the shares measured
	# once the rate had risen, and the most in any interval
	jq -r 'select(.stacks) | .stacks.sample' "$frames" 2>/dev/null | sort -n |
		tail -n 1 >>"$tmp/$2.sample"
	jq -n -r '[inputs | select(.stacks.cpu_pct != null) | .stacks] as $f
		| ($f | map(.sample > 1) | index(true)) as $i
		| ([$f[] | select(.cpu_pct > 0)] | first // {cpu_pct: 0}) as $b
		| ([$f[].cpu_pct] | max) as $most
		| if $f == [] then empty else "\($b.cpu_pct) \(if $i == null or $i + 1 >= ($f | length)
		  then "-" else [$f[$i + 1:][].cpu_pct] | sort | .[length / 2 | floor] end) \($most)" end' \
		"$frames" 2>/dev/null >>"$tmp/$2.cpu"
}

# Run workload $1 as "bpftrace -c cowbench cow.bt"; record it as variant $2.
run_bpftrace_cmd()
{
	local out=$tmp/run.out log=$tmp/bpftrace.out

	rm -f "$out" "$log"
	if ! timeout --foreground "$run_timeout" bpftrace -c "$bench $(bench_args "$1" "$out")" \
		"$here/cow.bt" >"$log" 2>"$tmp/bpftrace.err"; then
		die "$2: bpftrace failed: $(grep -v RLIMIT "$tmp/bpftrace.err" | tail -n 5)"
	fi
	record "$out" "$2"
	bpftrace_counts "$out" "$log" >>"$tmp/$2.counts"
}

# Wait until file $2 of tracer $1 (named $4) has a line matching $3.
wait_ready()
{
	local pid=$1 file=$2 pat=$3 what=$4 i

	for ((i = 0; i < ready_timeout * 10; i++)); do
		grep -q -- "$pat" "$file" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null ||
			die "$what exited before it was ready: $(tail -n 5 "$file.err")"
		sleep 0.1
	done
	die "$what printed nothing matching '$pat' within $ready_timeout s"
}

# Start tracer $1 watching the idle process in the background; set other_pid.
start_other()
{
	local kind=$1 log=$tmp/$1.other

	rm -f "$log"
	if [ "$kind" = cowtop ]; then
		# line-buffer the frames if cowtop uses default stdio buffering
		if command -v stdbuf >/dev/null; then
			stdbuf -oL "$cowtop" -b -f json -d 1 -p "$idle_pid" \
				>"$log" 2>"$log.err" &
		else
			"$cowtop" -b -f json -d 1 -p "$idle_pid" >"$log" 2>"$log.err" &
		fi
	else
		bpftrace "$here/cow.bt" "$idle_pid" >"$log" 2>"$log.err" &
	fi
	other_pid=$!
	bg_pids+=("$other_pid")
}

# Run both workloads while tracer $1 watches only the idle process; record
# them as variants fault.$1-other and cow.$1-other. $2 picks the order.
run_other()
{
	local kind=$1 flip=$2 pid log=$tmp/$1.other

	start_other "$kind"
	pid=$other_pid
	if [ "$kind" = cowtop ]; then
		# the first frame means cowtop has attached
		wait_ready "$pid" "$log" . "cowtop -p"
	else
		# printed just before the probes attach: give them time
		wait_ready "$pid" "$log" '^Attaching' "bpftrace"
		sleep 1
	fi
	if ((flip)); then
		run_plain cow "cow.$kind-other"
		run_plain fault "fault.$kind-other"
	else
		run_plain fault "fault.$kind-other"
		run_plain cow "cow.$kind-other"
	fi
	kill -0 "$pid" 2>/dev/null ||
		die "$kind stopped while watching the idle process: $(tail -n 5 "$log.err")"
	stop_pid "$pid"
}

# Run both workloads with the empty programs of the floor attached; record
# them as variants cow.floor and fault.floor. $1 picks the order.
run_floor()
{
	local log=$tmp/floor.out pid

	rm -f "$log"
	"$floor" "$tmp/floor.bpf.o" >"$log" 2>"$log.err" &
	pid=$!
	bg_pids+=("$pid")
	wait_ready "$pid" "$log" '^ready' "the floor loader"
	if (($1)); then
		run_plain cow cow.floor
		run_plain fault fault.floor
	else
		run_plain fault fault.floor
		run_plain cow cow.floor
	fi
	stop_pid "$pid"
}

# Build the floor's loader and programs into the scratch directory; say
# why not (and go on without the floor) when clang or libbpf is missing.
build_floor()
{
	floor=$tmp/floor
	if ! clang -O2 -target bpf -c "$here/floor.bpf.c" -o "$tmp/floor.bpf.o" 2>"$tmp/floor.build" ||
		! "${CC:-cc}" -O2 -Wall -o "$floor" "$here/floor.c" -lbpf 2>>"$tmp/floor.build"; then
		note "no floor variant: cannot build it: $(head -n 1 "$tmp/floor.build")"
		floor=
	fi
}

# Run variant block $1 once in round $2.
run_block()
{
	case $1 in
	cow.untraced)		run_plain cow cow.untraced ;;
	fault.untraced)		run_plain fault fault.untraced ;;
	cow.cowtop)		run_cowtop_cmd cow cow.cowtop ;;
	cow.stacks)		run_cowtop_cmd cow cow.stacks --stacks --sample-budget 0 ;;
	cow.budget)		run_cowtop_cmd cow cow.budget --stacks -d 0.2 ;;
	cow.unsampled)		run_cowtop_cmd cow cow.unsampled --stacks --stacks-sample 1000000 ;;
	cow.budget0)		COWTOP_RUN=$compare run_cowtop_cmd cow cow.budget0 --stacks -d 0.2 ;;
	cow.unsampled0)		COWTOP_RUN=$compare run_cowtop_cmd cow cow.unsampled0 --stacks \
					--stacks-sample 1000000 ;;
	cow.noregions)		run_cowtop_cmd cow cow.noregions --no-regions ;;
	cow.kernel)		run_cowtop_cmd cow cow.kernel -d 60 --smaps-budget 0 ;;
	cow.compare)		COWTOP_RUN=$compare run_cowtop_cmd cow cow.compare ;;
	floor)			run_floor $(($2 % 2)) ;;
	cow.bpftrace)		run_bpftrace_cmd cow cow.bpftrace ;;
	other.cowtop)		run_other cowtop $(($2 % 2)) ;;
	other.bpftrace)		run_other bpftrace $(($2 % 2)) ;;
	esac
}

# Print the median over the rounds of variant $1's time divided by variant
# $2's time in the same round ("-" unless both ran in every round). Drift
# between rounds (other load on the machine) cancels out of it.
paired()
{
	local a=$tmp/$1.ns b=$tmp/$2.ns

	if [ ! -s "$a" ] || [ ! -s "$b" ] || [ "$(wc -l <"$a")" -ne "$(wc -l <"$b")" ]; then
		echo -
		return
	fi
	paste "$a" "$b" | awk '{ printf "%.6f\n", $1 / $2 }' >"$tmp/paired"
	stats "$tmp/paired" 3 | cut -d' ' -f1
}

# Print one result line: label, variant, baseline variant, pages, floor
# variant (its ratio columns are "-" when the floor did not run).
report_line()
{
	local label=$1 var=$2 base=$3 per=$4 fl=$5 m lo hi bm fm=0

	if [ ! -s "$tmp/$var.ns" ]; then
		printf '%-52s %s\n' "$label" "(skipped)"
		return
	fi
	read -r m lo hi < <(stats "$tmp/$var.ns")
	read -r bm _ _ < <(stats "$tmp/$base.ns")
	[ -s "$tmp/$fl.ns" ] && read -r fm _ _ < <(stats "$tmp/$fl.ns")
	awk -v l="$label" -v m="$m" -v lo="$lo" -v hi="$hi" -v bm="$bm" \
		-v per="$per" -v fm="$fm" -v pr="$(paired "$var" "$fl")" 'BEGIN {
		printf "%-52s %9.1f %9.1f %9.1f %8.0f %7.3f", l, m / 1e6, lo / 1e6, hi / 1e6, m / per, m / bm
		if (fm > 0) printf " %7.3f %7s\n", m / fm, pr; else printf " %7s %7s\n", "-", "-" }'
}

# Print the median ratio of variant $1 against $2 minus one (added cost).
added()
{
	local m bm

	read -r m _ _ < <(stats "$tmp/$1.ns")
	read -r bm _ _ < <(stats "$tmp/$2.ns")
	awk -v m="$m" -v bm="$bm" 'BEGIN { printf "%.4f\n", m / bm - 1 }'
}

# Print what the tracer of variant $1 counted, per round.
report_counts()
{
	local var=$1 label=$2 expect=$((pages * reps))

	[ -s "$tmp/$var.counts" ] || return 0
	awk -v l="$label" -v e="$expect" -v r="$reps" '
		$1 == "-" { miss++; next }
		{ s = s sep $2; sep = " "; if ($1 != r) short++ }
		END {
			printf "  %-11s %s", l, (s == "" ? "-" : s)
			if (miss) printf "  (%d round(s) without per-child counts)", miss
			if (short) printf "  (%d round(s) missing some children)", short
			printf "\n"
		}' "$tmp/$var.counts"
}

while [ $# -gt 0 ]; do
	case $1 in
	--rounds)	rounds=$(count_arg "$1" "${2-}"); shift ;;
	--pages)	pages=$(count_arg "$1" "${2-}"); shift ;;
	--reps)		reps=$(count_arg "$1" "${2-}"); shift ;;
	--no-bpftrace)	use_bpftrace=0 ;;
	--no-cowtop)	use_cowtop=0 ;;
	--compare)	[ -n "${2-}" ] || { usage >&2; exit 2; }
			compare=$2; shift ;;
	-h|--help)	usage; exit 0 ;;
	*)		usage >&2; exit 2 ;;
	esac
	shift
done

[ "$(id -u)" -eq 0 ] || die "tracing needs root: run it with sudo"

if ((use_cowtop)); then
	[ -f "$cowtop" ] ||
		die "cowtop not found at '$cowtop': build it, set COWTOP=/path/to/cowtop, or pass --no-cowtop"
	[ -x "$cowtop" ] || die "cowtop at '$cowtop' is not executable"
	case $cowtop in */*) cowtop=$(cd "$(dirname "$cowtop")" && pwd)/$(basename "$cowtop") ;; esac
fi
if [ -n "$compare" ]; then
	((use_cowtop)) || die "--compare needs the cowtop variants (drop --no-cowtop)"
	{ [ -f "$compare" ] && [ -x "$compare" ]; } || die "--compare: '$compare' is not an executable"
	case $compare in */*) compare=$(cd "$(dirname "$compare")" && pwd)/$(basename "$compare") ;; esac
fi
if ((use_bpftrace)); then
	command -v bpftrace >/dev/null ||
		die "bpftrace not found: install it or pass --no-bpftrace"
fi

if [ ! -d /sys/kernel/tracing/events ]; then
	note "mounting tracefs on /sys/kernel/tracing"
	mount -t tracefs tracefs /sys/kernel/tracing ||
		die "cannot mount tracefs on /sys/kernel/tracing"
fi

if [ -n "${COWBENCH-}" ]; then
	[ -x "$COWBENCH" ] || die "COWBENCH='$COWBENCH' is not an executable"
	src_bench=$COWBENCH
else
	src_bench=$here/cowbench
	if [ ! -x "$src_bench" ] || [ "$here/cowbench.c" -nt "$src_bench" ]; then
		note "building $src_bench"
		"${CC:-cc}" -O2 -Wall -o "$src_bench" "$here/cowbench.c" ||
			die "cannot build cowbench"
	fi
fi

trap cleanup EXIT
trap 'exit 130' INT TERM
tmp=$(mktemp -d)
# a path without spaces: bpftrace -c splits its command on blanks
bench=$tmp/cowbench
cp "$src_bench" "$bench"

sleep 100000 &
idle_pid=$!

build_floor
blocks=(cow.untraced fault.untraced)
[ -n "$floor" ] && blocks+=(floor)
((use_cowtop)) && blocks+=(cow.cowtop cow.noregions cow.kernel cow.stacks cow.budget cow.unsampled \
	other.cowtop)
[ -n "$compare" ] && blocks+=(cow.compare cow.budget0 cow.unsampled0)
((use_bpftrace)) && blocks+=(cow.bpftrace other.bpftrace)

note "warm-up run"
run_plain cow warmup
run_plain fault warmup

nb=${#blocks[@]}
for ((r = 0; r < rounds; r++)); do
	note "round $((r + 1))/$rounds"
	for ((i = 0; i < nb; i++)); do
		run_block "${blocks[(i + r) % nb]}" "$r"
	done
done

faults=$((pages * reps))
echo "cowtop overhead: $rounds rounds; each run: $reps x $pages pages = $faults faults timed"
echo "kernel $(uname -r), $(nproc) CPUs; times of the faulting loops only"
echo "ratio = median / untraced median; floor = median / median with empty programs on the hooks"
echo "paired = median over the rounds of (time / the floor's time in the same round)"
echo
printf '%-52s %9s %9s %9s %8s %7s %7s %7s\n' "" "median ms" "min ms" "max ms" "ns/page" "ratio" "floor" "paired"
report_line "(a) CoW, untraced" cow.untraced cow.untraced "$faults" cow.floor
report_line "(f) CoW, empty programs on the hooks (floor)" cow.floor cow.untraced "$faults" cow.floor
report_line "(b-) CoW, watched by cowtop --no-regions" cow.noregions cow.untraced "$faults" cow.floor
report_line "(b) CoW, watched by cowtop" cow.cowtop cow.untraced "$faults" cow.floor
report_line "(bk) CoW, cowtop -d 60 --smaps-budget 0 (kernel side)" cow.kernel cow.untraced "$faults" cow.floor
[ -n "$compare" ] &&
	report_line "(b0) CoW, watched by the --compare cowtop" cow.compare cow.untraced "$faults" cow.floor
report_line "(b') CoW, watched by cowtop --stacks, every copy" cow.stacks cow.untraced "$faults" cow.floor
report_line "(b'') CoW, cowtop --stacks, default budget" cow.budget cow.untraced "$faults" cow.floor
report_line "(bu) CoW, cowtop --stacks, no copy due" cow.unsampled cow.untraced "$faults" cow.floor
if [ -n "$compare" ]; then
	report_line "(b''0) CoW, the --compare cowtop --stacks, budget" cow.budget0 cow.untraced "$faults" cow.floor
	report_line "(bu0) CoW, the --compare cowtop --stacks, none due" cow.unsampled0 cow.untraced "$faults" \
		cow.floor
fi
report_line "(c) CoW, watched by bpftrace cow.bt" cow.bpftrace cow.untraced "$faults" cow.floor
report_line "(d) page faults, untraced" fault.untraced fault.untraced "$faults" fault.floor
report_line "    page faults, empty programs on the hooks (floor)" fault.floor fault.untraced "$faults" fault.floor
report_line "    page faults, unwatched, cowtop watching other" fault.cowtop-other fault.untraced "$faults" fault.floor
report_line "    CoW, unwatched, cowtop watching other" cow.cowtop-other cow.untraced "$faults" cow.floor
report_line "    page faults, unwatched, cow.bt watching other" fault.bpftrace-other fault.untraced "$faults" fault.floor
report_line "    CoW, unwatched, cow.bt watching other" cow.bpftrace-other cow.untraced "$faults" cow.floor

if [ -s "$tmp/cow.cowtop.ns" ] && [ -s "$tmp/cow.bpftrace.ns" ]; then
	echo
	b=$(added cow.cowtop cow.untraced)
	c=$(added cow.bpftrace cow.untraced)
	awk -v b="$b" -v c="$c" 'BEGIN {
		printf "added cost, watched CoW: cowtop %+.1f%%, bpftrace %+.1f%%", b * 100, c * 100
		if (c > 0) printf ", cowtop / bpftrace = %.2f", b / c
		printf "\n" }'
fi

if [ -s "$tmp/cow.noregions.ns" ] && [ -s "$tmp/cow.cowtop.ns" ]; then
	echo
	awk -v b="$(stats "$tmp/cow.cowtop.ns" | cut -d' ' -f1)" \
		-v n="$(stats "$tmp/cow.noregions.ns" | cut -d' ' -f1)" \
		-v u="$(stats "$tmp/cow.untraced.ns" | cut -d' ' -f1)" -v f="$faults" 'BEGIN {
		printf "regions: (b)/(b-) = %.3f, ratio %.3f against %.3f, %+.0f ns/copy\n",
			b / n, b / u, n / u, (b - n) / f }'
fi

if [ -s "$tmp/cow.kernel.ns" ] && [ -s "$tmp/cow.cowtop.ns" ]; then
	echo
	awk -v b="$(stats "$tmp/cow.cowtop.ns" | cut -d' ' -f1)" \
		-v k="$(stats "$tmp/cow.kernel.ns" | cut -d' ' -f1)" -v f="$faults" 'BEGIN {
		printf "user space: (b)/(bk) = %.3f, %+.0f ns/copy while it runs beside the workload\n", b / k, (b - k) / f }'
fi

if [ -s "$tmp/cow.compare.ns" ] && [ -s "$tmp/cow.cowtop.ns" ]; then
	echo
	awk -v b="$(stats "$tmp/cow.cowtop.ns" | cut -d' ' -f1)" \
		-v c="$(stats "$tmp/cow.compare.ns" | cut -d' ' -f1)" -v f="$faults" 'BEGIN {
		printf "this build against --compare: (b)/(b0) = %.3f, %+.0f ns/copy", b / c, (b - c) / f }'
	echo ", paired $(paired cow.cowtop cow.compare)"
fi

if [ -s "$tmp/cow.stacks.ns" ] && [ -s "$tmp/cow.cowtop.ns" ]; then
	echo
	s=$(added cow.stacks cow.cowtop)
	us=-
	[ -s "$tmp/cow.stacks.us" ] && read -r us _ _ < <(stats "$tmp/cow.stacks.us" 3)
	awk -v s="$s" -v us="${us:--}" -v ns="$(stats "$tmp/cow.stacks.ns" | cut -d' ' -f1)" \
		-v nb="$(stats "$tmp/cow.cowtop.ns" | cut -d' ' -f1)" -v f="$faults" 'BEGIN {
		printf "stacks on: (b\x27)/(b) = %.3f, +%.2f us/copy measured by the workload", 1 + s, (ns - nb) / f / 1e3
		if (us != "-") printf ", +%.2f us/copy by the kernel (capture only, median)", us
		printf "\n" }'
fi

# Print the line of a budget variant $1 (stacks on the default budget) of
# the build named $3, against the same build's (b) variant $2.
budget_line()
{
	local var=$1 base=$2 s rate first after most us

	[ -s "$tmp/$var.ns" ] && [ -s "$tmp/$base.ns" ] || return 0
	s=$(added "$var" "$base")
	read -r rate _ _ < <(stats "$tmp/$var.sample" 0)
	read -r first _ _ < <(cut -d' ' -f1 "$tmp/$var.cpu" | stats /dev/stdin 3)
	read -r after _ _ < <(cut -d' ' -f2 "$tmp/$var.cpu" | grep -v -- - | stats /dev/stdin 3)
	read -r most _ _ < <(cut -d' ' -f3 "$tmp/$var.cpu" | stats /dev/stdin 3)
	us=-
	[ -s "$tmp/$var.us" ] && read -r us _ _ < <(stats "$tmp/$var.us" 3)
	awk -v s="$s" -v rate="$rate" -v first="$first" -v after="${after:--}" -v us="$us" -v b="$3" \
		-v most="$most" 'BEGIN {
		printf "stacks on a budget (%s): (b\x27\x27)/(b) = %.3f; rate reached 1 in %d; captures cost ", b, 1 + s, rate
		printf "%.2f%% of a CPU in the first interval of the burst, %.2f%% at most, ", first, most
		printf "%s%% once the rate rose; +%s us/sampled copy (medians over the rounds)\n", after, us }'
}

budget_line cow.budget cow.cowtop "this build"
budget_line cow.budget0 cow.compare "--compare"
if [ -s "$tmp/cow.unsampled.ns" ] && [ -s "$tmp/cow.cowtop.ns" ]; then
	echo
	awk -v b="$(stats "$tmp/cow.cowtop.ns" | cut -d' ' -f1)" \
		-v u="$(stats "$tmp/cow.unsampled.ns" | cut -d' ' -f1)" -v f="$faults" 'BEGIN {
		printf "stacks on, no copy due: (bu)/(b) = %.3f, %+.0f ns/copy", u / b, (u - b) / f }'
	if [ -s "$tmp/cow.unsampled0.ns" ] && [ -s "$tmp/cow.compare.ns" ]; then
		awk -v b="$(stats "$tmp/cow.compare.ns" | cut -d' ' -f1)" \
			-v u="$(stats "$tmp/cow.unsampled0.ns" | cut -d' ' -f1)" -v f="$faults" 'BEGIN {
			printf "; --compare: (bu0)/(b0) = %.3f, %+.0f ns/copy", u / b, (u - b) / f }'
		printf '; paired (bu)/(bu0) %s' "$(paired cow.unsampled cow.unsampled0)"
	fi
	echo
fi

echo
echo "copies counted for cowbench's $reps children per round (expected about $faults):"
read -r kminflt _ _ < <(stats "$tmp/cow.untraced.minflt")
echo "  kernel      $kminflt minor faults per untraced run (median; children and parent)"
report_counts cow.cowtop "(b) cowtop"
report_counts cow.stacks "(b') stacks"
report_counts cow.budget "(b'') budget"
report_counts cow.noregions "(b-) no regions"
report_counts cow.kernel "(bk) -d 60"
report_counts cow.compare "(b0) compare"
report_counts cow.bpftrace "(c) cow.bt"
