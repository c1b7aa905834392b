#!/bin/sh
# The man page renders without a warning: mandoc's lint at its strictest
# level (style included) and groff with every warning on, for a UTF-8 and an
# ASCII terminal (the devices man(1) uses). A glyph written as \(u25C6 shows
# as "5C6" and makes groff warn; a line over 80 bytes is a mandoc style
# warning.
set -u
page="${srcdir:-.}/man/cowtop.8"
fail=0

[ -r "$page" ] || { echo "test_man: cannot read $page" >&2; exit 99; }
for tool in mandoc groff; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "test_man: $tool not found (Debian package $tool)" >&2
		exit 99
	}
done

# Run a checker; any output or a non-zero status fails the test.
check() {
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
		echo "FAIL: $* (exit $rc)"
		printf '%s\n' "$out" | sed 's/^/    | /'
		fail=1
	else
		echo "PASS: $*"
	fi
}

check mandoc -T lint -W style "$page"
check groff -ww -z -man -Tutf8 "$page"
check groff -ww -z -man -Tascii "$page"
# The page as man(1) shows it has no stray hex of a mangled glyph.
if groff -man -Tutf8 "$page" 2>/dev/null | grep -q '5C[67]'; then
	echo "FAIL: the rendered page shows a mangled glyph (5C6 or 5C7)"
	fail=1
fi
exit "$fail"
