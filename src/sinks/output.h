/* Batch output: one frame as a text table or one JSON line. */
#ifndef COWTOP_OUTPUT_H
#define COWTOP_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "frame.h"
#include "json.h"

/* What the text table adds under itself when asked. */
struct output_opts {
	bool regions; /* a "regions PID:" line per process with copies */
	bool utf8;    /* names in UTF-8 (the locale's), else ASCII with escapes */
};

/* The version of the JSON lines' layout, in each line's "schema": raised
 * whenever a field changes meaning or goes away (new fields keep it). */
#define OUTPUT_JSON_SCHEMA 1
/* The frame as one JSON line: on f (0, or -ENOMEM with nothing written),
 * or appended to b (out of memory: b->failed). */
int output_json(FILE *f, const struct frame *fr);
void output_json_buf(struct jbuf *b, const struct frame *fr);
void output_text(FILE *f, const struct frame *fr, const struct output_opts *oo);
const char *output_state(const struct proc *p);
size_t output_interval(double seconds, int decimals, char *buf, size_t cap);

#endif
