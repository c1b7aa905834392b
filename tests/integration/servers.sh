# shellcheck shell=bash
# Helpers of the tests against real servers (Redis, unicorn, gunicorn);
# source it after lib.sh, then call server_setup instead of setup.
#
# A server runs on private sockets in the work directory, never on a TCP
# port or a directory another server may use. Every server started here is
# killed with all its descendants however the test ends, even when cowtop
# (its parent in the -- mode) is gone first.

TRUTH=${TRUTH:-$(dirname "$0")/pagemap-truth.py}
SERVER_PIDS=()

# The pid and all its descendants, parents first: tree_pids PID.
tree_pids() {
	local p
	echo "$1"
	for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		tree_pids "$p"
	done
}

# Kill the servers started here and everything they forked.
server_cleanup() {
	local pid p
	for pid in "${SERVER_PIDS[@]}"; do
		for p in $(tree_pids "$pid"); do
			kill -KILL "$p" 2>/dev/null || true
		done
	done
	cleanup
}

# setup, and the cleanup above on exit; checks the commands given exist:
# server_setup COMMAND:PACKAGE...
server_setup() {
	local need
	setup
	trap server_cleanup EXIT
	command -v python3 >/dev/null || die "python3 is required for the pagemap oracle"
	for need in "$@"; do
		command -v "${need%%:*}" >/dev/null ||
			die "${need%%:*} is required (Debian package ${need#*:}, see scripts/deps.sh)"
	done
}

# Remember a server pid to kill with its descendants at the end.
add_server() {
	SERVER_PIDS+=("$1")
}

# Wait up to S seconds for a command to succeed: wait_until S CMD [ARGS...].
wait_until() {
	local tries
	tries=$(awk -v s="$1" 'BEGIN { print int(s * 10) }')
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$tries" -gt 0 ] || return 1
		tries=$((tries - 1))
		sleep 0.1
	done
}

# Wait up to S seconds for N more frames than now: wait_frames N S.
wait_frames() {
	wait_lines "$FRAMES" $(($(count_lines "$FRAMES") + $1)) "$2"
}

# The cow_pages of PID in the last frame that ends at or before TIME (unix
# seconds); 0 if it was in none: cow_before PID TIME.
cow_before() {
	jq -n -r --argjson p "$1" --argjson t "$2" '
		[inputs | select(.time <= $t) | .processes[] | select(.pid == $p)
		 | .cow_pages] | last // 0' "$FRAMES"
}

# The cow_pages of PID in the first frame that ends at or after TIME (empty
# if none): cow_after PID TIME.
cow_after() {
	jq -n -r --argjson p "$1" --argjson t "$2" '
		first(inputs | select(.time >= $t) | .processes[]
		 | select(.pid == $p) | .cow_pages) // empty' "$FRAMES"
}

# Pids in FRAMES whose parent is PID (exited ones included), oldest first.
children_in_frames() {
	jq -n -r --argjson p "$1" '[inputs.processes[] | select(.ppid == $p)]
		| unique_by(.pid) | sort_by(.start_time)[] | .pid' "$FRAMES"
}

# Whether A is within PCT percent of B (B the oracle): within A B PCT.
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		exit !(a != "" && b != "" && b > 0 && d <= b * p / 100) }'
}

# The signed difference of A from B in percent, one decimal.
pct_diff() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%+.2f", (a - b) * 100 / b; else print "n/a" }'
}

# Unix time now, milliseconds.
now() {
	date +%s.%3N
}
