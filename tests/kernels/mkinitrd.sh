#!/bin/bash
# Build the tiny initramfs that boots a kernel of fetch.sh into the host's
# root file system: mkinitrd.sh KVER ROOT OUT
# Static busybox, the package's own modules for virtio PCI, 9p over virtio
# and overlay (decompressed: busybox's insmod loads plain .ko files, in
# dependency order), and init (guest-init.sh).
set -euo pipefail

kver=$1 root=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
busybox=$(command -v busybox) || { echo "mkinitrd: busybox-static is missing" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,mod}
cp "$busybox" "$tmp/bin/busybox"
cp "$here/guest-init.sh" "$tmp/init"
chmod 755 "$tmp/init"
: >"$tmp/mod/order"
for m in virtio_pci 9pnet_virtio 9p overlay; do
	modprobe -d "$root" -S "$kver" --show-depends "$m" | while read -r kind path _; do
		[ "$kind" = insmod ] || continue # builtin
		name=$(basename "$path")
		name=${name%.xz}
		name=${name%.zst}
		grep -qx "$name" "$tmp/mod/order" && continue
		case $path in
		*.xz) xz -dc "$path" >"$tmp/mod/$name" ;;
		*.zst) zstd -qdc "$path" >"$tmp/mod/$name" ;;
		*) cp "$path" "$tmp/mod/$name" ;;
		esac
		echo "$name" >>"$tmp/mod/order"
	done
done
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
