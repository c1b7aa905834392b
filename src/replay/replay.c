/* Replay: frames come from a recording (recording.c) instead of the tracer
 * and go to the same views. Its own small run loop: the terminal, signals
 * and one timer that moves to the next frame when the recorded time between
 * them has passed (divided by the speed). In batch mode every frame is
 * printed at once, as batch output printed it live. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "keys.h"
#include "loop.h"
#include "recording.h"
#include "replay.h"
#include "sink.h"
#include "tui.h"

#define SPEED_MAX 64.0
#define SPEED_MIN (1.0 / 64)
#define STEP_MIN 0.01 /* seconds: the fastest frames go by */

struct replay {
	struct options *opt;
	struct recording *rec;
	struct view_opts vo;
	struct loop *loop;
	struct tui *tui;
	int sigfd, timerfd;
	size_t at;        /* frame shown */
	bool playing;
	double speed;
	bool stop;
	int exit_code;
};

static const int replay_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH };

/* Print an error and remember to exit with status 1. */
static int replay_fail(struct replay *r, const char *msg)
{
	fprintf(stderr, "cowtop: %s\n", msg);
	r->exit_code = 1;
	r->stop = true;
	return -1;
}

/* Batch: every frame to stdout, as batch output writes it. */
static int replay_batch(struct replay *r)
{
	struct sink_env env = { .opt = r->opt };
	struct sink *out;
	struct frame *f;
	char err[1024];
	int status = 1;
	size_t k, n = recording__frames(r->rec);

	if (r->opt->iterations && (size_t)r->opt->iterations < n)
		n = (size_t)r->opt->iterations;
	if (batch_sink_open(&env, &out, &status, err, sizeof(err)))
		return replay_fail(r, err);
	for (k = 0; k < n && !r->stop; k++) {
		enum sink_status st;

		if (recording__frame(r->rec, k, &r->vo, &f, err, sizeof(err))) {
			replay_fail(r, err);
			break;
		}
		st = out->ops->frame(out, f, err, sizeof(err));
		frame__free(f);
		if (st == SINK_FAILED)
			replay_fail(r, err);
		if (st != SINK_OK)
			break;
	}
	out->ops->free(out);
	return 0;
}

/* The header's "REPLAY" text: where we are, how fast, playing or not. */
static void status_text(struct replay *r)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%zu/%zu x%g %s", r->at + 1, recording__frames(r->rec), r->speed,
		 r->playing ? "playing" : "paused");
	tui__replay_status(r->tui, buf);
}

/* Arm the timer for the next frame, when playing. */
static void arm(struct replay *r)
{
	double gap;

	if (!r->playing || r->at + 1 >= recording__frames(r->rec)) {
		loop_timer_stop(r->timerfd);
		return;
	}
	gap = (recording__time(r->rec, r->at + 1) - recording__time(r->rec, r->at)) / r->speed;
	loop_timer_set(r->timerfd, gap > STEP_MIN ? gap : STEP_MIN, 0);
}

/* Show frame k; a line that cannot be read is said and the view stays. */
static void go(struct replay *r, size_t k)
{
	struct frame *f = NULL;
	char err[1024];

	r->vo.hist = tui__sink(r->tui)->history; /* as much history as the screen draws */
	if (recording__frame(r->rec, k, &r->vo, &f, err, sizeof(err))) {
		r->playing = false;
		tui__notice(r->tui, err);
	} else {
		r->at = k;
	}
	if (r->playing && r->at + 1 >= recording__frames(r->rec)) {
		r->playing = false;
		tui__notice(r->tui, "end of the recording");
	}
	status_text(r);
	if (f)
		tui__frame(r->tui, f);
	else
		tui__resize(r->tui); /* redraw with the message */
	frame__free(f);
	arm(r);
}

/* The frame with a marker before or after the one shown (d -1 or 1). */
static void to_marker(struct replay *r, int d)
{
	size_t n = recording__frames(r->rec), k = r->at;

	while ((d < 0 && k > 0) || (d > 0 && k + 1 < n)) {
		k = d < 0 ? k - 1 : k + 1;
		if (recording__marked(r->rec, k)) {
			go(r, k);
			return;
		}
	}
	tui__notice(r->tui, d < 0 ? "no probe hit or exit before this frame"
				  : "no probe hit or exit after this frame");
	go(r, r->at);
}

/* Act on a time key. */
static void time_key(struct replay *r)
{
	const char *arg;
	long k;

	switch (tui__time_cmd(r->tui, &arg)) {
	case CMD_PAUSE:
		r->playing = !r->playing && r->at + 1 < recording__frames(r->rec);
		break;
	case CMD_STEP_BACK: r->playing = false; go(r, r->at ? r->at - 1 : 0); return;
	case CMD_STEP_FWD:
		r->playing = false;
		go(r, r->at + 1 < recording__frames(r->rec) ? r->at + 1 : r->at);
		return;
	case CMD_MARK_PREV: to_marker(r, -1); return;
	case CMD_MARK_NEXT: to_marker(r, 1); return;
	case CMD_FASTER: r->speed = r->speed * 2 > SPEED_MAX ? SPEED_MAX : r->speed * 2; break;
	case CMD_SLOWER: r->speed = r->speed / 2 < SPEED_MIN ? SPEED_MIN : r->speed / 2; break;
	case CMD_JUMP:
		k = recording__find(r->rec, arg);
		if (k < 0) {
			tui__notice(r->tui, "jump to HH:MM:SS, HH:MM, +SECONDS from the start or #FRAME");
			break;
		}
		go(r, (size_t)k);
		return;
	default:
		break;
	}
	status_text(r);
	tui__resize(r->tui); /* redraw */
	arm(r);
}

/* Keys (or a hang-up) on the terminal. */
static void on_stdin(int fd, unsigned events, void *ctx)
{
	struct replay *r = ctx;

	(void)fd;
	if (events & (EPOLLHUP | EPOLLERR)) {
		r->stop = true;
		return;
	}
	switch (tui__input(r->tui)) {
	case TUI_QUIT: r->stop = true; break;
	case TUI_TIME: time_key(r); break;
	default: break;
	}
}

/* The recorded time between two frames has passed (at this speed). */
static void on_timer(int fd, unsigned events, void *ctx)
{
	struct replay *r = ctx;

	(void)events;
	loop_timer_expirations(fd);
	if (r->playing && r->at + 1 < recording__frames(r->rec))
		go(r, r->at + 1);
}

/* A signal through the signalfd: a resize, or the end. */
static void on_signal(int fd, unsigned events, void *ctx)
{
	struct replay *r = ctx;
	struct signalfd_siginfo si;

	(void)events;
	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGWINCH)
			tui__resize(r->tui);
		else
			r->stop = true;
	}
}

/* The full-screen view over the recording, playing from its first frame. */
static int replay_tui(struct replay *r)
{
	const struct recording_info *in = recording__info(r->rec);
	struct tui_opts to = {
		.ascii = r->opt->ascii, .snapshot_path = r->opt->snapshot, .sort = r->opt->sort,
		.reverse = r->opt->reverse, .flat = r->opt->flat,
		/* the header's "refresh" is the recorder's */
		.delay = in->delay > 0 ? in->delay : r->opt->delay,
		.replay_host = in->host, .replay_kernel = in->kernel,
		.allow = ACTIONS_REPLAY, /* time only: the recorded processes are not here */
	};
	char err[256];
	int e;

	if (tui_check_terminal(err, sizeof(err)) || tui_check_snapshot(r->opt->snapshot, err, sizeof(err)))
		return replay_fail(r, err);
	r->loop = loop__new();
	r->sigfd = loop_signalfd(replay_signals, sizeof(replay_signals) / sizeof(*replay_signals), NULL);
	r->timerfd = loop_timerfd(0);
	if (!r->loop || r->sigfd < 0 || r->timerfd < 0 ||
	    loop__add(r->loop, r->sigfd, on_signal, r) || loop__add(r->loop, r->timerfd, on_timer, r))
		return replay_fail(r, "cannot set up the event loop");
	e = tui__open(&r->tui, &to);
	if (e) {
		snprintf(err, sizeof(err), "cannot start the full-screen view: %s", strerror(-e));
		return replay_fail(r, err);
	}
	if (loop__add(r->loop, STDIN_FILENO, on_stdin, r))
		return replay_fail(r, "cannot read the terminal");
	r->playing = true;
	go(r, 0);
	if (recording__warning(r->rec)[0])
		tui__notice(r->tui, recording__warning(r->rec));
	tui__resize(r->tui);
	while (!r->stop)
		if (loop__run_once(r->loop, -1) < 0)
			break;
	return 0;
}

/* Replay opt->replay; returns the exit status. */
int replay_run(struct options *opt)
{
	struct replay r = { .opt = opt, .sigfd = -1, .timerfd = -1, .speed = 1 };
	char err[1024];

	signal(SIGPIPE, SIG_IGN);
	r.vo = (struct view_opts){ .sort = opt->sort, .reverse = opt->reverse, .tree = !opt->flat };
	if (recording__open(&r.rec, opt->replay, err, sizeof(err))) {
		fprintf(stderr, "cowtop: %s\n", err);
		return 1;
	}
	if (!opt->batch && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
		replay_tui(&r);
	} else {
		if (recording__warning(r.rec)[0])
			fprintf(stderr, "cowtop: warning: %s\n", recording__warning(r.rec));
		replay_batch(&r);
	}
	tui__free(r.tui);
	loop__free(r.loop);
	if (r.sigfd >= 0)
		close(r.sigfd);
	if (r.timerfd >= 0)
		close(r.timerfd);
	recording__free(r.rec);
	return r.exit_code;
}
