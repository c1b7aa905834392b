#!/bin/bash
# The kernel matrix: boot each of Debian's kernels the users run under qemu
# (TCG), the host's root file system shared read-only, and run the smoke
# set (smoke.sh) in it against this build. See README.md.
#
# Environment:
#   COWTOP_KERNEL_MATRIX  auto (default): run when qemu is installed, else
#                         skip; required: anything missing fails (CI);
#                         off: skip
#   COWTOP_KERNELS        packages to boot (default: linux-image-amd64,
#                         Debian 12's 6.1, and linux-image-6.12-amd64)
#   COWTOP_KERNEL_CACHE   downloads and initramfs images
#                         (default ~/.cache/cowtop-kernels)
#   COWTOP, COWLOAD, REGIONLOAD, PHASELOAD
#                         as for tests/integration (make check sets them)
#   PROCFS_TESTS          the /proc readers' unit tests, run in each guest
#                         when built (default smoke.sh's test_procfs_*
#                         programs in UNIT_TEST_DIR, ./tests/unit unless set)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$0" .sh)
mode=${COWTOP_KERNEL_MATRIX:-auto}
kernels=${COWTOP_KERNELS:-linux-image-amd64 linux-image-6.12-amd64}
cache=${COWTOP_KERNEL_CACHE:-$HOME/.cache/cowtop-kernels}
export COWTOP_KERNEL_CACHE=$cache
COWTOP=$(realpath "${COWTOP:-./cowtop}")
COWLOAD=$(realpath "${COWLOAD:-./tests/workloads/cowload}")
REGIONLOAD=$(realpath "${REGIONLOAD:-./tests/workloads/regionload}")
PHASELOAD=$(realpath "${PHASELOAD:-./tests/workloads/phaseload}")
UNIT_TEST_DIR=$(realpath "${UNIT_TEST_DIR:-./tests/unit}")
procfs_tests=
for t in ${PROCFS_TESTS:-}; do
	procfs_tests="$procfs_tests $(realpath "$t")"
done

# Skip, or fail when the matrix is required.
unable() {
	if [ "$mode" = required ]; then
		echo "$name: FAIL: $*"
		exit 1
	fi
	echo "$name: skipped: $*"
	exit 77
}

[ "$mode" != off ] || { echo "$name: skipped (COWTOP_KERNEL_MATRIX=off)"; exit 77; }
[ "$(id -u)" -eq 0 ] || unable "must run as root"
for tool in qemu-system-x86_64 busybox modprobe depmod cpio apt-get dpkg-deb; do
	command -v "$tool" >/dev/null || unable "$tool is missing (scripts/deps.sh installs it)"
done
[ -x "$COWTOP" ] && [ -x "$COWLOAD" ] || unable "cowtop or cowload not built"
mkdir -p "$cache"

failed=0
total_start=$(date +%s.%N)
summary=()
for pkg in $kernels; do
	start=$(date +%s.%N)
	if ! read -r kver root < <("$here/fetch.sh" "$pkg" 2>"$cache/fetch.err" || true) ||
		[ -z "${root:-}" ]; then
		echo "FAIL: $pkg: cannot fetch the kernel: $(tail -n 1 "$cache/fetch.err")"
		failed=$((failed + 1))
		continue
	fi
	initrd=$cache/initrd-$kver.img
	if [ ! -s "$initrd" ] || [ "$here/guest-init.sh" -nt "$initrd" ] ||
		[ "$here/mkinitrd.sh" -nt "$initrd" ]; then
		"$here/mkinitrd.sh" "$kver" "$root" "$initrd"
	fi
	res=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-kernel.XXXXXX")
	cat >"$res/run.sh" <<RUN
#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export COWTOP='$COWTOP' COWLOAD='$COWLOAD' REGIONLOAD='$REGIONLOAD' PHASELOAD='$PHASELOAD' TMPDIR=/tmp
export UNIT_TEST_DIR='$UNIT_TEST_DIR' PROCFS_TESTS='$procfs_tests'
exec bash '$here/smoke.sh' /tmp/results
RUN
	chmod 755 "$res/run.sh"
	"$here/boot.sh" "$kver" "$root" "$initrd" "$res" /tmp/results/run.sh \
		>"$res/console.log" 2>&1 || true
	# Under TCG the guest kernel has been seen to oops in its own text
	# patching (int3 in exc_page_fault while tracepoints are switched): an
	# emulation fault, not cowtop's. Said, kept, and booted once more.
	if [ ! -e "$res/smoke.rc" ] && grep -q 'Kernel panic' "$res/console.log"; then
		echo "note: $kver: the guest kernel panicked ($(grep -m1 -o 'Oops: .*' "$res/console.log")); console kept in $res/panic.log; booting once more"
		mv "$res/console.log" "$res/panic.log"
		"$here/boot.sh" "$kver" "$root" "$initrd" "$res" /tmp/results/run.sh \
			>"$res/console.log" 2>&1 || true
	fi
	secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')
	grep -E '^(FAIL|kernel |time:|smoke:|cowtop:)' "$res/console.log" | sed "s/^/  $kver: /" || true
	# the line may come without its newline through the share (read then
	# fails though it has set the fields)
	p= f=
	read -r _ p f <"$res/smoke.rc" 2>/dev/null || true
	if [ "$f" = 0 ] && [ "${p:-0}" -gt 0 ]; then
		echo "ok: $kver ($pkg): smoke set passed ($p checks) in ${secs}s, boot included"
		rm -rf "$res"
	else
		echo "FAIL: $kver ($pkg): smoke set ${p:-did not finish} passed ${f:-?} failed in ${secs}s; console in $res/console.log"
		tail -n 20 "$res/console.log" | sed 's/^/  | /'
		failed=$((failed + 1))
	fi
	summary+=("$kver ${secs}s")
done
echo "$name: ${summary[*]}; the matrix took $(awk -v s="$total_start" -v e="$(date +%s.%N)" \
	'BEGIN { printf "%.0f", e - s }')s"
echo "$name: $failed kernel(s) failed"
[ "$failed" -eq 0 ]
