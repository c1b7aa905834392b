# shellcheck shell=bash
# Prometheus for the integration tests (sourced after lib.sh): Debian's
# server on a free port with a temporary configuration and storage,
# scraping cowtop every second, and its HTTP API.

PROM_PID=
PROM_PORT=

# A TCP port nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Query Prometheus's HTTP API; print the first result's value (empty if none).
prom_query() {
	curl -sS -f --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" \
		--data-urlencode "query=$1" 2>/dev/null |
		jq -r 'if .status == "success" and (.data.result | length) > 0
			then .data.result[0].value[1] else empty end' 2>/dev/null || true
}

# Wait up to 20 s for a query's value to be at least min: prom_wait QUERY MIN.
prom_wait() {
	local i v
	for ((i = 0; i < 100; i++)); do
		v=$(prom_query "$1")
		if [ -n "$v" ] && awk -v v="$v" -v m="$2" 'BEGIN { exit !(v + 0 >= m) }'; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

# Start Prometheus on PROM_PORT with a temporary configuration and storage,
# scraping cowtop on port $1 every second, evaluating the rule files given
# after it every second: start_prometheus PORT [RULES...].
start_prometheus() {
	local i port=$1 rules=""
	shift
	for i in "$@"; do
		rules+="  - '$(realpath "$i")'"$'\n'
	done
	PROM_PORT=$(free_port)
	mkdir -p "$WORK/tsdb"
	cat >"$WORK/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
rule_files:
$rules
scrape_configs:
  - job_name: cowtop
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
	prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
		--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn \
		>"$WORK/prometheus.log" 2>&1 &
	PROM_PID=$!
	BG_PIDS+=("$PROM_PID")
	for ((i = 0; i < 150; i++)); do
		curl -sf --max-time 1 "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	die "Prometheus did not get ready: $(tail -5 "$WORK/prometheus.log")"
}

stop_prometheus() {
	kill -TERM "$PROM_PID" 2>/dev/null || true
	reap "$PROM_PID" || true
}

# Wait until cowtop's port answers: wait_port PORT.
wait_port() {
	local i
	for ((i = 0; i < 100; i++)); do
		curl -sf --max-time 1 -o /dev/null "http://127.0.0.1:$1/metrics" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

