#!/bin/bash
# The bash completion offers every option cowtop --help lists, the sort
# keys and formats, and running pids for -p, also after a comma.
set -u
: "${srcdir:?run it through make check}"
: "${COWTOP:?run it through make check}"
fail=0

# Report one check: result message.
say() {
	if [ "$1" -eq 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fail=1; fi
}

# shellcheck source=/dev/null
. "$srcdir/completions/cowtop" || exit 99

# The completions of the command line "$@" (the last word being completed).
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_cowtop cowtop "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}"
}

opts=$(complete_words cowtop --)
missing=
for o in $("$COWTOP" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
	grep -qx -- "$o" <<<"$opts" || missing="$missing $o"
done
[ -z "$missing" ]
say $? "every option of --help is offered${missing:+ (missing:$missing)}"

complete_words cowtop --st | sort | tr '\n' ' ' | grep -qx -- '--stacks --stacks-sample '
say $? "--st completes to --stacks and --stacks-sample"

sleep 30 &
kid=$!
trap 'kill $kid 2>/dev/null' EXIT
complete_words cowtop -p "" | grep -qx "$kid"
say $? "-p offers a running pid"
complete_words cowtop -p "1,$kid" | grep -qx "1,$kid"
say $? "-p 1,PID completes the pid after the comma"
! complete_words cowtop -p x | grep -q .
say $? "-p offers nothing for what no pid starts with"
complete_words cowtop -s s | grep -qx shared
say $? "-s offers the sort keys"
complete_words cowtop -f "" | sort | tr '\n' ' ' | grep -qx 'json text '
say $? "-f offers text and json"
exit "$fail"
