#!/bin/bash
# Fetch one of Debian's kernel packages and unpack it, cached:
#   fetch.sh PACKAGE
# PACKAGE is a kernel image package or a meta-package that depends on one
# (linux-image-amd64, linux-image-6.12-amd64). Prints the kernel release
# and the unpacked root: "KVER ROOT". Nothing is installed: the package is
# fetched with apt-get download and unpacked with dpkg-deb -x.
#
# Environment: COWTOP_KERNEL_CACHE (default ~/.cache/cowtop-kernels).
set -euo pipefail

pkg=${1:?usage: fetch.sh PACKAGE}
cache=${COWTOP_KERNEL_CACHE:-$HOME/.cache/cowtop-kernels}
mkdir -p "$cache"

# A meta-package names the image package it pulls in.
image=$pkg
dep=$(apt-cache depends --important "$pkg" 2>/dev/null |
	awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
[ -z "$dep" ] || image=$dep
case $image in
linux-image-[0-9]*) ;;
*) echo "fetch: $pkg names no kernel image package" >&2; exit 1 ;;
esac
kver=${image#linux-image-}
root=$cache/$image

if [ ! -e "$root/.unpacked" ]; then
	dl=$cache/download
	mkdir -p "$dl"
	rm -f "$dl"/"$image"_*.deb
	(cd "$dl" && apt-get download -q "$image" >&2) ||
		{ echo "fetch: cannot download $image (apt-get update first?)" >&2; exit 1; }
	rm -rf "$root"
	dpkg-deb -x "$dl"/"$image"_*.deb "$root"
	rm -f "$dl"/"$image"_*.deb
	# The package ships no modules.dep: depmod makes it, in the cache.
	depmod -b "$root" "$kver"
	touch "$root/.unpacked"
fi
echo "$kver $root"
