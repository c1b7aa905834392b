/* The live source of frames: the targets say what is watched, the tracer
 * reports it, the collector merges it into the model, and a frame is built
 * per tick for the driver to hand to every sink (driver.c). Its own fds (the
 * ring buffer, the probe rescan timer) join the driver's loop. */
#define _GNU_SOURCE
#include <signal.h>
#ifdef __GLIBC__ /* defined by signal.h's features.h */
#include <malloc.h>
#endif
#include "app.h"
#include "app_int.h"
#include "frame.h"
#include "loop.h"
#include "sink.h"
#include "tui.h"

static const int app_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH };

/* Our own CPU use over the last dt seconds, in percent. */
static void measure_cpu(struct app *a, double dt)
{
	double cpu = loop_cpu_seconds();

	a->cpu_pct = dt > 0 ? 100.0 * (cpu - a->cpu_prev) / dt : 0;
	a->cpu_prev = cpu;
}

/* Build the frame of the model now and hand it to every sink. */
static void present(struct app *a, double interval)
{
	struct view_opts vo = { .sort = a->opt->sort, .reverse = a->opt->reverse, .tree = !a->opt->flat };
	unsigned long long lost_by_kind[LOST_KINDS];
	struct frame_status st = {
		.time = loop_wall_now(), .interval = interval, .mechanism = tracer__mechanism(a->tracer),
		.fallbacks = tracer__fallbacks(a->tracer),
		.lost = tracer__lost(a->tracer, lost_by_kind), .lost_by_kind = lost_by_kind,
		.cpu_pct = a->cpu_pct, .cpu_seconds = a->cpu_prev, .host = a->host,
		.target = a->targets.what,
		.usdt = a->targets.probes != NULL,
		.command_done = a->targets.launch.pid > 0 && targets__done(&a->targets),
		.command_status = a->targets.cmd_status,
		.stacks = a->stacks.stacks,
		.objects = a->objects.objects,
	};
	struct frame *f;

	st.bpf_stats = tracer__bpf_run_seconds(a->tracer, &st.bpf_run_seconds) == 0;
	driver__view_opts(a->d, &vo);
	f = frame__build(a->model, &st, &vo, &a->marks_shown);
	if (!f)
		return;
	driver__present(a->d, f);
	frame__free(f);
}

/* Whether every process needs reading from source (TUI_SOURCE_STAT: /proc
 * stat each tick; TUI_SOURCE_SMAPS: smaps_rollup on the sampler's budget): a
 * view other than the screen shows them all, or the screen sorts by them. */
static bool needs_every_proc(const struct app *a, unsigned source)
{
	const struct sink *s;

	for (s = a->d->sinks; s; s = s->next)
		if (!s->screen_only)
			return true;
	return a->d->tui && (tui__sort_sources(a->d->tui) & source);
}

/* Tell the collector and the sampler what the views show: the rows on
 * screen are read first, and only they each tick when that is enough. */
static void want(struct app *a)
{
	int pids[COLLECT_WANT_MAX];
	size_t n = a->d->tui ? tui__visible(a->d->tui, pids, COLLECT_WANT_MAX) : 0;

	collect__want(&a->collect, pids, n, needs_every_proc(a, TUI_SOURCE_STAT));
	sampler__want(a->sampler, pids, n, needs_every_proc(a, TUI_SOURCE_SMAPS));
}

/* Batch output has shown everything watched end: stop, and say so if a
 * probe the command was to map never appeared. */
static void end_batch(struct app *a)
{
	char err[256];

	a->d->stop = true;
	if (targets__missing_probes(&a->targets, err, sizeof(err)))
		driver__fail(a->d, 1, "%s", err);
}

/* Frames between two returns of the heap's free pages to the system. */
#define APP_TRIM_FRAMES 10

/* Give the heap's free pages back once in APP_TRIM_FRAMES frames. Each
 * frame allocates and frees its rows, its output and its map dumps, and
 * processes come and go: glibc keeps what is freed below memory still in
 * use, and a long run's RSS grew with it (in a soak, 70 of a heap's
 * 90 MiB were free pages that malloc_trim gave back). */
static void trim_heap(struct app *a)
{
#ifdef __GLIBC__
	if (a->frames % APP_TRIM_FRAMES == 0)
		malloc_trim(0);
#else
	(void)a;
#endif
}

/* Close an interval: collect, sample, present, forget what was shown exited. */
static void tick(struct app *a)
{
	double now = loop_now(), dt = now - a->last_tick, interval;

	a->d->due = false;
	want(a);
	interval = collect__tick(&a->collect, dt);
	targets__tick(&a->targets);
	stackfeed__tick(&a->stacks);
	objfeed__tick(&a->objects);
	sampler__run(a->sampler, interval);
	measure_cpu(a, dt);
	present(a, interval);
	a->last_tick = now;
	a->frames++;
	collect__forget_exited(&a->collect, a->d->tui != NULL, a->opt->linger);
	trim_heap(a);
	if (a->opt->iterations && a->frames >= a->opt->iterations)
		a->d->stop = true;
	if (!a->d->tui && targets__done(&a->targets))
		end_batch(a);
}

/* The refresh timer fired, or a last frame is due. */
static void live_tick(struct source *src, struct driver *d)
{
	(void)d;
	tick((struct app *)src);
}

/* Take the kernel's records; when nothing is left to watch, a last frame,
 * unless batch output already printed one that showed every exit (the
 * command is often reaped just after a tick showed it exit: a second frame
 * would list nothing). The last frame always holds the last exit. */
static void drain(struct app *a)
{
	collect__drain(&a->collect);
	if (!targets__done(&a->targets))
		return;
	if (!a->d->tui && a->frames > 0 && model__count(a->model) == 0)
		end_batch(a);
	else
		a->d->due = true;
}

/* Ring-buffer records are ready. */
static void on_ringbuf(int fd, unsigned events, void *ctx)
{
	drain(ctx);
}

/* SIGINT, SIGTERM, SIGHUP or SIGQUIT: the run ends. Batch output owes a
 * last frame: a launched command still running is ended first (SIGTERM to
 * its process group), so that frame shows how it ended, and its status
 * becomes cowtop's. */
static void end_by_signal(struct app *a)
{
	if (!a->d->tui && !a->d->stop) {
		targets__end_command(&a->targets);
		if (a->targets.cmd_reaped)
			a->d->exit_code = a->targets.cmd_status;
		collect__drain(&a->collect);
		tick(a);
	}
	a->d->stop = true;
}

/* A signal arrived: a child changed state, or the run ends. */
static void live_signal(struct source *src, struct driver *d, int signo)
{
	struct app *a = (struct app *)src;

	if (signo != SIGCHLD) {
		end_by_signal(a);
		return;
	}
	targets__reap(&a->targets);
	if (a->targets.cmd_reaped)
		d->exit_code = a->targets.cmd_status;
	drain(a);
}

/* The probe rescan timer fired. */
static void on_scan_timer(int fd, unsigned events, void *ctx)
{
	struct app *a = ctx;

	targets__rescan(&a->targets);
}

/* The object sampler's timer fired: look at processes that exec'd lately. */
static void on_objects_timer(int fd, unsigned events, void *ctx)
{
	struct app *a = ctx;

	objfeed__poll(&a->objects);
}

/* A key that acts on the machine: copy stacks on or off, a new refresh interval. */
static void live_action(struct source *src, struct driver *d, enum tui_action act)
{
	struct app *a = (struct app *)src;

	switch (act) {
	case TUI_STACKS_TOGGLE:
		if (stackfeed__set(&a->stacks, tui__stacks(d->tui)))
			d->stop = true; /* out of memory */
		break;
	case TUI_DELAY_CHANGED:
		loop_timer_set(d->timerfd, tui__delay(d->tui), tui__delay(d->tui));
		model__set_period(a->model, tui__delay(d->tui));
		break;
	default:
		break;
	}
}

/* Open the full-screen view, listen to the keyboard, show a first frame. */
static int open_tui(struct app *a)
{
	struct tui_opts to = {
		.ascii = a->opt->ascii, .snapshot_path = a->opt->snapshot,
		.sort = a->opt->sort, .reverse = a->opt->reverse, .flat = a->opt->flat,
		.delay = a->opt->delay, .stacks = a->opt->stacks,
		.allow = ACTIONS_LIVE, /* signals, refresh, stacks: the machine is here */
	};

	if (driver__open_tui(a->d, &to))
		return -1;
	present(a, 0);
	return 0;
}

/* Set up the loop: signals, timers, ring buffer. */
static int setup_loop(struct app *a)
{
	if (driver__setup_loop(a->d, app_signals, sizeof(app_signals) / sizeof(*app_signals),
			       a->opt->delay))
		return -1;
	if ((a->targets.scanfd >= 0 && loop__add(a->d->loop, a->targets.scanfd, on_scan_timer, a)) ||
	    (objfeed__timerfd(&a->objects) >= 0 &&
	     loop__add(a->d->loop, objfeed__timerfd(&a->objects), on_objects_timer, a)) ||
	    loop__add(a->d->loop, tracer__epoll_fd(a->tracer), on_ringbuf, a))
		return driver__fail(a->d, 1, "cannot set up the event loop");
	return 0;
}

/* Get ready: open the machine's side, the loop and the sinks, start the
 * targets, show a first frame. */
static int live_start(struct source *src, struct driver *d)
{
	struct app *a = (struct app *)src;
	char err[512];

	a->d = d;
	if (app__open(a) ||
	    setup_loop(a) ||
	    driver__open_sinks(d, app_use_tui(a)) ||
	    driver__check(d, targets__start(&a->targets, app_use_tui(a), err, sizeof(err)), err) ||
	    (app_use_tui(a) && open_tui(a)))
		return -1;
	a->last_tick = loop_now();
	return 0;
}

/* Let go of the machine's side. */
static void live_free(struct source *src)
{
	app__free((struct app *)src);
}

/* At exit, with --folded: the stacks of the whole run for flame graphs. */
static void live_finish(struct source *src, struct driver *d)
{
	(void)d;
	app__write_folded((struct app *)src);
}

static const struct source_ops live_ops = {
	.start = live_start, .tick = live_tick, .action = live_action, .signal = live_signal,
	.finish = live_finish, .free = live_free,
};

/* Run until stopped; returns the exit status. */
int app_run(struct options *opt)
{
	struct app a = { .base.ops = &live_ops, .opt = opt, .procfd = -1 };

	return driver_run(opt, &a.base);
}
