/* A process as a JSON object: the writer of a frame's processes and the
 * reader of a recording's, side by side, the figures from the field table. */
#ifndef COWTOP_PROCJSON_H
#define COWTOP_PROCJSON_H

#include <json-c/json.h>
#include "frame.h"
#include "jread.h"
#include "json.h"

#define PID_LIMIT 4194304 /* the kernel's PID_MAX_LIMIT: no pid is larger */
/* The text of an exited process's state, which the recording's index counts. */
#define PROCJSON_EXITED "\"state\":\"exited\""

/* Append process r of frame fr as a JSON object to b. */
void procjson_write(struct jbuf *b, const struct frame *fr, const struct row *r);

/* What reading a process needs: where to note what is wrong, the frame's
 * time (readings' ages are relative to it) and the slot of a breakdown
 * label (the recording keeps the labels). */
struct procjson_in {
	struct jread *jr;
	double time;
	int (*label_slot)(void *ctx, enum split_kind k, const char *label);
	void *ctx;
};

/* Read process o into p (zeroed first by the caller); 0, or -EINVAL when
 * o is not an object; a member not as cowtop writes it is noted in in->jr. */
int procjson_read(const struct procjson_in *in, json_object *o, struct proc *p);

#endif
