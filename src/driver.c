/* The one driver: whatever the source of the frames, the same loop, the
 * same sinks, the same keys and signals. A source starts itself with the
 * driver's helpers, makes a frame when one is due and acts on the keys and
 * signals only it knows (driver.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "driver.h"
#include "loop.h"
#include "sink.h"

int driver__fail(struct driver *d, int status, const char *fmt, ...)
{
	va_list ap;

	fputs("cowtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	d->exit_code = status;
	d->stop = true;
	return -1;
}

int driver__check(struct driver *d, int status, const char *err)
{
	if (!status)
		return 0;
	if (status == 2)
		return driver__fail(d, 2, "%s; see 'cowtop --help'", err);
	return driver__fail(d, status, "%s", err);
}

void driver__notice(void *ctx, const char *msg)
{
	struct driver *d = ctx;

	if (d->tui)
		tui__notice(d->tui, msg);
	else
		fprintf(stderr, "cowtop: %s\n", msg);
}

/* The views that frames go to, each opened when the options ask for it. */
static const sink_open_fn sink_makers[] = {
	batch_sink_open,
	exporter_sink_open,
	record_sink_open,
};

/* Act on a sink's answer: a failure ends the run with status 1, a reader
 * gone ends it quietly. */
static void sink_answer(struct driver *d, enum sink_status st, const char *err)
{
	if (st == SINK_FAILED)
		driver__fail(d, 1, "%s", err);
	if (st != SINK_OK)
		d->stop = true;
}

void driver__view_opts(const struct driver *d, struct view_opts *vo)
{
	const struct sink *s;

	vo->no_rows = vo->no_groups = true;
	for (s = d->sinks; s; s = s->next) {
		if (s->history > vo->hist)
			vo->hist = s->history;
		vo->no_rows = vo->no_rows && s->own_rows;
		vo->no_groups = vo->no_groups && s->own_groups;
	}
}

void driver__present(struct driver *d, struct frame *f)
{
	struct sink *s;
	char err[512];

	for (s = d->sinks; s && !d->stop; s = s->next)
		sink_answer(d, s->ops->frame(s, f, err, sizeof(err)), err);
}

int driver__open_sinks(struct driver *d, bool tui)
{
	struct sink_env env = { .opt = d->opt, .loop = d->loop, .tui = tui,
				.notice = driver__notice, .notice_ctx = d };
	struct sink **tail = &d->sinks;
	char err[512];
	size_t i;

	while (*tail)
		tail = &(*tail)->next;
	for (i = 0; i < sizeof(sink_makers) / sizeof(*sink_makers); i++) {
		int status = 1;

		if (sink_makers[i](&env, tail, &status, err, sizeof(err)))
			return driver__check(d, status, err);
		if (*tail)
			tail = &(*tail)->next;
	}
	return 0;
}

/* The run ends: let each sink write what it owes (flush), then free them all. */
static void close_sinks(struct driver *d, bool flush)
{
	struct sink *s, *next;
	char err[512];

	for (s = d->sinks; s; s = next) {
		next = s->next;
		if (flush && s->ops->close)
			sink_answer(d, s->ops->close(s, err, sizeof(err)), err);
		s->ops->free(s);
	}
	d->sinks = NULL;
}

/* Keys (or a hang-up) on the terminal. */
static void on_stdin(int fd, unsigned events, void *ctx)
{
	struct driver *d = ctx;
	enum tui_action act;

	(void)fd;
	if (events & (EPOLLHUP | EPOLLERR)) {
		d->stop = true; /* the terminal went away: nobody to show anything to */
		return;
	}
	act = tui__input(d->tui);
	if (act == TUI_QUIT)
		d->stop = true;
	else if (act != TUI_NONE)
		d->src->ops->action(d->src, d, act);
}

/* The refresh timer fired. */
static void on_timer(int fd, unsigned events, void *ctx)
{
	struct driver *d = ctx;

	(void)events;
	loop_timer_expirations(fd);
	d->src->ops->tick(d->src, d);
}

/* A signal arrived through the signalfd. */
static void on_signal(int fd, unsigned events, void *ctx)
{
	struct driver *d = ctx;
	struct signalfd_siginfo si;

	(void)events;
	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGWINCH) {
			if (d->tui)
				tui__resize(d->tui);
		} else {
			d->src->ops->signal(d->src, d, (int)si.ssi_signo);
		}
	}
}

int driver__setup_loop(struct driver *d, const int *signals, int nsignals, double period)
{
	d->loop = loop__new();
	if (!d->loop)
		return driver__fail(d, 1, "cannot create the event loop: %s", strerror(errno));
	d->sigfd = loop_signalfd(signals, nsignals, NULL);
	d->timerfd = loop_timerfd(period);
	if (d->sigfd < 0 || d->timerfd < 0)
		return driver__fail(d, 1, "cannot set up signals and timer: %s", strerror(errno));
	if (loop__add(d->loop, d->sigfd, on_signal, d) || loop__add(d->loop, d->timerfd, on_timer, d))
		return driver__fail(d, 1, "cannot set up the event loop");
	return 0;
}

int driver__open_tui(struct driver *d, const struct tui_opts *to)
{
	int e = tui__open(&d->tui, to);

	if (e)
		return driver__fail(d, 1, "cannot start the full-screen view: %s", strerror(-e));
	if (loop__add(d->loop, STDIN_FILENO, on_stdin, d))
		return driver__fail(d, 1, "cannot read the terminal");
	tui__sink(d->tui)->next = d->sinks; /* the screen first */
	d->sinks = tui__sink(d->tui);
	return 0;
}

int driver_run(struct options *opt, struct source *src)
{
	struct driver d = { .opt = opt, .src = src, .sigfd = -1, .timerfd = -1 };

	signal(SIGPIPE, SIG_IGN);
	if (src->ops->start(src, &d) == 0) {
		while (!d.stop) {
			if (d.due) {
				d.due = false;
				src->ops->tick(src, &d);
				continue;
			}
			if (!d.loop || loop__run_once(d.loop, -1) < 0)
				break;
		}
		if (src->ops->finish)
			src->ops->finish(src, &d);
		close_sinks(&d, true);
	}
	close_sinks(&d, false);
	tui__free(d.tui);
	loop__free(d.loop);
	if (d.sigfd >= 0)
		close(d.sigfd);
	if (d.timerfd >= 0)
		close(d.timerfd);
	src->ops->free(src);
	frame__free_spare();
	return d.exit_code;
}
