#!/usr/bin/env bash
# Hardening: process names are untrusted bytes. A watched process names
# itself (prctl PR_SET_NAME) with terminal escapes (CSI, OSC, 8-bit C1),
# invalid UTF-8, control characters, a bidi override, and a name that mimics
# the /proc/PID/stat layout ("a) R 1 2 (b" and a newline). Each must show
# as visible, harmless text in the tree, the header and status line, the
# snapshot file, batch text and JSON; the bytes cowtop writes to the
# terminal (recorded) never hold the injected sequence; rows stay one line,
# columns aligned; state, ppid and start time are parsed right.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Names (printf formats, at most 15 bytes) and how text output shows them.
NAMES=(
	'x\033[2Jevil'
	'\033]0;x\007t'
	'c1\2331;31m'
	'u\377\376\300\257'
	'n\n\r\t\bz'
	'a) R 1 2 (b\n'
	'k\302\233m'
	'r\342\200\256x'
	'z\342\200\213w'
	'\357\273\277bom'
	'sh\302\255y'
	'h\343\205\244f'
	'q\342\201\247p'
	'\314\201lead'
	't\363\240\201\201'
	'p\356\200\200'
	'u\315\270'
)
SHOWN=(
	'x\e[2Jevil'
	'\e]0;x\x07t'
	'c1\x9b1;31m'
	'u\xff\xfe\xc0\xaf'
	'n\n\r\t\x08z'
	'a) R 1 2 (b\n'
	'k\u009bm'
	'r\u202ex'
	'z\u200bw'
	'\ufeffbom'
	'sh\u00ady'
	'h\u3164f'
	'q\u2067p'
	'\u0301lead'
	't\U000e0041'
	'p\ue000'
	'u\u0378'
)
# Those that are valid UTF-8: JSON gives them back byte for byte.
VALID_UTF8=(0 1 4 5 6 7 8 9 10 11 12 13 14 15 16)
# Of those, the invisible and spoofing ones: JSON escapes them (\uXXXX),
# so the raw line shows them as the text views do.
INVISIBLE=(6 7 8 9 10 11 12 13 14 15 16)

hexes() {
	local n
	for n in "${NAMES[@]}"; do
		printf '%s ' "$(hex "$n")"
	done
}

# Whether every given child has taken its name (it renames itself just
# after the fork; a loaded machine may take a while): named PID...
named() {
	local p
	for p in "$@"; do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" != hardload ] || return 1
	done
}

# The pids of the named children, in NAMES order, from a "name PID HEX"
# listing: child_pids FILE.
child_pids() {
	local n h
	for n in "${NAMES[@]}"; do
		h=$(hex "$n")
		awk -v h="$h" '$1 == "name" && $3 == h { print $2 }' "$1"
	done
}

# The start time (field 22) of a pid, read past the last ')' of its stat.
real_start() {
	LC_ALL=C sed -z 's/.*) //' "/proc/$1/stat" | tr '\0' ' ' | awk '{ print $20 }'
}

# Screen rows: lines that start with a pid and a state letter.
rows() {
	screen | grep -E '^ *[0-9]+ [A-Z?] ' || true
}

row_of() {
	rows | awk -v pid="$1" '$1 == pid'
}

# Every named child has exactly one row, showing its escaped name.
names_shown() {
	local i pid row
	for i in "${!NAMES[@]}"; do
		pid=${PIDS[$i]}
		[ "$(row_of "$pid" | wc -l)" -eq 1 ] || return 1
		row=$(row_of "$pid")
		[[ $row == *"${SHOWN[$i]}" ]] || return 1
	done
}

# Length of a string in characters (UTF-8).
chars() {
	local LC_ALL=C.UTF-8
	echo "${#1}"
}

# The names start in the same column on every child row, after the same
# fixed columns: nothing shifted the line. Widths in characters (UTF-8).
columns_aligned() {
	local pid row col first=
	for pid in "${PIDS[@]}"; do
		row=$(row_of "$pid")
		[[ $row =~ ^\ *[0-9]+\ S\  ]] || return 1
		row=${row%%"─ "*}
		[[ $TREE == utf8 ]] || row=$(row_of "$pid" | sed 's/[|`]- .*//')
		col=$(chars "$row")
		[ -n "$first" ] || first=$col
		[ "$col" -eq "$first" ] || return 1
	done
	[ "$(screen | wc -l)" -eq 40 ]
}

# The raw bytes written to the terminal hold none of the injected
# sequences (curses' own escapes are fine; these never come from it).
raw_clean() {
	local raw=$1 n
	for n in "${NAMES[@]}"; do
		! raw_has "$raw" "$n" || return 1
	done
	! raw_has "$raw" '\033]' &&
		! raw_has "$raw" '\377' && ! raw_has "$raw" '\376' &&
		! raw_has "$raw" '\t\bz'
}

# In ASCII mode no byte at all is 8-bit.
raw_ascii() {
	! LC_ALL=C grep -q $'[\x80-\xff]' "$1"
}

# The snapshot: one file, 0600, every escaped name in it, no control byte
# but newlines, valid UTF-8.
snapshot_clean() {
	local f=$1 i
	[ -f "$f" ] && [ "$(stat -c %a "$f")" = 600 ] || return 1
	for i in "${!SHOWN[@]}"; do
		grep -qF -- "${SHOWN[$i]}" "$f" || return 1
	done
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$f" &&
		iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1
}

# The full-screen view in a locale, on a command run through a symlink with
# a hostile name (header), snapshot file name hostile too (status line).
tui_mode() {
	local lang=$1 raw=$WORK/raw-$1 evil snap cmdpid
	TREE=$2
	evil=$WORK/$(printf 'x\033[2Jevil')
	snap=$WORK/$(printf 'snap-%s\033]0;x\007.txt' "$lang")
	ln -sf "$HARDLOAD" "$evil"
	tui_start 150 40 "$raw" "cd '$WORK' && LANG=$lang LC_ALL= '$COWTOP' -d 0.5 -o '$snap' -- '$evil' names 120 $(hexes)"
	eventually 10 pgrep -P "$PANE_COWTOP" >/dev/null || die "the command did not start"
	cmdpid=$(pgrep -P "$PANE_COWTOP" | head -n 1)
	eventually 10 screen_has "$cmdpid" || die "the command is not shown: $(screen)"
	kill -USR1 "$cmdpid"
	# the children say nothing (their output is silenced): find them by name
	eventually 10 children_named "$cmdpid" || die "the named children did not start"
	mapfile -t PIDS < <(child_pids "$WORK/names-$lang.list")
	expect "$lang: every hostile name shown escaped, one row each" names_shown
	expect "$lang: the root row shows the command's hostile name" screen_has " x\\e[2Jevil"
	expect "$lang: line 1 is still the header (the screen was not cleared)" line_has 1 "cowtop "
	expect "$lang: the header shows the hostile command path escaped" line_has 2 "x\\e[2Jevil"
	expect "$lang: rows one line each, columns aligned" columns_aligned
	keys N Home j F
	expect "$lang: the status line names the followed process escaped" \
		screen_has "following PID ${PIDS[0]} x\\e[2Jevil"
	keys w
	expect "$lang: the status line gives the hostile snapshot path escaped" \
		screen_has "snapshot written to $WORK/snap-$lang\\e]0;x\\x07.txt"
	check "$lang: the snapshot holds the names escaped, no control bytes" snapshot_clean "$snap"
	keys q
	expect "$lang: cowtop quits" screen_has "COWTOP-EXIT=0"
	check "$lang: no injected sequence reached the terminal" raw_clean "$raw"
	if [ "$TREE" = ascii ]; then
		check "$lang: no 8-bit byte reached the terminal" raw_ascii "$raw"
	fi
	t kill-session -t "$SESSION" 2>/dev/null || true
}

# Children of pid, with the names we gave them, as "name PID HEX" lines.
children_named() {
	local kid n h list=$WORK/names-$lang.list
	: >"$list"
	for kid in $(pgrep -P "$1" || true); do
		h=$(od -An -tx1 <"/proc/$kid/comm" | tr -d ' \n')
		h=${h%0a} # comm ends with a newline
		echo "name $kid $h" >>"$list"
	done
	[ "$(child_pids "$list" | wc -l)" -eq "${#NAMES[@]}" ]
}

# No control byte but newlines, nothing 8-bit.
plain_ascii() {
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f-\xff]' "$1"
}

# No control byte but newlines, valid UTF-8.
plain_utf8() {
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$1" && iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
}

# In batch text, the names of the children of ppid start in one column.
one_name_column() {
	[ "$(grep -E "^ *[0-9]+ +$2 " "$1" | awk '{ print index($0, "- ") }' | sort -u | wc -l)" -eq 1 ]
}

# The JSON comm of pid (last frame) holds U+FFFD.
comm_has_fffd() {
	jq -n -e --argjson p "$1" '[inputs.processes[] | select(.pid == $p)] | last | .comm | test("\ufffd")' \
		"$FRAMES" >/dev/null
}

# The raw JSON lines hold the escape of each invisible name, never its bytes.
json_escapes_invisible() {
	local i
	for i in "${INVISIBLE[@]}"; do
		! raw_has "$FRAMES" "${NAMES[$i]}" || return 1
	done
	grep -qF 'r\u202ex' "$FRAMES" && grep -qF 't\udb40\udc41' "$FRAMES"
}

# Batch text and JSON, watching a fresh set of named children with -p.
batch_modes() {
	local text=$WORK/names.txt i pid got want hx
	read -ra hx <<<"$(hexes)"
	start_hardload names names 60 "${hx[@]}"
	kill -USR1 "$HL_PID"
	wait_lines "$WORK/names.out" $((${#NAMES[@]} + 1)) 10 || die "the named children did not start"
	mapfile -t PIDS < <(child_pids "$WORK/names.out")
	eventually 10 named "${PIDS[@]}" || die "the children did not name themselves"

	run_cowtop_plain names-text -b -d 0.3 -n 3 -p "$HL_PID"
	cp "$WORK/names-text.out" "$text"
	expect_eq "batch text: exit status" "$RC" 0
	check "batch text: no control or 8-bit byte but newlines" plain_ascii "$text"
	for i in "${!NAMES[@]}"; do
		pid=${PIDS[$i]}
		got=$(awk -v p="$pid" '$1 == p' "$text" | tail -n 1)
		if [[ $got == *" ${SHOWN[$i]}" ]]; then
			pass "batch text: pid $pid shown as ${SHOWN[$i]}"
		else
			fail "batch text: pid $pid shown as '$got', expected '${SHOWN[$i]}'"
		fi
		expect_eq "batch text: pid $pid ppid column" "$(awk '{ print $2 }' <<<"$got")" "$HL_PID"
		expect_eq "batch text: pid $pid state column" "$(awk '{ print $3 }' <<<"$got")" S
	done
	expect_eq "batch text: one line per process per frame" \
		"$(grep -cE '^ *[0-9]+ +[0-9]+ [A-Za-z?]' "$text")" $((3 * (${#NAMES[@]} + 1)))
	check "batch text: names start in one column" one_name_column "$text" "$HL_PID"

	run_cowtop names-json -p "$HL_PID" -n 3
	expect_eq "JSON: exit status" "$RC" 0
	check "JSON: one valid object per line" json_lines "$FRAMES"
	check "JSON: no control byte, valid UTF-8" plain_utf8 "$FRAMES"
	for i in "${!NAMES[@]}"; do
		pid=${PIDS[$i]}
		expect_eq "JSON: pid $pid ppid is its real parent" \
			"$(jq -n -r --argjson p "$pid" '[inputs.processes[] | select(.pid == $p)] | last | .ppid' "$FRAMES")" "$HL_PID"
		expect_eq "JSON: pid $pid state" \
			"$(jq -n -r --argjson p "$pid" '[inputs.processes[] | select(.pid == $p)] | last | .state' "$FRAMES")" S
		expect_eq "JSON: pid $pid start_time is the real one" \
			"$(jq -n -r --argjson p "$pid" '[inputs.processes[] | select(.pid == $p)] | last | .start_time' "$FRAMES")" \
			"$(real_start "$pid")"
	done
	for i in "${VALID_UTF8[@]}"; do
		pid=${PIDS[$i]}
		want=$(hex "${NAMES[$i]}")
		got=$(jq -n -j --argjson p "$pid" '[inputs.processes[] | select(.pid == $p)] | last | .comm' "$FRAMES" |
			od -An -tx1 | tr -d ' \n')
		expect_eq "JSON: pid $pid comm decodes to its exact bytes" "$got" "$want"
	done
	check "JSON: invisible characters escaped in the raw lines" json_escapes_invisible
	for i in "${!NAMES[@]}"; do
		[[ " ${VALID_UTF8[*]} " == *" $i "* ]] && continue
		pid=${PIDS[$i]}
		check "JSON: pid $pid invalid bytes become U+FFFD" comm_has_fffd "$pid"
	done
	kill "$HL_BG" 2>/dev/null || true
}

# Batch text follows the locale: printable UTF-8 names as they are under a
# UTF-8 locale (escaped under C, or with --ascii), invisible ones escaped
# under both.
batch_locale() {
	local name='w\303\266rker-\346\227\245\346\234\254' spoof='r\342\200\256x' pid
	start_hardload locale names 60 "$(hex "$name")" "$(hex "$spoof")"
	kill -USR1 "$HL_PID"
	wait_lines "$WORK/locale.out" 3 10 || die "the named children did not start"
	# shellcheck disable=SC2046 # one argument per pid
	eventually 10 named $(awk '$1 == "name" { print $2 }' "$WORK/locale.out") ||
		die "the children did not name themselves"
	LC_ALL=C.UTF-8 run_cowtop_plain locale-utf8 -b -n 1 -p "$HL_PID"
	expect_eq "UTF-8 locale: batch text exit status" "$RC" 0
	# shellcheck disable=SC2059 # the name is a printf format
	check "UTF-8 locale: batch text shows wörker-日本 as it is" \
		grep -q " $(printf "$name")\$" "$WORK/locale-utf8.out"
	check "UTF-8 locale: batch text escapes U+202E" grep -qF ' r\u202ex' "$WORK/locale-utf8.out"
	check "UTF-8 locale: valid UTF-8, no control byte" plain_utf8 "$WORK/locale-utf8.out"
	LC_ALL=C.UTF-8 run_cowtop_plain locale-ascii -b --ascii -n 1 -p "$HL_PID"
	check "--ascii: batch text escapes wörker-日本" \
		grep -qF ' w\u00f6rker-\u65e5\u672c' "$WORK/locale-ascii.out"
	LC_ALL=C run_cowtop_plain locale-c -b -n 1 -p "$HL_PID"
	check "C locale: batch text escapes wörker-日本" grep -qF ' w\u00f6rker-\u65e5\u672c' "$WORK/locale-c.out"
	check "C locale: batch text escapes U+202E" grep -qF ' r\u202ex' "$WORK/locale-c.out"
	check "C locale: nothing 8-bit" plain_ascii "$WORK/locale-c.out"
	kill "$HL_BG" 2>/dev/null || true
}

main() {
	hard_setup
	command -v iconv >/dev/null || die "iconv is needed"
	batch_locale
	batch_modes
	tui_mode C.UTF-8 utf8
	tui_mode C ascii
	hard_finish
}

main "$@"
