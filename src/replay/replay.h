/* -r FILE: a recording shown instead of the tracer's frames, with no root
 * and no BPF: the full-screen view with time keys, or batch output. */
#ifndef COWTOP_REPLAY_H
#define COWTOP_REPLAY_H

#include "options.h"

int replay_run(struct options *opt); /* the exit status */

#endif
