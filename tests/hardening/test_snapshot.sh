#!/usr/bin/env bash
# Hardening: the snapshot key (w) of the full-screen view, writing to -o
# PATH where PATH is a symbolic link to a file (the file is left alone), a
# dangling link, a directory, a FIFO (cowtop must not block on it), a
# device, on a read-only file system, on a full one. Each time the status
# line gives the path and the reason, and no partial or temporary file is
# left. A regular file cowtop did not write is refused too, and keeps its
# bytes and mode; a new file is written 0600, and the next w replaces the
# file this run wrote (and nothing else).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DIR=
SNAP=

# Nothing but what a case put there: no temporary file (".snap.txt.*").
no_temp() {
	[ -z "$(find "$DIR" -maxdepth 1 -name '.snap.txt.*')" ]
}

# No snapshot message on screen.
no_message() {
	! screen_has "snapshot"
}

# Clear the status line, press w, wait for a snapshot message.
snapshot_key() {
	keys x
	eventually 5 no_message || true
	keys w
}

# w with the path as a case made it: refused_case DESC REASON.
refused_case() {
	local desc=$1 reason=$2
	snapshot_key
	expect "$desc: the status line gives path and reason" screen_has "snapshot: cannot write $SNAP: $reason"
	check "$desc: no temporary file left" no_temp
}

# The header clock moves: the view did not block.
clock_moves() {
	local a b
	a=$(screen | head -n 1 | awk '{ print $2 }')
	sleep 1.2
	b=$(screen | head -n 1 | awk '{ print $2 }')
	[ -n "$a" ] && [ "$a" != "$b" ]
}

# Mount a tmpfs on DIR with options; remember it for the cleanup.
mount_tmpfs() {
	mount -t tmpfs -o "$1" cowtop-test "$DIR"
	MOUNTS=("$DIR" "${MOUNTS[@]}")
}

main() {
	local precious before
	hard_setup
	DIR=$WORK/snapdir
	SNAP=$DIR/snap.txt
	mkdir -p "$DIR"
	precious=$WORK/precious
	echo "keep me" >"$precious"
	touch -d '2001-01-01' "$precious"
	before=$(stat -c '%i %s %Y %a' "$precious")
	tui_start 150 30 "$WORK/snap.raw" "'$COWTOP' -d 0.5 -o '$SNAP' -p 1"
	eventually 10 screen_has "COMMAND" || die "cowtop shows nothing: $(screen)"

	ln -s "$precious" "$SNAP"
	refused_case "symbolic link to a file" "is a symbolic link"
	expect_eq "symbolic link: the file it points to is untouched" "$(stat -c '%i %s %Y %a' "$precious")" "$before"
	expect_eq "symbolic link: the file it points to keeps its text" "$(cat "$precious")" "keep me"
	check "symbolic link: still the link" test -L "$SNAP"
	rm "$SNAP"

	ln -s "$WORK/nowhere" "$SNAP"
	refused_case "dangling symbolic link" "is a symbolic link"
	check "dangling symbolic link: nothing created where it points" test ! -e "$WORK/nowhere"
	rm "$SNAP"

	mkdir "$SNAP"
	refused_case "directory" "is a directory"
	check "directory: still empty" test -z "$(ls -A "$SNAP")"
	rmdir "$SNAP"

	mkfifo "$SNAP"
	refused_case "FIFO" "is a FIFO"
	check "FIFO: the view did not block on it" clock_moves
	check "FIFO: still a FIFO" test -p "$SNAP"
	rm "$SNAP"

	mknod "$SNAP" c 1 7 # like /dev/full
	refused_case "device" "is a device"
	check "device: still the device" test -c "$SNAP"
	rm "$SNAP"

	mount_tmpfs ro,size=64k
	refused_case "read-only file system" "Read-only file system"
	check "read-only file system: nothing written" test ! -e "$SNAP"

	mount -o remount,rw,size=16k "$DIR"
	dd if=/dev/zero of="$DIR/fill" bs=4k 2>/dev/null || true
	refused_case "full file system" "No space left on device"
	check "full file system: no partial snapshot" test ! -e "$SNAP"
	expect_eq "full file system: only the filler is there" "$(ls -A "$DIR")" fill
	umount "$DIR"
	MOUNTS=("${MOUNTS[@]:1}")

	echo "old text" >"$SNAP"
	chmod 644 "$SNAP"
	touch -d '2001-01-01' "$SNAP"
	before=$(stat -c '%i %s %Y %a' "$SNAP")
	refused_case "a file cowtop did not write" "it exists: cowtop writes only new files"
	expect_eq "a file cowtop did not write: its inode, size, time and mode stay" \
		"$(stat -c '%i %s %Y %a' "$SNAP")" "$before"
	expect_eq "a file cowtop did not write: its text stays" "$(cat "$SNAP")" "old text"
	rm "$SNAP"

	snapshot_key
	expect "a new file: written, and said so" screen_has "snapshot written to $SNAP"
	check "a new file: the snapshot" grep -q '^cowtop ' "$SNAP"
	expect_eq "a new file: mode 0600" "$(stat -c %a "$SNAP")" 600
	check "a new file: no temporary file left" no_temp
	before=$(stat -c %i "$SNAP")
	snapshot_key
	expect "the file this run wrote: written again" screen_has "snapshot written to $SNAP"
	check "the file this run wrote: replaced by a new one" test "$(stat -c %i "$SNAP")" != "$before"
	check "the file this run wrote: no temporary file left" no_temp
	keys q
	expect "cowtop quits" screen_has "COWTOP-EXIT=0"
	hard_finish
}

main "$@"
