# shellcheck shell=bash
# Helpers shared by the benchmark scripts. The sourcing script sets prog,
# may set stop_timeout (seconds stop_child waits, default 5), and kills
# $nap_pid, the sleep of pause_for running now, in its exit clean-up.

# Print an error and exit.
die()
{
	echo "$prog: $*" >&2
	exit 1
}

# Print a progress message on stderr.
note()
{
	echo "$prog: $*" >&2
}

# Check that $2 is a positive integer for option $1 and print it.
count_arg()
{
	[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer, got '$2'"
	echo "$2"
}

# Print "median min max" of the numbers in file $1, with $2 decimals
# (default 0).
stats()
{
	sort -g "$1" | awk -v d="${2:-0}" '{ v[NR] = $1 }
		END {
			if (NR % 2) m = v[(NR + 1) / 2]
			else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
			f = "%." d "f %." d "f %." d "f\n"
			printf f, m, v[1], v[NR]
		}'
}

# Check that $2 is a positive number of seconds for option $1 and print it.
seconds_arg()
{
	if ! [[ $2 =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
		! awk -v s="$2" 'BEGIN { exit !(s > 0) }'; then
		die "$1 needs a positive number of seconds, got '$2'"
	fi
	echo "$2"
}

# Print the number of processes on the machine.
nprocs()
{
	local pids=(/proc/[0-9]*)

	echo "${#pids[@]}"
}

# Is process $1 alive (and not a zombie)? Shell builtins only: a busy
# machine makes every command started here slow.
alive()
{
	local line

	read -r line 2>/dev/null <"/proc/$1/stat" || return 1
	line=${line##*) }
	[ -n "$line" ] && [ "${line%% *}" != Z ]
}

# Wait up to $2 seconds for process $1 to go away; fail if it does not. The
# bound is the clock's, not a count of naps: on a loaded machine each nap
# takes far longer than asked.
gone_within()
{
	local pid=$1 end=$((SECONDS + $2))

	while alive "$pid"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
	return 0
}

# Stop our child $1: signal $2 (default INT), then harder; reap it.
stop_child()
{
	local pid=$1 sig=${2:-INT}

	kill -"$sig" "$pid" 2>/dev/null || true
	if ! gone_within "$pid" "${stop_timeout:-5}"; then
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
}

# Print utime+stime of process $1 in clock ticks (fields 14 and 15 of
# /proc/PID/stat, counted after the command name, which may hold spaces).
ticks()
{
	local line rest f

	read -r line <"/proc/$1/stat" || return 1
	rest=${line##*) }
	read -r -a f <<<"$rest"
	echo $((f[11] + f[12]))
}

# Sleep $1 seconds in a way a trapped signal interrupts at once; the
# sourcing script's cleanup kills $nap_pid, the sleep running now.
pause_for()
{
	sleep "$1" &
	nap_pid=$!
	wait "$nap_pid"
	nap_pid=
}

# The sourcing script sets pid_max_was= and puts kernel.pid_max back to it
# on exit when it is set.
# Make room for $1 more processes: the soft limit on processes, and
# kernel.pid_max (raised for the run, put back on exit).
raise_limits()
{
	local want=$(($(nprocs) + $1 + 1000)) max

	if [ "$(ulimit -S -u)" != unlimited ] && [ "$(ulimit -S -u)" -lt "$want" ]; then
		ulimit -S -u unlimited 2>/dev/null || ulimit -S -u "$(ulimit -H -u)" ||
			die "cannot raise the limit on processes (ulimit -u) to $want"
	fi
	max=$(cat /proc/sys/kernel/pid_max)
	if [ "$max" -lt $((want * 2)) ]; then
		note "raising kernel.pid_max from $max to $((want * 2)) for the run"
		[ -n "$pid_max_was" ] || pid_max_was=$max
		echo $((want * 2)) >/proc/sys/kernel/pid_max ||
			die "cannot raise kernel.pid_max to $((want * 2))"
	fi
}
