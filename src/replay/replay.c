/* Replay: a source of frames (driver.h) that reads them from a recording
 * (recording.c) instead of the tracer; they go to the same sinks and the
 * same view. One timer moves to the next frame when the recorded time
 * between them has passed (divided by the speed). In batch mode every frame
 * is printed at once, as batch output printed it live. A replay allows the
 * time keys only: the recorded processes are not here to act on. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "driver.h"
#include "keys.h"
#include "loop.h"
#include "recording.h"
#include "replay.h"
#include "sink.h"

#define SPEED_MAX 64.0
#define SPEED_MIN (1.0 / 64)
#define STEP_MIN 0.01 /* seconds: the fastest frames go by */

struct replay {
	struct source base; /* first: the driver's view of it */
	struct driver *d;
	struct options *opt;
	struct recording *rec;
	struct view_opts vo;
	size_t at;        /* frame shown; in batch mode, the next one to print */
	size_t nbatch;    /* frames batch mode prints */
	bool playing;
	double speed;
};

static const int replay_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH };

/* Batch: the next frame to stdout, as batch output writes it; another is
 * due until the last. */
static void batch_next(struct replay *r)
{
	struct frame *f;
	char err[1024];

	if (r->at >= r->nbatch) {
		r->d->stop = true;
		return;
	}
	if (recording__frame(r->rec, r->at, &r->vo, &f, err, sizeof(err))) {
		driver__fail(r->d, 1, "%s", err);
		return;
	}
	driver__present(r->d, f);
	frame__free(f);
	r->at++;
	r->d->due = true;
}

/* The header's "REPLAY" text: where we are, how fast, playing or not. */
static void status_text(struct replay *r)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%zu/%zu x%g %s", r->at + 1, recording__frames(r->rec), r->speed,
		 r->playing ? "playing" : "paused");
	tui__replay_status(r->d->tui, buf);
}

/* Arm the timer for the next frame, when playing. */
static void arm(struct replay *r)
{
	double gap;

	if (!r->playing || r->at + 1 >= recording__frames(r->rec)) {
		loop_timer_stop(r->d->timerfd);
		return;
	}
	gap = (recording__time(r->rec, r->at + 1) - recording__time(r->rec, r->at)) / r->speed;
	loop_timer_set(r->d->timerfd, gap > STEP_MIN ? gap : STEP_MIN, 0);
}

/* Show frame k; a line that cannot be read is said and the view stays. */
static void go(struct replay *r, size_t k)
{
	struct frame *f = NULL;
	char err[1024];

	r->vo.hist = tui__sink(r->d->tui)->history; /* as much history as the screen draws */
	if (recording__frame(r->rec, k, &r->vo, &f, err, sizeof(err))) {
		r->playing = false;
		tui__notice(r->d->tui, err);
	} else {
		r->at = k;
	}
	if (r->playing && r->at + 1 >= recording__frames(r->rec)) {
		r->playing = false;
		tui__notice(r->d->tui, "end of the recording");
	}
	status_text(r);
	if (f)
		driver__present(r->d, f);
	else
		tui__resize(r->d->tui); /* redraw with the message */
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
	tui__notice(r->d->tui, d < 0 ? "no probe hit or exit before this frame"
				  : "no probe hit or exit after this frame");
	go(r, r->at);
}

/* Act on a time key (the only action a replay allows). */
static void replay_action(struct source *src, struct driver *d, enum tui_action act)
{
	struct replay *r = (struct replay *)src;
	const char *arg;
	long k;

	if (act != TUI_TIME)
		return;
	switch (tui__time_cmd(r->d->tui, &arg)) {
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
			tui__notice(r->d->tui, "jump to HH:MM:SS, HH:MM, +SECONDS from the start or #FRAME");
			break;
		}
		go(r, (size_t)k);
		return;
	default:
		break;
	}
	status_text(r);
	tui__resize(r->d->tui); /* redraw */
	arm(r);
}

/* The recorded time between two frames has passed (at this speed); in
 * batch mode, the next frame is due. */
static void replay_tick(struct source *src, struct driver *d)
{
	struct replay *r = (struct replay *)src;

	if (!d->tui)
		batch_next(r);
	else if (r->playing && r->at + 1 < recording__frames(r->rec))
		go(r, r->at + 1);
}

/* SIGINT, SIGTERM, SIGHUP or SIGQUIT: the end. */
static void replay_signal(struct source *src, struct driver *d, int signo)
{
	(void)src;
	(void)signo;
	d->stop = true;
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

	if (tui_check_terminal(err, sizeof(err)) || tui_check_snapshot(r->opt->snapshot, err, sizeof(err)))
		return driver__fail(r->d, 1, "%s", err);
	if (driver__setup_loop(r->d, replay_signals, sizeof(replay_signals) / sizeof(*replay_signals), 0) ||
	    driver__open_sinks(r->d, true) || driver__open_tui(r->d, &to))
		return -1;
	r->playing = true;
	go(r, 0);
	if (recording__warning(r->rec)[0])
		tui__notice(r->d->tui, recording__warning(r->rec));
	tui__resize(r->d->tui);
	return 0;
}

/* Open the recording; the full-screen view on a terminal, else batch
 * output of every frame (no loop: nothing to wait for). */
static int replay_start(struct source *src, struct driver *d)
{
	struct replay *r = (struct replay *)src;
	struct options *opt = r->opt;
	char err[1024];

	r->d = d;
	r->vo = (struct view_opts){ .sort = opt->sort, .reverse = opt->reverse, .tree = !opt->flat };
	if (recording__open(&r->rec, opt->replay, err, sizeof(err)))
		return driver__fail(d, 1, "%s", err);
	if (!opt->batch && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO))
		return replay_tui(r);
	if (recording__warning(r->rec)[0])
		fprintf(stderr, "cowtop: warning: %s\n", recording__warning(r->rec));
	r->nbatch = recording__frames(r->rec);
	if (opt->iterations && (size_t)opt->iterations < r->nbatch)
		r->nbatch = (size_t)opt->iterations;
	if (driver__open_sinks(d, false))
		return -1;
	d->due = true;
	return 0;
}

static void replay_free(struct source *src)
{
	recording__free(((struct replay *)src)->rec);
}

static const struct source_ops replay_ops = {
	.start = replay_start, .tick = replay_tick, .action = replay_action,
	.signal = replay_signal, .free = replay_free,
};

/* Replay opt->replay; returns the exit status. */
int replay_run(struct options *opt)
{
	struct replay r = { .base.ops = &replay_ops, .opt = opt, .speed = 1 };

	return driver_run(opt, &r.base);
}
