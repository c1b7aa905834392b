/* The one driver of a run: a source of frames (the live machine: tracer and
 * collector; or a recording), the sinks the frames go to, the full-screen
 * view and its keys, signals and the refresh timer, in one epoll loop. The
 * source says which actions its frames allow (tui_opts.allow); everything
 * else is the same for every source. */
#ifndef COWTOP_DRIVER_H
#define COWTOP_DRIVER_H

#include <stdbool.h>
#include "frame.h"
#include "options.h"
#include "tui.h"

struct driver;
struct loop;
struct sink;
struct source;

/* What a source does; the driver calls it from the loop. */
struct source_ops {
	/* Get ready to make frames and open what the run shows, in the
	 * source's own order (driver__setup_loop, driver__open_sinks,
	 * driver__open_tui): 0, or -1 with the failure said (driver__fail). */
	int (*start)(struct source *src, struct driver *d);
	/* A frame is due: the refresh timer fired, or the source set d->due. */
	void (*tick)(struct source *src, struct driver *d);
	/* A key that acts beyond the view (TUI_DELAY_CHANGED,
	 * TUI_STACKS_TOGGLE, TUI_TIME): only those the source allows come. */
	void (*action)(struct source *src, struct driver *d, enum tui_action act);
	/* A signal of those it set up, other than SIGWINCH. */
	void (*signal)(struct source *src, struct driver *d, int signo);
	/* The run ends normally, before the sinks write what they owe. NULL: nothing. */
	void (*finish)(struct source *src, struct driver *d);
	void (*free)(struct source *src);
};

struct source {
	const struct source_ops *ops;
};

struct driver {
	struct options *opt;
	struct source *src;
	struct loop *loop;   /* NULL until driver__setup_loop */
	struct tui *tui;     /* NULL without the full-screen view */
	struct sink *sinks;  /* the views frames go to, in order, the screen first */
	int sigfd, timerfd;
	bool due;            /* a frame is due now: tick without waiting for the loop */
	bool stop;
	int exit_code;
};

/* Run src until stopped; returns the exit status. */
int driver_run(struct options *opt, struct source *src);

/* Print a runtime error ("cowtop: ...") and remember to exit with status; -1. */
int driver__fail(struct driver *d, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Report a step's failure (status, message in err); 0 passes through. */
int driver__check(struct driver *d, int status, const char *err);
/* The loop, a signalfd for signals and the refresh timer (period seconds,
 * 0: disarmed). */
int driver__setup_loop(struct driver *d, const int *signals, int nsignals, double period);
/* Open the sinks the options ask for; tui: the full-screen view will show frames. */
int driver__open_sinks(struct driver *d, bool tui);
/* Open the full-screen view, first of the sinks, and listen to the keyboard. */
int driver__open_tui(struct driver *d, const struct tui_opts *to);
/* What the sinks need of a frame: history, rows, groups (into vo). */
void driver__view_opts(const struct driver *d, struct view_opts *vo);
/* Hand f to every sink, in order (f stays the caller's). */
void driver__present(struct driver *d, struct frame *f);
/* Something that is not fatal: on the status line of the view, else stderr. */
void driver__notice(void *ctx, const char *msg);

#endif
