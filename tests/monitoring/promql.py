#!/usr/bin/python3
"""The dashboard and the rules, read as the suite needs them.

  promql.py check DASHBOARD MANPAGE RULES...
      Check the dashboard's structure (Grafana is not in Debian: what an
      import needs is checked here) and that every cowtop_* family named
      by the dashboard and the rules is documented in the man page.
  promql.py exprs DASHBOARD RULES...
      Print every PromQL expression of the dashboard (its panels and its
      variables' queries), of the recording rules and of the alert rules,
      one JSON object a line: {"from": WHERE, "expr": EXPR}. Alert
      expressions come without their final threshold comparison: what is
      left must return series whether the alert fires or not. Dashboard
      variables are left as they are (the caller substitutes them).
"""
import json
import re
import sys

import yaml

# Grafana's own variables, which need no definition.
BUILTIN = {"__rate_interval", "__interval", "__range", "__range_s", "__range_ms", "__interval_ms"}
# The variables the dashboard must have.
REQUIRED_VARS = {"datasource": "datasource", "instance": "query", "group": "query", "role": "query"}
# The families the dashboard must show (the figures the README teaches).
REQUIRED_FAMILIES = [
    "cowtop_cow_pages_total", "cowtop_inherited_bytes", "cowtop_inherited_shared_bytes",
    "cowtop_family_anon_bytes", "cowtop_family_shared_bytes",
    "cowtop_uss_bytes", "cowtop_pss_bytes", "cowtop_headroom_workers", "cowtop_memory_available_bytes",
    "cowtop_forks_total", "cowtop_exits_total", "cowtop_reclaim_stall_seconds_total",
    "cowtop_cow_phase_pages_total", "cowtop_cow_region_pages_total", "cowtop_memory_reading_age_seconds",
]
THRESHOLD = re.compile(r"^(.*?)\s*(?:<|>|<=|>=|==|!=)\s*-?[0-9.e+]+\s*$", re.S)
FAMILY = re.compile(r"\bcowtop_[a-z_]+\b")


def panels_of(dash):
    """Every panel, those inside collapsed rows too."""
    for p in dash.get("panels", []):
        yield p
        for q in p.get("panels", []):
            yield q


def variables_of(dash):
    return {v.get("name"): v for v in dash.get("templating", {}).get("list", [])}


def var_query(v):
    q = v.get("query")
    return q.get("query") if isinstance(q, dict) else q


def dashboard_exprs(dash):
    for p in panels_of(dash):
        for t in p.get("targets", []):
            yield "panel %d %r %s" % (p.get("id"), p.get("title"), t.get("refId")), t.get("expr")
    for name, v in variables_of(dash).items():
        if v.get("type") == "query":
            q = var_query(v)
            m = re.match(r"^label_values\((.*),\s*\w+\)$", q or "")
            # label_values(EXPR, label): EXPR is the PromQL Grafana sends
            yield "variable %s" % name, m.group(1) if m else q


def rule_exprs(paths):
    for path in paths:
        for g in yaml.safe_load(open(path))["groups"]:
            for r in g["rules"]:
                expr = r["expr"].strip()
                if "alert" in r:
                    m = THRESHOLD.match(expr)
                    if not m:
                        raise SystemExit("%s: alert %s: no final threshold to take off" % (path, r["alert"]))
                    yield "alert %s" % r["alert"], m.group(1)
                else:
                    yield "record %s" % r["record"], expr
                    yield "recorded %s" % r["record"], r["record"]


def check(dash_path, man_path, rule_paths):
    bad = []
    try:
        dash = json.load(open(dash_path))
    except ValueError as e:
        raise SystemExit("%s does not load: %s" % (dash_path, e))
    for key, kind in (("title", str), ("uid", str), ("schemaVersion", int), ("panels", list),
                      ("templating", dict), ("time", dict)):
        if not isinstance(dash.get(key), kind):
            bad.append("dashboard: %s missing or not a %s" % (key, kind.__name__))
    variables = variables_of(dash)
    for name, kind in REQUIRED_VARS.items():
        if name not in variables or variables[name].get("type") != kind:
            bad.append("variable %s: missing or not of type %s" % (name, kind))
    if variables.get("datasource", {}).get("query") != "prometheus":
        bad.append("variable datasource: not a Prometheus data source")
    for name, v in variables.items():
        if v.get("type") == "query":
            if v.get("datasource", {}).get("uid") != "${datasource}":
                bad.append("variable %s: not on ${datasource}" % name)
            if not var_query(v):
                bad.append("variable %s: no query" % name)
    ids, cells = set(), []
    for p in panels_of(dash):
        where = "panel %r" % p.get("title")
        pid = p.get("id")
        if not isinstance(pid, int) or pid in ids:
            bad.append("%s: id %r missing or not unique" % (where, pid))
        ids.add(pid)
        if not p.get("title") or not p.get("type"):
            bad.append("%s: no title or type" % where)
        g = p.get("gridPos", {})
        if not all(isinstance(g.get(k), int) for k in "hwxy") or g["x"] + g["w"] > 24:
            bad.append("%s: gridPos %r" % (where, g))
        else:
            for other, og in cells:
                if (g["x"] < og["x"] + og["w"] and og["x"] < g["x"] + g["w"] and
                        g["y"] < og["y"] + og["h"] and og["y"] < g["y"] + g["h"]):
                    bad.append("%s overlaps panel %r" % (where, other))
            cells.append((p.get("title"), g))
        if p.get("type") == "row":
            continue
        if p.get("datasource", {}).get("uid") != "${datasource}":
            bad.append("%s: datasource is not ${datasource}" % where)
        if not p.get("fieldConfig", {}).get("defaults", {}).get("unit"):
            bad.append("%s: no unit" % where)
        targets = p.get("targets") or []
        if not targets:
            bad.append("%s: no targets" % where)
        refs = [t.get("refId") for t in targets]
        if len(set(refs)) != len(refs) or not all(refs):
            bad.append("%s: refIds %r missing or repeated" % (where, refs))
        for t in targets:
            if not (t.get("expr") or "").strip():
                bad.append("%s: a target without an expression" % where)
    exprs = list(dashboard_exprs(dash)) + list(rule_exprs(rule_paths))
    used = set()
    for where, e in exprs:
        for v in re.findall(r"\$\{?(\w+)", e or ""):
            if v not in variables and v not in BUILTIN:
                bad.append("%s: variable $%s is not defined" % (where, v))
        used |= set(FAMILY.findall(e or ""))
    dash_used = set(f for where, e in dashboard_exprs(dash) for f in FAMILY.findall(e or ""))
    for f in REQUIRED_FAMILIES:
        if f not in dash_used:
            bad.append("dashboard: no panel shows %s" % f)
    man = open(man_path).read().replace("\\-", "-").replace("\\_", "_")
    for f in sorted(used):
        if f.startswith("cowtop_") and f not in man:
            bad.append("%s: not documented in the man page" % f)
    for b in bad:
        print("    " + b)
    print("%d panels, %d variables, %d expressions checked" % (len(ids), len(variables), len(exprs)))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "check":
        return check(argv[2], argv[3], argv[4:])
    if len(argv) >= 3 and argv[1] == "exprs":
        dash = json.load(open(argv[2]))
        for where, e in list(dashboard_exprs(dash)) + list(rule_exprs(argv[3:])):
            print(json.dumps({"from": where, "expr": e}))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
