/* cowtop's run: wiring only. The targets say what is watched, the tracer
 * reports it, the collector merges it into the model, a frame is built per
 * tick and handed to every sink (the screen, batch output, and whatever
 * other view the options open); signals, the refresh timer, the ring buffer,
 * the terminal and the sinks' own fds share one epoll loop. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "app.h"
#include "collect.h"
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
	struct options *opt;
	struct model *model;
	struct tracer *tracer;
	struct collect collect;
	struct targets targets;
	struct sampler *sampler;        /* smaps_rollup, MemAvailable, memory cgroups */
	struct stackfeed stacks;        /* copies by code path (--stacks, key c) */
	struct objfeed objects;         /* copies by runtime object (--objects) */
	struct loop *loop;
	struct tui *tui;                /* NULL in batch mode */
	struct sink *sinks;             /* the views frames go to, in order */
	int procfd, sigfd, timerfd;
	char host[256];                 /* the host name frames carry */
	double cpu_pct, cpu_prev;       /* our own CPU use: last interval, seconds at the last tick */
	unsigned long long marks_shown; /* probe hits already in a frame */
	double last_tick;
	long frames;
	bool final_due;                 /* everything watched is gone: one last frame */
	bool stop;
	int exit_code;
};

static const int app_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH };

/* Print a runtime error and remember to exit with status. */
static int __attribute__((format(printf, 3, 4)))
app_fail(struct app *a, int status, const char *fmt, ...)
{
	va_list ap;

	fputs("cowtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	a->exit_code = status;
	return -1;
}

/* Report a step's failure (status, message in err); 0 passes through. */
static int app_check(struct app *a, int status, const char *err)
{
	if (!status)
		return 0;
	if (status == 2)
		return app_fail(a, 2, "%s; see 'cowtop --help'", err);
	return app_fail(a, status, "%s", err);
}

/* Our own CPU use over the last dt seconds, in percent. */
static void measure_cpu(struct app *a, double dt)
{
	double cpu = loop_cpu_seconds();

	a->cpu_pct = dt > 0 ? 100.0 * (cpu - a->cpu_prev) / dt : 0;
	a->cpu_prev = cpu;
}

static bool use_tui(const struct app *a);

/* The views that frames go to, each opened when the options ask for it. */
static const sink_open_fn sink_makers[] = {
	batch_sink_open,
	exporter_sink_open,
	record_sink_open,
};

/* A sink's notice: on the status line of the full-screen view, else stderr. */
static void app_notice(void *ctx, const char *msg)
{
	struct app *a = ctx;

	if (a->tui)
		tui__notice(a->tui, msg);
	else
		fprintf(stderr, "cowtop: %s\n", msg);
}

/* Act on a sink's answer: a failure ends the run with status 1, a reader
 * gone ends it quietly. */
static void sink_answer(struct app *a, enum sink_status st, const char *err)
{
	if (st == SINK_FAILED)
		app_fail(a, 1, "%s", err);
	if (st != SINK_OK)
		a->stop = true;
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
	struct sink *s;
	char err[512];

	st.bpf_stats = tracer__bpf_run_seconds(a->tracer, &st.bpf_run_seconds) == 0;
	vo.no_rows = vo.no_groups = true;
	for (s = a->sinks; s; s = s->next) {
		if (s->history > vo.hist)
			vo.hist = s->history;
		vo.no_rows = vo.no_rows && s->own_rows;
		vo.no_groups = vo.no_groups && s->own_groups;
	}
	f = frame__build(a->model, &st, &vo, &a->marks_shown);
	if (!f)
		return;
	for (s = a->sinks; s && !a->stop; s = s->next)
		sink_answer(a, s->ops->frame(s, f, err, sizeof(err)), err);
	frame__free(f);
}

/* Open the sinks the options ask for, in the makers' order. */
static int open_sinks(struct app *a)
{
	struct sink_env env = { .opt = a->opt, .loop = a->loop, .tui = use_tui(a),
				.notice = app_notice, .notice_ctx = a };
	struct sink **tail = &a->sinks;
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(sink_makers) / sizeof(*sink_makers); i++) {
		int status = 1;

		if (sink_makers[i](&env, tail, &status, err, sizeof(err)))
			return app_check(a, status, err);
		if (*tail)
			tail = &(*tail)->next;
	}
	return 0;
}

/* The run ends: let each sink write what it owes, then free them all. */
static void close_sinks(struct app *a, bool flush)
{
	struct sink *s, *next;
	char err[512];

	for (s = a->sinks; s; s = next) {
		next = s->next;
		if (flush && s->ops->close)
			sink_answer(a, s->ops->close(s, err, sizeof(err)), err);
		s->ops->free(s);
	}
	a->sinks = NULL;
}

/* Whether every process needs reading from source (TUI_SOURCE_STAT: /proc
 * stat each tick; TUI_SOURCE_SMAPS: smaps_rollup on the sampler's budget): a
 * view other than the screen shows them all, or the screen sorts by them. */
static bool needs_every_proc(const struct app *a, unsigned source)
{
	const struct sink *s;

	for (s = a->sinks; s; s = s->next)
		if (!s->screen_only)
			return true;
	return a->tui && (tui__sort_sources(a->tui) & source);
}

/* Tell the collector and the sampler what the views show: the rows on
 * screen are read first, and only they each tick when that is enough. */
static void want(struct app *a)
{
	int pids[COLLECT_WANT_MAX];
	size_t n = a->tui ? tui__visible(a->tui, pids, COLLECT_WANT_MAX) : 0;

	collect__want(&a->collect, pids, n, needs_every_proc(a, TUI_SOURCE_STAT));
	sampler__want(a->sampler, pids, n, needs_every_proc(a, TUI_SOURCE_SMAPS));
}

/* Batch output has shown everything watched end: stop, and say so if a
 * probe the command was to map never appeared. */
static void end_batch(struct app *a)
{
	char err[256];

	a->stop = true;
	if (targets__missing_probes(&a->targets, err, sizeof(err)))
		app_fail(a, 1, "%s", err);
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

	a->final_due = false;
	want(a);
	interval = collect__tick(&a->collect, dt);
	stackfeed__tick(&a->stacks);
	objfeed__tick(&a->objects);
	sampler__run(a->sampler, interval);
	measure_cpu(a, dt);
	present(a, interval);
	a->last_tick = now;
	a->frames++;
	collect__forget_exited(&a->collect, a->tui != NULL, a->opt->linger);
	trim_heap(a);
	if (a->opt->iterations && a->frames >= a->opt->iterations)
		a->stop = true;
	if (!a->tui && targets__done(&a->targets))
		end_batch(a);
}

/* The refresh timer fired. */
static void on_timer(int fd, unsigned events, void *ctx)
{
	loop_timer_expirations(fd);
	tick(ctx);
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
	if (!a->tui && a->frames > 0 && model__count(a->model) == 0)
		end_batch(a);
	else
		a->final_due = true;
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
	if (!a->tui && !a->stop) {
		targets__end_command(&a->targets);
		if (a->targets.cmd_reaped)
			a->exit_code = a->targets.cmd_status;
		collect__drain(&a->collect);
		tick(a);
	}
	a->stop = true;
}

/* A signal arrived through the signalfd. */
static void on_signal(int fd, unsigned events, void *ctx)
{
	struct app *a = ctx;
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			targets__reap(&a->targets);
			if (a->targets.cmd_reaped)
				a->exit_code = a->targets.cmd_status;
			drain(a);
			break;
		case SIGWINCH:
			if (a->tui)
				tui__resize(a->tui);
			break;
		default:
			end_by_signal(a);
		}
	}
}

/* The probe rescan timer fired. */
static void on_scan_timer(int fd, unsigned events, void *ctx)
{
	struct app *a = ctx;

	targets__rescan(&a->targets);
}

/* Keys (or a hang-up) on the terminal. */
static void on_stdin(int fd, unsigned events, void *ctx)
{
	struct app *a = ctx;

	if (events & (EPOLLHUP | EPOLLERR)) {
		a->stop = true; /* the terminal went away: nobody to show anything to */
		return;
	}
	switch (tui__input(a->tui)) {
	case TUI_QUIT:
		a->stop = true;
		break;
	case TUI_STACKS_TOGGLE:
		if (stackfeed__set(&a->stacks, tui__stacks(a->tui)))
			a->stop = true; /* out of memory */
		break;
	case TUI_DELAY_CHANGED:
		loop_timer_set(a->timerfd, tui__delay(a->tui), tui__delay(a->tui));
		model__set_period(a->model, tui__delay(a->tui));
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
	int e = tui__open(&a->tui, &to);

	if (e)
		return app_fail(a, 1, "cannot start the full-screen view: %s", strerror(-e));
	if (loop__add(a->loop, STDIN_FILENO, on_stdin, a))
		return app_fail(a, 1, "cannot read the terminal");
	tui__sink(a->tui)->next = a->sinks; /* the screen first */
	a->sinks = tui__sink(a->tui);
	present(a, 0);
	return 0;
}

/* Set up the loop: signals, timers, ring buffer. */
static int setup_loop(struct app *a)
{
	a->loop = loop__new();
	if (!a->loop)
		return app_fail(a, 1, "cannot create the event loop: %s", strerror(errno));
	a->sigfd = loop_signalfd(app_signals, sizeof(app_signals) / sizeof(*app_signals), NULL);
	a->timerfd = loop_timerfd(a->opt->delay);
	if (a->sigfd < 0 || a->timerfd < 0)
		return app_fail(a, 1, "cannot set up signals and timer: %s", strerror(errno));
	if ((a->targets.scanfd >= 0 && loop__add(a->loop, a->targets.scanfd, on_scan_timer, a)) ||
	    loop__add(a->loop, a->sigfd, on_signal, a) ||
	    loop__add(a->loop, a->timerfd, on_timer, a) ||
	    loop__add(a->loop, tracer__epoll_fd(a->tracer), on_ringbuf, a))
		return app_fail(a, 1, "cannot set up the event loop");
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
		return app_fail(a, 1, "%s", err);
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
		return app_fail(a, 1, "stacks: %s", strerror(ENOMEM));
	if (objfeed__init(&a->objects, a->tracer, a->model, a->opt->objects,
			  a->opt->objects_sample ? a->opt->objects_sample : OBJECTS_SAMPLE_DEFAULT))
		return app_fail(a, 1, "objects: %s", strerror(ENOMEM));
	return 0;
}

/* At exit, with --folded: the stacks of the whole run for flame graphs. */
static void write_folded(struct app *a)
{
	char err[512];

	if (a->opt->folded && stackfeed__write_folded(&a->stacks, a->opt->folded, err, sizeof(err)))
		app_fail(a, 1, "folded: cannot write %s: %s", a->opt->folded, err);
}

/* Before anything is attached or started: every option given does
 * something in the output chosen, the files written at the end can be
 * (--folded: a new file, in a directory that takes one), and the
 * full-screen view has a terminal it can drive. */
static int check_output(struct app *a)
{
	char err[PATH_MAX + 256], why[256];

	if (options_check_mode(a->opt, use_tui(a), err, sizeof(err)))
		return app_check(a, 2, err);
	if (a->opt->folded && safefile_check_new(a->opt->folded, why, sizeof(why)))
		return app_fail(a, 1, "folded: cannot write %s: %s", a->opt->folded, why);
	if (use_tui(a) && (tui_check_terminal(err, sizeof(err)) ||
			   tui_check_snapshot(a->opt->snapshot, err, sizeof(err))))
		return app_fail(a, 1, "%s", err);
	return 0;
}

/* Parse the probes, open the kernel side and the loop, start the targets. */
static int start(struct app *a)
{
	char err[512];

	if (check_output(a) ||
	    app_check(a, targets__setup_probes(&a->targets, a->model, err, sizeof(err)), err) ||
	    app_check(a, targets__resolve_cgroup(&a->targets, err, sizeof(err)), err) ||
	    app_check(a, targets__resolve_pids(&a->targets, err, sizeof(err)), err) ||
	    open_tracer(a) ||
	    app_check(a, targets__attach_probes(&a->targets, err, sizeof(err)), err) ||
	    setup_loop(a) ||
	    open_sinks(a) ||
	    app_check(a, targets__start(&a->targets, use_tui(a), err, sizeof(err)), err))
		return -1;
	return use_tui(a) ? open_tui(a) : 0;
}

/* Run until stopped; returns the exit status. */
int app_run(struct options *opt)
{
	struct app a = { .opt = opt, .sigfd = -1, .timerfd = -1 };

	signal(SIGPIPE, SIG_IGN);
	if (gethostname(a.host, sizeof(a.host) - 1))
		a.host[0] = 0;
	a.model = model__new();
	a.procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	collect__init(&a.collect, a.model, a.procfd);
	targets__init(&a.targets, opt, &a.collect);
	if (!a.model || a.procfd < 0) {
		app_fail(&a, 1, "cannot open /proc: %s", strerror(errno));
		goto cleanup;
	}
	model__set_period(a.model, opt->delay);
	a.sampler = sampler__new(a.model, a.procfd, opt->smaps_budget);
	if (!a.sampler) {
		app_fail(&a, 1, "cannot start the memory sampler: %s", strerror(errno));
		goto cleanup;
	}
	if (start(&a))
		goto cleanup;
	a.last_tick = loop_now();
	while (!a.stop) {
		if (a.final_due) {
			tick(&a);
			continue;
		}
		if (loop__run_once(a.loop, -1) < 0)
			break;
	}
	write_folded(&a);
	close_sinks(&a, true);
cleanup:
	close_sinks(&a, false);
	tui__free(a.tui);
	stackfeed__free(&a.stacks);
	objfeed__free(&a.objects);
	targets__free(&a.targets);
	loop__free(a.loop);
	if (a.sigfd >= 0)
		close(a.sigfd);
	if (a.timerfd >= 0)
		close(a.timerfd);
	tracer__free(a.tracer);
	sampler__free(a.sampler);
	collect__free(&a.collect);
	model__free(a.model);
	frame__free_spare();
	if (a.procfd >= 0)
		close(a.procfd);
	return a.exit_code;
}
