#!/bin/bash
# The container recipe (contrib/container): the DaemonSet manifest parses
# and says what cowtop needs (host PID namespace, the capabilities, the
# metrics port its arguments listen on), the Containerfile runs the same
# arguments; then cowtop runs as that pod would, with no container engine:
# the manifest's arguments, its capabilities only (a bounding set), no new
# privileges, in namespaces of its own (mount with a read-only root and a
# fresh /tmp, network, UTS, IPC, cgroup) but the host's PID namespace. It
# must serve metrics on the pod's address with the same mechanism and
# fallbacks as cowtop with every privilege, and count the copies of a
# workload run by another user (nobody), as many as it reports writing.
set -u
: "${abs_top_builddir:?run it through make check}"
COWTOP=${COWTOP:-$abs_top_builddir/cowtop}
COWLOAD=${COWLOAD:-$abs_top_builddir/tests/workloads/cowload}
top=${srcdir:-.}
dir=$top/contrib/container
name=test_container
fail=0

# Report one check: result message.
say() {
	if [ "$1" -eq 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fail=1; fi
}
skip() {
	echo "$name: skipped: $*"
	exit 77
}

[ "$(id -u)" -eq 0 ] || skip "must run as root (namespaces, BPF)"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is missing (scripts/deps.sh installs it)"
for tool in unshare nsenter setpriv curl jq ip; do
	command -v "$tool" >/dev/null || skip "$tool is missing (scripts/deps.sh installs it)"
done
work=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-container.XXXXXX") || exit 99
chmod 755 "$work"
# The pod's own /tmp hides whatever lives there, the build too when it was
# cloned under /tmp: the pod runs a copy, as an image carries its binary.
image=$(mktemp -d /run/cowtop-image.XXXXXX) || exit 99
install -m 755 "$COWTOP" "$image/cowtop"
pod=
cowtop_pid=
# The pod's cowtop ends as a container's would (SIGTERM), then unshare.
stop_pod() {
	[ -z "$cowtop_pid" ] || kill "$cowtop_pid" 2>/dev/null
	[ -z "$pod" ] || wait "$pod" 2>/dev/null
	pod=
}
cleanup() {
	stop_pod
	rm -rf "$work" "$image"
}
trap cleanup EXIT

# What the manifest says, as shell assignments (a wrong manifest fails here).
python3 - "$dir/cowtop-daemonset.yaml" "$dir/Containerfile" >"$work/manifest.sh" 2>"$work/manifest.err" <<'EOF'
import json, re, shlex, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
assert len(docs) == 1 and docs[0]["kind"] == "DaemonSet", "one DaemonSet"
ds = docs[0]
assert ds["apiVersion"] == "apps/v1", "apps/v1"
tmpl = ds["spec"]["template"]
assert ds["spec"]["selector"]["matchLabels"].items() <= tmpl["metadata"]["labels"].items(), \
    "the selector matches the pod's labels"
spec = tmpl["spec"]
assert spec.get("hostPID") is True, "hostPID: true"
(c,) = spec["containers"]
args = c["args"]
sc = c["securityContext"]
assert sc["capabilities"]["drop"] == ["ALL"], "drops every capability"
caps = sc["capabilities"]["add"]
assert not sc.get("privileged"), "not privileged"
ports = [p["containerPort"] for p in c["ports"]]
listen = args[args.index("--listen") + 1]
assert "--exporter" in args, "runs --exporter"
assert int(listen.rsplit(":", 1)[1]) in ports, "listens on its containerPort"
vols = {v["name"]: v for v in spec["volumes"]}
mounts = {m["mountPath"]: vols[m["name"]]["hostPath"]["path"] for m in c["volumeMounts"]}
assert mounts.get("/sys/kernel/btf") == "/sys/kernel/btf", "the host's BTF"
cmd = [l for l in open(sys.argv[2]) if l.startswith("CMD ")]
assert len(cmd) == 1 and json.loads(cmd[0][4:]) == args, "the Containerfile's CMD is the manifest's args"
print("args=(%s)" % " ".join(shlex.quote(a) for a in args))
print("caps=%s" % shlex.quote(",".join("+" + x.lower() for x in caps)))
print("port=%d" % int(listen.rsplit(":", 1)[1]))
print("readonly=%s" % ("yes" if sc.get("readOnlyRootFilesystem") else "no"))
EOF
rc=$?
say "$rc" "the manifest parses and says what cowtop needs; the Containerfile runs the same arguments"
[ "$rc" -eq 0 ] || { sed 's/^/    | /' "$work/manifest.err"; exit 1; }
. "$work/manifest.sh"
echo "    args: ${args[*]}; capabilities: $caps"

# Capabilities this machine's root does not have cannot be given; say which.
have=$(capsh --decode="$(awk '/^CapBnd/ { print $2 }' /proc/self/status)" 2>/dev/null | sed 's/.*=//')
given=
for c in ${caps//,/ }; do
	if [ -n "$have" ] && ! grep -qw "cap_${c#+}" <<<"$have"; then
		echo "    this machine's bounding set lacks cap_${c#+}: run without it"
		continue
	fi
	given=$given,$c
done

# The mechanism and fallbacks with every privilege, to compare with.
full=$("$COWTOP" -b -n 1 -f json 2>/dev/null | jq -r '"\(.mechanism) \(.fallbacks)"' | tail -n 1)

# The pod: its own namespaces but the host's PIDs.
unshare --mount --net --uts --ipc --cgroup --fork --kill-child -- sh -c '
	set -e
	ip link set lo up
	mount -t tmpfs tmpfs /tmp
	[ "$1" = no ] || mount -o remount,bind,ro /
	shift
	exec "$@"' sh "$readonly" \
	setpriv --bounding-set=-all"$given" --inh-caps=-all --no-new-privs \
	"$image/cowtop" "${args[@]}" >"$work/pod.out" 2>&1 &
pod=$!

# The pod's cowtop, once it runs (bounded).
for _ in $(seq 1 100); do
	cowtop_pid=$(pgrep -P "$pod" -x cowtop | head -n 1)
	[ -n "$cowtop_pid" ] && [ "$(readlink "/proc/$cowtop_pid/exe")" = "$image/cowtop" ] && break
	cowtop_pid=
	sleep 0.1
done
[ -n "$cowtop_pid" ]
say $? "cowtop runs in the pod's namespaces"
[ -n "$cowtop_pid" ] || { sed 's/^/    | /' "$work/pod.out"; exit 1; }

# A scrape from inside the pod's network namespace, at the pod's address.
scrape() {
	nsenter --net="/proc/$cowtop_pid/ns/net" curl -sf "http://127.0.0.1:$port/metrics"
}
# The sum of every series of the copy counter.
copies() {
	scrape | awk '/^cowtop_cow_pages_total/ { s += $NF } END { printf "%d\n", s }'
}
up=1
for _ in $(seq 1 100); do
	scrape >"$work/metrics" 2>/dev/null && { up=0; break; }
	sleep 0.1
done
say "$up" "metrics served on port $port of the pod's network"
pidns=$(readlink "/proc/$cowtop_pid/ns/pid")
netns=$(readlink "/proc/$cowtop_pid/ns/net")
[ "$pidns" = "$(readlink /proc/self/ns/pid)" ] && [ "$netns" != "$(readlink /proc/self/ns/net)" ]
say $? "the host's PID namespace, a network namespace of its own"
eff=$(awk '/^CapEff/ { print $2 }' "/proc/$cowtop_pid/status")
echo "    effective capabilities: $(capsh --decode="$eff" 2>/dev/null | sed 's/.*=//')"
info=$(sed -n 's/^cowtop_build_info{.*mechanism="\([^"]*\)",fallbacks="\([^"]*\)"}.*/\1 \2/p' "$work/metrics")
[ -n "$info" ] && [ "$info" = "$full" ]
say $? "the same mechanism and fallbacks as with every privilege: ${info:-none} (full: $full)"

# A workload of another user: its copies are counted (exited processes'
# copies stay in their group's counters).
before=$(copies)
mkdir "$work/nobody" && chown 65534:65534 "$work/nobody"
install -m 755 "$COWLOAD" "$work/cowload" # the build may be out of nobody's reach
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$work/cowload" --child-writes 3000 --report "$work/nobody/report" >/dev/null 2>&1
wrote=$(awk '$1 == "child" || $1 == "main" { for (i = 1; i < NF; i++) if ($i == "wrote") s += $(i + 1) } END { print s + 0 }' \
	"$work/nobody/report" 2>/dev/null)
[ "${wrote:-0}" -gt 0 ]
say $? "the workload (user nobody) reports writing $wrote shared pages"
after=$before
for _ in $(seq 1 150); do
	after=$(copies)
	[ $((after - before)) -ge "$wrote" ] && break
	sleep 0.2
done
[ $((after - before)) -ge "$wrote" ]
say $? "the pod counts them: the copy counters grew by $((after - before)) >= $wrote"

stop_pod
grep -v -e "warning: metrics on a non-loopback address" -e "^cowtop: metrics at http://" "$work/pod.out" | grep . >"$work/pod.err"
[ ! -s "$work/pod.err" ]
say $? "nothing on stderr but where it listens and the non-loopback warning"
sed 's/^/    | /' "$work/pod.err"
exit "$fail"
