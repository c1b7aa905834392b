/* The USDT probes asked for with -u: where they are found, attached once
 * per ELF object, and registered in the model as markers and phases. */
#ifndef COWTOP_PROBES_H
#define COWTOP_PROBES_H

#include <stdbool.h>
#include <stddef.h>

struct probes;
struct model;
struct tracer;

struct probes *probes__new(struct model *m);
void probes__free(struct probes *pr);
int probes__add_spec(struct probes *pr, const char *spec, char *err, size_t errlen);
int probes__attach_paths(struct probes *pr, struct tracer *t, char *err, size_t errlen);
int probes__scan_file(struct probes *pr, struct tracer *t, const char *path);
int probes__scan_pid(struct probes *pr, struct tracer *t, int procfd, int pid);
bool probes__wants_maps(const struct probes *pr);
int probes__missing(const struct probes *pr, char *err, size_t errlen);
int probes__failed(const struct probes *pr, char *err, size_t errlen);

#endif
