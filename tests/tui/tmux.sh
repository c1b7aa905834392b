# shellcheck shell=bash
# Driving a full-screen program in tmux, for the TUI and hardening tests.
# The caller sets SOCK (a tmux server of its own, so nobody else's sessions
# are touched) and SESSION.

# tmux on the caller's own server.
t() {
	tmux -L "$SOCK" -f /dev/null "$@"
}

# The screen as text.
screen() {
	t capture-pane -p -t "$SESSION"
}

# Stop the tmux server and remove its socket.
tmux_stop() {
	t kill-server 2>/dev/null || true
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
}

# Poll until a command succeeds: eventually SECONDS CMD [ARGS...].
eventually() {
	local deadline=$((SECONDS + $1))
	shift
	while ! "$@" 2>/dev/null; do
		((SECONDS < deadline)) || return 1
		sleep 0.2
	done
}

# Send keys, one argument per key (tmux key names allowed).
keys() {
	local k
	for k in "$@"; do
		t send-keys -t "$SESSION" "$k"
		sleep 0.15
	done
}

screen_has() { screen | grep -qF -- "$1"; }
screen_lacks() { ! screen | grep -qF -- "$1"; }
# The status line (above the footer) and the footer (the last line).
status_line() { screen | tail -n 2 | head -n 1; }
footer() { screen | tail -n 1; }
status_has() { status_line | grep -qF -- "$1"; }
footer_has() { footer | grep -qF -- "$1"; }
line_has() { screen | sed -n "$1p" | grep -qF -- "$2"; }
pane_flag_is() { [[ $(t display -p -t "$SESSION" "#{$1}") == "$2" ]]; }
