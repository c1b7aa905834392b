/* cowtop's run: targets -> tracer -> model -> frames, in one epoll loop. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <curses.h>
#include <term.h> /* setupterm(); it defines macros named after capabilities (lines, columns...) */
#include "app.h"
#include "demo.h"
#include "launch.h"
#include "loop.h"
#include "output.h"
#include "probes.h"
#include "procfs.h"
#include "tracer.h"
#include "tui.h"

/* Exited processes the full-screen view keeps at most (dimmed, newest). */
#define LINGER_MAX 1024

static const int app_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH };

/* Nanoseconds per clock tick: the kernel's start times in /proc's unit. */
static unsigned long long ns_per_tick(void)
{
	return 1000000000ULL / (unsigned long long)procfs_clock_ticks();
}

/* Start time in clock ticks from the kernel's nanoseconds. */
static unsigned long long ticks_of(__u64 ns)
{
	return ns / ns_per_tick();
}

/* Wall clock, unix seconds. */
static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Print a runtime error and remember to exit 1. */
static int app_fail(struct app *a, const char *fmt, ...)
{
	va_list ap;

	fputs("cowtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	a->exit_code = 1;
	return -1;
}

/* Update p from /proc; false when the process there is not p any more.
 * One file per process: stat has RSS and VSZ too (statm's resident is the
 * same kernel counter), and /proc reads are most of cowtop's CPU time. */
static bool refresh_from_proc(struct app *a, struct proc *p)
{
	struct proc_stat st;

	if (procfs_read_stat(a->procfd, p->pid, &st) || st.start_time != p->start_time)
		return false;
	model__set_ppid(p, st.ppid);
	p->state = st.state;
	memcpy(p->comm, st.comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
	p->vsz_kib = st.vsize / 1024;
	p->rss_kib = (unsigned long long)(st.rss > 0 ? st.rss : 0) * procfs_page_kib();
	return true;
}

/* Take p's name from a kernel record (16 bytes, maybe unterminated). */
static void set_comm(struct proc *p, const char *comm)
{
	size_t n = strnlen(comm, COWTOP_COMM_LEN);

	memcpy(p->comm, comm, n);
	p->comm[n] = '\0';
}

/* Unix time of a CLOCK_BOOTTIME stamp from the kernel. */
static double wall_of_boot_ns(__u64 ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return wall_now() - (ts.tv_sec + ts.tv_nsec / 1e9 - ns / 1e9);
}

/* A USDT probe hit: into the marker log. */
static void on_usdt_event(struct app *a, const struct cowtop_usdt_event *u)
{
	struct marker mk = {
		.time = wall_of_boot_ns(u->time_ns), .pid = u->pid, .probe = u->probe,
		.nargs = u->nargs > COWTOP_USDT_ARGS ? COWTOP_USDT_ARGS : u->nargs,
	};
	int i;

	for (i = 0; i < COWTOP_USDT_ARGS; i++)
		mk.args[i] = u->args[i];
	model__add_marker(a->model, &mk);
}

/* Copy the kernel's per-phase counters of an exited process into p. */
static void take_final_phases(struct app *a, struct proc *p)
{
	__u64 ph[COWTOP_PHASE_MAX];
	int i;

	if (!a->probes)
		return;
	tracer__phases_of(a->tracer, p->pid, ph);
	for (i = 1; i < COWTOP_PHASE_MAX; i++)
		if (ph[i] > p->phase_cow[i])
			p->phase_cow[i] = ph[i];
}

/* Look for probes in pid's objects for a while: it has just exec'd and its
 * loader is still mapping libraries. */
static void schedule_rescan(struct app *a, int pid)
{
	if (!a->probes || a->nrescan == RESCAN_MAX)
		return;
	a->rescan[a->nrescan] = pid;
	a->rescan_until[a->nrescan++] = loop__now() + 0.5;
	loop__timer_set(a->scanfd, 0.005, 0.02);
}

static void on_proc_event(struct app *a, const struct cowtop_event *e);

/* One ring-buffer record: dispatch on its type. */
static void on_event(const void *data, size_t size, void *ctx)
{
	const __u32 *type = data;

	if (*type == COWTOP_EV_USDT && size >= sizeof(struct cowtop_usdt_event))
		on_usdt_event(ctx, data);
	else if (*type != COWTOP_EV_USDT && size >= sizeof(struct cowtop_event))
		on_proc_event(ctx, data);
}

/* A fork, an exec or an exit of a watched process. */
static void on_proc_event(struct app *a, const struct cowtop_event *e)
{
	unsigned long long start = ticks_of(e->start_ns);
	struct proc *p = model__add(a->model, e->pid, start);

	if (!p)
		return;
	p->in_kernel = true;
	if (e->type == COWTOP_EV_FORK || !p->comm[0])
		set_comm(p, e->comm);
	if (e->type == COWTOP_EV_FORK) {
		p->ppid = e->ppid;
		a->saw_fork = true;
	}
	if (e->type == COWTOP_EV_EXEC) {
		set_comm(p, e->comm);
		schedule_rescan(a, e->pid);
		if (a->launch.pid == (pid_t)e->pid && !a->launch_execd) {
			/* The gated child's own copies before exec are cowtop's, not the command's. */
			a->launch_execd = true;
			model__set_base(p, &e->counts);
		}
	}
	model__set_counts(p, &e->counts);
	if (e->type == COWTOP_EV_EXIT) {
		take_final_phases(a, p);
		model__mark_exited(p, loop__now());
		tracer__forget(a->tracer, e->pid, e->start_ns, ns_per_tick());
	}
}

struct reap {
	int pid;
	__u64 start_ns;
};

struct walk {
	struct app *a;
	struct reap *reap;
	size_t nreap, cap;
};

/* Remember an entry to delete after the map walk (deleting during it restarts it). */
static void walk_reap(struct walk *w, __u32 pid, __u64 start_ns)
{
	if (w->nreap == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct reap *r = realloc(w->reap, cap * sizeof(*r));

		if (!r)
			return;
		w->reap = r;
		w->cap = cap;
	}
	w->reap[w->nreap++] = (struct reap){ pid, start_ns };
}

/* Whether /proc has process pid with this start time (clock ticks). */
static bool proc_is(struct app *a, int pid, unsigned long long start)
{
	struct proc_stat st;

	return procfs_read_stat(a->procfd, pid, &st) == 0 && st.start_time == start;
}

/* One entry of the kernel's counter map, read at a tick. */
static void on_counts(__u32 pid, const struct cowtop_proc *k, void *ctx)
{
	struct walk *w = ctx;
	struct app *a = w->a;
	unsigned long long start = ticks_of(k->start_ns);
	struct proc *p = model__find(a->model, pid, start);

	if (!p) {
		/* Known only from the map: show it once /proc confirms who it
		 * is, or once it has exited. Else it has just gone (its exit
		 * record is on the way) or the entry names no process. */
		if (!k->exited && !proc_is(a, pid, start))
			return;
		p = model__add(a->model, pid, start);
		if (!p)
			return;
		p->ppid = k->ppid;
		if (!refresh_from_proc(a, p) && !k->exited)
			snprintf(p->comm, sizeof(p->comm), "?");
	} else if (p->exited) {
		walk_reap(w, pid, k->start_ns); /* exit already handled */
		return;
	}
	p->in_kernel = true;
	model__set_counts(p, &k->counts);
	if (k->exited) {
		/* Its exit record was lost: the map still has the final counts. */
		take_final_phases(a, p);
		model__mark_exited(p, loop__now());
		walk_reap(w, pid, k->start_ns);
	}
}

/* One per-phase counter of a live process. */
static void on_phase(__u32 pid, __u32 phase, __u64 pages, void *ctx)
{
	struct app *a = ctx;
	struct proc *p = model__find_live(a->model, pid);

	if (p && phase < PHASE_MAX && pages > p->phase_cow[phase])
		p->phase_cow[phase] = pages;
}

/* Read every counter the kernel holds into the model. */
static void collect_counts(struct app *a)
{
	struct walk w = { .a = a };
	size_t i;

	if (a->probes)
		tracer__for_each_phase(a->tracer, on_phase, a);
	tracer__for_each(a->tracer, on_counts, &w);
	/* Exit records of processes the walk just found exited: take them
	 * now, while those processes are still in the model, so that they do
	 * not come back as new exits in the next frame. */
	tracer__drain(a->tracer);
	for (i = 0; i < w.nreap; i++)
		tracer__forget(a->tracer, w.reap[i].pid, w.reap[i].start_ns, ns_per_tick());
	free(w.reap);
}

/* Read /proc for every live process. One gone from /proc is marked exited
 * here when the kernel side does not know it; else its exit record brings
 * the final counts. That record is written before the process leaves /proc,
 * so it has been read by the next frame: a process still gone then, with no
 * exit seen, exited unseen (before cowtop's exit program was attached), and
 * is marked exited with the counts it has. */
static void refresh_all(struct app *a)
{
	size_t i;
	struct proc *p;

	for (i = 0; (p = model__at(a->model, i)); i++) {
		if (p->exited)
			continue;
		if (refresh_from_proc(a, p))
			p->gone = 0;
		else if (!p->in_kernel || ++p->gone >= 2)
			model__mark_exited(p, loop__now());
	}
}

static bool all_done(struct app *a);

/* Fill the status the TUI shows besides the model. */
static void update_status(struct app *a, double interval)
{
	a->status.mechanism = tracer__mechanism(a->tracer);
	a->status.lost = tracer__lost(a->tracer);
	a->status.interval = interval;
	a->status.cpu_pct = a->cpu_pct;
	a->status.target = a->target;
	a->status.command_done = a->launch.pid > 0 && all_done(a);
	a->status.command_status = a->exit_code;
}

/* Emit one frame of the current model. */
static void present(struct app *a, double interval)
{
	struct view_opts vo = {
		.sort = a->opt->sort, .reverse = a->opt->reverse, .tree = !a->opt->flat,
	};
	struct frame fr = {
		.time = wall_now(), .interval = interval, .mechanism = tracer__mechanism(a->tracer),
		.lost = tracer__lost(a->tracer), .model = a->model, .usdt = a->probes != NULL,
	};
	const struct marker *marks[MARK_LOG];
	struct row *rows;

	fr.marks = marks;
	fr.nmarks = a->probes ? model__markers_take(a->model, &a->marks_shown, marks, MARK_LOG) : 0;
	if (a->tui) {
		update_status(a, interval);
		tui__frame(a->tui, a->model, &a->status);
		return;
	}
	if (model__rows(a->model, &vo, &rows, &fr.nrows))
		return;
	fr.rows = rows;
	if (a->opt->format == FORMAT_JSON)
		output_json(stdout, &fr);
	else
		output_text(stdout, &fr);
	if (fflush(stdout) || ferror(stdout))
		a->stop = true; /* reader gone (EPIPE): nothing left to do */
}

/* Whether the watched processes are all gone and nothing more can come. */
static bool all_done(struct app *a)
{
	if (a->watch_all || model__live(a->model) > 0)
		return false;
	if (a->opt->first_clone_of && !a->saw_fork)
		return false; /* the clone has not been born yet */
	return a->launch.pid <= 0 || a->cmd_reaped;
}

/* At the end of a command's run: a probe it never mapped is an error. */
static void report_missing_probes(struct app *a)
{
	char err[256];

	if (a->probes && a->launch.pid > 0 && probes__missing(a->probes, err, sizeof(err)))
		app_fail(a, "%s", err);
}

/* Our own CPU use (user + system) over the last dt seconds, in percent. */
static void measure_cpu(struct app *a, double dt)
{
	struct rusage ru;
	double cpu;

	if (getrusage(RUSAGE_SELF, &ru))
		return;
	cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	a->cpu_pct = dt > 0 ? 100.0 * (cpu - a->cpu_prev) / dt : 0;
	a->cpu_prev = cpu;
}

/* Order exit times, oldest first. */
static int cmp_time(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The exit time up to which exited processes leave the screen: --linger
 * ago, or later when more than LINGER_MAX exited since (a fork storm would
 * keep tens of thousands): then only the newest LINGER_MAX stay. */
static double linger_cutoff(struct app *a, double now)
{
	double cut = now - a->opt->linger, *t;
	size_t i, n = 0;
	struct proc *p;

	for (i = 0; (p = model__at(a->model, i)); i++)
		n += p->exited && p->exit_time > cut;
	if (n <= LINGER_MAX)
		return cut;
	t = malloc(n * sizeof(*t));
	if (!t)
		return now;
	for (i = 0, n = 0; (p = model__at(a->model, i)); i++)
		if (p->exited && p->exit_time > cut)
			t[n++] = p->exit_time;
	qsort(t, n, sizeof(*t), cmp_time);
	cut = t[n - LINGER_MAX - 1];
	free(t);
	return cut;
}

/* Close an interval: collect, compute, present, forget what was shown exited. */
static void tick(struct app *a)
{
	double now = loop__now(), dt = now - a->last_tick;

	a->final_due = false;
	tracer__drain(a->tracer);
	collect_counts(a);
	refresh_all(a);
	model__tick(a->model, dt);
	measure_cpu(a, dt);
	present(a, dt);
	a->last_tick = now;
	a->frames++;
	/* Batch shows an exit in one frame (exits seen during this tick are
	 * later than now: they were in this frame too); the screen keeps it a
	 * while. */
	model__remove_exited(a->model, a->tui ? linger_cutoff(a, now) : loop__now());
	if (a->opt->iterations && a->frames >= a->opt->iterations)
		a->stop = true;
	if (!a->tui && all_done(a)) {
		a->stop = true;
		report_missing_probes(a);
	}
}

/* The refresh timer fired. */
static void on_timer(int fd, unsigned events, void *ctx)
{
	struct app *a = ctx;

	loop__timer_expirations(fd);
	tick(a);
}

/* Ring-buffer records are ready. */
static void on_ringbuf(int fd, unsigned events, void *ctx)
{
	struct app *a = ctx;

	tracer__drain(a->tracer);
	if (all_done(a))
		a->final_due = true;
}

/* Reap the launched command, keeping its status as a shell would report it. */
static void reap_children(struct app *a)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid != a->launch.pid)
			continue;
		a->cmd_reaped = true;
		if (WIFEXITED(status))
			a->exit_code = WEXITSTATUS(status);
		else if (WIFSIGNALED(status))
			a->exit_code = 128 + WTERMSIG(status);
	}
}

/* A signal arrived through the signalfd. */
static void on_signal(int fd, unsigned events, void *ctx)
{
	struct app *a = ctx;
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			reap_children(a);
			tracer__drain(a->tracer);
			if (all_done(a))
				a->final_due = true;
			break;
		case SIGWINCH:
			if (a->tui)
				tui__resize(a->tui, a->model, &a->status);
			break;
		default:
			a->stop = true;
		}
	}
}

/* Start time (ticks) and parent of pid from /proc; -ESRCH when it is gone. */
static int proc_identity(struct app *a, int pid, struct proc_stat *st)
{
	int e = procfs_read_stat(a->procfd, pid, st);

	return e == -ENOENT ? -ESRCH : e;
}

/* Watch one process found in /proc, in the kernel and in the model. */
static int watch_one(struct app *a, const struct proc_stat *st)
{
	struct proc *p = model__add(a->model, st->pid, st->start_time);
	int e = tracer__watch(a->tracer, st->pid, st->ppid, st->start_time * ns_per_tick());

	if (p)
		refresh_from_proc(a, p);
	return e;
}

struct scan {
	struct app *a;
	int added;
};

/* /proc walk step: watch pid if its parent is watched (or everything is). */
static int scan_one(int pid, void *ctx)
{
	struct scan *s = ctx;
	struct proc_stat st;

	if (model__find_live(s->a->model, pid) || proc_identity(s->a, pid, &st))
		return 0;
	if (!s->a->watch_all && !model__find_live(s->a->model, st.ppid))
		return 0;
	if (watch_one(s->a, &st) == 0)
		s->added++;
	return 0;
}

/* Watch the existing descendants of the watched processes (or all processes),
 * walking /proc until no new one turns up. New forks are the kernel's job. */
static void scan_existing(struct app *a)
{
	struct scan s = { .a = a };
	int pass;

	for (pass = 0; pass < 16; pass++) {
		s.added = 0;
		procfs_for_each_pid(a->procfd, scan_one, &s);
		if (!s.added)
			break;
	}
}

/* Watch the -p targets; each must be a live process, not a thread. */
static int watch_pids(struct app *a)
{
	struct proc_stat st;
	int i, tgid;

	for (i = 0; i < a->opt->npids; i++) {
		int pid = a->opt->pids[i];

		tgid = procfs_read_tgid(a->procfd, pid);
		if (tgid < 0)
			return app_fail(a, "no process with PID %d", pid);
		if (tgid != pid)
			return app_fail(a, "%d is a thread of process %d; use -p %d", pid, tgid, tgid);
		if (proc_identity(a, pid, &st))
			return app_fail(a, "no process with PID %d", pid);
		if (watch_one(a, &st))
			return app_fail(a, "cannot watch PID %d: the process map is full", pid);
	}
	scan_existing(a);
	return 0;
}

static bool use_tui(const struct app *a);

/* Before the command runs, look for the probes in its executable (as execvp
 * would find it): those fire from its first instruction. Libraries come
 * after exec, from the rescans. */
static void scan_command_binary(struct app *a, const char *file)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!a->probes)
		return;
	if (strchr(file, '/')) {
		probes__scan_file(a->probes, a->tracer, file);
		return;
	}
	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, file);
		if (access(buf, X_OK) == 0) {
			probes__scan_file(a->probes, a->tracer, buf);
			return;
		}
		path += n + (path[n] == ':');
	}
}

/* Start the command (or the demo) behind the gate, watch it, open the gate. */
static int launch_command(struct app *a)
{
	static char self[] = "/proc/self/exe", demo_arg[] = DEMO_ARG;
	static char *demo_argv[] = { self, demo_arg, NULL };
	char **argv = a->opt->demo ? demo_argv : a->opt->command;
	struct proc_stat st;
	int e;

	a->launch.quiet = use_tui(a);
	e = launch__start(&a->launch, launch__exec_argv, argv);
	if (e)
		return app_fail(a, "cannot start '%s': %s", argv[0], strerror(-e));
	if (proc_identity(a, a->launch.pid, &st) || watch_one(a, &st))
		return app_fail(a, "cannot watch the command (pid %d)", a->launch.pid);
	scan_command_binary(a, argv[0]);
	e = launch__release(&a->launch);
	if (e) {
		fprintf(stderr, "cowtop: cannot execute '%s': %s\n", argv[0], strerror(e));
		a->exit_code = 127;
		return -1;
	}
	return 0;
}

/* Look for probes in the processes that exec'd lately; stop when none is left. */
static void on_scan_timer(int fd, unsigned events, void *ctx)
{
	struct app *a = ctx;
	double now = loop__now();
	int i, j = 0;

	loop__timer_expirations(fd);
	for (i = 0; i < a->nrescan; i++) {
		probes__scan_pid(a->probes, a->tracer, a->procfd, a->rescan[i]);
		if (a->rescan_until[i] > now) {
			a->rescan[j] = a->rescan[i];
			a->rescan_until[j++] = a->rescan_until[i];
		}
	}
	a->nrescan = j;
	if (!j)
		loop__timer_stop(fd);
}

/* Keys (or a hang-up) on the terminal. */
static void on_stdin(int fd, unsigned events, void *ctx)
{
	struct app *a = ctx;

	if (events & (EPOLLHUP | EPOLLERR)) {
		a->stop = true; /* the terminal went away: nobody to show anything to */
		return;
	}
	switch (tui__input(a->tui, a->model, &a->status)) {
	case TUI_QUIT:
		a->stop = true;
		break;
	case TUI_DELAY_CHANGED:
		loop__timer_set(a->timerfd, tui__delay(a->tui), tui__delay(a->tui));
		break;
	default:
		break;
	}
}

/* Open the full-screen view and listen to the keyboard. */
static int open_tui(struct app *a)
{
	struct tui_opts to = {
		.ascii = a->opt->ascii, .snapshot_path = a->opt->snapshot,
		.sort = a->opt->sort, .reverse = a->opt->reverse, .flat = a->opt->flat,
		.delay = a->opt->delay,
	};
	int e = tui__open(&a->tui, &to);

	if (e)
		return app_fail(a, "cannot start the full-screen view: %s", strerror(-e));
	if (loop__add(a->loop, STDIN_FILENO, on_stdin, a))
		return app_fail(a, "cannot read the terminal");
	update_status(a, 0);
	tui__frame(a->tui, a->model, &a->status);
	return 0;
}

/* Set up the loop: signals, timer, ring buffer. */
static int setup_loop(struct app *a)
{
	a->loop = loop__new();
	if (!a->loop)
		return app_fail(a, "cannot create the event loop: %s", strerror(errno));
	a->sigfd = loop__signalfd(app_signals, sizeof(app_signals) / sizeof(*app_signals), NULL);
	a->timerfd = loop__timerfd(a->opt->delay);
	if (a->sigfd < 0 || a->timerfd < 0)
		return app_fail(a, "cannot set up signals and timer: %s", strerror(errno));
	if (a->probes) {
		a->scanfd = loop__timerfd(3600);
		if (a->scanfd < 0 || loop__timer_stop(a->scanfd) ||
		    loop__add(a->loop, a->scanfd, on_scan_timer, a))
			return app_fail(a, "cannot set up the probe scan timer");
	}
	if (loop__add(a->loop, a->sigfd, on_signal, a) ||
	    loop__add(a->loop, a->timerfd, on_timer, a) ||
	    loop__add(a->loop, tracer__epoll_fd(a->tracer), on_ringbuf, a))
		return app_fail(a, "cannot set up the event loop");
	return 0;
}

/* Open the kernel side for the chosen targets. */
static int open_tracer(struct app *a)
{
	struct tracer_opts to = {
		.watch_all = a->watch_all,
		.first_clone_of = a->opt->first_clone_of,
		.ringbuf_kib = a->opt->ringbuf_kib,
		.usdt = a->probes != NULL,
		.on_event = on_event,
		.ctx = a,
	};
	char err[256];

	if (tracer__open(&a->tracer, &to, err, sizeof(err)))
		return app_fail(a, "%s", err);
	return 0;
}

/* Look for the -u probes in everything the watched processes map now; a
 * probe found nowhere is an error. */
static int find_probes(struct app *a)
{
	struct proc *p;
	char err[256];
	size_t i;

	if (!a->probes)
		return 0;
	if (a->opt->first_clone_of)
		probes__scan_pid(a->probes, a->tracer, a->procfd, a->opt->first_clone_of);
	for (i = 0; (p = model__at(a->model, i)); i++)
		probes__scan_pid(a->probes, a->tracer, a->procfd, p->pid);
	if (probes__missing(a->probes, err, sizeof(err)))
		return app_fail(a, "%s", err);
	return 0;
}

/* Watch what the options name: pids, a command, a first clone, or all. */
static int watch_targets(struct app *a)
{
	struct proc_stat st;

	if (a->opt->npids)
		return watch_pids(a) || find_probes(a);
	if (a->opt->command || a->opt->demo)
		return launch_command(a);
	if (a->opt->first_clone_of) {
		int pid = a->opt->first_clone_of, tgid = procfs_read_tgid(a->procfd, pid);

		if (tgid < 0 || proc_identity(a, pid, &st))
			return app_fail(a, "no process with PID %d", pid);
		if (tgid != pid) /* forks are matched by process: a thread's id never forks */
			return app_fail(a, "%d is a thread of process %d; use --track-first-clone %d",
					pid, tgid, tgid);
		return find_probes(a);
	}
	scan_existing(a);
	return find_probes(a);
}

/* Parse the -u specs; a malformed one is a usage error. */
static int setup_probes(struct app *a)
{
	char err[256];
	int i;

	if (!a->opt->nusdt)
		return 0;
	a->probes = probes__new(a->model);
	if (!a->probes)
		return app_fail(a, "out of memory");
	for (i = 0; i < a->opt->nusdt; i++) {
		if (probes__add_spec(a->probes, a->opt->usdt[i], err, sizeof(err))) {
			fprintf(stderr, "cowtop: %s; see 'cowtop --help'\n", err);
			a->exit_code = 2;
			return -1;
		}
	}
	return 0;
}

/* Attach the probes whose object was named. */
static int attach_probes(struct app *a)
{
	char err[256];

	if (a->probes && probes__attach_paths(a->probes, a->tracer, err, sizeof(err)))
		return app_fail(a, "%s", err);
	return 0;
}

/* Whether to show the full-screen view: not in batch mode, and only on a
 * terminal (otherwise frames go out as batch text). */
static bool use_tui(const struct app *a)
{
	return !a->opt->batch && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
}

/* Before anything is attached or started: the full-screen view needs a
 * terminal type terminfo knows. One line says what is wrong otherwise. */
static int check_terminal(struct app *a)
{
	const char *term = getenv("TERM");
	int err = 0;

	if (!term || !*term)
		return app_fail(a, "TERM is not set: cannot show the full-screen view (use -b for text)");
	if (setupterm(term, STDOUT_FILENO, &err) == OK) {
		del_curterm(cur_term);
		return 0;
	}
	if (err == 1)
		return app_fail(a, "terminal type '%s' cannot move the cursor: cannot show the full-screen "
				"view (use -b for text)", term);
	if (err == -1)
		return app_fail(a, "no terminfo database: cannot show the full-screen view (use -b for text)");
	return app_fail(a, "unknown terminal type '%s': cannot show the full-screen view (use -b for "
			"text)", term);
}

/* Say in a few words what is watched, for the header. */
static void describe_target(struct app *a)
{
	const struct options *o = a->opt;

	if (o->demo)
		snprintf(a->target, sizeof(a->target), "demo");
	else if (o->command)
		snprintf(a->target, sizeof(a->target), "command %s", o->command[0]);
	else if (o->npids)
		snprintf(a->target, sizeof(a->target), "pid %d%s", o->pids[0], o->npids > 1 ? " ..." : "");
	else if (o->first_clone_of)
		snprintf(a->target, sizeof(a->target), "first clone of %d", o->first_clone_of);
	else
		snprintf(a->target, sizeof(a->target), "all processes");
}

/* Run until stopped; returns the exit status. */
int app_run(struct options *opt)
{
	struct app a = { .opt = opt, .sigfd = -1, .timerfd = -1, .procfd = -1, .scanfd = -1 };

	a.launch.pid = -1;
	a.launch.gate_fd = a.launch.err_fd = -1;
	a.watch_all = !opt->npids && !opt->command && !opt->demo && !opt->first_clone_of;
	signal(SIGPIPE, SIG_IGN);
	a.model = model__new();
	a.procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!a.model || a.procfd < 0) {
		app_fail(&a, "cannot open /proc: %s", strerror(errno));
		goto cleanup;
	}
	describe_target(&a);
	if (use_tui(&a) && check_terminal(&a))
		goto cleanup;
	if (setup_probes(&a) || open_tracer(&a) || attach_probes(&a) || setup_loop(&a) ||
	    watch_targets(&a))
		goto cleanup;
	if (use_tui(&a) && open_tui(&a))
		goto cleanup;
	a.last_tick = loop__now();
	while (!a.stop) {
		if (a.final_due) {
			tick(&a);
			continue;
		}
		if (loop__run_once(a.loop, -1) < 0)
			break;
	}
cleanup:
	tui__close(a.tui);
	if (a.launch.pid > 0 && !a.cmd_reaped && a.exit_code == 127)
		waitpid(a.launch.pid, NULL, 0);
	launch__close(&a.launch);
	loop__free(a.loop);
	if (a.sigfd >= 0)
		close(a.sigfd);
	if (a.timerfd >= 0)
		close(a.timerfd);
	if (a.scanfd >= 0)
		close(a.scanfd);
	probes__free(a.probes);
	tracer__destroy(a.tracer);
	model__free(a.model);
	if (a.procfd >= 0)
		close(a.procfd);
	return a.exit_code;
}
