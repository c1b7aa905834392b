/* Batch output: one frame as a text table or one JSON line. */
#ifndef COWTOP_OUTPUT_H
#define COWTOP_OUTPUT_H

#include <stddef.h>
#include <stdio.h>
#include "frame.h"

void output_json(FILE *f, const struct frame *fr);
void output_text(FILE *f, const struct frame *fr);
const char *output_state(const struct proc *p);
size_t output_interval(double seconds, int decimals, char *buf, size_t cap);

#endif
