/* One run of cowtop: options -> tracer -> collect -> frame -> views, in one
 * epoll loop. */
#ifndef COWTOP_APP_H
#define COWTOP_APP_H

#include "options.h"

int app_run(struct options *opt);

#endif
