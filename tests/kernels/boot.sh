#!/bin/bash
# Boot a kernel unpacked by fetch.sh under qemu (TCG: no /dev/kvm needed),
# the host's root shared read-only, RESULTS read-write, and run COMMAND in
# it: boot.sh KVER ROOT INITRD RESULTS COMMAND
# COMMAND is one word, a path in the host's tree (no spaces). Output on the
# serial console comes to stdout. Exits with qemu's status; the command's
# own status is what it writes into RESULTS.
set -euo pipefail

kver=$1 root=$2 initrd=$3 results=$4 cmd=$5
vmlinuz=$root/boot/vmlinuz-$kver
[ -r "$vmlinuz" ] || { echo "boot: no $vmlinuz" >&2; exit 1; }
accel=tcg cpu=max
[ -w /dev/kvm ] && [ "${COWTOP_KERNEL_KVM:-0}" = 1 ] && accel=kvm cpu=host
exec timeout -k 10 "${COWTOP_KERNEL_TIMEOUT:-900}" qemu-system-x86_64 \
	-M q35 -accel "$accel" -cpu "$cpu" -m "${COWTOP_KERNEL_MEM:-2G}" -smp "${COWTOP_KERNEL_CPUS:-1}" \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-append "console=ttyS0 rdinit=/init panic=-1 quiet loglevel=3 cowtop.run=$cmd" \
	-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$results",mount_tag=results,security_model=none \
	-display none -serial stdio -no-reboot -nic none -monitor none
