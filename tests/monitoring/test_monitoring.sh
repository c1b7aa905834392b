#!/bin/sh
# The monitoring files under contrib/, without a server (no root needed):
#  - the recording and alerting rules pass `promtool check rules`;
#  - the alerts' unit tests (cowtop-alerts.test.yml) pass `promtool test
#    rules`: each alert fires on a synthetic series past its threshold and
#    stays quiet on one that is not (or not for long enough);
#  - the dashboard's structure (promql.py check): it loads as JSON; it has a
#    title, uid, schemaVersion, time, panels and templating; the variables
#    datasource (a Prometheus data source), instance, group and role exist
#    and query ${datasource}; every panel has a unique id, a title, a type
#    and a gridPos inside 24 columns that overlaps no other panel; every
#    panel but a row uses ${datasource}, has a unit and targets, each with a
#    unique refId and an expression; every $variable used is defined or one
#    of Grafana's own; the families the README teaches each have a panel;
#    every cowtop_* family of the dashboard and the rules is in the man page;
#  - the checker itself fails on a copy with a repeated panel id, a panel
#    without targets and an undefined variable.
# That every expression returns series from a real Prometheus scraping cowtop
# is tests/integration/test_dashboard.sh.
set -u
src="${srcdir:-.}"
dash="$src/contrib/cowtop-dashboard.json"
rules="$src/contrib/cowtop-rules.yml"
alerts="$src/contrib/cowtop-alerts.yml"
fail=0

for tool in promtool python3; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "test_monitoring: $tool not found (Debian packages prometheus, python3)" >&2
		exit 99
	}
done
python3 -c 'import yaml' 2>/dev/null || {
	echo "test_monitoring: python3-yaml is missing (scripts/deps.sh installs it)" >&2
	exit 99
}

# Run a check: "PASS: what" if it succeeds, else FAIL with its output.
check() {
	what=$1
	shift
	if out=$("$@" 2>&1); then
		echo "PASS: $what"
	else
		echo "FAIL: $what"
		printf '%s\n' "$out" | sed 's/^/    | /'
		fail=1
	fi
}

# The opposite: the check must fail.
refuses() {
	what=$1
	shift
	if "$@" >/dev/null 2>&1; then
		echo "FAIL: $what (accepted)"
		fail=1
	else
		echo "PASS: $what"
	fi
}

check "recording rules pass promtool check rules" promtool check rules "$rules"
check "alerting rules pass promtool check rules" promtool check rules "$alerts"
check "alert unit tests pass promtool test rules" promtool test rules "$src/tests/monitoring/cowtop-alerts.test.yml"
check "dashboard structure, variables, units, documented families" \
	python3 "$src/tests/monitoring/promql.py" check "$dash" "$src/man/cowtop.8" "$rules" "$alerts"

tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
python3 - "$dash" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
panels = [p for p in d["panels"] if p["type"] != "row"]
a = json.loads(json.dumps(d)); a["panels"][2]["id"] = a["panels"][1]["id"]
json.dump(a, open(sys.argv[2] + "/dup-id.json", "w"))
b = json.loads(json.dumps(d)); [p for p in b["panels"] if p["type"] != "row"][0]["targets"] = []
json.dump(b, open(sys.argv[2] + "/no-targets.json", "w"))
c = json.loads(json.dumps(d)); [p for p in c["panels"] if p["type"] != "row"][0]["targets"][0]["expr"] += ' + on() vector($nosuch)'
json.dump(c, open(sys.argv[2] + "/undefined-var.json", "w"))
PY
for bad in dup-id no-targets undefined-var; do
	refuses "the checker refuses a dashboard with $bad" \
		python3 "$src/tests/monitoring/promql.py" check "$tmp/$bad.json" "$src/man/cowtop.8" "$rules" "$alerts"
done
exit "$fail"
