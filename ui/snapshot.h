/* A snapshot of the view: its text (pure: a frame and the view's state in,
 * lines out); safefile.c writes it. */
#ifndef COWTOP_UI_SNAPSHOT_H
#define COWTOP_UI_SNAPSHOT_H

#include <stddef.h>
#include <time.h>
#include "header.h"
#include "view.h"

char *snapshot_text(const struct view *v, const struct header_info *hi, int cols, size_t *len);
size_t snapshot_default_path(time_t now, char *buf, size_t cap);

#endif
