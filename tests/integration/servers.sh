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
SERVER_MASTER=

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

# Whether PID is gone (no process of that pid, or a zombie reaped later).
gone() {
	! kill -0 "$1" 2>/dev/null
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

# ---------------------------------------------------------------------------
# Preforking web servers (unicorn, gunicorn): a master with WORKERS workers
# on a unix socket, a local HTTP load, and each worker's copies against the
# pagemap oracle (pagemap-truth.py --differs-from: pages whose frame differs
# from the master's; see there what it cannot see).
#
# Each worker must be within WORKER_PCT percent of the oracle. The slack:
# - the master's own copies after a worker's fork (gunicorn's arbiter runs
#   Python code after each fork, and at every respawn; its first writes to
#   python3.11's .data copy from the page cache): the worker keeps the old
#   frame, which differs from the master's new one, so the oracle counts
#   them for every older worker though cowtop rightly counts them for the
#   master. Measured: 700-800 copies of the gunicorn master during a run,
#   50-140 of them showing in an older worker (1-1.6% of its count); the
#   unicorn master copies fewer (48-190). The lower bound takes the
#   master's copies since the fork off the oracle.
# - memory a worker freed and reused at the same address (its allocator
#   giving arenas back and mapping them again): new frames, no copy;
#   counted by the oracle only.
# - a page a worker copied and then freed, or one the master freed: only
#   cowtop counts it.
# The worker's own pages (exclusively mapped) among the differing ones are
# printed too: the master's copies of pages all workers still share are
# not among them.
# ---------------------------------------------------------------------------

WORKERS=3
WORKER_PCT=2
REQUESTS=150    # a round of requests; rounds go on until every worker is done
SHARED_PAGES=8192 # the app's shared buffer: a worker is done when it walked it all
MAX_ROUNDS=10

# Live children of PID now, one per line, ascending.
live_children() {
	ps -o pid= --ppid "$1" 2>/dev/null | tr -d ' ' | sort -n
}

# Whether PID has exactly N live children: has_children PID N.
has_children() {
	[ "$(live_children "$1" | wc -l)" -eq "$2" ]
}

# Whether PID appears in FRAMES.
in_frames() {
	[ -n "$(jq -n -r --argjson p "$1" 'first(inputs.processes[] | select(.pid == $p) | .pid) // empty' "$FRAMES")" ]
}

# Live workers of MASTER whose answers in FILE ("PID PAGES_WRITTEN ...")
# do not show the whole shared buffer walked yet: behind MASTER FILE.
behind() {
	live_children "$1" | awk -v need="$SHARED_PAGES" 'NR == FNR { if ($2 > w[$1]) w[$1] = $2; next }
		(w[$1] + 0) < need { printf "%s%s", s, $1; s = " " }' "$2" -
}

# Send rounds of REQUESTS requests over the unix socket SOCK, WORKERS at a
# time, until every live worker of MASTER has walked the whole shared buffer
# (how the server spreads connections, and how fast, varies from machine to
# machine: a worker left behind gets more rounds); check every request was
# answered: http_load LABEL SOCK MASTER.
http_load() {
	local label=$1 out=$WORK/$1.load rounds=0 left
	: >"$out"
	while ((rounds < MAX_ROUNDS)); do
		rounds=$((rounds + 1))
		timeout 60 curl -sS --no-progress-meter --unix-socket "$2" --parallel \
			--parallel-max "$WORKERS" "http://localhost/[1-$REQUESTS]" >>"$out" 2>>"$out.err" || true
		left=$(behind "$3" "$out")
		[ -n "$left" ] || break
	done
	expect_eq "$label: requests answered ($rounds rounds)" "$(grep -c . "$out")" $((rounds * REQUESTS))
	expect_eq "$label: every worker walked the whole shared buffer" "$left" ""
	echo "$label: requests per worker: $(cut -d' ' -f1 "$out" | sort | uniq -c | awk '{ printf "%s%s:%s", s, $2, $1; s = " " }')"
}

# Whether none of the given pids is a live child of MASTER and MASTER has
# WORKERS children: replaced MASTER PID...
replaced() {
	local master=$1 old
	shift
	for old in "$@"; do
		! live_children "$master" | grep -qx "$old" || return 1
	done
	has_children "$master" "$WORKERS"
}

# Kill the given workers of MASTER one at a time (the master's copies at
# each respawn show in the workers forked before: fewer at a time keeps
# them small), each once the last one is replaced; check cowtop shows the
# new ones under the master, and the killed ones exited:
# respawn LABEL MASTER PID...
respawn() {
	local label=$1 master=$2 old new fresh
	shift 2
	for old in "$@"; do
		kill -KILL "$old"
		wait_until 20 replaced "$master" "$old" ||
			fail "$label: worker $old not replaced within 20 s"
	done
	wait_frames 2 10 || true
	SUMMARY=
	fresh=$(live_children "$master" | grep -vxF -f <(echo "$OLD_WORKERS" | tr ' ' '\n'))
	expect_eq "$label: workers respawned" "$(echo "$fresh" | wc -w)" "$#"
	for new in $fresh; do
		expect_eq "$label: respawned worker $new under the master" \
			"$(proc_field "$new" ppid)" "$master"
	done
	for old in "$@"; do
		expect_eq "$label: killed worker $old's last state" "$(proc_field "$old" state)" exited
	done
}

# The copies of MASTER since WORKER was forked, as cowtop counts them: its
# cow_pages in the last frame minus the one in the frame before the
# worker's first (an upper bound: that frame can be up to -d before the
# fork). master_since MASTER WORKER.
master_since() {
	jq -n -r --argjson m "$1" --argjson w "$2" '
		[inputs | {m: ([.processes[] | select(.pid == $m) | .cow_pages] | last),
			   w: ([.processes[] | select(.pid == $w)] | length > 0)}]
		| (map(.w) | index(true)) as $i
		| if $i == null then 0 else
			([.[].m | select(. != null)] | last)
			- ([.[:$i][].m | select(. != null)] | last // 0) end' "$FRAMES"
}

# Compare each live worker of MASTER with the oracle, after the load, when
# they idle: check_workers LABEL MASTER. A worker's copies must be within
# WORKER_PCT% of the pages whose frames differ from the master's; below,
# the master's own copies since the worker's fork may be taken off the
# oracle first (they differ from the worker's frames, but they are the
# master's: see the top of this part).
check_workers() {
	local label=$1 master=$2 truth=$WORK/$1.truth pid compared differs zero own t cow n=0 m low high
	sleep 1
	# shellcheck disable=SC2046 # one argument per pid
	python3 "$TRUTH" --differs-from "$master" $(live_children "$master") >"$truth" ||
		fail "$label: the pagemap oracle failed"
	wait_frames 2 10 || fail "$label: no frames after the oracle"
	SUMMARY=
	while read -r pid compared differs zero own t; do
		n=$((n + 1))
		cow=$(cow_after "$pid" "$t")
		m=$(master_since "$master" "$pid")
		low=$(((differs - m) * (100 - WORKER_PCT) / 100))
		high=$((differs * (100 + WORKER_PCT) / 100))
		echo "$label worker $pid: cowtop $cow copies, pagemap $differs frames differ" \
			"($(pct_diff "$cow" "$differs")%); the worker's own pages among them $own;" \
			"$zero zero fills; $compared pages compared; the master copied $m since the fork"
		check_value "$label: worker $pid (oracle $differs, master since fork $m)" copies "$cow" "$low" "$high"
		[ "$differs" -ge 4096 ] || fail "$label: worker $pid copied only $differs pages: the load missed it (each should write the whole 8192-page buffer)"
	done <"$truth"
	expect_eq "$label: workers compared" "$n" "$WORKERS"
}

# Wait up to 20 s for the background cowtop to end; RC its status.
wait_cowtop() {
	if ! wait_until 20 gone "$COWTOP_PID"; then
		fail "cowtop still running 20 s after the server ended"
		kill -KILL "$COWTOP_PID" 2>/dev/null || true
	fi
	RC=0
	reap "$COWTOP_PID" || RC=$?
}

# Wait for a started server's master to write its pid to PIDFILE, have it
# killed with the other servers however the test ends, and wait for its
# WORKERS workers; the pid goes to SERVER_MASTER: server_up LABEL PIDFILE.
server_up() {
	wait_until 30 test -s "$2" || die "$1: no pid file within 30 s"
	SERVER_MASTER=$(cat "$2")
	add_server "$SERVER_MASTER"
	wait_until 30 has_children "$SERVER_MASTER" "$WORKERS" || die "$1: $WORKERS workers not up within 30 s"
}

# Stop a server's master with SIGNAL and wait up to 20 s for it to be gone:
# server_stop LABEL MASTER SIGNAL.
server_stop() {
	kill -"$3" "$2"
	wait_until 20 gone "$2" || fail "$1: master still running 20 s after SIG$3"
}

# The whole case for a server started by SERVER_CMD (an array) that writes
# its master's pid to PIDFILE, serves on SOCK and stops gracefully on
# STOP_SIGNAL: web_case MODE (launch: cowtop -- SERVER_CMD; attach: the
# server first, then cowtop -p, and every worker replaced so that all are
# watched from their fork).
web_case() {
	local mode=$1 label=$SERVER_NAME-$1 master workers
	rm -f "$PIDFILE" "$SOCK"
	if [ "$mode" = launch ]; then
		start_cowtop "$label" -b -f json -d "$INTERVAL" -- "${SERVER_CMD[@]}"
	else
		"${SERVER_CMD[@]}" >"$WORK/$label.server.log" 2>&1 &
		add_server $!
	fi
	server_up "$label" "$PIDFILE"
	master=$SERVER_MASTER
	workers=$(live_children "$master")
	OLD_WORKERS=$workers
	if [ "$mode" = launch ]; then
		wait_frames 1 10 || die "$label: cowtop printed no frame"
		respawn "$label" "$master" "${workers%%$'\n'*}"
	else
		start_cowtop "$label" -b -f json -d "$INTERVAL" -p "$master"
		wait_frames 2 10 || die "$label: cowtop printed no frame"
		# shellcheck disable=SC2086 # every worker
		respawn "$label" "$master" $workers
	fi
	http_load "$label" "$SOCK" "$master"
	check_workers "$label" "$master"
	server_stop "$label" "$master" "$STOP_SIGNAL"
	wait_cowtop
	expect_eq "$label: cowtop exit status" "$RC" 0
	validate_frames
	SUMMARY=
	expect_eq "$label: master's last state" "$(proc_field "$master" state)" exited
	expect_eq "$label: master at depth 0" "$(proc_field "$master" depth)" 0
}
