/* Batch frames on stdout: each frame is formatted in memory first and then
 * written with one run of write()s, so a reader sees a JSON line whole or not
 * at all. When the disk fills mid-line, a regular file is cut back to where
 * the line began. A closed pipe ends the run quietly. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "options.h"
#include "text.h"
#include "output.h"
#include "safefile.h"
#include "sink.h"

struct batch_sink {
	struct sink base;
	int fd;
	bool json, regions, utf8;
	struct jbuf line; /* the JSON line, its memory kept from frame to frame */
};

/* Write len bytes of buf out whole: the sink's status. */
static enum sink_status batch_write(struct batch_sink *b, const char *buf, size_t len,
				    char *err, size_t errlen)
{
	int e = safefile_write_whole(b->fd, buf, len);

	if (e == -EPIPE)
		return SINK_DONE;
	if (e) {
		snprintf(err, errlen, "cannot write the output: %s", strerror(-e));
		return SINK_FAILED;
	}
	return SINK_OK;
}

/* The frame as a JSON line, made in the kept buffer (a line of thousands
 * of processes is megabytes: made anew each frame, its pages would be
 * faulted in again every time). */
static enum sink_status batch_json(struct batch_sink *b, const struct frame *f, char *err, size_t errlen)
{
	jbuf_reset(&b->line);
	output_json_buf(&b->line, f);
	if (b->line.failed) {
		jbuf_free(&b->line);
		snprintf(err, errlen, "cannot format a frame: %s", strerror(ENOMEM));
		return SINK_FAILED;
	}
	return batch_write(b, b->line.s, b->line.len, err, errlen);
}

/* One frame out: a JSON line, or the text table. */
static enum sink_status batch_frame(struct sink *s, struct frame *f, char *err, size_t errlen)
{
	struct batch_sink *b = (struct batch_sink *)s;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	enum sink_status st;

	if (b->json)
		return batch_json(b, f, err, errlen);
	m = open_memstream(&buf, &len);
	if (!m) {
		snprintf(err, errlen, "cannot format a frame: %s", strerror(errno));
		return SINK_FAILED;
	}
	output_text(m, f, &(struct output_opts){ .regions = b->regions, .utf8 = b->utf8 });
	if (fclose(m)) {
		free(buf);
		snprintf(err, errlen, "cannot format a frame: %s", strerror(errno));
		return SINK_FAILED;
	}
	st = batch_write(b, buf, len, err, errlen);
	free(buf);
	return st;
}

static void batch_free(struct sink *s)
{
	struct batch_sink *b = (struct batch_sink *)s;

	jbuf_free(&b->line);
	free(b);
}

static const struct sink_ops batch_ops = { .frame = batch_frame, .free = batch_free };

int batch_sink_open(const struct sink_env *env, struct sink **out, int *status,
		    char *err, size_t errlen)
{
	struct batch_sink *b;

	*out = NULL;
	if (env->tui || (env->opt->exporter && !env->opt->batch))
		return 0; /* the screen shows frames, or the exporter runs headless */
	b = calloc(1, sizeof(*b));
	if (!b) {
		*status = 1;
		snprintf(err, errlen, "cannot start the batch output: %s", strerror(errno));
		return -1;
	}
	b->base.ops = &batch_ops;
	b->fd = STDOUT_FILENO;
	b->json = env->opt->format == FORMAT_JSON;
	b->regions = env->opt->regions;
	b->utf8 = !env->opt->ascii && locale_is_utf8();
	*out = &b->base;
	return 0;
}
