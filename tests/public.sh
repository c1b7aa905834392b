# shellcheck shell=bash
# A copy of a program that an unprivileged user can run, for the tests that
# run cowtop as nobody. The build may live anywhere, under a directory of
# mode 0700 too (a clone in a private folder), where nobody cannot reach it.

# Copy an executable into WORK/bin (WORK made traversable by others)
# and print the copy's path: public_copy PATH.
public_copy() {
	chmod go+x "$WORK"
	mkdir -p -m 755 "$WORK/bin"
	install -m 755 "$1" "$WORK/bin/"
	echo "$WORK/bin/$(basename "$1")"
}
