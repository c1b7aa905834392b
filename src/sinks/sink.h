/* Where frames go: each view of the frame (the full-screen view, batch text
 * or JSON, and any other output) is a sink. The source of the frames (live
 * or a recording) makes one frame a tick and the driver (driver.c) hands it
 * to every sink it opened, in order, whatever the source; it knows nothing
 * of what a sink does with it. A sink that needs the event loop (a server, a file
 * watcher) adds its own fds when it is opened. */
#ifndef COWTOP_SINK_H
#define COWTOP_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include "frame.h"

struct loop;
struct options;
struct sink;

/* What a sink's frame function answers. */
enum sink_status {
	SINK_OK = 0,
	SINK_DONE = 1,   /* nobody reads any more (closed pipe): end quietly */
	SINK_FAILED = -1 /* a message is in err: end with status 1 */
};

struct sink_ops {
	/* Show, write or keep f (a sink that keeps it takes frame__hold). */
	enum sink_status (*frame)(struct sink *s, struct frame *f, char *err, size_t errlen);
	/* The run ends: write what is due at the end; may fail like frame. NULL: nothing. */
	enum sink_status (*close)(struct sink *s, char *err, size_t errlen);
	void (*free)(struct sink *s);
};

struct sink {
	const struct sink_ops *ops;
	struct sink *next; /* the driver's list */
	/* It shows /proc's figures (RSS, VSZ, state, and smaps_rollup's
	 * shared, USS, PSS) only of the rows on screen: the others may be
	 * read less often, or their smaps_rollup not at all. */
	bool screen_only;
	/* Newest history values of each process it draws (sparklines): a
	 * frame copies no more than the sinks ask for. 0: none. */
	int history;
	/* It lays the frame's processes out itself (its own sort, filter,
	 * focus): the frame's rows are of no use to it. */
	bool own_rows;
	/* It reads no group of the frame, or sums them itself when it needs
	 * them (frame__groups): a frame sums none for it. */
	bool own_groups;
};

/* Say something that is not fatal (a full disk) where the user sees it:
 * the status line of the full-screen view, else stderr. */
typedef void (*sink_notice_fn)(void *ctx, const char *msg);

/* What a sink's opener may look at. tui: the full-screen view is on. */
struct sink_env {
	const struct options *opt;
	struct loop *loop;
	bool tui;
	sink_notice_fn notice;
	void *notice_ctx;
};

/* Open a sink if the options ask for it: 0 with *out NULL when they do not,
 * 0 with *out set, or -1 with a one-line message in err (exit status in
 * *status: 1 for a runtime failure, 2 for a bad argument). */
typedef int (*sink_open_fn)(const struct sink_env *env, struct sink **out, int *status,
			    char *err, size_t errlen);

/* Batch text or JSON on stdout when the full-screen view is off. */
int batch_sink_open(const struct sink_env *env, struct sink **out, int *status,
		    char *err, size_t errlen);

/* The metrics server (--listen, --exporter): keeps the last frame for scrapes. */
int exporter_sink_open(const struct sink_env *env, struct sink **out, int *status,
		       char *err, size_t errlen);

/* -w FILE: every frame appended to FILE as a JSON line (record.c). */
int record_sink_open(const struct sink_env *env, struct sink **out, int *status,
		     char *err, size_t errlen);

#endif
