# shellcheck shell=bash
# The checks of the TUI tests (test_tui.sh, test_keys.sh, test_replay.sh):
# counted passes and failures, a failure shown with the screen as it was,
# and a check retried until it holds. Source it after tmux.sh, from a
# script that sets PASSED=0 and FAILED=0.

# Exit 1 with a message: the tests cannot run at all.
die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# Record a passed check.
pass() {
	PASSED=$((PASSED + 1))
	echo "ok: $*"
}

# Record a failed check, with the time and the screen as it was.
fail() {
	FAILED=$((FAILED + 1))
	echo "FAIL: $* (at $(date +%T))"
	screen | sed 's/^/    | /' || true
}

# Check that a command succeeds within 10 seconds: expect DESC CMD [ARGS...].
expect() {
	local desc=$1
	shift
	if eventually 10 "$@"; then pass "$desc"; else fail "$desc"; fi
}
