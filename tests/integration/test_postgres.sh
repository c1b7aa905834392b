#!/bin/bash
# cowtop -u against a real server: PostgreSQL 15 (Debian's build, which has
# USDT probes with semaphores, and probes whose arguments are globals, such
# as checkpoint__done's "-4@NBuffers(%rip)"). A private cluster runs as the
# postgres user in the work directory (unix socket only), under pgbench;
# cowtop watches it with the query and checkpoint phases, attached with -p
# to the postmaster and launching it with --.
#
# Checked: both ends of both phases attach; every CHECKPOINT issued closes
# its phase (each checkpoint__start of the checkpointer is followed by a
# checkpoint__done, whose first argument, NBuffers, is the shared_buffers
# setting in pages, read from a global; its other arguments are members of
# a global struct, "-4@40+CheckpointStats(%rip)"); every backend the server logs (log_connections) is seen;
# query__start hits come from the backends.
#
# Environment (besides lib.sh's):
#   COWTOP_TEST_PGBIN   PostgreSQL's bin directory (default
#                       /usr/lib/postgresql/15/bin); skipped when missing
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PGBIN=${COWTOP_TEST_PGBIN:-/usr/lib/postgresql/15/bin}
TRUTH=$(dirname "$0")/pagemap-truth.py
PGPORT=54329
SHARED_PAGES=2048 # shared_buffers=16MB in 8 KiB buffers
PG_PID=

if [ ! -x "$PGBIN/postgres" ] || ! id postgres >/dev/null 2>&1; then
	echo "$(basename "$0" .sh): skipped (no PostgreSQL 15 at $PGBIN or no postgres user)"
	exit 77
fi
setup
trap pg_cleanup EXIT

# Run a command as the postgres user, bounded.
as_pg() {
	timeout -k 5 60 setpriv --reuid postgres --regid postgres --init-groups \
		--reset-env "$@"
}

# Stop the server (fast) however the test ends, then lib.sh's cleanup.
pg_cleanup() {
	if [ -n "$PG_PID" ] && kill -0 "$PG_PID" 2>/dev/null; then
		kill -INT "$PG_PID" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$PG_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$PG_PID" 2>/dev/null || true
	fi
	cleanup
}

# psql against the private cluster.
pg_sql() {
	as_pg "$PGBIN/psql" -h "$WORK" -p "$PGPORT" -U postgres -d postgres -qAt -c "$1"
}

# The postmaster's command line (foreground, unix socket in WORK).
POSTGRES_ARGS=()

# Create the cluster once.
init_cluster() {
	chown postgres "$WORK"
	chmod 755 "$WORK"
	as_pg "$PGBIN/initdb" -D "$WORK/data" -A trust -U postgres --no-sync \
		>"$WORK/initdb.log" 2>&1 || die "initdb failed (see $WORK/initdb.log)"
	POSTGRES_ARGS=(setpriv --reuid postgres --regid postgres --init-groups --reset-env
		"$PGBIN/postgres" -D "$WORK/data" -k "$WORK" -p "$PGPORT"
		-c listen_addresses= -c shared_buffers=16MB -c fsync=off
		-c log_connections=on -c "log_line_prefix=%p " -c checkpoint_timeout=1h
		-c logging_collector=off)
}

# Wait (bounded) until the server takes connections.
wait_ready() {
	local i
	for ((i = 0; i < 150; i++)); do
		as_pg "$PGBIN/pg_isready" -q -h "$WORK" -p "$PGPORT" && return 0
		sleep 0.2
	done
	die "PostgreSQL did not start (see $WORK/*.pglog)"
}

# The load: a small pgbench run, then two checkpoints.
run_load() {
	as_pg "$PGBIN/pgbench" -h "$WORK" -p "$PGPORT" -U postgres -i -s 1 -q postgres \
		>"$WORK/pgbench-init.log" 2>&1 || fail "pgbench -i failed"
	as_pg "$PGBIN/pgbench" -h "$WORK" -p "$PGPORT" -U postgres -c 4 -j 2 -t 50 -C postgres \
		>"$WORK/pgbench.log" 2>&1 || fail "pgbench failed"
	pg_sql "CHECKPOINT" || fail "CHECKPOINT failed"
	pg_sql "CHECKPOINT" || fail "CHECKPOINT failed"
}

# The pids of the backends the server logged (connection received), after
# the first SKIP lines of LOG (those before cowtop watched): logged_backends
# LOG [SKIP].
logged_backends() {
	tail -n +"$((${2:-0} + 1))" "$1" | awk '/LOG:  connection received/ { print $1 }' | sort -u
}

# The checks on FRAMES common to both modes: check_server NAME PGLOG.
check_server() {
	local name=$1 log=$2 skip=${3:-0} seen missing ckpt starts dones nbuf
	validate_usdt_frames
	seen=$(jq -n -r '[inputs.processes[]?.pid] | unique[]' "$FRAMES")
	missing=$(logged_backends "$log" "$skip" | grep -vxF -f <(echo "$seen") || true)
	check "$name: backends logged ($(logged_backends "$log" "$skip" | wc -l))" \
		test "$(logged_backends "$log" "$skip" | wc -l)" -gt 50
	expect_eq "$name: backends logged but never shown" "${missing//$'\n'/ }" ""
	ckpt=$(marker_pids_of postgresql:checkpoint__start)
	expect_eq "$name: one checkpointer fires checkpoint__start" "$(echo "$ckpt" | wc -w)" 1
	starts=$(marker_count "$ckpt" postgresql:checkpoint__start)
	dones=$(marker_count "$ckpt" postgresql:checkpoint__done)
	check "$name: checkpoints seen ($starts)" test "$starts" -ge 2
	expect_eq "$name: every checkpoint__start closed by a checkpoint__done" "$dones" "$starts"
	nbuf=$(marker_args "$ckpt" postgresql:checkpoint__done | cut -d, -f2 | sort -u)
	expect_eq "$name: checkpoint__done's NBuffers (a global)" "$nbuf" "$SHARED_PAGES"
	check "$name: query__start hits" test "$(marker_count "" postgresql:query__start)" -gt 0
	check "$name: the checkpoint phase has a count" \
		test -n "$(phase_cow "$ckpt" postgresql:checkpoint)"
}

# Wait (bounded) for the background cowtop to end by itself: wait_cowtop_end NAME.
wait_cowtop_end() {
	local i
	RC=0
	for ((i = 0; i < 300; i++)); do
		kill -0 "$COWTOP_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$COWTOP_PID" 2>/dev/null; then
		fail "$1: cowtop still running 30s after the server stopped"
		kill -KILL "$COWTOP_PID" 2>/dev/null || true
	fi
	reap "$COWTOP_PID" || RC=$?
	expect_eq "$1: cowtop's exit status" "$RC" 0
}

# Two sessions that read the pgbench tables, then idle 4 s: meanwhile the
# pagemap oracle compares their anonymous pages with the postmaster's
# (pages present in both whose frames differ: copies). Writes
# $WORK/oracle.txt ("PID COPIED TIME" lines).
oracle_sessions() {
	local i n pids
	for i in 1 2; do
		as_pg "$PGBIN/psql" -h "$WORK" -p "$PGPORT" -U postgres -qAt \
			-d "dbname=postgres application_name=oracle" \
			-c "SELECT sum(abalance) + count(*) FROM pgbench_accounts; SELECT pg_sleep(4)" \
			>"$WORK/session.$i" 2>&1 &
		BG_PIDS+=("$!")
	done
	for ((n = 0; n < 100; n++)); do
		pids=$(pg_sql "SELECT pid FROM pg_stat_activity
			WHERE application_name = 'oracle' AND wait_event = 'PgSleep'")
		[ "$(echo "$pids" | wc -w)" -lt 2 ] || break
		sleep 0.1
	done
	sleep 1
	# shellcheck disable=SC2086 # one pid per word
	python3 "$TRUTH" --vs "$PG_PID" $pids >"$WORK/oracle.txt"
	sleep 1.5 # a frame with the idle sessions' counts
}

# cowtop's anonymous copies (heap, stack, anon regions; the oracle sees no
# file mappings) of PID in the first frame at or after TIME, when the oracle
# read it: anon_copies PID TIME. Not its last frame: a backend that ends
# copies about 150 pages more on its way out (library destructors, the
# heap's free lists), counted in the frame of its exit, which comes before
# or after cowtop stops depending on the machine's speed.
anon_copies() {
	jq -n -r --argjson p "$1" --argjson t "$2" 'first(inputs | select(.time >= $t)
		| .processes[]? | select(.pid == $p)) | .cow_by_region | (.heap + .stack + .anon)' "$FRAMES"
}

# Each session's copies against the oracle: within 2% and 24 pages (the
# oracle also counts the pages the postmaster itself wrote after the fork:
# its stack and a few globals, ~15 measured): check_oracle NAME.
check_oracle() {
	local pid copied t mine tol
	check "$1: the oracle read two sessions" test "$(wc -l <"$WORK/oracle.txt")" -eq 2
	while read -r pid copied t; do
		mine=$(anon_copies "$pid" "$t")
		tol=$((copied / 50 + 24))
		echo "# $1: backend $pid: cowtop $mine anonymous copies, pagemap $copied"
		check "$1: backend $pid: copies ${mine:-none} vs pagemap $copied (within $tol)" \
			test "${mine:-0}" -ge $((copied - tol)) -a "${mine:-0}" -le $((copied + tol))
	done <"$WORK/oracle.txt"
}

# Pids with a marker of PROBE.
marker_pids_of() {
	jq -n -r --arg probe "$1" '[inputs | (.markers // [])[] | select(.probe == $probe)
		| .pid] | unique[]' "$FRAMES"
}

init_cluster

# ---- -p: attach to a running postmaster ----
"${POSTGRES_ARGS[@]}" >"$WORK/p.pglog" 2>&1 &
PG_PID=$!
BG_PIDS+=("$PG_PID")
wait_ready
PG_PID=$(head -n 1 "$WORK/data/postmaster.pid")
start_cowtop p -b -f json -d 0.5 -p "$PG_PID" \
	-u postgresql:query__start -u postgresql:checkpoint__start
wait_lines "$FRAMES" 1 20 || fail "p: no first frame"
check "p: cowtop attached without error" test ! -s "$WORK/p.err"
SKIP=$(wc -l <"$WORK/p.pglog")
run_load
oracle_sessions
stop_cowtop
kill -INT "$PG_PID"
for _ in $(seq 100); do kill -0 "$PG_PID" 2>/dev/null || break; sleep 0.1; done
check_server p "$WORK/p.pglog" "$SKIP"
check_oracle p

# ---- --: cowtop launches the postmaster ----
start_cowtop dash -b -f json -d 0.5 \
	-u postgresql:query__start -u postgresql:checkpoint__start -- "${POSTGRES_ARGS[@]}"
wait_ready
PG_PID=$(head -n 1 "$WORK/data/postmaster.pid")
run_load
oracle_sessions
kill -INT "$PG_PID"
wait_cowtop_end dash
check_server dash "$WORK/dash.err"
check_oracle dash

pg_cleanup
trap - EXIT
finish
