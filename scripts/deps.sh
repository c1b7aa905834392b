#!/usr/bin/env bash
# Install every Debian package cowtop needs to build, test and benchmark.
set -euo pipefail

packages=(
	# build
	autoconf automake make gcc pkg-config
	clang llvm bpftool
	libbpf-dev libelf-dev libdw-dev zlib1g-dev libncurses-dev libmicrohttpd-dev libjson-c-dev
	# tests
	libcmocka-dev tmux jq procps sudo util-linux git
	systemtap-sdt-dev ruby python3.11
	# tests against real servers (tests/integration/test_redis.sh, ...)
	redis-server redis-tools unicorn ruby-rack gunicorn curl
	mandoc groff-base
	prometheus python3 iproute2 python3-prometheus-client # the exporter's tests: a real Prometheus, promtool, clients
	# a real server with USDT probes (tests/integration/test_postgres.sh)
	postgresql-15 postgresql-client-15
	# the kernel matrix (tests/kernels): Debian's kernels booted under qemu (TCG)
	# with a tiny initramfs of static busybox and the kernel's own modules
	qemu-system-x86 busybox-static kmod cpio xz-utils
	# the Debian package (debian/: dpkg-buildpackage -us -uc -b; tests/packaging/test_deb.sh lints it)
	dpkg-dev debhelper lintian
	# the container recipe's test (contrib/container): its manifest parsed
	python3-yaml
	# benchmarks (bench/cpu.sh measures cowtop beside htop)
	bpftrace htop
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: these packages are missing and installing them needs root: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
