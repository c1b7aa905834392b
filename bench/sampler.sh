#!/bin/bash
# sampler.sh: measure what cowtop's smaps_rollup sampler costs and how stale
# its readings get, at several --smaps-budget settings, in one run of
# interleaved rounds.
#
# A helper maps and pre-touches a large private anonymous region (1 GiB by
# default, kept out of transparent huge pages) and forks children (16) that
# share it and idle, each slowly dirtying a few MiB of its own so that the
# readings change. Every round runs cowtop -b -f json -d 1 -p HELPER once per
# budget, in an order rotated from round to round. Each run is started, left
# alone for a warm-up, then its utime+stime (from /proc/PID/stat) is read at
# both ends of a fixed window; CPU% is CPU seconds over wall seconds of the
# window, times 100. The frames printed during the window give the staleness:
# per frame, the largest smaps_age among the watched processes and how many
# were never read. This is a benchmark, not a test: it prints figures and
# never fails on them.
#
# Usage: sudo bench/sampler.sh [--window S] [--warmup S] [--rounds K]
#                              [--budgets "P ..."] [--size MIB]
#                              [--children N] [--dirty MIB]
# Environment: COWTOP  cowtop binary (default ./cowtop)
#              CC      compiler for the helper (default cc)
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

window=10
warmup=3
rounds=3
budgets="0 0.5 1 5"
size=1024
children=16
dirty=4
dirty_ms=100		# each child writes one page this often
cowtop=${COWTOP:-./cowtop}
ready_timeout=60	# seconds the helper may take to set up, or cowtop to start

tmp=
tool_pid=		# the cowtop running now, if any
load_pid=		# the helper
nap_pid=		# a sleep of pause_for that a signal cut short

# Print the usage text.
usage()
{
	cat <<EOF
usage: $prog [--window S] [--warmup S] [--rounds K] [--budgets "P ..."]
             [--size MIB] [--children N] [--dirty MIB]
  --window S      seconds of CPU accounting per run (default $window)
  --warmup S      seconds cowtop runs before its window opens (default $warmup)
  --rounds K      measured rounds, each runs every budget once (default $rounds)
  --budgets LIST  --smaps-budget values in percent, one run each per round;
                  include 0 for the sampler's share (default "$budgets")
  --size MIB      private memory the parent touches before forking (default $size)
  --children N    children forked (default $children)
  --dirty MIB     memory each child dirties, a page every $dirty_ms ms, over and
                  over; 0: the children only idle (default $dirty)
environment: COWTOP (default ./cowtop), CC (default cc)
EOF
}

# Check that $2 is a whole number (0 allowed) for option $1 and print it.
whole_arg()
{
	[[ $2 =~ ^(0|[1-9][0-9]*)$ ]] || die "$1 needs a whole number, got '$2'"
	echo "$2"
}

# Check the list of budgets $1 (percent, 0 to 100) and print it normalised.
budgets_arg()
{
	local b out=

	for b in $1; do
		if ! [[ $b =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
			! awk -v b="$b" 'BEGIN { exit !(b <= 100) }'; then
			die "--budgets needs percentages from 0 to 100, got '$b'"
		fi
		[[ " $out " == *" $b "* ]] || out+="${out:+ }$b"
	done
	[ -n "$out" ] || die "--budgets needs at least one percentage"
	echo "$out"
}

# On exit: stop everything we started and remove the scratch directory.
cleanup()
{
	[ -n "$nap_pid" ] && kill "$nap_pid" 2>/dev/null
	[ -n "$tool_pid" ] && stop_child "$tool_pid"
	[ -n "$load_pid" ] && stop_child "$load_pid" TERM
	[ -n "$tmp" ] && rm -rf "$tmp"
	return 0
}

# Write and build the helper. "sampler-load MIB N DIRTY MS" touches MIB MiB
# of private anonymous memory, forks N children that each write one page of
# their own DIRTY MiB slice every MS ms (then drop the slice and start
# over), prints "ready" once they all exist, and on SIGTERM, SIGINT or
# SIGHUP kills and reaps them; they die with it in any case.
# "sampler-load cost PID" prints the CPU ms one read of PID's smaps_rollup
# takes.
build_helper()
{
	cat >"$tmp/sampler-load.c" <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define MIB_PAGES (1024 * 1024 / PAGE)

/* Kill and reap the first n children in kids. */
static void reap(const pid_t *kids, long n)
{
	long i;

	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

/* Sleep ms milliseconds. */
static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* A child: write a page of its slice every ms milliseconds (the first pass
 * copies pages shared with the parent, later ones fill zeroed pages), drop
 * the slice, start over. With no slice, only idle. */
static void child(char *slice, unsigned long pages, long ms)
{
	unsigned long i;

	for (;;) {
		if (!pages) {
			pause();
			continue;
		}
		for (i = 0; i < pages; i++) {
			slice[i * PAGE] = 1;
			nap(ms);
		}
		madvise(slice, pages * PAGE, MADV_DONTNEED);
	}
}

/* Print the CPU milliseconds one read of /proc/PID/smaps_rollup takes. */
static int cost(const char *pid)
{
	struct timespec a, b;
	char path[64], buf[4096];
	int i, fd, reps = 5;

	snprintf(path, sizeof(path), "/proc/%s/smaps_rollup", pid);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (i = 0; i < reps; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	printf("%.2f\n", ((double)(b.tv_sec - a.tv_sec) * 1e3 +
			  (double)(b.tv_nsec - a.tv_nsec) / 1e6) / reps);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long mib, dirty, pages, slice, i;
	pid_t parent = getpid(), pid, *kids;
	sigset_t set;
	long n, k, ms;
	char *mem;
	int sig;

	if (argc == 3 && !strcmp(argv[1], "cost"))
		return cost(argv[2]);
	if (argc != 5) {
		fprintf(stderr, "usage: sampler-load MIB N DIRTY_MIB MS | cost PID\n");
		return 2;
	}
	mib = strtoul(argv[1], NULL, 10);
	n = strtol(argv[2], NULL, 10);
	dirty = strtoul(argv[3], NULL, 10);
	ms = strtol(argv[4], NULL, 10);
	pages = mib * MIB_PAGES;
	slice = dirty * MIB_PAGES;
	if (!mib || n < 0 || ms <= 0 || (unsigned long)n * slice > pages) {
		fprintf(stderr, "sampler-load: %ld slices of %lu MiB do not fit in %lu MiB\n",
			n, dirty, mib);
		return 2;
	}
	kids = calloc((size_t)n + 1, sizeof(*kids));
	mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!kids || mem == MAP_FAILED) {
		perror("sampler-load");
		return 1;
	}
	madvise(mem, pages * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		mem[i * PAGE] = 1;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (k = 0; k < n; k++) {
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "sampler-load: fork %ld of %ld: %s\n",
				k + 1, n, strerror(errno));
			reap(kids, k);
			return 1;
		}
		if (pid == 0) {
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			child(mem + (unsigned long)k * slice * PAGE, slice, ms);
		}
		kids[k] = pid;
	}
	printf("ready %ld\n", n);
	fflush(stdout);
	while (sigwait(&set, &sig) != 0)
		;
	reap(kids, n);
	return 0;
}
EOF
	"${CC:-cc}" -O2 -Wall -o "$tmp/sampler-load" "$tmp/sampler-load.c" 2>"$tmp/cc.err" ||
		die "cannot build the helper with ${CC:-cc}: $(head -n 5 "$tmp/cc.err")"
}

# Start the helper and wait until its children all exist.
start_load()
{
	local i

	"$tmp/sampler-load" "$size" "$children" "$dirty" "$dirty_ms" \
		>"$tmp/load.out" 2>"$tmp/load.err" &
	load_pid=$!
	for ((i = 0; i < ready_timeout * 10; i++)); do
		grep -q '^ready' "$tmp/load.out" 2>/dev/null && return 0
		alive "$load_pid" ||
			die "the helper did not start: $(tail -n 2 "$tmp/load.err")"
		sleep 0.1
	done
	die "the helper was not ready after $ready_timeout s"
}

# Print the median CPU ms of one smaps_rollup read of the helper ($1 = parent)
# or of its first child ($1 = child).
read_cost()
{
	local pid=$load_pid

	[ "$1" = child ] && pid=$(awk '{ print $1; exit }' "/proc/$load_pid/task/$load_pid/children")
	[ -n "$pid" ] || { echo -; return; }
	for _ in 1 2 3; do
		"$tmp/sampler-load" cost "$pid"
	done >"$tmp/cost.$1"
	read -r m _ _ < <(stats "$tmp/cost.$1" 2)
	echo "$m"
}

# Wait until cowtop has printed its first frame.
wait_first_frame()
{
	local out=$1 i

	for ((i = 0; i < ready_timeout * 10; i++)); do
		[ -s "$out" ] && return 0
		alive "$tool_pid" || died "$2"
		sleep 0.1
	done
	die "cowtop --smaps-budget $2 printed no frame within $ready_timeout s"
}

# Say why the run at budget $1 stopped early and exit.
died()
{
	die "cowtop --smaps-budget $1 stopped before its window closed: $(tail -n 5 "$tmp/tool.err")"
}

# Print "MAXAGE UNREAD PROCS" for each JSON frame on stdin: the largest
# smaps_age among its processes ("-" if none was read), how many were never
# read, how many there are.
frame_ages()
{
	jq -r '[.processes[].smaps_age]
		| [ (map(select(. != null)) | max // "-"),
		    (map(select(. == null)) | length),
		    length ] | @tsv'
}

# Run cowtop once at budget $1 in round $2; record its CPU% and the
# staleness of the frames of its window.
run_budget()
{
	local b=$1 r=$2 out=$tmp/frames.json t0 t1 c0 c1 f0 f1

	rm -f "$out"
	"$cowtop" -b -f json -d 1 -p "$load_pid" --smaps-budget "$b" \
		>"$out" 2>"$tmp/tool.err" &
	tool_pid=$!
	wait_first_frame "$out" "$b"
	pause_for "$warmup"
	alive "$tool_pid" || died "$b"
	f0=$(wc -l <"$out")
	t0=$EPOCHREALTIME
	c0=$(ticks "$tool_pid") || died "$b"
	pause_for "$window"
	c1=$(ticks "$tool_pid") || died "$b"
	t1=$EPOCHREALTIME
	f1=$(wc -l <"$out")
	alive "$tool_pid" || died "$b"
	stop_child "$tool_pid"
	tool_pid=
	awk -v c="$((c1 - c0))" -v hz="$hz" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.4f\n", c / hz / (t1 - t0) * 100 }' >"$tmp/$b.$r.pct"
	cat "$tmp/$b.$r.pct" >>"$tmp/$b.pct"
	sed -n "$((f0 + 1)),${f1}p" "$out" | frame_ages >"$tmp/$b.$r.ages" ||
		die "cannot read cowtop's JSON frames at --smaps-budget $b"
	cat "$tmp/$b.$r.ages" >>"$tmp/$b.ages"
	# never-read processes in the window's last frame
	tail -n 1 "$tmp/$b.$r.ages" | cut -f 2 >>"$tmp/$b.unread"
}

# Print the CPU% above the run at budget 0 in the same round, one line per
# round, for budget $1.
above_off()
{
	local b=$1 r

	for ((r = 0; r < rounds; r++)); do
		awk -v x="$(cat "$tmp/$b.$r.pct")" -v o="$(cat "$tmp/0.$r.pct")" \
			'BEGIN { printf "%.4f\n", x - o }'
	done
}

# Print the result line of budget $1.
report_line()
{
	local b=$1 m lo hi am=- alo=- ahi=- verdict=- agem=- agemax=- unread

	read -r m lo hi < <(stats "$tmp/$b.pct" 2)
	if [ -n "$off" ] && [ "$b" != 0 ]; then
		above_off "$b" >"$tmp/$b.above"
		read -r am alo ahi < <(stats "$tmp/$b.above" 2)
		verdict=$(awk -v a="$am" -v b="$b" -v t="$tick" \
			'BEGIN { print (a <= b + t ? "yes" : "NO") }')
	fi
	awk '$1 != "-" { print $1 }' "$tmp/$b.ages" >"$tmp/$b.age"
	if [ -s "$tmp/$b.age" ]; then
		read -r agem _ agemax < <(stats "$tmp/$b.age" 1)
	fi
	unread=$(sort -n "$tmp/$b.unread" | sed -n '1p;$p' | paste -sd- | sed 's/^\([0-9]*\)-\1$/\1/')
	printf '%6s %6s %6s %6s   %6s %6s %6s %6s   %6s %6s %7s\n' \
		"$b" "$m" "$lo" "$hi" "$am" "$alo" "$ahi" "$verdict" "$agem" "$agemax" "$unread"
}

while [ $# -gt 0 ]; do
	case $1 in
	--window)	window=$(seconds_arg "$1" "${2-}"); shift ;;
	--warmup)	warmup=$(seconds_arg "$1" "${2-}"); shift ;;
	--rounds)	rounds=$(count_arg "$1" "${2-}"); shift ;;
	--budgets)	budgets=$(budgets_arg "${2-}"); shift ;;
	--size)		size=$(count_arg "$1" "${2-}"); shift ;;
	--children)	children=$(whole_arg "$1" "${2-}"); shift ;;
	--dirty)	dirty=$(whole_arg "$1" "${2-}"); shift ;;
	-h|--help)	usage; exit 0 ;;
	*)		usage >&2; exit 2 ;;
	esac
	shift
done
((children * dirty <= size)) || die "$children children dirtying $dirty MiB each do not fit in $size MiB"

[ "$(id -u)" -eq 0 ] || die "cowtop's tracing needs root: run it with sudo"
[ -f "$cowtop" ] || die "cowtop not found at '$cowtop': build it or set COWTOP=/path/to/cowtop"
[ -x "$cowtop" ] || die "cowtop at '$cowtop' is not executable"
command -v jq >/dev/null || die "needs jq to read cowtop's JSON frames: install the jq package"
command -v "${CC:-cc}" >/dev/null || die "no C compiler '${CC:-cc}' for the helper: install gcc or set CC"
[ -n "${EPOCHREALTIME-}" ] || die "needs bash 5 or later (EPOCHREALTIME)"

trap cleanup EXIT
trap 'exit 130' INT TERM HUP
tmp=$(mktemp -d)
build_helper
hz=$(getconf CLK_TCK)
# one clock tick over the window, in percent: the resolution of CPU%
tick=$(awk -v hz="$hz" -v w="$window" 'BEGIN { printf "%.2f", 100 / hz / w }')
off=
[[ " $budgets " == *" 0 "* ]] && off=1

start=$SECONDS
load_before=$(cut -d ' ' -f 1-3 /proc/loadavg)
note "touching $size MiB and forking $children children"
start_load
cost_parent=$(read_cost parent)
cost_child=$(read_cost child)
read -r -a blist <<<"$budgets"
nb=${#blist[@]}
for ((r = 0; r < rounds; r++)); do
	note "round $((r + 1))/$rounds"
	for ((i = 0; i < nb; i++)); do
		run_budget "${blist[(i + r) % nb]}" "$r"
	done
done
procs=$(sort -n "$tmp/${blist[0]}.ages" | cut -f 3 | sort -n | uniq | paste -sd/)

echo "cowtop smaps sampler: $rounds rounds of $window s windows after $warmup s of warm-up; refresh 1 s"
echo "kernel $(uname -r), $(nproc) CPUs; $("$cowtop" --version 2>/dev/null | head -n 1); run took $((SECONDS - start)) s"
echo "load average before $load_before, after $(cut -d ' ' -f 1-3 /proc/loadavg): other work on these CPUs makes the figures noisy"
echo "watched: a parent with $size MiB touched and $children children (${procs:-?} processes in the frames), each child dirtying $dirty MiB, a page every $dirty_ms ms"
echo "one smaps_rollup read costs ${cost_parent} ms CPU (parent), ${cost_child} ms (child)"
echo "CPU% = (utime + stime) / wall time of the window x 100; one clock tick is $tick%"
echo "above off = CPU% minus the budget 0 run of the same round (the sampler's share); within: its median <= budget + one tick"
echo "age = per frame, the largest smaps_age among the processes (s); unread = never read in the window's last frame (min-max)"
echo
printf '%-6s  %-20s   %-29s   %s\n' budget "cowtop CPU %" "above off %" "age s"
printf '%6s %6s %6s %6s   %6s %6s %6s %6s   %6s %6s %7s\n' \
	"%" "median" "min" "max" "median" "min" "max" "within" "median" "max" "unread"
for b in "${blist[@]}"; do
	report_line "$b"
done
