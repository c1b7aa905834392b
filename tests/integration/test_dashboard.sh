#!/bin/bash
# Every PromQL expression shipped in contrib/ returns series from a real
# Prometheus scraping cowtop watching a real forking workload:
#  - phaseload (a parent and three children writing pages still shared,
#    inside a USDT phase and outside it) under a headless cowtop with -u;
#    Debian's Prometheus scrapes it every second and evaluates
#    contrib/cowtop-rules.yml and contrib/cowtop-alerts.yml every second;
#  - every expression of the dashboard (its panels' targets and its
#    variables' label_values queries, with $group the workload's group,
#    $instance and $role ".*", $__rate_interval 15s, $__range 1m), every
#    recording rule's expression and the series it records, and every alert
#    expression without its final threshold, are evaluated through
#    /api/v1/query and each must return at least one series (waited for up
#    to 60 s: readings and rates need a few scrapes);
#  - figures of the new families against what the workload did: once the
#    children have written and idle, the still-shared inherited memory of
#    each child (--metrics-by pid) and of the role is what pagemap says it
#    still shares (pagemap-truth.py, within 2% or 256 KiB a child); the parent
#    forked as many children as it reported; SHR% of the children is within
#    0..1; a child killed here with SIGTERM shows in
#    cowtop_exits_total{cause="signal"}, and the dashboard's exit panel sees
#    it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom.sh"

SRC=${srcdir:-$(dirname "$0")/../..}
PHASELOAD=${PHASELOAD:-$(dirname "$COWLOAD")/phaseload}
DASH=$SRC/contrib/cowtop-dashboard.json
RULES=$SRC/contrib/cowtop-rules.yml
ALERTS=$SRC/contrib/cowtop-alerts.yml
GROUP=phaseload

# The number of series a query returns (0 on any error).
prom_count() {
	curl -sS -f --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" \
		--data-urlencode "query=$1" 2>/dev/null |
		jq -r 'if .status == "success" then (.data.result | length) else 0 end' 2>/dev/null || echo 0
}

# An expression with the dashboard's variables given values.
substitute() {
	local e=$1
	e=${e//'$__rate_interval'/15s}
	e=${e//'$__range'/1m}
	e=${e//'$instance'/.*}
	e=${e//'$role'/.*}
	e=${e//'$group'/$GROUP}
	printf '%s' "$e"
}

# The value of a sample (name and labels exactly) in cowtop's scrape FILE.
sample_of() {
	awk -v s="$2" '$1 == s { print $2 }' "$1"
}

# Whether cowtop's scrape (into FILE) has every child's sharing figure from
# a reading taken after unix time T: readings_after PORT FILE T CHILDREN...
readings_after() {
	local port=$1 file=$2 t=$3 pid ts age
	shift 3
	curl -sS -f --max-time 5 -o "$file" "http://127.0.0.1:$port/metrics" 2>/dev/null || return 1
	for pid in "$@"; do
		grep -q "^cowtop_process_inherited_shared_bytes{.*pid=\"$pid\"" "$file" || return 1
	done
	ts=$(sample_of "$file" cowtop_frame_timestamp_seconds)
	age=$(sample_of "$file" "cowtop_memory_reading_age_seconds{group=\"$GROUP\",role=\"child\"}")
	[ -n "$ts" ] && [ -n "$age" ] && awk -v ts="$ts" -v a="$age" -v t="$t" 'BEGIN { exit !(ts - a >= t) }'
}

# Sharing since fork against the page tables: once the children have
# written and idle, what pagemap says each still shares with the others
# (pagemap-truth.py) is what cowtop serves as its still-shared inherited
# memory, per process and summed for the role (within 2% or 256 KiB a
# child, as test_sharing allows the JSON figure).
check_sharing_vs_pagemap() {
	local port=$1 t i pid got want sum=0 total
	shift
	t=$(date +%s.%N)
	# shellcheck disable=SC2068 # pid list
	python3 "$SRC/tests/integration/pagemap-truth.py" $@ >"$WORK/truth.txt" ||
		{ fail "pagemap-truth.py failed"; return; }
	for ((i = 0; i < 150; i++)); do
		readings_after "$port" "$WORK/after.txt" "$t" "$@" && break
		sleep 0.2
	done
	if [ "$i" -ge 150 ]; then
		fail "no scrape with every child's reading taken after the pagemap walk"
		return
	fi
	for pid in "$@"; do
		got=$(grep "^cowtop_process_inherited_shared_bytes{.*pid=\"$pid\"" "$WORK/after.txt" | awk '{ print int($2 / 1024) }')
		want=$(awk -v p="$pid" '$1 == p { print $4 }' "$WORK/truth.txt")
		sum=$((sum + want))
		check "child $pid: cowtop_process_inherited_shared_bytes $got KiB vs pagemap $want KiB" \
			awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; l = b * 0.02; if (l < 256) l = 256; exit !(d <= l) }'
	done
	total=$(awk '{ print int($2 / 1024) }' <<<"$(grep "^cowtop_inherited_shared_bytes{group=\"$GROUP\",role=\"child\"}" "$WORK/after.txt")")
	check "children: cowtop_inherited_shared_bytes $total KiB vs pagemap $sum KiB" \
		awk -v a="$total" -v b="$sum" -v n="$#" 'BEGIN { d = a - b; if (d < 0) d = -d; l = b * 0.02; if (l < 256 * n) l = 256 * n; exit !(d <= l) }'
}

# Evaluate every expression of EXPRS (JSON lines of promql.py) until each
# returns series or 60 s have passed; then one check per expression.
check_all_exprs() {
	local i n line from expr left
	for ((i = 0; i < 60; i++)); do
		left=0
		while IFS= read -r line; do
			expr=$(substitute "$(jq -r .expr <<<"$line")")
			[ "$(prom_count "$expr")" -gt 0 ] || left=$((left + 1))
		done <"$WORK/exprs"
		[ "$left" -gt 0 ] || break
		sleep 1
	done
	while IFS= read -r line; do
		from=$(jq -r .from <<<"$line")
		expr=$(substitute "$(jq -r .expr <<<"$line")")
		n=$(prom_count "$expr")
		if [ "$n" -gt 0 ]; then
			pass "$from: $n series"
		else
			fail "$from: no series for: $expr"
		fi
	done <"$WORK/exprs"
}

test_every_expression() {
	local port v children child
	port=$(free_port)
	python3 "$SRC/tests/monitoring/promql.py" exprs "$DASH" "$RULES" "$ALERTS" >"$WORK/exprs" ||
		die "cannot read the dashboard and the rules"
	check_value "expressions to evaluate" exprs "$(wc -l <"$WORK/exprs")" 20 1000
	start_prometheus "$port" "$RULES" "$ALERTS"
	new_report dash
	start_cowtop dash --exporter --listen "127.0.0.1:$port" -d 0.5 --metrics-by pid --smaps-budget 100 \
		-u "$(realpath "$PHASELOAD"):cowtest:phase__begin" -- \
		"$PHASELOAD" --report "$REPORT" --children 3 --outside 300 --inside 1200 \
		--after 200 --parent-inside 500 --start-delay 1000 --linger 600
	wait_port "$port" || die "cowtop does not answer on port $port: $(cat "$WORK/dash.err")"
	prom_wait 'up{job="cowtop"}' 1 || die "Prometheus never scraped cowtop: $(tail -5 "$WORK/prometheus.log")"
	check "the children's copies in their phase reach Prometheus" \
		prom_wait "cowtop_cow_phase_pages_total{group=\"$GROUP\",role=\"child\",phase=\"cowtest:phase\"}" 3600
	check "the parent's copies in its phase reach Prometheus (the children's pages are theirs now)" \
		prom_wait "cowtop_cow_phase_pages_total{group=\"$GROUP\",role=\"parent\",phase=\"cowtest:phase\"}" 500
	children=$(awk '$1 == "child" { print $2 }' "$REPORT")
	# shellcheck disable=SC2086 # pid list
	check_sharing_vs_pagemap "$port" $children
	check_all_exprs
	v=$(prom_query "cowtop_forks_total{group=\"$GROUP\",role=\"parent\"}")
	expect_eq "forks of the parent: the children it reported" "$v" "$(wc -w <<<"$children")"
	v=$(prom_query "cowtop:sharing_since_fork:ratio{group=\"$GROUP\",role=\"child\"}")
	check "SHR% of the children (recorded) is within 0..1 ($v)" \
		awk -v v="$v" 'BEGIN { exit !(v != "" && v + 0 > 0 && v + 0 <= 1) }'
	child=$(head -n 1 <<<"$children")
	kill -TERM "$child"
	check "a child killed by SIGTERM counts as an exit by signal" \
		prom_wait "cowtop_exits_total{group=\"$GROUP\",role=\"child\",cause=\"signal\"}" 1
	check "... and the dashboard's exits panel shows it" \
		prom_wait "max_over_time(($(substitute "$(python3 "$SRC/tests/monitoring/promql.py" exprs "$DASH" |
			jq -r 'select(.from | contains("Exits by cause")) | .expr')"))[1m:1s])" 0.000001
	# end the workload: its main process ends once its children are gone,
	# and fails (they were killed); cowtop ends with it, with its status
	for child in $children; do
		kill -TERM "$child" 2>/dev/null || true
	done
	reap_cowtop_after_load 20
	expect_eq "cowtop ends with the workload, with its status (children killed: 1)" "$RC" 1
	stop_prometheus
}

setup
for tool in prometheus curl python3; do
	command -v "$tool" >/dev/null || die "$tool is needed (Debian packages prometheus, curl, python3)"
done
python3 -c 'import yaml' 2>/dev/null || die "python3-yaml is needed (scripts/deps.sh installs it)"
[ -x "$PHASELOAD" ] || die "workload not found at '$PHASELOAD' (set PHASELOAD)"
test_every_expression
finish
