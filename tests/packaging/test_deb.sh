#!/bin/bash
# The Debian package: built from the distributed files (make distdir, so a
# release tarball builds it too) with dpkg-buildpackage -us -uc -b, lintian
# clean of errors and warnings, then installed with dpkg -i: the program
# runs (--version, the demo in batch), the man page, the completion, the
# README, the copyright file, the monitoring examples (scrape job, rules,
# dashboard; compressed or not, as debhelper chooses) and the exporter's
# unit are in place, the unit
# not enabled; dpkg --purge then leaves nothing behind (no file of dpkg -L,
# nothing named cowtop in /etc, /var/lib or /usr). A cowtop installed from
# source (under /usr/local) is neither used nor changed; a cowtop package
# installed beforehand is not replaced (the test skips).
# Needs root (dpkg -i, the demo loads BPF programs).
set -u
: "${abs_top_builddir:?run it through make check}"
MAKE=${MAKE:-make}
name=test_deb
fail=0

# Report one check: result message.
say() {
	if [ "$1" -eq 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fail=1; fi
}
skip() {
	echo "$name: skipped: $*"
	exit 77
}

[ "${COWTOP_DEB_TEST:-on}" != off ] || skip "COWTOP_DEB_TEST=off (scripts/test.sh: the package was built from this tree in make check)"
[ "$(id -u)" -eq 0 ] || skip "must run as root (dpkg -i, BPF)"
for tool in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian; do
	command -v "${tool%%:*}" >/dev/null || skip "${tool%%:*} is missing: install ${tool#*:} (scripts/deps.sh does)"
done
if dpkg-query -W -f='${db:Status-Abbrev}' cowtop 2>/dev/null | grep -q '^.[^n]'; then
	skip "a cowtop package is already installed: not replacing it"
fi

version=$(sed -n 's/^PACKAGE_VERSION = //p' "$abs_top_builddir/Makefile")
[ -n "$version" ] || { echo "$name: no PACKAGE_VERSION in the Makefile" >&2; exit 99; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-deb.XXXXXX") || exit 99
installed=
# Whatever happens, the package does not stay installed.
cleanup() {
	[ -z "$installed" ] || dpkg_run --purge cowtop >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# dpkg with its arguments, waiting (a bounded number of times) while
# another dpkg or apt holds the lock.
dpkg_run() {
	local tries=0 rc
	while :; do
		dpkg "$@" >"$work/dpkg.out" 2>&1
		rc=$?
		if [ "$rc" -ne 0 ] && grep -q 'lock' "$work/dpkg.out" && [ $((tries += 1)) -lt 300 ]; then
			sleep 1
			continue
		fi
		cat "$work/dpkg.out"
		return "$rc"
	done
}

# What a cowtop installed from source (or anything else) has outside the
# package's reach, to compare after the purge.
others() {
	find /etc /var/lib /usr -name '*cowtop*' -print0 2>/dev/null | sort -z | xargs -0r sha256sum 2>/dev/null
	find /etc /var/lib /usr -name '*cowtop*' 2>/dev/null | sort
	command -v cowtop
}
others >"$work/before"

# Build, from the distributed files.
src=$work/cowtop-$version
if ! $MAKE -s -C "$abs_top_builddir" distdir distdir="$src" >"$work/distdir.log" 2>&1; then
	echo "FAIL: make distdir"
	sed 's/^/    | /' "$work/distdir.log"
	exit 1
fi
# In a clean environment, as a packager's: nothing of make check's (its
# MAKEFLAGS would hand TESTS=this test to the build's own unit-check).
(cd "$src" && env -i PATH="$PATH" HOME="$HOME" LANG=C.UTF-8 ${TMPDIR:+TMPDIR="$TMPDIR"} \
	dpkg-buildpackage -us -uc -b -J"$(nproc)") >"$work/build.log" 2>&1
rc=$?
deb=$work/cowtop_${version}_amd64.deb
changes=$work/cowtop_${version}_amd64.changes
[ "$rc" -eq 0 ] && [ -f "$deb" ] && [ -f "$changes" ]
say $? "dpkg-buildpackage -us -uc -b builds $(basename "$deb")"
if [ "$fail" -ne 0 ]; then
	tail -n 60 "$work/build.log" | sed 's/^/    | /'
	exit 1
fi
grep -E '^# (TOTAL|PASS|FAIL|ERROR):' "$work/build.log" | sed 's/^/    unit tests in the build: /'

# lintian: no error and no warning (each accepted tag is overridden in
# debian/, with its reason).
lintian --fail-on error,warning --pedantic -I "$changes" >"$work/lintian.txt" 2>&1
say $? "lintian: no error, no warning"
grep -v '^running with root privileges' "$work/lintian.txt" | sed 's/^/    | /'

# Install.
dpkg_run -i "$deb" >"$work/install.log" 2>&1
rc=$?
installed=yes
say "$rc" "dpkg -i"
[ "$rc" -eq 0 ] || sed 's/^/    | /' "$work/install.log"
list=$(dpkg -L cowtop 2>/dev/null)
files=$(printf '%s\n' "$list" | while read -r p; do [ -d "$p" ] || echo "$p"; done)
echo "installed:"
printf '%s\n' "$files" | sed 's/^/    /'

# Whether the package installed this file.
has() {
	printf '%s\n' "$files" | grep -qxF "$1"
}
bin=/usr/sbin/cowtop
has $bin && [ -x $bin ]
say $? "the program in /usr/sbin"
out=$($bin --version 2>&1)
[ "$out" = "cowtop $version" ]
say $? "$bin --version says: $out (expected: cowtop $version)"
timeout -k 5 60 $bin --demo -b -n 2 >"$work/demo.txt" 2>&1
rc=$?
workers=$(grep -c ' demo-worker$' "$work/demo.txt")
[ "$rc" -eq 0 ] && grep -q ' demo-master$' "$work/demo.txt" && [ "$workers" -ge 2 ]
say $? "$bin --demo -b -n 2: exit $rc, a master and its workers in 2 frames ($workers worker rows)"
[ "$rc" -eq 0 ] || sed 's/^/    | /' "$work/demo.txt"
has /usr/share/man/man8/cowtop.8.gz && zcat /usr/share/man/man8/cowtop.8.gz | grep -q '^\.TH COWTOP 8 .*"cowtop '"$version"'"'
say $? "the man page cowtop(8), of this version"
has /usr/share/bash-completion/completions/cowtop
say $? "the bash completion"
has /usr/share/doc/cowtop/README.md.gz
say $? "the README"
for f in prometheus-scrape.yml cowtop-rules.yml cowtop-alerts.yml cowtop-dashboard.json; do
	has "/usr/share/doc/cowtop/examples/$f" || has "/usr/share/doc/cowtop/examples/$f.gz"
	say $? "the monitoring example $f"
done
has /usr/share/doc/cowtop/copyright && grep -q '^License: GPL-2$' /usr/share/doc/cowtop/copyright
say $? "the copyright file (GPL-2, as COPYING)"
unit=/lib/systemd/system/cowtop-exporter.service
has $unit && grep -qx "ExecStart=$bin --exporter" $unit
say $? "the exporter's unit, starting $bin"
enabled=$(find /etc/systemd -name cowtop-exporter.service 2>/dev/null)
[ -z "$enabled" ]
say $? "the unit is not enabled${enabled:+ ($enabled)}"
# No process of the unit either (installing never starts it).
! pgrep -f "^$bin --exporter" >/dev/null
say $? "no exporter running"

# Purge: every file of dpkg -L is gone; a directory stays only when another
# package owns it or it holds something else.
dpkg_run --purge cowtop >"$work/purge.log" 2>&1
rc=$?
say "$rc" "dpkg --purge"
[ "$rc" -ne 0 ] || installed=
left=$(printf '%s\n' "$list" | while read -r p; do
	[ -n "$p" ] && [ -e "$p" ] || continue
	if [ -d "$p" ]; then
		dpkg -S "$p" >/dev/null 2>&1 || [ -n "$(ls -A "$p")" ] || echo "$p"
	else
		echo "$p"
	fi
done)
[ -z "$left" ]
say $? "nothing of dpkg -L is left${left:+ (left: $left)}"
status=$(dpkg-query -W -f='${db:Status-Abbrev}' cowtop 2>/dev/null)
[ -z "$status" ] && [ -z "$(find /var/lib/dpkg/info -name 'cowtop.*')" ]
say $? "dpkg knows nothing of cowtop${status:+ (status: $status)}"
others >"$work/after"
changed=$(diff "$work/before" "$work/after")
[ -z "$changed" ]
say $? "nothing named cowtop changed in /etc, /var/lib, /usr (a source install untouched)${changed:+: $changed}"
exit "$fail"
