/* The live source of frames: the targets say what is watched, the tracer
 * reports it, the collector merges it into the model, and a frame is built
 * per tick for the driver to hand to every sink (driver.c). Its own fds (the
 * ring buffer, the probe rescan timer) join the driver's loop. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "app.h"
#include "collect.h"
#include "driver.h"
#include "frame.h"
#include "loop.h"
#include "output.h"
#include "safefile.h"
#include "sampler.h"
#include "sink.h"
#include "stackfeed.h"
#include "objfeed.h"
#include "targets.h"
#include "tracer.h"
#include "tui.h"

struct app {
	struct source base;             /* first: the driver's view of it */
	struct driver *d;
	struct options *opt;
	struct model *model;
	struct tracer *tracer;
	struct collect collect;
	struct targets targets;
	struct sampler *sampler;        /* smaps_rollup, MemAvailable, memory cgroups */
	struct stackfeed stacks;        /* copies by code path (--stacks, key c) */
	struct objfeed objects;         /* copies by runtime object (--objects) */
	int procfd;
	char host[256];                 /* the host name frames carry */
	double cpu_pct, cpu_prev;       /* our own CPU use: last interval, seconds at the last tick */
	unsigned long long marks_shown; /* probe hits already in a frame */
	double last_tick;
	long frames;
};

static const int app_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH };

/* Our own CPU use over the last dt seconds, in percent. */
static void measure_cpu(struct app *a, double dt)
{
	double cpu = loop_cpu_seconds();

	a->cpu_pct = dt > 0 ? 100.0 * (cpu - a->cpu_prev) / dt : 0;
	a->cpu_prev = cpu;
}

static bool use_tui(const struct app *a);

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

/* Close an interval: collect, sample, present, forget what was shown exited. */
static void tick(struct app *a)
{
	double now = loop_now(), dt = now - a->last_tick, interval;

	a->d->due = false;
	want(a);
	interval = collect__tick(&a->collect, dt);
	stackfeed__tick(&a->stacks);
	objfeed__tick(&a->objects);
	sampler__run(a->sampler, interval);
	measure_cpu(a, dt);
	present(a, interval);
	a->last_tick = now;
	a->frames++;
	collect__forget_exited(&a->collect, a->d->tui != NULL, a->opt->linger);
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

/* Whether to show the full-screen view: not in batch mode, not headless
 * (--exporter), and only on a terminal (otherwise frames go out as batch
 * text). */
static bool use_tui(const struct app *a)
{
	return !a->opt->batch && !a->opt->exporter && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
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
	    loop__add(a->d->loop, tracer__epoll_fd(a->tracer), on_ringbuf, a))
		return driver__fail(a->d, 1, "cannot set up the event loop");
	return 0;
}

/* Open the kernel side for the chosen targets; the collector takes its records. */
static int open_tracer(struct app *a)
{
	struct tracer_root roots[OPT_MAX_PIDS];
	struct tracer_opts to = {
		.watch_all = a->targets.watch_all,
		.roots = roots,
		.nroots = targets__tracer_roots(&a->targets, roots),
		.first_clone_of = a->opt->first_clone_of,
		.cgroup = a->targets.has_cgroup ? &a->targets.cgroup.k : NULL,
		.ringbuf_kib = a->opt->ringbuf_kib,
		.usdt = a->targets.probes != NULL,
		.no_regions = a->opt->no_regions,
		.objects = a->opt->objects,
		.on = collect__handlers(&a->collect),
	};
	char err[256];

	const char *notes;

	if (tracer__open(&a->tracer, &to, err, sizeof(err)))
		return driver__fail(a->d, 1, "%s", err);
	/* What this kernel lacks, a line each, before any view starts. */
	for (notes = tracer__fallback_notes(a->tracer); *notes;) {
		size_t n = strcspn(notes, "\n");

		fprintf(stderr, "cowtop: kernel: %.*s\n", (int)n, notes);
		notes += n + (notes[n] == '\n');
	}
	a->collect.tracer = a->tracer;
	stackfeed__init(&a->stacks, a->tracer, a->model, a->opt->stacks_sample,
			a->opt->folded != NULL);
	if (a->opt->stacks && stackfeed__set(&a->stacks, true))
		return driver__fail(a->d, 1, "stacks: %s", strerror(ENOMEM));
	if (objfeed__init(&a->objects, a->tracer, a->model, a->opt->objects,
			  a->opt->objects_sample ? a->opt->objects_sample : OBJECTS_SAMPLE_DEFAULT))
		return driver__fail(a->d, 1, "objects: %s", strerror(ENOMEM));
	return 0;
}

/* At exit, with --folded: the stacks of the whole run for flame graphs. */
static void write_folded(struct source *src, struct driver *d)
{
	struct app *a = (struct app *)src;
	char err[512];

	if (a->opt->folded && stackfeed__write_folded(&a->stacks, a->opt->folded, err, sizeof(err)))
		driver__fail(a->d, 1, "folded: cannot write %s: %s", a->opt->folded, err);
}

/* Before anything is attached or started: every option given does
 * something in the output chosen, the files written at the end can be
 * (--folded: a new file, in a directory that takes one), and the
 * full-screen view has a terminal it can drive. */
static int check_output(struct app *a)
{
	char err[PATH_MAX + 256], why[256];

	if (options_check_mode(a->opt, use_tui(a), err, sizeof(err)))
		return driver__check(a->d, 2, err);
	if (a->opt->folded && safefile_check_new(a->opt->folded, why, sizeof(why)))
		return driver__fail(a->d, 1, "folded: cannot write %s: %s", a->opt->folded, why);
	if (use_tui(a) && (tui_check_terminal(err, sizeof(err)) ||
			   tui_check_snapshot(a->opt->snapshot, err, sizeof(err))))
		return driver__fail(a->d, 1, "%s", err);
	return 0;
}

/* Get ready: the model, /proc and the sampler; then parse the probes, open
 * the kernel side and the loop, start the targets, show a first frame. */
static int live_start(struct source *src, struct driver *d)
{
	struct app *a = (struct app *)src;
	char err[512];

	a->d = d;
	if (gethostname(a->host, sizeof(a->host) - 1))
		a->host[0] = 0;
	a->model = model__new();
	a->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	collect__init(&a->collect, a->model, a->procfd);
	targets__init(&a->targets, a->opt, &a->collect);
	if (!a->model || a->procfd < 0)
		return driver__fail(d, 1, "cannot open /proc: %s", strerror(errno));
	model__set_period(a->model, a->opt->delay);
	a->sampler = sampler__new(a->model, a->procfd, a->opt->smaps_budget);
	if (!a->sampler)
		return driver__fail(d, 1, "cannot start the memory sampler: %s", strerror(errno));
	if (check_output(a) ||
	    driver__check(d, targets__setup_probes(&a->targets, a->model, err, sizeof(err)), err) ||
	    driver__check(d, targets__resolve_cgroup(&a->targets, err, sizeof(err)), err) ||
	    driver__check(d, targets__resolve_pids(&a->targets, err, sizeof(err)), err) ||
	    open_tracer(a) ||
	    driver__check(d, targets__attach_probes(&a->targets, err, sizeof(err)), err) ||
	    setup_loop(a) ||
	    driver__open_sinks(d, use_tui(a)) ||
	    driver__check(d, targets__start(&a->targets, use_tui(a), err, sizeof(err)), err) ||
	    (use_tui(a) && open_tui(a)))
		return -1;
	a->last_tick = loop_now();
	return 0;
}

/* Let go of the machine: the feeds, the targets, the kernel side, the model. */
static void live_free(struct source *src)
{
	struct app *a = (struct app *)src;

	stackfeed__free(&a->stacks);
	objfeed__free(&a->objects);
	targets__free(&a->targets);
	tracer__free(a->tracer);
	sampler__free(a->sampler);
	collect__free(&a->collect);
	model__free(a->model);
	if (a->procfd >= 0)
		close(a->procfd);
}

static const struct source_ops live_ops = {
	.start = live_start, .tick = live_tick, .action = live_action, .signal = live_signal,
	.finish = write_folded, .free = live_free,
};

/* Run until stopped; returns the exit status. */
int app_run(struct options *opt)
{
	struct app a = { .base.ops = &live_ops, .opt = opt, .procfd = -1 };

	return driver_run(opt, &a.base);
}
