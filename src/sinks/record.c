/* -w FILE: the recorder. Every frame goes to FILE as one JSON line (the
 * batch JSON frame) after one header line saying what was recorded where.
 * Each line is formatted in memory and written with O_APPEND in one run of
 * write()s, cut back when the disk fills: a killed cowtop leaves at worst a
 * partial last line, a full disk none. A full disk is said once and is not
 * fatal: the live view goes on, frames are dropped until there is room.
 * With --record-max-mib N the file is renamed FILE.1 (replacing the older
 * one) when the next line would take it past N MiB, and a new FILE starts
 * with its own header: at most about 2 N MiB on disk, the newest kept. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "json.h"
#include "output.h"
#include "record.h"
#include "safefile.h"
#include "sink.h"

struct record_sink {
	struct sink base;
	const struct options *opt;
	const char *path;
	int fd;
	unsigned long long size, max; /* bytes in the file now; 0: no limit */
	bool header_due;              /* the next line written is the header */
	bool failing;                 /* the last write failed: said once */
	sink_notice_fn notice;
	void *notice_ctx;
	char host[256], kernel[512], boot_id[64];
	double start, btime;
};

/* "name":"value" with a comma before. */
static void json_field(FILE *f, const char *name, const char *value)
{
	fprintf(f, ",\"%s\":", name);
	json_string(f, value, strlen(value));
}

/* The options a reader needs to make sense of the frames. */
static void header_options(FILE *f, const struct options *o)
{
	int i;

	fprintf(f, ",\"options\":{\"delay\":%.3f,\"smaps_budget\":%.2f,\"stacks\":%s,\"usdt\":[",
		o->delay, o->smaps_budget, o->stacks ? "true" : "false");
	for (i = 0; i < o->nusdt; i++) {
		if (i)
			fputc(',', f);
		json_string(f, o->usdt[i], strlen(o->usdt[i]));
	}
	fputc(']', f);
	fprintf(f, ",\"record_max_mib\":%g}", o->record_max_mib);
}

/* The header line: schema, who recorded what where, and when it started. */
void record_header(FILE *f, const struct record_who *w, const struct frame *first,
		   const struct options *opt)
{
	fprintf(f, RECORD_MAGIC "\"schema\":%d", RECORD_SCHEMA);
	json_field(f, "cowtop", w->version);
	json_field(f, "host", w->host);
	json_field(f, "kernel", w->kernel);
	json_field(f, "boot_id", w->boot_id);
	json_field(f, "mechanism", first->mechanism);
	json_field(f, "target", first->target);
	header_options(f, opt);
	fprintf(f, ",\"btime\":%.3f,\"clk_tck\":%ld,\"start\":%.3f}\n", w->btime, w->clk_tck, w->start);
}

/* When the machine booted, to the millisecond: start times are ticks of
 * the boot-time clock, and /proc/stat's btime is rounded to the second. */
static void read_btime(struct record_sink *r)
{
	struct timespec wall, boot;

	if (clock_gettime(CLOCK_REALTIME, &wall) || clock_gettime(CLOCK_BOOTTIME, &boot))
		return;
	r->btime = (double)(wall.tv_sec - boot.tv_sec) + (wall.tv_nsec - boot.tv_nsec) / 1e9;
}

/* Host, kernel and boot id, read once at the start. */
static void read_who(struct record_sink *r)
{
	struct utsname u;
	struct timespec ts;
	FILE *f;

	if (gethostname(r->host, sizeof(r->host)))
		snprintf(r->host, sizeof(r->host), "?");
	r->host[sizeof(r->host) - 1] = '\0';
	if (uname(&u) == 0)
		snprintf(r->kernel, sizeof(r->kernel), "%s %s %s", u.sysname, u.release, u.machine);
	else
		snprintf(r->kernel, sizeof(r->kernel), "?");
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (!f || !fgets(r->boot_id, sizeof(r->boot_id), f))
		snprintf(r->boot_id, sizeof(r->boot_id), "?");
	r->boot_id[strcspn(r->boot_id, "\n")] = '\0';
	if (f)
		fclose(f);
	read_btime(r);
	clock_gettime(CLOCK_REALTIME, &ts);
	r->start = (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The header (when due) and the frame as lines in memory; NULL on failure. */
static char *format_lines(struct record_sink *r, const struct frame *fr, size_t *len)
{
	struct record_who w = { r->host, r->kernel, r->boot_id, PACKAGE_VERSION, r->start, r->btime,
				sysconf(_SC_CLK_TCK) };
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	bool bad;

	if (!m)
		return NULL;
	if (r->header_due)
		record_header(m, &w, fr, r->opt);
	bad = output_json(m, fr) != 0; /* fclose must run whatever it says */
	if (fclose(m) || bad) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Rename path to old, replacing old only when it is a recording (the
 * last rotation's): never a file cowtop did not write. 0 or -errno. */
static int move_aside(const char *path, const char *old)
{
	struct stat st;
	int e;

	if (renameat2(AT_FDCWD, path, AT_FDCWD, old, RENAME_NOREPLACE) == 0)
		return 0;
	e = errno;
	if (e != EEXIST && e != EINVAL) /* EINVAL: no RENAME_NOREPLACE on this file system */
		return -e;
	if ((e == EEXIST || lstat(old, &st) == 0) && !safefile_starts_with(old, RECORD_MAGIC))
		return -EEXIST;
	return rename(path, old) ? -errno : 0;
}

/* Move FILE to FILE.1 and start a new FILE: it would grow past the limit. */
static int rotate(struct record_sink *r, char *err, size_t errlen)
{
	char old[PATH_MAX];
	int fd, e;

	if (snprintf(old, sizeof(old), "%s.1", r->path) >= (int)sizeof(old)) {
		snprintf(err, errlen, "%s", strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	e = move_aside(r->path, old);
	if (e) {
		snprintf(err, errlen, "cannot rename it to %s: %s", old,
			 e == -EEXIST ? SAFEFILE_NOT_OURS : strerror(-e));
		return e;
	}
	fd = safefile_open_append(r->path, RECORD_MAGIC, err, errlen);
	if (fd < 0)
		return fd;
	close(r->fd);
	r->fd = fd;
	r->size = 0;
	r->header_due = true;
	return 0;
}

/* Say a write failed (once), or that writing works again. */
static void tell(struct record_sink *r, int e, const char *why)
{
	char msg[PATH_MAX + 256];

	if (e && !r->failing)
		snprintf(msg, sizeof(msg), "record: cannot write %s: %s (frames dropped until it works)",
			 r->path, why);
	else if (!e && r->failing)
		snprintf(msg, sizeof(msg), "record: writing %s again", r->path);
	else
		return;
	r->failing = e != 0;
	r->notice(r->notice_ctx, msg);
}

/* Append the frame (after the header when due); a failure is told, not fatal. */
static enum sink_status record_frame(struct sink *s, struct frame *fr, char *err, size_t errlen)
{
	struct record_sink *r = (struct record_sink *)s;
	char why[PATH_MAX + 160] = "";
	size_t len;
	char *buf;
	int e;

	(void)err;
	(void)errlen;
	buf = format_lines(r, fr, &len);
	if (buf && r->max && r->size && r->size + len > r->max) {
		free(buf);
		if (rotate(r, why, sizeof(why))) {
			tell(r, -1, why);
			return SINK_OK;
		}
		buf = format_lines(r, fr, &len); /* now with a header */
	}
	if (!buf) {
		tell(r, -ENOMEM, strerror(ENOMEM));
		return SINK_OK;
	}
	e = safefile_write_whole(r->fd, buf, len);
	free(buf);
	tell(r, e, strerror(-e));
	if (!e) {
		r->size += len;
		r->header_due = false;
	}
	return SINK_OK;
}

static void record_free(struct sink *s)
{
	struct record_sink *r = (struct record_sink *)s;

	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

static const struct sink_ops record_ops = { .frame = record_frame, .free = record_free };

/* Open FILE of -w for appending (0600, regular files only). */
int record_sink_open(const struct sink_env *env, struct sink **out, int *status,
		     char *err, size_t errlen)
{
	struct record_sink *r;
	struct stat st;
	char why[256];

	*out = NULL;
	if (!env->opt->record)
		return 0;
	r = calloc(1, sizeof(*r));
	if (!r) {
		*status = 1;
		snprintf(err, errlen, "record: %s", strerror(ENOMEM));
		return -1;
	}
	r->fd = safefile_open_append(env->opt->record, RECORD_MAGIC, why, sizeof(why));
	if (r->fd < 0) {
		*status = 1;
		snprintf(err, errlen, "record: cannot write %s: %s", env->opt->record, why);
		free(r);
		return -1;
	}
	r->base.ops = &record_ops;
	r->opt = env->opt;
	r->path = env->opt->record;
	r->size = fstat(r->fd, &st) ? 0 : (unsigned long long)st.st_size;
	r->max = (unsigned long long)(env->opt->record_max_mib * 1048576);
	r->header_due = true;
	r->notice = env->notice;
	r->notice_ctx = env->notice_ctx;
	read_who(r);
	*out = &r->base;
	return 0;
}
