/* Recordings: what -w writes and -r and --diff read. One header line, then
 * one frame a line, exactly as batch JSON prints it. */
#ifndef COWTOP_RECORD_H
#define COWTOP_RECORD_H

#include <stdio.h>
#include "frame.h"
#include "options.h"

/* The format's version: a reader refuses a recording with a newer one. */
#define RECORD_SCHEMA 1

/* How a recording's first line starts: -w appends only to a file that does. */
#define RECORD_MAGIC "{\"recording\":true,"

/* Who and what is recorded, besides the frames. */
struct record_who {
	const char *host, *kernel, *boot_id, *version;
	double start; /* unix seconds */
	double btime; /* unix seconds of the boot (realtime less boottime); 0 unknown */
	long clk_tck; /* ticks a second of the processes' start times */
};

void record_header(FILE *f, const struct record_who *w, const struct frame *first,
		   const struct options *opt);

#endif
