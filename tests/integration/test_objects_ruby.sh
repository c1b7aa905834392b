#!/bin/bash
# cowtop --objects on Debian's Ruby 3.1: the heap slot each copy's write fell
# in, its builtin type, and the kind of write (flags word, rest of the slot,
# outside the heap pages).
#
# objfork.rb's master allocates strings (their text in buffers of their own)
# and arrays with its collector disabled, reports the 4 KiB pages each kind
# occupies (from the objects' own addresses), waits until cowtop has shown
# its first frame (its runtime is detected by then), then forks one child:
#   gc          GC.start with young objects: marking writes each object's age
#               into its flags word, so (T_STRING, flags) on about as many
#               pages as hold strings, (T_ARRAY, flags) as hold arrays, and
#               flags most of the child's copies;
#   warm        the same after 4 GC.start in the master (nakayoshi_fork): the
#               objects are old (the master reports how many), marking no
#               longer writes their flags word: flags copies fall below
#               FALL_PCT of the gc run's, none on the strings and arrays;
#   append      appends a character to each string: the character lands in
#               the string's buffer, outside the heap pages, on about as many
#               pages as the buffers' written bytes; the string's own slot
#               is copied too (Ruby clears the string's cached code range in
#               its flags word before it writes the new length after it).
#   sample      the gc run reading 1 copy in 8 (the others read all): the
#               (T_STRING, flags) estimate within half of the truth;
#   ivars       the master has no strings and arrays but instances of two
#               classes of its own, Cowtest::Widget (T_OBJECT) and
#               Cowtest::Point (a Struct: T_STRUCT), widgets of an anonymous
#               subclass and widgets with a singleton class each; the child
#               sets an instance variable of each widget and a member of each
#               point: (T_OBJECT, class Cowtest::Widget, slot) on about as
#               many pages as hold widgets, (T_STRUCT, class Cowtest::Point,
#               slot) as hold points, "(anonymous class)" and "(singleton
#               class)" as hold those (each one row: 2,000 singleton
#               classes do not fill the counter map), and no object of
#               either type whose class is unknown; the class is read from
#               the master's memory (the child has gone by then);
#   blind       the ivars run writing only the objects in a heap page whose
#               64 KiB-aligned address holds no heap page (the master finds
#               them from its objects' addresses; Ruby 3.1's heap pages are
#               16 KiB): under their classes on about as many pages as hold
#               them, none taken for outside writes.
# Each run is recorded (-w): a replay (-r) must give the child's copies by
# write kind, and the ivars child's rows with their classes, as the live
# run showed them, and --diff of the gc and warm
# recordings the flags figures of the two children.
# Bounds: [LOW x truth, truth + SLACK], the truth being what the workload
# measured of itself; truth + 2 x SLACK in the gc run (young objects of
# Ruby's own start-up, on pages of their own), truth + 4 x SLACK for
# outside writes (the child's stack, libc's and malloc's own data are
# outside the heap pages too).
#
# Environment (besides lib.sh's): COWTOP_TEST_RUBY (default /usr/bin/ruby3.1).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/objects.sh"

RUBY=${COWTOP_TEST_RUBY:-/usr/bin/ruby3.1}
OBJFORK=$(dirname "$0")/../workloads/objfork.rb
readonly LOW_PCT=90 FALL_PCT=15 SHARE_PCT=60
OBJ_LOAD=("$RUBY" "$OBJFORK")
OBJ_READY_WAIT=60

setup
[ -x "$RUBY" ] || { echo "SKIP: no ruby at $RUBY"; exit 77; }
"$RUBY" -e 'require "fiddle"' 2>/dev/null || { echo "SKIP: no fiddle in $RUBY"; exit 77; }

# Run one fork of objfork.rb under cowtop, reading 1 copy in SAMPLE and
# recording to NAME.rec: rb_mode NAME SAMPLE -- WORKLOAD_ARGS.
rb_mode() {
	local name=$1 sample=$2
	shift 3
	run_mode "$name" --objects --objects-sample "$sample" --sample-budget 0 \
		-w "$WORK/$name.rec" -- "$@"
}

# Pages of the child's rows of TYPE, class CLASS and write kinds WRITE...:
# class_pages TYPE CLASS WRITE...
class_pages() {
	local t=$1 c=$2
	shift 2
	jq -n -r --argjson child "$CHILD" --arg t "$t" --arg c "$c" --arg w "$*" "$CHILD_OBJ"'
		| [(.cow_objects.top // [])[]
		   | select(.type == $t and .class == $c and (.write as $x | $w | split(" ") | index($x)))
		   | .pages] | add // 0' "$FRAMES"
}

rb_mode gc 1 -- --mode gc
check_runtime gc ruby-3.1
check "gc: the master's objects are young ($(rfield heap 6) old)" \
	test "$(rfield heap 6)" -lt "$(($(rfield main 4) + $(rfield main 6)))"
near "gc: (T_STRING, flags) pages" "$(obj_pages T_STRING flags)" "$(rfield pages 4)" $((2 * SLACK))
near "gc: (T_ARRAY, flags) pages" "$(obj_pages T_ARRAY flags)" "$(rfield pages 6)" $((2 * SLACK))
flags_young=$(by_write flags)
share "gc: flags writes" "$flags_young" "$(by_write all)"
check "gc: flags pages $flags_young within the heap's $(rfield heap 4) pages" \
	in_range "$flags_young" 0 "$(rfield heap 4)"
check_all_sampled gc

rb_mode warm 1 -- --mode gc --warmup 4
objects=$(($(rfield main 4) + $(rfield main 6)))
check "warm: the master's $objects objects are old ($(rfield heap 6) old)" \
	test "$(rfield heap 6)" -ge "$objects"
flags_old=$(by_write flags)
check "warm: flags pages $flags_old below ${FALL_PCT}% of the young run's $flags_young" \
	test "$((flags_old * 100))" -le "$((flags_young * FALL_PCT))"
check "warm: no flags copies of strings and arrays" in_range \
	$(($(obj_pages T_STRING flags) + $(obj_pages T_ARRAY flags))) 0 "$SLACK"

rb_mode append 1 -- --mode append
near "append: (outside heap pages, outside) pages" \
	"$(obj_pages '(outside heap pages)' outside)" "$(rfield pages 8)" $((4 * SLACK))
near "append: (T_STRING, flags or slot) pages" "$(obj_pages T_STRING flags slot)" \
	"$(rfield pages 4)"
check "append: no copies of arrays ($(obj_pages T_ARRAY flags slot))" \
	in_range "$(obj_pages T_ARRAY flags slot)" 0 "$SLACK"

rb_mode sample 8 -- --mode gc
truth=$(rfield pages 4)
check "sample: status says 1 in 8" jq_true '[inputs] | last | .objects.sample == 8'
check "sample: (T_STRING, flags) estimate $(obj_pages T_STRING flags) within half of $truth" \
	in_range "$(obj_pages T_STRING flags)" $((truth / 2)) $((truth * 3 / 2))

rb_mode ivars 1 -- --mode ivars --strings 0 --arrays 0 --widgets 20000 --points 20000 \
	--anons 5000 --singles 2000
near "ivars: (T_OBJECT Cowtest::Widget, slot) pages" \
	"$(class_pages T_OBJECT Cowtest::Widget slot)" "$(rfield pages 10)"
near "ivars: (T_STRUCT Cowtest::Point, slot) pages" \
	"$(class_pages T_STRUCT Cowtest::Point slot)" "$(rfield pages 12)"
unknown=$(($(class_pages T_OBJECT '(class unknown)' flags slot) +
	$(class_pages T_STRUCT '(class unknown)' flags slot)))
check "ivars: objects and structs of unknown class: $unknown pages" in_range "$unknown" 0 "$SLACK"
near "ivars: (T_OBJECT (anonymous class), slot) pages" \
	"$(class_pages T_OBJECT '(anonymous class)' slot)" "$(rfield pages 14)"
near "ivars: (T_OBJECT (singleton class), slot) pages" \
	"$(class_pages T_OBJECT '(singleton class)' slot)" "$(rfield pages 16)"
check "ivars: one row of singleton classes per write kind" jq_true "$CHILD_OBJ"'
	| [.cow_objects.top[] | select(.class == "(singleton class)") | .write]
	| length == (unique | length)' --argjson child "$CHILD"
check "ivars: no sample lost (map full)" jq_true '[inputs] | last | .objects.failed == 0'
check "ivars: a class only on the rows of objects, structs and data" jq_true "$CHILD_OBJ"'
	| [.cow_objects.top[] | select(.type | IN("T_OBJECT", "T_STRUCT", "T_DATA") | not)
	   | has("class")] | any | not' --argjson child "$CHILD"
ivars_child=$CHILD

rb_mode blind 1 -- --mode ivars --strings 0 --arrays 0 --widgets 20000 --points 20000 --blind
truth=$(($(rfield blind 4) + $(rfield blind 6)))
[ "$truth" -gt 0 ] || echo "note: blind: no object in such a page this run, nothing to tell apart"
near "blind: (T_OBJECT Cowtest::Widget or T_STRUCT Cowtest::Point, slot) pages" \
	$(($(class_pages T_OBJECT Cowtest::Widget slot) + $(class_pages T_STRUCT Cowtest::Point slot))) \
	"$truth"

# The child's by_write in the last frame of a replay of run NAME: replayed NAME.
replayed() {
	"$COWTOP" -r "$WORK/$1.rec" -b -f json 2>"$WORK/$1.replay.err" |
		jq -c -n --argjson child "$2" "$CHILD_OBJ"' | .cow_objects.by_write'
}

# Figure NAME's median of side SIDE (a, b) for the child role in the diff: dfig NAME SIDE.
dfig() {
	jq -r --arg n "$1" --arg s "$2" '.roles[] | select(.role == "child")
		| .figures[] | select(.name == $n) | .[$s + "_median"]' "$WORK/diff.json"
}

CHILD=$(awk '$1 == "child" { print $2; exit }' "$WORK/gc.report")
live=$(jq -c -n --argjson child "$CHILD" "$CHILD_OBJ"' | .cow_objects.by_write' "$WORK/gc.json")
expect_eq "replay: the gc child's copies by write kind as shown live" "$(replayed gc "$CHILD")" "$live"
# The child's rows (type, class, write, pages) in the last frame of FILE: rows CHILD FILE.
rows() {
	jq -c -n --argjson child "$1" "$CHILD_OBJ"' | [.cow_objects.top[] | [.type, .class, .write, .pages]]' "$2"
}
"$COWTOP" -r "$WORK/ivars.rec" -b -f json >"$WORK/ivars.replay.json" 2>"$WORK/ivars.replay.err" ||
	fail "replay of ivars: exit status $?"
expect_eq "replay: the ivars child's rows with their classes as shown live" \
	"$(rows "$ivars_child" "$WORK/ivars.replay.json")" "$(rows "$ivars_child" "$WORK/ivars.json")"
"$COWTOP" --diff "$WORK/gc.rec" "$WORK/warm.rec" -f json >"$WORK/diff.json" 2>"$WORK/diff.err" ||
	fail "--diff: exit status $?"
expect_eq "--diff: A's flags writes are the gc child's" "$(dfig 'objects: flags writes' a)" \
	"$flags_young"
expect_eq "--diff: B's flags writes are the warm child's" "$(dfig 'objects: flags writes' b)" \
	"$flags_old"
check "--diff: no figure of a kind neither side has (refcount)" \
	test -z "$(dfig 'objects: refcount writes' a)"

finish
