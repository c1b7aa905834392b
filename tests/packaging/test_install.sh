#!/bin/bash
# make install DESTDIR=... puts the program, the man page, the bash
# completion, the docs (README, license) and the monitoring examples
# (scrape job, rules, dashboard) under the prefix, and nothing outside it;
# make uninstall takes them all away again.
set -u
: "${abs_top_builddir:?run it through make check}"
MAKE=${MAKE:-make}
dest=$(mktemp -d "${TMPDIR:-/tmp}/cowtop-install.XXXXXX") || exit 99
log=$dest.log
trap 'rm -rf "$dest" "$log"' EXIT
fail=0

# Report one check: result message.
say() {
	if [ "$1" -eq 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fail=1; fi
}

prefix=$(sed -n 's/^prefix = //p' "$abs_top_builddir/Makefile")
[ -n "$prefix" ] || { echo "test_install: no prefix in the Makefile" >&2; exit 99; }
if ! $MAKE -s -C "$abs_top_builddir" install DESTDIR="$dest" >"$log" 2>&1; then
	echo "FAIL: make install"
	sed 's/^/    | /' "$log"
	exit 1
fi
files=$(cd "$dest" && find . ! -type d | sed 's|^\.||' | sort)
echo "installed:"
printf '%s\n' "$files" | sed 's/^/    /'

# Whether exactly one installed file matches the pattern.
has() {
	[ "$(printf '%s\n' "$files" | grep -cE "$1")" -eq 1 ]
}
has "^$prefix/sbin/cowtop\$" && [ -x "$dest$prefix/sbin/cowtop" ]
say $? "the program, executable"
has "^$prefix/share/man/man8/cowtop\\.8\$"
say $? "the man page"
has "/bash-completion/completions/cowtop\$" || has "/bash_completion\\.d/cowtop\$"
say $? "the bash completion"
has "^$prefix/share/doc/cowtop/README\\.md\$"
say $? "the README"
has "^$prefix/share/doc/cowtop/COPYING\$"
say $? "the license"
for f in prometheus-scrape.yml cowtop-rules.yml cowtop-alerts.yml cowtop-dashboard.json; do
	has "^$prefix/share/doc/cowtop/examples/$f\$"
	say $? "the monitoring example $f"
done
outside=$(printf '%s\n' "$files" | grep -v "^$prefix/")
[ -z "$outside" ]
say $? "nothing outside the prefix ${outside:+($outside)}"
"$dest$prefix/sbin/cowtop" --version >/dev/null 2>&1
say $? "the installed program runs"

$MAKE -s -C "$abs_top_builddir" uninstall DESTDIR="$dest" >"$log" 2>&1
left=$(cd "$dest" && find . ! -type d)
[ -z "$left" ]
say $? "make uninstall removes every file ${left:+(left: $left)}"
exit "$fail"
