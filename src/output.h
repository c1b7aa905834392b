/* Batch output: one frame as a text table or one JSON line. */
#ifndef COWTOP_OUTPUT_H
#define COWTOP_OUTPUT_H

#include <stdio.h>
#include "model.h"

/* What a frame says besides its rows. */
struct frame {
	double time;          /* unix seconds */
	double interval;      /* seconds covered */
	const char *mechanism;
	unsigned long long lost;
	const struct row *rows;
	size_t nrows;
	const struct model *model;       /* for probe and phase names */
	bool usdt;                       /* -u given: phases and markers */
	const struct marker *const *marks; /* probe hits in this frame */
	size_t nmarks;
};

void output_json(FILE *f, const struct frame *fr);
void output_text(FILE *f, const struct frame *fr);
const char *output_state(const struct proc *p);
size_t output_tree_prefix(const struct row *r, bool utf8, char *buf, size_t cap);

#endif
