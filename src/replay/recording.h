/* Reading a recording (-w's file) back: an index of its lines built once,
 * and any frame rebuilt from its line on demand (json-c), with the rate and
 * sharing histories of the frames before it, so the views show it as they
 * showed it live. The file is never loaded whole. */
#ifndef COWTOP_RECORDING_H
#define COWTOP_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include "frame.h"

#define RECORDING_LINE_MAX (16u << 20) /* a longer line is not a frame cowtop wrote */

struct recording;

/* What the header line says. */
struct recording_info {
	int schema;
	char host[256], kernel[256], version[64], boot_id[64], mechanism[128], target[1024];
	double start;       /* unix seconds */
	double delay;       /* the recorder's refresh interval, seconds; 0 unknown */
	double btime;       /* unix seconds of the boot; 0 unknown */
	long clk_tck;       /* ticks a second of start times; 0 unknown */
};

/* Open and index path. 0, or -errno with a one-line reason in err (the file
 * named, a line number where one is at fault). */
int recording__open(struct recording **out, const char *path, char *err, size_t errlen);
void recording__free(struct recording *r);
size_t recording__frames(const struct recording *r);
const struct recording_info *recording__info(const struct recording *r);
/* A warning about the file found while indexing ("" for none): a cut last line. */
const char *recording__warning(const struct recording *r);
double recording__time(const struct recording *r, size_t k);   /* of frame k */
bool recording__marked(const struct recording *r, size_t k);   /* probe hits or exits in frame k */
/* The first frame at or after time t (the last when none). */
size_t recording__at_time(const struct recording *r, double t);
/* The frame named by #FRAME, +SECONDS or HH:MM[:SS] (see recording.c); -1 invalid. */
long recording__find(const struct recording *r, const char *when);
/* Frame k rebuilt, rows laid out as vo says, with vo->hist values of each
 * process's history (after a jump, that many frames before k are read
 * again for them and for the probe log); 0 or -errno with "FILE:LINE:
 * reason" in err. The frame is the caller's (frame__free). */
int recording__frame(struct recording *r, size_t k, const struct view_opts *vo, struct frame **out,
		     char *err, size_t errlen);

#endif
