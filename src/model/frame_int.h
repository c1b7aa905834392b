/* What frame.c and frame_groups.c share, and nothing else sees. */
#ifndef COWTOP_FRAME_INT_H
#define COWTOP_FRAME_INT_H

#include <stddef.h>
#include "frame.h"
#include "model.h"

/* An array of n elements of size bytes, zeroed; never NULL for n == 0. */
void *frame_array(size_t n, size_t size);
/* A group for each watched root with at least one live descendant. */
int take_groups(struct frame *f);
/* Whether some watched root has a live descendant, from the tree. */
int grouped_by_tree(struct frame *f);
/* Whether some watched root has a live descendant, without summing the
 * groups (the model's parents tell, where they can). */
int take_grouped(struct frame *f, struct model *m);

#endif
