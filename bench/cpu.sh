#!/bin/bash
# cpu.sh: measure cowtop's own CPU use, side by side with htop, on a machine
# with many extra idle processes, in one run of interleaved rounds.
#
# For each count N of extra idle processes (children of a small helper that
# only pause()), every round runs each variant once, in an order rotated
# from round to round, all at a 1 s refresh:
#
#   (a) cowtop -b -d 1 -f json > /dev/null, watching every process
#   (b) the full-screen cowtop, watching every process, in a detached tmux
#       session of fixed size
#   (c) htop -d 10 in a detached tmux session of the same size
#   (d) the full-screen cowtop watching one small tree (-p PID of a sleep)
#   (e) with --compare PATH: (a) run by another cowtop build
#   (f) with --compare PATH: (b) run by that build, so that a change is
#       measured before and after in the same run, as ratios
#   (g) cowtop -b -d 5 -f json > /dev/null: batch JSON every 5 s
#   (h) cowtop --exporter -d 5, watching every process, scraped every 5 s
#       (the scraper, curl, is not counted)
#
# --variants runs only some of them (the budget lines need all four).
# --cowtop-args gives every cowtop run (both builds) more arguments, e.g.
# "--objects" to measure the object feed's per-tick work at N processes.
# Each variant is started, left alone for a warm-up, then its utime+stime
# (from /proc/PID/stat) is read at both ends of a fixed window; CPU% is CPU
# seconds over wall seconds of the window, times 100. This is a benchmark,
# not a test: it prints figures and never fails on them.
#
# Usage: sudo bench/cpu.sh [--window S] [--rounds K] [--counts "N ..."]
#                          [--warmup S] [--variants LETTERS] [--compare PATH]
#                          [--cowtop-args "ARGS"]
# Environment: COWTOP  cowtop binary (default ./cowtop)
#              CC      compiler for the idle-process helper (default cc)
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

window=15
warmup=3
rounds=3
counts="1000 5000"
variants_arg=
compare=		# the other build of --compare, if any
extra=()		# --cowtop-args: more arguments for every cowtop run
cols=200
lines=50
cowtop=${COWTOP:-./cowtop}
ready_timeout=60	# seconds the helper may take to fork its children, and 1 s per 50
stop_timeout=5		# seconds a tool may take to exit when asked

tmp=
sock=cowtop-cpu-$$	# tmux socket of our own (-L), never the user's
tmux_up=0
sock_path=		# where that server's socket is, to remove it at the end
tool_pid=		# the batch cowtop running now, if any
scrape_pid=		# the loop scraping the exporter of (h), if any
idle_pid=		# the helper whose children are the idle processes
target_pid=		# the sleep that (d) watches
pid_max_was=		# kernel.pid_max before we raised it, if we did
nap_pid=		# a sleep of pause_for that a signal cut short

# Print the usage text.
usage()
{
	cat <<EOF
usage: $prog [--window S] [--rounds K] [--counts "N ..."] [--warmup S] [--variants LETTERS]
       [--compare PATH] [--cowtop-args "ARGS"]
  --window S     seconds of CPU accounting per run (default $window)
  --rounds K     measured rounds, each runs every variant once (default $rounds)
  --counts LIST  numbers of extra idle processes, one pass each (default "$counts")
  --warmup S     seconds a tool runs before its window opens (default $warmup)
  --variants L   only these variants, letters among a b c d e f g h (default
                 abcd, and ef with --compare)
  --compare PATH also run (a) and (b) with the cowtop at PATH: (e) and (f)
  --cowtop-args ARGS  more arguments (split at blanks) for every cowtop run,
                 both builds, e.g. "--objects"
environment: COWTOP (default ./cowtop), CC (default cc)
EOF
}

# Check the list of process counts $1 and print it normalised.
counts_arg()
{
	local n out=

	for n in $1; do
		[[ $n =~ ^(0|[1-9][0-9]*)$ ]] || die "--counts needs numbers, got '$n'"
		out+="${out:+ }$n"
	done
	[ -n "$out" ] || die "--counts needs at least one number"
	echo "$out"
}

# Check the variant letters $1 and print them, each once, in order.
variants_of()
{
	local v out=

	[[ $1 =~ ^[a-h]+$ ]] || die "--variants needs letters among a b c d e f g h, got '$1'"
	for v in a b c d e f g h; do
		[[ $1 == *$v* ]] && out+=$v
	done
	echo "$out"
}

# Run tmux on our own server, with our own configuration.
tm()
{
	tmux -L "$sock" -f "$tmp/tmux.conf" "$@"
}

# Stop whatever tool runs now: the batch cowtop, or our tmux server and
# the program in its pane.
stop_tool()
{
	local pane=${1-}

	if [ -n "$scrape_pid" ]; then
		kill "$scrape_pid" 2>/dev/null || true
		wait "$scrape_pid" 2>/dev/null || true
		scrape_pid=
	fi
	if [ -n "$tool_pid" ]; then
		stop_child "$tool_pid"
		tool_pid=
	fi
	if ((tmux_up)); then
		# the server hangs up on the pane's program
		tm kill-server 2>/dev/null || true
		tmux_up=0
		if [ -n "$pane" ] && ! gone_within "$pane" "$stop_timeout"; then
			kill -KILL "$pane" 2>/dev/null || true
		fi
	fi
}

# Stop the idle processes: the helper kills and reaps its children, which
# also die on their own (parent-death signal) if the helper is killed.
stop_idle()
{
	[ -n "$idle_pid" ] || return 0
	stop_child "$idle_pid" TERM
	idle_pid=
}

# On exit: stop everything we started and undo what we changed.
cleanup()
{
	[ -n "$nap_pid" ] && kill "$nap_pid" 2>/dev/null
	stop_tool
	[ -n "$sock_path" ] && rm -f "$sock_path"
	stop_idle
	[ -n "$target_pid" ] && stop_child "$target_pid" TERM
	if [ -n "$pid_max_was" ]; then
		echo "$pid_max_was" >/proc/sys/kernel/pid_max 2>/dev/null || true
	fi
	[ -n "$tmp" ] && rm -rf "$tmp"
	return 0
}

# Make sure command $1 exists, installing Debian package $2 if we can.
need()
{
	local cmd=$1 pkg=$2

	command -v "$cmd" >/dev/null && return 0
	command -v apt-get >/dev/null ||
		die "$cmd not found and there is no apt-get: install $pkg by hand"
	note "$cmd not found: installing the Debian package $pkg"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" \
		>"$tmp/apt.log" 2>&1 ||
		{ DEBIAN_FRONTEND=noninteractive apt-get update -qq >>"$tmp/apt.log" 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" \
			>>"$tmp/apt.log" 2>&1; } ||
		die "cannot install $pkg with apt-get: $(tail -n 3 "$tmp/apt.log")"
	command -v "$cmd" >/dev/null || die "$pkg is installed but $cmd is still not found"
}

# Build the idle-process helper (bench/idle.c): "idle N" forks N children
# that pause(), prints "ready" once they all exist, and on SIGTERM, SIGINT
# or SIGHUP kills and reaps them. Children die with it in any case.
build_helper()
{
	"${CC:-cc}" -O2 -Wall -o "$tmp/cpu-idle" "$(dirname "$0")/idle.c" 2>"$tmp/cc.err" ||
		die "cannot build the idle-process helper with ${CC:-cc}: $(head -n 5 "$tmp/cc.err")"
}

# Start $1 idle processes and wait until they all exist.
start_idle()
{
	local n=$1 i t0=$SECONDS
	# forks slow down as processes pile up: 50,000 took 7 minutes here
	local most=$((ready_timeout + n / 50))

	raise_limits "$n"
	"$tmp/cpu-idle" "$n" >"$tmp/idle.out" 2>"$tmp/idle.err" &
	idle_pid=$!
	for ((i = 0; i < most * 10; i++)); do
		if grep -q '^ready' "$tmp/idle.out" 2>/dev/null; then
			note "$n idle processes started in $((SECONDS - t0)) s"
			return 0
		fi
		alive "$idle_pid" ||
			die "cannot start $n idle processes: $(tail -n 2 "$tmp/idle.err")"
		sleep 0.1
	done
	die "the idle processes were not all started after $most s"
}

# The cowtop that variant $1 runs: the --compare build for (e) and (f).
build_of()
{
	case $1 in
	e|f)	echo "$compare" ;;
	*)	echo "$cowtop" ;;
	esac
}

# Start variant $1; set run_pid (the process measured) and term_pid (the
# tmux server, for the TUI variants).
start_variant()
{
	run_pid=
	term_pid=
	case $1 in
	a|e)
		"$(build_of "$1")" -b -d 1 -f json "${extra[@]}" >/dev/null 2>"$tmp/tool.err" &
		tool_pid=$!
		run_pid=$tool_pid
		return
		;;
	g)
		"$cowtop" -b -d 5 -f json "${extra[@]}" >/dev/null 2>"$tmp/tool.err" &
		tool_pid=$!
		run_pid=$tool_pid
		return
		;;
	h)
		"$cowtop" --exporter --listen "127.0.0.1:$port" -d 5 "${extra[@]}" \
			>/dev/null 2>"$tmp/tool.err" &
		tool_pid=$!
		run_pid=$tool_pid
		scrape_every 5 &
		scrape_pid=$!
		return
		;;
	b|f)	tm new-session -d -s bench -x "$cols" -y "$lines" "$(build_of "$1")" -d 1 "${extra[@]}" ;;
	c)	tm new-session -d -s bench -x "$cols" -y "$lines" \
			env HTOPRC="$tmp/htoprc" htop -d 10 ;;
	d)	tm new-session -d -s bench -x "$cols" -y "$lines" \
			"$cowtop" -d 1 "${extra[@]}" -p "$target_pid" ;;
	esac
	tmux_up=1
	[ -n "$sock_path" ] || sock_path=$(tm display-message -p '#{socket_path}')
	run_pid=$(tm display-message -p -t bench '#{pane_pid}')
	term_pid=$(tm display-message -p -t bench '#{pid}')
	local size
	size=$(tm display-message -p -t bench '#{pane_width}x#{pane_height}')
	[ "$size" = "${cols}x$lines" ] || die "tmux pane is $size, not ${cols}x$lines"
}

# Scrape the exporter of (h) every $1 seconds, the body thrown away.
scrape_every()
{
	while :; do
		curl -s -o /dev/null --max-time 10 "http://127.0.0.1:$port/metrics" || true
		sleep "$1"
	done
}

# Say why variant $1 stopped early and exit.
died()
{
	local why=

	if [[ $1 == [aegh] ]]; then
		why=$(tail -n 5 "$tmp/tool.err")
	elif ((tmux_up)); then
		why=$(tm capture-pane -p -t bench 2>/dev/null | grep -v '^$' | tail -n 5)
	fi
	die "variant ($1) stopped before its window closed${why:+: $why}"
}

# Run variant $1 once with $2 idle processes; record its CPU% and, for the
# TUI variants, the tmux server's.
run_variant()
{
	local var=$1 n=$2 t0 t1 c0 c1 s0 s1 pane

	start_variant "$var"
	pane=$run_pid
	pause_for "$warmup"
	alive "$run_pid" || died "$var"
	t0=$EPOCHREALTIME
	c0=$(ticks "$run_pid") || died "$var"
	[ -n "$term_pid" ] && s0=$(ticks "$term_pid")
	pause_for "$window"
	c1=$(ticks "$run_pid") || died "$var"
	[ -n "$term_pid" ] && s1=$(ticks "$term_pid")
	t1=$EPOCHREALTIME
	alive "$run_pid" || died "$var"
	stop_tool "$pane"
	awk -v c="$((c1 - c0))" -v hz="$hz" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.4f\n", c / hz / (t1 - t0) * 100 }' >>"$tmp/$n.$var.pct"
	if [ -n "$term_pid" ]; then
		awk -v c="$((s1 - s0))" -v hz="$hz" -v t0="$t0" -v t1="$t1" \
			'BEGIN { printf "%.4f\n", c / hz / (t1 - t0) * 100 }' >>"$tmp/$n.$var.term"
	fi
}

# Print the median of the numbers in file $1.
median()
{
	local m

	read -r m _ _ < <(stats "$1" 4)
	echo "$m"
}

# Print one result line: label, count, variant.
report_line()
{
	local label=$1 n=$2 var=$3 m lo hi term=-

	read -r m lo hi < <(stats "$tmp/$n.$var.pct" 4)
	[ -s "$tmp/$n.$var.term" ] && term=$(median "$tmp/$n.$var.term")
	awk -v l="$label" -v m="$m" -v lo="$lo" -v hi="$hi" -v t="$term" 'BEGIN {
		printf "%-44s %8.2f %8.2f %8.2f %8s\n", l, m, lo, hi,
			(t == "-" ? t : sprintf("%.2f", t)) }'
}

# Print this build against the --compare one, for count $1: the ratio of
# the medians of each pair measured.
report_compare()
{
	local n=$1 pair x y

	for pair in ae bf; do
		x=${pair:0:1} y=${pair:1:1}
		if [ ! -s "$tmp/$n.$x.pct" ] || [ ! -s "$tmp/$n.$y.pct" ]; then
			continue
		fi
		awk -v x="$(median "$tmp/$n.$x.pct")" -v y="$(median "$tmp/$n.$y.pct")" \
		    -v l="$x" -v r="$y" 'BEGIN {
			printf "    this build against --compare: (%s)/(%s) = %s\n", l, r,
				(y > 0 ? sprintf("%.2f", x / y) : "-") }'
	done
}

# Print the budget lines for count $1, $2 processes in all.
report_budgets()
{
	local n=$1 total=$2 a b c d

	a=$(median "$tmp/$n.a.pct")
	b=$(median "$tmp/$n.b.pct")
	c=$(median "$tmp/$n.c.pct")
	d=$(median "$tmp/$n.d.pct")
	awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" -v n="$n" -v all="$total" 'BEGIN {
		if (c > 0)
			printf "    cowtop / htop, every process: batch %.2f, full screen %.2f  (budget <= 0.50: %s)\n",
				a / c, b / c, (a <= c / 2 && b <= c / 2 ? "met" : "NOT met")
		else
			printf "    cowtop / htop: htop used no measurable CPU\n"
		printf "    one tree: %.2f%%", d
		if (all >= 50000)
			printf "  (goal about 0%%, under 0.2%%: %s)", (d < 0.2 ? "met" : "NOT met")
		else if (n >= 5000)
			printf "  (budget < 1%%: %s)", (d < 1 ? "met" : "NOT met")
		printf "\n"
		if (all >= 50000)
			printf "    full screen, every process: %.2f%%  (goal <= 2%%: %s)\n", b,
				(b <= 2 ? "met" : "NOT met") }'
}

while [ $# -gt 0 ]; do
	case $1 in
	--window)	window=$(seconds_arg "$1" "${2-}"); shift ;;
	--warmup)	warmup=$(seconds_arg "$1" "${2-}"); shift ;;
	--rounds)	rounds=$(count_arg "$1" "${2-}"); shift ;;
	--counts)	counts=$(counts_arg "${2-}"); shift ;;
	--variants)	variants_arg=$(variants_of "${2-}"); shift ;;
	--compare)	[ $# -ge 2 ] || die "--compare needs a path"
			compare=$2; shift ;;
	--cowtop-args)	[ $# -ge 2 ] || die "--cowtop-args needs the arguments, in one word"
			read -r -a extra <<<"$2"; shift ;;
	-h|--help)	usage; exit 0 ;;
	*)		usage >&2; exit 2 ;;
	esac
	shift
done

[ "$(id -u)" -eq 0 ] || die "cowtop and the process limits need root: run it with sudo"
[ -f "$cowtop" ] || die "cowtop not found at '$cowtop': build it or set COWTOP=/path/to/cowtop"
[ -x "$cowtop" ] || die "cowtop at '$cowtop' is not executable"
case $cowtop in */*) ;; *) cowtop=./$cowtop ;; esac
cowtop=$(cd "$(dirname "$cowtop")" && pwd)/$(basename "$cowtop")
if [ -n "$compare" ]; then
	if [ ! -f "$compare" ] || [ ! -x "$compare" ]; then
		die "--compare: no executable cowtop at '$compare'"
	fi
	case $compare in */*) ;; *) compare=./$compare ;; esac
	compare=$(cd "$(dirname "$compare")" && pwd)/$(basename "$compare")
	[ -n "$variants_arg" ] || variants_arg=abcdef
fi
[ -n "$variants_arg" ] || variants_arg=abcd
[[ $variants_arg != *[ef]* || -n $compare ]] || die "variants e and f need --compare PATH"

[ -n "${EPOCHREALTIME-}" ] || die "needs bash 5 or later (EPOCHREALTIME)"

trap cleanup EXIT
trap 'exit 130' INT TERM HUP
tmp=$(mktemp -d)

need tmux tmux
need htop htop
[[ $variants_arg != *h* ]] || need curl curl
port=$((20000 + RANDOM % 20000)) # the exporter of (h)
command -v "${CC:-cc}" >/dev/null || die "no C compiler '${CC:-cc}' for the idle-process helper: install gcc or set CC"
build_helper

hz=$(getconf CLK_TCK)
# no status line, so the pane is the whole window; keep dead panes to say why
cat >"$tmp/tmux.conf" <<EOF
set -g status off
set -g remain-on-exit on
set -g default-terminal screen-256color
set -g history-limit 0
EOF

sleep 100000 &
target_pid=$!

variants=()
for ((i = 0; i < ${#variants_arg}; i++)); do
	variants+=("${variants_arg:i:1}")
done
nv=${#variants[@]}
start=$SECONDS
pass=()
for n in $counts; do
	note "starting $n idle processes"
	start_idle "$n"
	total=$(nprocs)
	pass+=("$n:$total")
	for ((r = 0; r < rounds; r++)); do
		note "$n idle processes ($total in all): round $((r + 1))/$rounds"
		for ((i = 0; i < nv; i++)); do
			run_variant "${variants[(i + r) % nv]}" "$n"
		done
	done
	stop_idle
done

echo "cowtop CPU use: $rounds rounds of $window s windows after $warmup s of warm-up; refresh 1 s; tmux panes ${cols}x$lines"
echo "kernel $(uname -r), $(nproc) CPUs; $("$cowtop" --version 2>/dev/null | head -n 1); $(htop --version | head -n 1); run took $((SECONDS - start)) s"
echo "CPU% = (utime + stime) / wall time of the window x 100; tmux % = the tmux server taking in the pane's output"
[ ${#extra[@]} -eq 0 ] || echo "every cowtop run (both builds) with: ${extra[*]}"
declare -A label=(
	[a]="(a) cowtop -b -f json, every process"
	[b]="(b) cowtop full screen, every process"
	[c]="(c) htop -d 10"
	[d]="(d) cowtop full screen, -p one sleep"
	[e]="(e) = (a) by the --compare cowtop"
	[f]="(f) = (b) by the --compare cowtop"
	[g]="(g) cowtop -b -f json -d 5, every process"
	[h]="(h) cowtop --exporter -d 5, scraped every 5 s"
)
for p in "${pass[@]}"; do
	n=${p%%:*}
	echo
	printf '%-44s %8s %8s %8s %8s\n' "$n idle processes (${p#*:} in all)" "median %" "min %" "max %" "tmux %"
	for v in "${variants[@]}"; do
		report_line "${label[$v]}" "$n" "$v"
	done
	if [[ $variants_arg == abcd* ]]; then
		report_budgets "$n" "${p#*:}" # the budgets compare variants with each other
	fi
	report_compare "$n"
done
