#!/bin/bash
# configure succeeds without cmocka (users who only build and install need
# no test framework), says which package the unit tests need, and then
# make check stands a test named after that package for the unit tests.
# cmocka is hidden from pkg-config: PKG_CONFIG_LIBDIR points at a directory
# with every other module's .pc file. configure runs in a copy of what it
# needs, so the build tree is left alone.
set -u
: "${srcdir:?run it through make check}"
work=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-configure.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail=0

# Report one check: result message.
say() {
	if [ "$1" -eq 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fail=1; fi
}

command -v pkg-config >/dev/null || { echo "test_configure: no pkg-config" >&2; exit 99; }
pkg-config --exists cmocka || echo "note: cmocka is not installed here anyway"

# Every module pkg-config knows, but cmocka.
mkdir "$work/pc" "$work/tree" "$work/tree/src"
IFS=: read -ra dirs <<<"$(pkg-config --variable pc_path pkg-config)"
for d in "${dirs[@]}"; do
	for pc in "$d"/*.pc; do
		[ -e "$pc" ] || continue
		case ${pc##*/} in cmocka.pc) continue ;; esac
		[ -e "$work/pc/${pc##*/}" ] || ln -s "$pc" "$work/pc/${pc##*/}"
	done
done
! PKG_CONFIG_LIBDIR=$work/pc PKG_CONFIG_PATH='' pkg-config --exists cmocka
say $? "cmocka is hidden from pkg-config"
PKG_CONFIG_LIBDIR=$work/pc PKG_CONFIG_PATH='' pkg-config --exists libbpf ncursesw
say $? "the modules cowtop needs are not"

cp -a "$srcdir/configure" "$srcdir/Makefile.in" "$srcdir/config.h.in" "$srcdir/build-aux" "$work/tree/"
cp "$srcdir/src/main.c" "$work/tree/src/"
chmod -R u+w "$work/tree" # make distcheck's source tree is read-only
(cd "$work/tree" && PKG_CONFIG_LIBDIR=$work/pc PKG_CONFIG_PATH='' ./configure >"$work/out" 2>&1)
rc=$?
say $rc "configure succeeds without cmocka"
[ $rc -eq 0 ] || sed 's/^/    | /' "$work/out" | tail -n 20
grep -q "libcmocka-dev" "$work/out"
say $? "configure names the package the unit tests need"
grep -qE '^UNIT_RUN = tests/unit/need-libcmocka-dev\.sh' "$work/tree/Makefile" &&
	grep -qE '^UNIT_PROGS = *$' "$work/tree/Makefile"
say $? "make check runs the need-libcmocka-dev test instead of the unit tests"
out=$("$srcdir/tests/unit/need-libcmocka-dev.sh")
[ $? -eq 99 ] && [[ $out == *"libcmocka-dev"* ]]
say $? "that test fails, naming the package"
exit "$fail"
