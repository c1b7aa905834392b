#!/usr/bin/env bash
# Hardening: the metrics port under abuse while the full-screen view runs
# (in tmux, --listen, --metrics-by pid for large replies):
#  - watching a small tree (so that cowtop's own cost is near zero), with
#    200 idle connections, a client that sends its request a byte at a
#    time, a client that asks for /metrics and never reads, and garbage
#    requests (binary, unknown methods, other paths, oversized lines and
#    headers, a GET with a body): the screen keeps refreshing (its clock
#    moves, cowtop does not spin), cowtop's memory stays bounded, each
#    garbage request gets a 4xx or is closed, never a crash;
#  - once the abusers are gone, a scrape is served again;
#  - SIGTERM ends it cleanly: status 0, the terminal restored, its BPF
#    programs unloaded.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ABUSER=

# CPU ticks (user + system) a process used so far.
cpu_ticks() {
	LC_ALL=C sed -z 's/.*) //' "/proc/$1/stat" 2>/dev/null | tr '\0' ' ' | awk '{ print $12 + $13 }'
}

# Resident memory of a process, KiB.
rss_kib() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"
}

# The clock in the screen's header (HH:MM:SS).
header_clock() {
	screen | sed -n 1p | grep -oE '[0-9]{2}:[0-9]{2}:[0-9]{2}' | head -n 1
}

# Over about 4 s, the header clock shows at least 3 different times: the
# screen is being redrawn every refresh.
screen_refreshing() {
	local i seen=()
	for ((i = 0; i < 20; i++)); do
		seen+=("$(header_clock)")
		sleep 0.2
	done
	[ "$(printf '%s\n' "${seen[@]}" | grep -c . | tr -d ' ')" -gt 0 ] &&
		[ "$(printf '%s\n' "${seen[@]}" | sort -u | grep -c .)" -ge 3 ]
}

# Less than a quarter of a CPU over a second.
not_spinning() {
	local a b
	a=$(cpu_ticks "$1")
	sleep 1
	b=$(cpu_ticks "$1")
	[ $((b - a)) -lt 25 ]
}

# A plain scrape of /metrics answers 200.
scrape_ok() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$PORT/metrics")" = 200 ]
}

# The abusers, in one Python process: they hold their connections until
# the file $WORK/abuse.stop exists; the garbage requests' answers (the
# status line, or "closed") go to $WORK/garbage.txt.
write_abuser() {
	cat >"$WORK/abuse.py" <<'EOF'
import os, socket, sys, time
port, work = int(sys.argv[1]), sys.argv[2]
stop = os.path.join(work, "abuse.stop")

def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    return s

def answer(req):
    try:
        s = conn()
        s.sendall(req)
        s.settimeout(5)
        data = s.recv(256)
        s.close()
        return data.split(b"\r\n")[0].decode("latin-1") if data else "closed"
    except OSError as e:
        return "closed (%s)" % e.__class__.__name__

garbage = [
    ("binary", os.urandom(512) + b"\r\n\r\n"),
    ("post", b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"),
    ("delete", b"DELETE / HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("brew", b"BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("path", b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("other", b"GET /debug/pprof HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("longline", b"GET /" + b"a" * 65536 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("bigheader", b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 100000 + b"\r\n\r\n"),
    ("body", b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"),
    ("nul", b"GET /met\x00rics HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("http09", b"GET /metrics\r\n\r\n"),
]

with open(os.path.join(work, "garbage.txt"), "w") as out:
    for name, req in garbage:
        out.write("%s %s\n" % (name, answer(req)))
slow = conn()
reader = conn()
reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
reader.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")  # and never read
idle = []
for _ in range(200):
    try:
        idle.append(conn())
    except OSError:
        pass
open(os.path.join(work, "abuse.ready"), "w").close()
slow_req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"s" * 10000
i = 0
deadline = time.time() + 60
while not os.path.exists(stop) and time.time() < deadline:
    try:
        slow.send(slow_req[i:i + 1])
        i = (i + 1) % len(slow_req)
    except OSError:
        pass
    time.sleep(0.05)
EOF
}

# Start the abusers; wait for their garbage round to be done.
start_abuser() {
	write_abuser
	python3 "$WORK/abuse.py" "$PORT" "$WORK" 2>"$WORK/abuse.err" &
	ABUSER=$!
	BG_PIDS+=("$ABUSER")
	eventually 30 test -e "$WORK/abuse.ready" || die "the abusers did not start: $(cat "$WORK/abuse.err")"
}

stop_abuser() {
	touch "$WORK/abuse.stop"
	wait_gone "$ABUSER" 5 || kill "$ABUSER" 2>/dev/null || true
	reap "$ABUSER" || true
}

# A garbage request was refused with a 4xx, or the connection closed.
refused() {
	grep -qE "^$1 (HTTP/1\.[01] 4[0-9][0-9]|closed)" "$WORK/garbage.txt"
}

test_abuse() {
	local rss0 rss1 held name
	PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	# a small watched tree: cowtop's own cost stays near zero, so spinning shows
	new_report abuse
	start_workload abuse --early-writes 100,100 --child-writes 100
	tui_start 120 40 "$WORK/abuse.raw" \
		"'$COWTOP' -d 0.3 --listen 127.0.0.1:$PORT --metrics-by pid -p $LOAD_PID"
	expect "the screen is up" screen_has "Help"
	eventually 10 scrape_ok || die "no scrape before the abuse: $(screen)"
	sleep 1
	rss0=$(rss_kib "$PANE_COWTOP")
	held=$(bpf_held "$PANE_COWTOP")
	start_abuser
	check "under abuse: the screen keeps refreshing" screen_refreshing
	check "under abuse: cowtop does not spin" not_spinning "$PANE_COWTOP"
	rss1=$(rss_kib "$PANE_COWTOP")
	check_value "under abuse: resident memory growth (KiB)" rss "$((rss1 > rss0 ? rss1 - rss0 : 0))" 0 8192
	for name in binary post delete brew path other longline bigheader body nul; do
		check "garbage '$name' refused ($(grep "^$name " "$WORK/garbage.txt" | cut -c1-60))" refused "$name"
	done
	check "405 for POST" grep -q '^post HTTP/1.1 405' "$WORK/garbage.txt"
	check "404 for another path" grep -q '^other HTTP/1.1 404' "$WORK/garbage.txt"
	stop_abuser
	# the idle connections are closed by now; the server answers again
	check "after the abuse: a scrape is served" eventually 15 scrape_ok
	check "after the abuse: the screen still refreshes" screen_refreshing
	kill -TERM "$PANE_COWTOP"
	expect "SIGTERM: exit status 0" screen_has "COWTOP-EXIT=0"
	expect "SIGTERM: the alternate screen is left" pane_flag_is alternate_on 0
	if wait_bpf_gone "$held"; then
		pass "SIGTERM: its BPF programs are unloaded"
	else
		fail "SIGTERM: BPF objects still loaded"
	fi
}

hard_setup
command -v python3 >/dev/null || die "python3 is needed"
command -v curl >/dev/null || die "curl is needed"
test_abuse
hard_finish
