/* The recording reader's insides, shared by its parts: recording.c (the
 * line index, and navigation: a frame rebuilt from its line),
 * recording_hist.c (what is carried from frame to frame: histories,
 * labels, the probe log) and recording_decode.c (a line's JSON into a
 * frame, its processes one at a time). */
#ifndef COWTOP_RECORDING_INT_H
#define COWTOP_RECORDING_INT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "jread.h"
#include "procjson.h"
#include "record.h"
#include "recording.h"

#define CHUNK (1u << 20)
#define HIST_WINDOW SERIES_CAP /* frames read back after a jump to rebuild the histories */
#define FRAME_PREFIX "{\"time\":"
#define FRAME_SCHEMA_PREFIX "{\"schema\":"
#define HEADER_PREFIX "{\"recording\":" /* frames start {"schema": too */
#define PROCS_KEY "\"processes\":["
#define TOK_DEPTH 64
/* a process is two levels down in its line: the frame, its array */
#define PROC_DEPTH (TOK_DEPTH - 2)

/* Whether p[0..len) starts with the literal prefix s. */
#define STARTS(p, len, s) ((len) >= sizeof(s) - 1 && memcmp(p, s, sizeof(s) - 1) == 0)

struct rec_index {
	off_t off;
	unsigned len;   /* without the newline */
	unsigned line;  /* from 1 */
	double time;
	bool marked;
};

/* The rate and sharing histories of one process across frames (the series
 * over the stores of the same entry: see hist_rebase). */
struct hist {
	int pid;
	unsigned long long start;
	struct series rate, shared;
	struct series_store rate_store, shared_store;
};

struct recording {
	int fd;
	char *path;
	struct recording_info info;
	char warning[512];
	struct rec_index *idx;
	size_t n, cap;
	/* labels, stable across frames: probes and each breakdown's slots */
	char (*probes)[LABEL_MAX];
	int nprobes;
	char labels[SPLIT_KINDS][SPLIT_SLOTS][LABEL_MAX];
	int nlabels[SPLIT_KINDS];
	/* histories: entries, and an open-addressing table of 1 + entry index */
	struct hist *hist;
	size_t nhist, histcap;
	size_t *slots;
	size_t nslots;
	size_t hist_next;            /* the frame whose values come next; SIZE_MAX none */
	bool hist_series;            /* ... pushed onto the series too (a view draws them) */
	struct frame_mark log[FRAME_LOG]; /* the newest probe hits, a ring */
	size_t log_total;
	char *line;                  /* the line being parsed */
	size_t linecap;
	json_tokener *tok;
	json_tokener *etok;          /* one process of a line at a time */
	struct jread jr;             /* the first thing wrong in the frame being read */
};

/* Say why, with the file's name, and return -e. */
int rec_fail(char *err, size_t errlen, int e, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Parse len bytes as one JSON object; NULL with the reason in why. */
json_object *rec_parse(struct recording *r, const char *p, size_t len, char *why, size_t whylen);

/* recording_hist.c */
void rec_hist_reset(struct recording *r);
int rec_label_slot(struct recording *r, enum split_kind k, const char *label);
int rec_probe_id(struct recording *r, const char *label);
int rec_take_history(struct recording *r, struct frame *f, bool series);
int rec_take_labels(struct recording *r, struct frame *f);

/* recording_decode.c: frame k from its line in r->line; 0, -EINVAL with
 * the reason in why, or -ENOMEM. */
int rec_take_line_frame(struct recording *r, size_t k, struct frame *f, char *why, size_t whylen);

#endif
