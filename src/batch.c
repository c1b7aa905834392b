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
#include "sink.h"

struct batch_sink {
	struct sink base;
	int fd;
	bool json, regions, utf8;
};

/* Where the next write lands in fd, when fd is a regular file; -1 else. */
static off_t write_position(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || fl < 0)
		return -1;
	return fl & O_APPEND ? st.st_size : lseek(fd, 0, SEEK_CUR);
}

/* Write all of buf to fd. 0, or -errno (a short write that makes no
 * progress counts as ENOSPC). */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOSPC;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Write buf whole, or cut a regular file back to where it began. */
static int write_whole(int fd, const char *buf, size_t len)
{
	off_t at = write_position(fd);
	int e = write_all(fd, buf, len);

	if (e && at >= 0 && ftruncate(fd, at) == 0)
		lseek(fd, at, SEEK_SET); /* harmless with O_APPEND */
	return e;
}

static enum sink_status batch_frame(struct sink *s, struct frame *f, char *err, size_t errlen)
{
	struct batch_sink *b = (struct batch_sink *)s;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int e;

	if (!m) {
		snprintf(err, errlen, "cannot format a frame: %s", strerror(errno));
		return SINK_FAILED;
	}
	if (b->json)
		output_json(m, f);
	else
		output_text(m, f, &(struct output_opts){ .regions = b->regions, .utf8 = b->utf8 });
	if (fclose(m)) {
		free(buf);
		snprintf(err, errlen, "cannot format a frame: %s", strerror(errno));
		return SINK_FAILED;
	}
	e = write_whole(b->fd, buf, len);
	free(buf);
	if (e == -EPIPE)
		return SINK_DONE;
	if (e) {
		snprintf(err, errlen, "cannot write the output: %s", strerror(-e));
		return SINK_FAILED;
	}
	return SINK_OK;
}

static void batch_free(struct sink *s)
{
	free(s);
}

static const struct sink_ops batch_ops = { .frame = batch_frame, .free = batch_free };

int batch_sink_open(const struct sink_env *env, struct sink **out, int *status,
		    char *err, size_t errlen)
{
	struct batch_sink *b;

	*out = NULL;
	if (env->tui)
		return 0;
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
