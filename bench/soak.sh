#!/bin/bash
# soak.sh: cowtop with everything on for a long run, against a workload
# that forks and exits workers all the time.
#
# cowtop runs in batch mode (-b -f json, output discarded) with a refresh
# of 1 s, --stacks, two USDT phases (-u cowtest:phase__begin of phaseload,
# -u sites:work__start of sitesload), --listen on 127.0.0.1:PORT and -w
# FILE, and launches a workload of three parts, all running at once:
#   - stackload: forks a child every GAP ms (waiting for each), every child
#     copying PAGES pages under a stack of its own (65,536 distinct paths:
#     over a long run far more distinct stacks than the stack map holds);
#   - phaseload, again and again: 4 children writing inside and outside
#     their phase, which the USDT probes mark;
#   - sitesload --rounds 20, again and again: its work phase fired 20 times.
# Meanwhile /metrics is scraped with curl every second and cowtop's VmRSS
# read every 10 s. After DURATION seconds the workload is stopped (cowtop
# exits when its command ends; what is left of the workload 30 s after
# TERM is killed, and cowtop is interrupted if it has not ended 60 s after
# its workload: every wait is bounded by the clock) and the run is checked:
#   - RSS: after the warm-up (the first sample at or past WARMUP s), at the
#     end, and the largest; the growth from warm-up to the end; the mean of
#     each 10 minutes;
#   - capture failures: the "failed" count of the stacks status in the
#     recording, at the end of the warm-up and at the end; its rate per
#     minute in the first and the last window after the warm-up, in all and
#     by cause (failed_collision: no room for a new stack in the kernel's
#     stack map, the sign of a map that fills up; failed_walk;
#     failed_uncounted);
#   - the stack map's occupancy: ids_used of ids_limit after the warm-up
#     (the first frame past it), the largest after it and the last; it must
#     stay below ids_limit after the warm-up (a full map loses every new
#     stack: the pruning fell behind);
#   - monotonic: in the recording, every counter of every process (by pid
#     and start time: cow_pages, cow_kernel, reuse, zero_fill,
#     children_forked, children_exited, reclaim stalls, each region and
#     phase) and of the frame (lost, stacks failed and its causes; not
#     markers_lost, which
#     counts the hits dropped in its frame's interval only) never
#     decreases; in the scrapes, every *_total series present in two
#     consecutive scrapes never decreases;
#   - the recording replays (cowtop -r FILE -b -f json: exit 0, as many
#     frames as recorded) and diffs (cowtop --diff FILE FILE: exit 0).
# It prints a summary and keeps everything in OUT (the recording, rss.tsv,
# scrapes.tsv, the workload's and cowtop's stderr).
#
# A benchmark, not a test: it reports figures; its exit status is 0 when
# every check held, 1 otherwise (or on a setup error).
#
# Usage: sudo bench/soak.sh [--duration S] [--warmup S] [--gap MS]
#                           [--pages N] [--port PORT] [--out DIR]
# Environment: COWTOP (default ./cowtop), STACKLOAD, PHASELOAD, SITESLOAD
#              (default ./tests/workloads/...: build them with
#              make tests/workloads/stackload tests/workloads/phaseload
#              tests/workloads/sitesload)
set -euo pipefail

prog=$(basename "$0")
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

duration=3600
warmup=300
gap=50
pages=16
port=9477
out=
cowtop=${COWTOP:-./cowtop}
stackload=${STACKLOAD:-./tests/workloads/stackload}
phaseload=${PHASELOAD:-./tests/workloads/phaseload}
sitesload=${SITESLOAD:-./tests/workloads/sitesload}
cowtop_pid=
scrape_pid=
rss_pid=
nap_pid=
stop_timeout=30
check_timeout=1800

usage()
{
	cat <<EOF
usage: $prog [--duration S] [--warmup S] [--gap MS] [--pages N] [--port PORT] [--out DIR]
  --duration S  length of the run, seconds (default $duration)
  --warmup S    RSS and failures are compared from this age on (default $warmup,
                at most half the duration)
  --gap MS      stackload forks a worker every MS ms (default $gap)
  --pages N     pages each stackload worker copies (default $pages)
  --port PORT   --listen port on 127.0.0.1 (default $port)
  --out DIR     keep the results there (default: a new directory under /tmp)
EOF
}

cleanup()
{
	[ -n "$nap_pid" ] && kill "$nap_pid" 2>/dev/null
	[ -n "$scrape_pid" ] && stop_child "$scrape_pid" TERM
	[ -n "$rss_pid" ] && stop_child "$rss_pid" TERM
	[ -n "$cowtop_pid" ] && stop_workload
	[ -n "$cowtop_pid" ] && stop_child "$cowtop_pid"
	return 0
}

# The pids of process $1 and of all its descendants, parents first.
tree_of()
{
	local pid=$1 kid kids

	echo "$pid"
	kids=$(cat /proc/"$pid"/task/*/children 2>/dev/null) || return 0
	for kid in $kids; do
		tree_of "$kid"
	done
}

# Stop the workload: TERM to its shell, which stops its parts and exits;
# what is left of it after 30 s (a part stuck, a shell waiting on a child
# of its own) is killed, parents first so that nothing starts again.
stop_workload()
{
	local pid p

	pid=$(cat "$out/workload.pid" 2>/dev/null) || return 0
	kill -TERM "$pid" 2>/dev/null || true
	gone_within "$pid" 30 && return 0
	note "the workload still runs 30 s after TERM: killing it"
	for p in $(tree_of "$pid"); do
		kill -KILL "$p" 2>/dev/null || true
	done
}

while [ $# -gt 0 ]; do
	case $1 in
	--duration) duration=$(count_arg "$1" "${2-}"); shift 2 ;;
	--warmup) warmup=$(count_arg "$1" "${2-}"); shift 2 ;;
	--gap) gap=$(count_arg "$1" "${2-}"); shift 2 ;;
	--pages) pages=$(count_arg "$1" "${2-}"); shift 2 ;;
	--port) port=$(count_arg "$1" "${2-}"); shift 2 ;;
	--out) out=${2-}; [ -n "$out" ] || die "--out needs a directory"; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ "$warmup" -le $((duration / 2)) ] || warmup=$((duration / 2))
[ "$(id -u)" -eq 0 ] || die "run as root (cowtop loads BPF programs)"
for b in "$cowtop" "$stackload" "$phaseload" "$sitesload"; do
	[ -x "$b" ] || die "$b not found or not executable"
done
for t in curl jq python3; do
	command -v "$t" >/dev/null || die "$t is needed"
done
if [ -z "$out" ]; then
	out=$(mktemp -d /tmp/cowtop-soak.XXXXXX)
else
	mkdir -p "$out"
	[ ! -e "$out/soak.rec" ] || die "$out/soak.rec exists: give a new --out"
fi
trap cleanup EXIT
trap 'exit 130' INT TERM

# The workload: its parts forever, until TERM.
cat >"$out/workload.sh" <<'EOF'
#!/bin/bash
# stackload phaseload sitesload gap pages pidfile
echo $$ >"$6"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait; exit 0' TERM
"$1" 0 "$5" "$4" >/dev/null &
pids+=($!)
(
	trap 'exit 0' TERM
	while :; do
		"$2" --children 4 --outside 16 --inside 32 --after 16 --linger 0.2 \
			--start-delay 100 --report /dev/null || true
	done
) &
pids+=($!)
(
	trap 'exit 0' TERM
	while :; do
		"$3" --rounds 20 --start-delay 100 2>/dev/null || true
	done
) &
pids+=($!)
wait
EOF
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

note "results in $out; $duration s, warm-up $warmup s, a worker every $gap ms copying $pages pages"
t0=$(date +%s)
"$cowtop" -b -f json -d 1 --stacks -u cowtest:phase__begin -u sites:work__start \
	--listen "127.0.0.1:$port" -w "$out/soak.rec" -- \
	bash "$out/workload.sh" "$(abs "$stackload")" "$(abs "$phaseload")" "$(abs "$sitesload")" \
	"$gap" "$pages" "$out/workload.pid" >/dev/null 2>"$out/cowtop.err" &
cowtop_pid=$!

# Scrape /metrics every second: "age http_code bytes" a line; each scrape's
# *_total series compared with the previous one's.
(
	trap 'exit 0' TERM
	prev=$out/scrape.prev cur=$out/scrape.cur
	: >"$prev"
	while :; do
		code=$(curl -s -m 5 -o "$cur" -w '%{http_code}' "http://127.0.0.1:$port/metrics" || true)
		bytes=0
		[ -f "$cur" ] && bytes=$(wc -c <"$cur")
		echo "$(($(date +%s) - t0)) $code $bytes" >>"$out/scrapes.tsv"
		if [ "$code" = 200 ]; then
			awk -v age=$(($(date +%s) - t0)) '
				FNR == NR { if ($1 ~ /_total([{]|$)/) v[$1] = $2; next }
				$1 ~ /_total([{]|$)/ && ($1 in v) && $2 + 0 < v[$1] + 0 {
					print age, $1, v[$1], "->", $2
				}' "$prev" "$cur" >>"$out/scrape-decreases.txt"
			mv "$cur" "$prev"
		fi
		sleep 1
	done
) &
scrape_pid=$!

# cowtop's VmRSS every 10 s: "age kib" a line.
(
	trap 'exit 0' TERM
	while :; do
		kib=$(awk '/^VmRSS:/ { print $2 }' "/proc/$cowtop_pid/status" 2>/dev/null) || break
		[ -n "$kib" ] || break
		echo "$(($(date +%s) - t0)) $kib" >>"$out/rss.tsv"
		sleep 10
	done
) &
rss_pid=$!

end=$((t0 + duration))
while [ "$(date +%s)" -lt "$end" ]; do
	alive "$cowtop_pid" || break
	pause_for 5
done
ran=$(($(date +%s) - t0))
# Every wait below is bounded by the clock: the summary is always reached.
rc=0
if alive "$cowtop_pid"; then
	stop_workload
	if ! gone_within "$cowtop_pid" 60; then
		note "cowtop still running 60 s after the workload was stopped: SIGINT"
		rc=124
		stop_child "$cowtop_pid" INT
	fi
fi
[ "$rc" -ne 0 ] || wait "$cowtop_pid" || rc=$?
cowtop_pid=
stop_child "$scrape_pid" TERM
scrape_pid=
stop_child "$rss_pid" TERM
rss_pid=
note "ran $ran s; cowtop exit status $rc"

ok=1
fail() { ok=0; echo "FAIL: $*"; }

# The recording: monotonic counters, stacks status, frames.
python3 - "$out/soak.rec" "$warmup" >"$out/recording.txt" <<'EOF' || note "the recording could not be checked (see $out/recording.txt)"
import json, sys
path, warmup = sys.argv[1], float(sys.argv[2])
proc_keys = ("cow_pages", "cow_kernel", "reuse", "zero_fill", "children_forked",
             "children_exited")
prev, bad, frames, t0 = {}, [], 0, None
causes = ("failed", "failed_collision", "failed_walk", "failed_uncounted")
series = {k: [] for k in causes}  # (age, count) of each
failed_warm = failed_end = None
ids = []  # (age, ids_used), ids_limit
ids_limit = None
procs_seen, frame_prev = set(), {}
for line in open(path):
    f = json.loads(line)
    if f.get("recording"):
        continue
    frames += 1
    t = f.get("time", 0)
    t0 = t if t0 is None else t0
    st = f.get("stacks") or {}
    if "failed" in st:
        if failed_warm is None and t - t0 >= warmup:
            failed_warm = st["failed"]
        failed_end = st["failed"]
    for k in causes:
        if isinstance(st.get(k), (int, float)):
            series[k].append((t - t0, st[k]))
    if isinstance(st.get("ids_used"), int):
        ids.append((t - t0, st["ids_used"]))
        ids_limit = st.get("ids_limit")
    # markers_lost is of the frame's interval only: not a counter
    checked = [("lost", f.get("lost"))] + [("stacks." + k, st.get(k)) for k in causes]
    for k, v in checked:
        if isinstance(v, (int, float)):
            if k in frame_prev and v < frame_prev[k]:
                bad.append("frame %d: %s %s -> %s" % (frames, k, frame_prev[k], v))
            frame_prev[k] = v
    for p in f.get("processes", []):
        key = (p["pid"], p.get("start_time"))
        procs_seen.add(key)
        cur = {k: p[k] for k in proc_keys if isinstance(p.get(k), (int, float))}
        r = p.get("reclaim") or {}
        if isinstance(r.get("stalls"), (int, float)):
            cur["reclaim.stalls"] = r["stalls"]
        for split in ("cow_by_region", "cow_by_phase"):
            for k, v in (p.get(split) or {}).items():
                if isinstance(v, (int, float)):
                    cur[split + "." + k] = v
        old = prev.get(key, {})
        for k, v in cur.items():
            if k in old and v < old[k]:
                bad.append("frame %d: pid %d %s %s -> %s" % (frames, key[0], k, old[k], v))
        old.update(cur)
        if p.get("exit") is not None:
            prev.pop(key, None)
        else:
            prev[key] = old
print("frames %d" % frames)
print("processes %d" % len(procs_seen))
print("failed_warm %s" % failed_warm)
print("failed_end %s" % failed_end)
# failures per minute in the first window after the warm-up and the last
# one (a tenth of the run after the warm-up, at least 60 s): a stack map
# that fills up shows as a last rate far above the first
def at(ser, age):
    v = None
    for a, n in ser:
        if a > age:
            break
        v = n
    return v
for k, ser in series.items():
    if not ser:
        continue
    end = ser[-1][0]
    w = max(60.0, (end - warmup) / 10)
    a, b = at(ser, warmup), at(ser, warmup + w)
    c, d = at(ser, end - w), ser[-1][1]
    if k != "failed":
        print("%s_end %s" % (k, d))
    if None not in (a, b, c, d) and end - w >= warmup:
        print("%s_rate_first %.1f" % (k, (b - a) * 60 / w))
        print("%s_rate_last %.1f" % (k, (d - c) * 60 / w))
        if k == "failed":
            print("failed_window %.0f" % w)
# the stack map's occupancy after the warm-up: first, largest, last; not in
# the frame cowtop writes as it ends (its workload stopped, every id given
# back)
after = [n for a, n in ids[:-1] if a >= warmup]
if after:
    print("ids_warm %d" % after[0])
    print("ids_max %d" % max(after))
    print("ids_last %d" % after[-1])
    print("ids_limit %s" % ids_limit)
print("decreases %d" % len(bad))
for b in bad[:20]:
    print("decrease " + b)
EOF
rec_frames=$(awk '$1 == "frames" { print $2 }' "$out/recording.txt")
rec_procs=$(awk '$1 == "processes" { print $2 }' "$out/recording.txt")
failed_warm=$(awk '$1 == "failed_warm" { print $2 }' "$out/recording.txt")
failed_end=$(awk '$1 == "failed_end" { print $2 }' "$out/recording.txt")
decreases=$(awk '$1 == "decreases" { print $2 }' "$out/recording.txt")
rate_first=$(awk '$1 == "failed_rate_first" { print $2 }' "$out/recording.txt")
rate_last=$(awk '$1 == "failed_rate_last" { print $2 }' "$out/recording.txt")
rate_window=$(awk '$1 == "failed_window" { print $2 }' "$out/recording.txt")
# A figure of recording.txt by name (empty when the recording had none).
rec() { awk -v k="$1" '$1 == k { print $2; exit }' "$out/recording.txt"; }
causes=
for c in collision walk uncounted; do
	causes+="${causes:+, }$c $(rec "failed_${c}_end") ($(rec "failed_${c}_rate_first")"
	causes+=" -> $(rec "failed_${c}_rate_last")/min)"
done
ids_warm=$(rec ids_warm)
ids_max=$(rec ids_max)
ids_last=$(rec ids_last)
ids_limit=$(rec ids_limit)
scrape_dec=$(cat "$out/scrape-decreases.txt" 2>/dev/null | wc -l)
scrapes=$(cat "$out/scrapes.tsv" 2>/dev/null | wc -l)
scrapes_ok=$(awk '$2 == 200' "$out/scrapes.tsv" 2>/dev/null | wc -l)

# RSS: the first sample at or past the warm-up, the last, the largest.
read -r rss_warm_age rss_warm < <(awk -v w="$warmup" '$1 >= w { print; exit }' "$out/rss.tsv") || true
read -r rss_end_age rss_end < <(tail -n 1 "$out/rss.tsv") || true
rss_max=$(awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }' "$out/rss.tsv")
# The mean of each 10 minutes, MiB (a heap trimmed once in ten frames swings
# between samples: a mean says more than one sample).
rss_means=$(awk '{ b = int($1 / 600); s[b] += $2; n[b]++; if (b > m) m = b }
	END { for (i = 0; i <= m; i++) if (n[i]) printf "%s%.0f", (i ? ", " : ""), s[i] / n[i] / 1024 }' \
	"$out/rss.tsv")

# Replay and diff.
# Bounded too (status 124 when cut): an hour's recording replays in minutes.
replay_rc=0
timeout -s INT -k 30 "$check_timeout" "$cowtop" -r "$out/soak.rec" -b -f json \
	>"$out/replay.json" 2>"$out/replay.err" || replay_rc=$?
replay_frames=$(grep -c '^{' "$out/replay.json" || true)
diff_rc=0
timeout -s INT -k 30 "$check_timeout" "$cowtop" --diff "$out/soak.rec" "$out/soak.rec" \
	>"$out/diff.txt" 2>"$out/diff.err" || diff_rc=$?

[ "$rc" -eq 0 ] || fail "cowtop exit status $rc (see $out/cowtop.err)"
[ "$ran" -ge "$duration" ] || fail "cowtop ended after $ran s of $duration"
[ "${decreases:-1}" -eq 0 ] || fail "$decreases counters decreased in the recording (see $out/recording.txt)"
[ "$scrape_dec" -eq 0 ] || fail "$scrape_dec *_total series decreased between scrapes"
[ "$replay_rc" -eq 0 ] || fail "replay exit status $replay_rc"
[ "$replay_frames" = "$rec_frames" ] || fail "replay printed $replay_frames frames of $rec_frames"
[ "$diff_rc" -eq 0 ] || fail "--diff exit status $diff_rc"
if [ -n "$ids_max" ] && [ -n "$ids_limit" ] && [ "$ids_limit" != None ]; then
	[ "$ids_max" -lt "$ids_limit" ] || fail "the stack map filled up after the warm-up: $ids_max ids of $ids_limit in use"
fi

echo "soak: $ran s (asked $duration), workload: a stackload worker every $gap ms ($pages pages), phaseload and sitesload in loops"
echo "  processes seen in the recording: $rec_procs, frames: $rec_frames"
echo "  cowtop RSS: ${rss_warm:-?} KiB at ${rss_warm_age:-?} s (after warm-up), ${rss_end:-?} KiB at ${rss_end_age:-?} s (end), max $rss_max KiB"
echo "  cowtop RSS, mean of each 10 minutes: ${rss_means:-?} MiB"
if [ -n "${rss_warm:-}" ] && [ -n "${rss_end:-}" ]; then
	echo "  RSS growth after warm-up: $((rss_end - rss_warm)) KiB"
fi
echo "  stack captures failed: ${failed_warm:-?} by the end of the warm-up, ${failed_end:-?} at the end"
echo "  failures per minute: ${rate_first:-?} in the first ${rate_window:-?} s after the warm-up, ${rate_last:-?} in the last"
echo "  by cause, at the end (per minute first -> last window): $causes"
echo "  stack map ids in use: ${ids_warm:-?} after the warm-up, max ${ids_max:-?}, last ${ids_last:-?}, of ${ids_limit:-?}"
echo "  counters decreasing: $decreases in the recording, $scrape_dec between scrapes ($scrapes_ok of $scrapes scrapes answered 200)"
echo "  replay: exit $replay_rc, $replay_frames of $rec_frames frames; --diff FILE FILE: exit $diff_rc, $(wc -l <"$out/diff.txt") lines"
echo "  results: $out"
[ "$ok" -eq 1 ] && echo "soak: every check held" || echo "soak: some checks failed"
[ "$ok" -eq 1 ]
