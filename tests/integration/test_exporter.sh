#!/bin/bash
# The exporter (--exporter, --listen) scraped by a real Prometheus:
#  - a forking workload with known writes under a headless cowtop; Debian's
#    Prometheus scrapes it every second (negotiating OpenMetrics); its HTTP
#    API (/api/v1/query) gives the copies of the group's parent, children and
#    grandchildren: they match the workload's writes within the usual slack;
#  - every body scraped here in the classic text format passes
#    `promtool check metrics`, every OpenMetrics one the strict parser of
#    python3-prometheus-client; the group counters never decrease;
#  - churn: 2,000 short-lived workers under one parent: the series stay
#    within the bound, the counters never decrease, and every worker's
#    copies are in the children's counter after it is gone;
#  - copies per USDT phase (phaseload) are served per group and role;
#  - the example alerting rules pass `promtool check rules`, the unit file
#    `systemd-analyze verify` where that can run;
#  - the families of sharing since fork, respawns, exits by cause, reclaim
#    stalls, regions and MemAvailable are served with every label value;
#  - HEAD /metrics answers 200 with no body; POST gets 405 naming GET, HEAD;
#    --exporter says where it listens, in one line on stderr;
#  - errors: port in use and an address not on this host exit 1 with one
#    line, a malformed --listen exits 2, a non-loopback address warns;
#    headless means nothing on stdout unless -b; JSON lines carry host
#    and schema.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom.sh"

SCRAPER_PID=

# Scrape url into file (classic text format); fails on any HTTP error.
scrape() {
	curl -sS -f --max-time 5 -H 'Accept: text/plain; version=0.0.4' -o "$2" "$1"
}

# Scrape url into file in OpenMetrics, checking the reply's content type.
scrape_om() {
	local type
	type=$(curl -sS -f --max-time 5 -H 'Accept: application/openmetrics-text; version=1.0.0' \
		-o "$2" -w '%{content_type}' "$1") || return 1
	[[ $type == "application/openmetrics-text; version=1.0.0; charset=utf-8" ]] || echo "bad type: $type" >>"$2"
}

# Scrape url every 0.2 s until killed, in the text format into DIR/N.txt
# and, every fifth time, in OpenMetrics into DIR/N.om: scraper URL DIR.
scraper() {
	local i=0
	mkdir -p "$2"
	while :; do
		scrape "$1" "$2/$(printf %05d $i).txt" 2>/dev/null && i=$((i + 1))
		((i % 5)) || scrape_om "$1" "$2/$(printf %05d $i).om" 2>/dev/null || true
		sleep 0.2
	done
}

# Every OpenMetrics body in DIR passes the strict parser of Debian's
# python3-prometheus-client (it wants # EOF, units that end the names...).
all_pass_openmetrics() {
	ls "$1"/*.om >/dev/null 2>&1 || return 1
	/usr/bin/python3 - "$1"/*.om <<'EOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
bad = 0
for path in sys.argv[1:]:
    try:
        list(text_string_to_metric_families(open(path).read()))
    except Exception as e:
        print("    %s: %s" % (path, e))
        bad = 1
sys.exit(bad)
EOF
}

# Start the background scraper: start_scraper URL DIR.
start_scraper() {
	scraper "$1" "$2" &
	SCRAPER_PID=$!
	BG_PIDS+=("$SCRAPER_PID")
}

stop_scraper() {
	kill "$SCRAPER_PID" 2>/dev/null || true
	reap "$SCRAPER_PID" || true
}

# Every scraped body in DIR passes promtool check metrics.
all_pass_promtool() {
	local f bad=0
	for f in "$1"/*.txt; do
		promtool check metrics <"$f" >"$f.promtool" 2>&1 || {
			echo "    promtool on $f: $(head -3 "$f.promtool")"
			bad=1
		}
	done
	return "$bad"
}

# No sample of a counter family (*_total) decreases from one body of DIR to
# the next.
counters_monotonic() {
	awk '/^cowtop_[a-z_]*_total[{ ]/ {
		if (($1 in last) && $2 + 0 < last[$1]) { print "decreased: " $1 " " last[$1] " -> " $2; bad = 1 }
		last[$1] = $2 + 0
	} END { exit bad }' "$1"/*.txt
}

# The number of distinct series of a family seen over all bodies of DIR.
distinct_series() {
	cat "$2"/*.txt | awk -v f="$1" 'index($1, f "{") == 1 { print $1 }' | sort -u | wc -l
}

# The largest number of samples in one body of DIR.
max_samples() {
	local f n max=0
	for f in "$1"/*.txt; do
		n=$(grep -cv '^#' "$f" || true)
		[ "$n" -le "$max" ] || max=$n
	done
	echo "$max"
}

# The value of a sample (name and labels exactly) in a body; empty if none.
sample_of() {
	awk -v s="$2" '$1 == s { print $2 }' "$1"
}

# Sum of the written pages and of the slack of the report's pids at depth d
# (the main process is depth 0): expect_role ROLE DEPTH QUERY_VALUE.
expect_role() {
	local role=$1 depth=$2 v=$3 pid w=0 s=0
	for pid in $(awk -v d="$depth" '($1 == "main" || $1 == "child") && $10 == d && !seen[$2]++ { print $2 }' "$REPORT"); do
		w=$((w + $(report_sum "$pid" wrote)))
		s=$((s + $(slack_for "$pid")))
	done
	check_value "Prometheus: group cowload, role $role" cow_pages "${v%%.*}" "$w" $((w + s))
}

# The families of sharing since fork, respawns, exits, reclaim stalls,
# regions, headroom and reading age are in a body of the cowload group,
# every cause and region label value of each role served.
new_families() {
	local fam role
	for fam in cowtop_forks_total cowtop_reclaim_stalls_total cowtop_reclaim_stall_seconds_total; do
		for role in parent child grandchild; do
			check "$fam{role=$role} is served" grep -q "^$fam{group=\"cowload\",role=\"$role\"} [0-9]" "$1"
		done
	done
	expect_eq "exit causes of the children: every value, once" \
		"$(grep -o '^cowtop_exits_total{group="cowload",role="child",cause="[a-z_]*"}' "$1" | sort | tr '\n' ' ')" \
		"$(for c in exit_nonzero exit_zero left oom signal unknown; do
			printf 'cowtop_exits_total{group="cowload",role="child",cause="%s"} ' "$c"; done)"
	expect_eq "regions of the children: every value, once" \
		"$(grep -o '^cowtop_cow_region_pages_total{group="cowload",role="child",region="[a-z]*"}' "$1" | sort | tr '\n' ' ')" \
		"$(for r in anon file heap stack; do
			printf 'cowtop_cow_region_pages_total{group="cowload",role="child",region="%s"} ' "$r"; done)"
	check "MemAvailable is served" grep -q '^cowtop_memory_available_bytes [1-9]' "$1"
}

# HEAD answers as GET does, without a body; other methods name both.
test_head() {
	local port
	port=$(free_port)
	start_cowtop head --exporter --listen "127.0.0.1:$port" -d 0.2 -p $$
	wait_port "$port" || die "cowtop does not answer on port $port: $(cat "$WORK/head.err")"
	curl -sS --max-time 5 -I -o "$WORK/head.hdr" "http://127.0.0.1:$port/metrics" || true
	check "HEAD /metrics: 200" grep -q '^HTTP/1.1 200' "$WORK/head.hdr"
	check "HEAD /metrics: the text format's content type" \
		grep -qi '^content-type: text/plain; version=0.0.4; charset=utf-8' "$WORK/head.hdr"
	# the whole reply of a HTTP/1.0 HEAD (the server closes after it): what
	# follows the headers is the body
	python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"HEAD /metrics HTTP/1.0\r\n\r\n")
r = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    r += b
sys.stdout.write(str(len(r.partition(b"\r\n\r\n")[2])) if r.startswith(b"HTTP/1.") else "no reply")' \
		"$port" >"$WORK/head.body" 2>&1 || true
	expect_eq "HEAD /metrics: no body" "$(cat "$WORK/head.body")" 0
	curl -sS --max-time 5 -i -X POST -o "$WORK/post.hdr" "http://127.0.0.1:$port/metrics" || true
	check "POST /metrics: 405" grep -q '^HTTP/1.1 405' "$WORK/post.hdr"
	check "POST /metrics: Allow names GET and HEAD" grep -qi '^allow: GET, HEAD' "$WORK/post.hdr"
	stop_cowtop
	expect_eq "--listen: one line on stderr, where it listens" "$(cat "$WORK/head.err")" \
		"cowtop: metrics at http://127.0.0.1:$port/metrics"
}

# A workload under a headless cowtop scraped by Prometheus.
test_prometheus() {
	local port v body
	port=$(free_port)
	start_prometheus "$port"
	new_report prom
	start_workload prom --check --pages 12000 --child-writes 1000,2000,3000 \
		--chain-writes 500,700 --short 20 --short-writes 100 --linger 4
	start_cowtop prom --exporter --listen "127.0.0.1:$port" -d 0.5 -p "$LOAD_PID"
	wait_port "$port" || die "cowtop does not answer on port $port: $(cat "$WORK/prom.err")"
	start_scraper "http://127.0.0.1:$port/metrics" "$WORK/scrapes"
	prom_wait 'up{job="cowtop"}' 1 || fail "Prometheus never scraped cowtop"
	kill -USR1 "$LOAD_PID"
	# the children linger 4 s after writing: Prometheus scrapes them meanwhile
	check "Prometheus got the children's copies" \
		prom_wait 'max_over_time(cowtop_cow_pages_total{group="cowload",role="child"}[2m])' 8500
	wait_workload "$LOAD_PID"
	reap_after_load
	stop_scraper
	check_workload_self
	expect_eq "headless: nothing on stdout" "$(wc -c <"$FRAMES")" 0
	expect_eq "headless: one line on stderr, where it listens" "$(cat "$WORK/prom.err")" \
		"cowtop: metrics at http://127.0.0.1:$port/metrics"
	expect_role parent 0 "$(prom_query 'max_over_time(cowtop_cow_pages_total{group="cowload",role="parent"}[2m])')"
	expect_role child 1 "$(prom_query 'max_over_time(cowtop_cow_pages_total{group="cowload",role="child"}[2m])')"
	expect_role grandchild 2 "$(prom_query 'max_over_time(cowtop_cow_pages_total{group="cowload",role="grandchild"}[2m])')"
	v=$(prom_query 'max_over_time(cowtop_processes{group="cowload",role="child"}[2m])')
	check_value "Prometheus: most live children at once" processes "$v" 4 24
	v=$(prom_query 'count(max_over_time(cowtop_pss_bytes{group="cowload"}[2m]))')
	check_value "Prometheus: PSS series of the group" series "$v" 2 3
	v=$(prom_query 'count(max_over_time(cowtop_build_info{mechanism!=""}[2m]))')
	check_value "Prometheus: cowtop_build_info" series "$v" 1 1
	v=$(prom_query 'max_over_time(scrape_samples_scraped{job="cowtop"}[2m])')
	check_value "Prometheus parsed the samples of a scrape" samples "${v%%.*}" 20 200
	check "every scraped body passes promtool check metrics ($(find "$WORK/scrapes" -name '*.txt' | wc -l) bodies)" \
		all_pass_promtool "$WORK/scrapes"
	check "every OpenMetrics body passes a strict parser ($(find "$WORK/scrapes" -name '*.om' | wc -l) bodies)" \
		all_pass_openmetrics "$WORK/scrapes"
	check "group counters never decrease between scrapes" counters_monotonic "$WORK/scrapes"
	body=$(find "$WORK/scrapes" -name '*.txt' | sort | tail -n 1)
	new_families "$body"
	check "cowtop's own CPU seconds are served" grep -q '^cowtop_cpu_seconds_total [0-9]' "$body"
	check "lost records are served by kind" grep -q '^cowtop_lost_records_total{kind="ringbuf"} ' "$body"
	stop_prometheus
}

# Wait for the headless cowtop to end once its targets are gone.
reap_after_load() {
	reap_cowtop_after_load
	expect_eq "cowtop ended with its targets" "$RC" 0
}

# 2,000 short-lived workers under one parent.
test_churn() {
	local port n last dir=$WORK/churn
	port=$(free_port)
	new_report churn
	start_workload churn --pages 3000 --short 2000 --short-writes 5 --child-writes 10 --linger 2
	start_cowtop churn --exporter --listen "127.0.0.1:$port" -d 0.2 -p "$LOAD_PID"
	wait_port "$port" || die "cowtop does not answer on port $port"
	start_scraper "http://127.0.0.1:$port/metrics" "$dir"
	kill -USR1 "$LOAD_PID"
	wait_workload "$LOAD_PID"
	reap_after_load
	stop_scraper
	n=$(find "$dir" -name '*.txt' | wc -l)
	check_value "churn: scrapes taken" scrapes "$n" 5 100000
	n=$(distinct_series cowtop_cow_pages_total "$dir")
	check_value "churn: series of cowtop_cow_pages_total (bound: 3 roles of one group)" series "$n" 1 3
	n=$(max_samples "$dir")
	# one group: 8 of cowtop itself, 12 families of 3 roles, 12 regions and
	# 18 exit causes (3 roles each), MemAvailable and the headroom
	check_value "churn: samples in a body (bound: 85 for one group)" samples "$n" 1 85
	check "churn: counters never decrease" counters_monotonic "$dir"
	last=$(find "$dir" -name '*.txt' | sort | tail -n 1)
	n=$(sample_of "$last" 'cowtop_cow_pages_total{group="cowload",role="child"}')
	check_value "churn: the 2,000 workers' copies are kept after they exit" cow_pages "$n" 10010 $((10010 + 2001 * (SLACK + 1)))
	check "churn: the last body passes promtool" promtool check metrics <"$last"
}

# Copies per USDT phase (phaseload: each child writes INSIDE pages in its
# phase, the main process 500 in its own).
test_phases() {
	local port dir=$WORK/phases last v
	local phaseload=${PHASELOAD:-$(dirname "$COWLOAD")/phaseload}
	port=$(free_port)
	new_report phases
	start_cowtop phases --exporter --listen "127.0.0.1:$port" -d 0.2 \
		-u "$(realpath "$phaseload"):cowtest:phase__begin" -- \
		"$phaseload" --report "$REPORT" --children 3 --outside 300 --inside 1200 \
		--after 200 --parent-inside 500 --phase-ms 1500 --start-delay 1000
	wait_port "$port" || die "cowtop does not answer on port $port: $(cat "$WORK/phases.err")"
	start_scraper "http://127.0.0.1:$port/metrics" "$dir"
	reap_after_load
	stop_scraper
	last=$(grep -l 'cowtop_cow_phase_pages_total{group="phaseload",role="child"' "$dir"/*.txt | sort | tail -n 1)
	v=$(sample_of "$last" 'cowtop_cow_phase_pages_total{group="phaseload",role="child",phase="cowtest:phase"}')
	check_value "phases: the children's copies in their phase" cow_pages "$v" 3600 $((3600 + 3 * SLACK))
	v=$(sample_of "$last" 'cowtop_cow_phase_pages_total{group="phaseload",role="parent",phase="cowtest:phase"}')
	check_value "phases: the parent's copies in its phase" cow_pages "$v" 500 $((500 + SLACK))
	check "phases: every scraped body passes promtool" all_pass_promtool "$dir"
	check "phases: every OpenMetrics body passes a strict parser" all_pass_openmetrics "$dir"
}

# Files under contrib/: the rules pass promtool, the unit systemd-analyze.
test_contrib() {
	local src=${srcdir:-$(dirname "$0")/../..}
	check "contrib/cowtop-alerts.yml passes promtool check rules" \
		promtool check rules "$src/contrib/cowtop-alerts.yml"
	check "contrib/prometheus-scrape.yml is a valid scrape configuration" \
		promtool check config --syntax-only "$src/contrib/prometheus-scrape.yml"
	# verified offline, with the binary built here in place of the installed one
	if command -v systemd-analyze >/dev/null; then
		mkdir -p "$WORK/unit"
		sed "s|^ExecStart=@sbindir@/cowtop|ExecStart=$(realpath "$COWTOP")|" \
			"$src/contrib/cowtop-exporter.service.in" >"$WORK/unit/cowtop-exporter.service"
		check "contrib/cowtop-exporter.service passes systemd-analyze verify" \
			systemd-analyze verify --man=no "$WORK/unit/cowtop-exporter.service"
	else
		echo "skip: systemd-analyze is not installed"
	fi
}

# Wait up to 10 s for something to listen on 127.0.0.1:PORT.
listening() {
	local i
	for ((i = 0; i < 100; i++)); do
		ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# Errors and the choices around the listener.
test_errors() {
	local port busy
	port=$(free_port)
	python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(60)' "$port" &
	busy=$!
	BG_PIDS+=("$busy")
	listening "$port" || die "the port holder did not start"
	run_cowtop busy --exporter --listen "127.0.0.1:$port" -p $$
	expect_eq "port in use: exit status" "$RC" 1
	expect_eq "port in use: one line" "$(cat "$WORK/busy.err")" \
		"cowtop: cannot listen on 127.0.0.1:$port: Address already in use"
	kill "$busy" 2>/dev/null || true
	reap "$busy" || true
	run_cowtop far --exporter --listen 192.0.2.1:9 -p $$
	expect_eq "address not on this host: exit status" "$RC" 1
	expect_eq "address not on this host: one line" "$(wc -l <"$WORK/far.err")" 1
	run_cowtop bad --exporter --listen example.org:80 -p $$
	expect_eq "malformed --listen: exit status" "$RC" 2
	check "malformed --listen: says which" grep -q "invalid listen address 'example.org:80'" "$WORK/bad.err"
	RC=0
	timeout -k 5 "$TIMEOUT" "$COWTOP" --exporter --listen "0.0.0.0:$(free_port)" -n 2 -d "$INTERVAL" -p $$ \
		>"$WORK/wide.out" 2>"$WORK/wide.err" </dev/null || RC=$?
	expect_eq "0.0.0.0: runs" "$RC" 0
	check "0.0.0.0: warns that metrics reveal process names" grep -q "warning: .*reveal process names" "$WORK/wide.err"
	expect_eq "headless with -n 2: nothing on stdout" "$(wc -c <"$WORK/wide.out")" 0
	run_cowtop json --exporter --listen "127.0.0.1:$(free_port)" -n 2 -p $$
	check "-b with --exporter: JSON lines with schema and host" \
		jq_true '[inputs] | length == 2 and all(.[]; .schema == 1 and (.host | type == "string" and length > 0))'
}

setup
for tool in prometheus promtool curl python3; do
	command -v "$tool" >/dev/null || die "$tool is needed (Debian packages prometheus, curl, python3)"
done
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null ||
	die "the OpenMetrics parser is needed (Debian package python3-prometheus-client)"
test_errors
test_head
test_contrib
test_prometheus
test_churn
test_phases
finish
