#!/bin/bash
# The attach-mode sharing figure (family_shared_kib, FAM%): unicorn and
# gunicorn, each with 3 preloaded workers, started and loaded BEFORE cowtop
# (no worker is seen forking, so SHR%, which needs the baseline seen at
# fork, stays unknown), then watched with -p MASTER. Every member must get
# a family reading within a bounded number of refreshes, and each reading
# must match what the test itself computes from pagemap: the pages whose
# frame another member maps too (pagemap-truth.py --family).
#
# Oracle and its slack: sharing only shrinks while no process forks (a copy
# unshares a page; nothing shares one again), so a reading made between two
# oracle walks lies between them: at most the first walk's shared, at
# least the second's. The bound is widened by the drift the workload showed
# between the two walks (the same again on each side), never by a constant
# from this machine.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servers.sh"

INTERVAL=0.5
MAX_FRAMES=10 # refreshes every member gets to have its first reading
APPDIR=$(cd "$(dirname "$0")/../workloads" && pwd)

server_setup unicorn:unicorn ruby:ruby gunicorn:gunicorn curl:curl
ruby -e 'require "rack"' 2>/dev/null || die "rack is required (Debian package ruby-rack)"

# The last frame's value of KEY for PID, as JSON: last_of PID KEY.
last_of() {
	jq -n -c --argjson p "$1" --arg k "$2" \
		'[inputs.processes[] | select(.pid == $p) | .[$k]] | last' "$FRAMES"
}

# Whether every given pid has a family reading made after unix time T in
# the last frame: read_after T PID...
read_after() {
	local t=$1
	shift
	jq -n -e --argjson t "$t" --argjson pids "[$(echo "$@" | tr ' ' ',')]" '
		[inputs] | last as $f | $pids | all(. as $p
		 | [$f.processes[] | select(.pid == $p)][0] as $q
		 | $q != null and $q.family_age != null
		   and ($f.time - $q.family_age) > $t)' "$FRAMES" >/dev/null
}

# The frames until every given pid shows a family reading (not null).
frames_to_known() {
	jq -n -r --argjson pids "[$(echo "$@" | tr ' ' ',')]" '
		[inputs] | to_entries | map(select(.value as $f | $pids | all(. as $p
		 | any($f.processes[]; .pid == $p and .family_shared_kib != null))))
		| if length == 0 then "never" else (.[0].key + 1 | tostring) end' "$FRAMES"
}

# The whole case for one server, already started: family_case LABEL MASTER.
family_case() {
	local label=$1 master=$2 members took pid anon shared t1 t2 a2 s2 cow_anon cow shared_pct lo hi drift n=0
	members="$master $(live_children "$master" | tr '\n' ' ')"
	http_load "$label" "$SOCK" "$master"
	start_cowtop "$label" -b -f json -d "$INTERVAL" -p "$master"
	wait_frames 1 20 || die "$label: cowtop printed no frame"
	wait_lines "$FRAMES" "$MAX_FRAMES" 30 || true
	# shellcheck disable=SC2086 # one argument per pid
	took=$(frames_to_known $members)
	check "$label: every member has a family reading within $MAX_FRAMES frames (took $took)" \
		test "$took" != never -a "${took/never/99}" -le "$MAX_FRAMES"
	# shellcheck disable=SC2086
	python3 "$TRUTH" --family $members >"$WORK/$label.truth1" || fail "$label: the pagemap oracle failed"
	t1=$(awk 'NR == 1 { print $4 }' "$WORK/$label.truth1")
	# shellcheck disable=SC2086
	wait_until 30 read_after "$t1" $members || fail "$label: no family reading after the oracle's within 30 s"
	# shellcheck disable=SC2086
	python3 "$TRUTH" --family $members >"$WORK/$label.truth2" || fail "$label: the pagemap oracle failed"
	SUMMARY=
	while read -r pid anon shared t1; do
		n=$((n + 1))
		read -r _ a2 s2 t2 < <(grep "^$pid " "$WORK/$label.truth2")
		cow=$(jq -n -r --argjson p "$pid" --argjson t "$t2" '
			[inputs | select(.time <= $t) | .processes[] | select(.pid == $p) | .family_shared_kib]
			| last // empty' "$FRAMES")
		cow_anon=$(last_of "$pid" family_anon_kib)
		shared_pct=$(last_of "$pid" shared_pct)
		drift=$((shared > s2 ? shared - s2 : s2 - shared))
		lo=$(((shared < s2 ? shared : s2) - drift))
		hi=$(((shared > s2 ? shared : s2) + drift))
		echo "$label $pid: cowtop family_shared_kib $cow (anon $cow_anon); pagemap frames shared" \
			"$shared then $s2 KiB (anon $anon then $a2); SHR% $shared_pct"
		check_value "$label: $pid family_shared_kib (oracle $shared..$s2 KiB)" family_shared_kib "$cow" "$lo" "$hi"
		expect_eq "$label: $pid SHR% unknown (forked before cowtop)" "$shared_pct" null
		[ "$pid" = "$master" ] ||
			check "$label: worker $pid unshared part of its memory (shared $s2 < anon $a2 KiB)" test "$s2" -lt "$a2"
	done <"$WORK/$label.truth1"
	expect_eq "$label: members compared" "$n" "$(echo "$members" | wc -w)"
	stop_cowtop
	validate_frames
}

# unicorn
SOCK=$WORK/unicorn.sock
cat >"$WORK/unicorn.conf.rb" <<CONF
worker_processes $WORKERS
preload_app true
listen "$SOCK", backlog: 64
timeout 30
pid "$WORK/unicorn.pid"
stderr_path "$WORK/unicorn.err"
CONF
unicorn -c "$WORK/unicorn.conf.rb" -E none "$APPDIR/cow_app.ru" >"$WORK/unicorn.log" 2>&1 &
add_server $!
server_up unicorn "$WORK/unicorn.pid"
family_case unicorn "$SERVER_MASTER"
server_stop unicorn "$SERVER_MASTER" QUIT

# gunicorn
SOCK=$WORK/gunicorn.sock
gunicorn --preload --workers "$WORKERS" --worker-class sync --bind "unix:$SOCK" \
	--pid "$WORK/gunicorn.pid" --timeout 30 --graceful-timeout 5 \
	--error-logfile "$WORK/gunicorn.err" --pythonpath "$APPDIR" cow_app:app >"$WORK/gunicorn.log" 2>&1 &
add_server $!
server_up gunicorn "$WORK/gunicorn.pid"
family_case gunicorn "$SERVER_MASTER"
server_stop gunicorn "$SERVER_MASTER" TERM
finish
