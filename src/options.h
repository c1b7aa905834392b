/* Command-line options of cowtop. */
#ifndef COWTOP_OPTIONS_H
#define COWTOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "tree.h"

#define OPT_MAX_PIDS 64
#define OBJECTS_SAMPLE_DEFAULT 8 /* --objects-sample default: 1 copy in 8 */
#define OPT_MAX_USDT 32
#define OPT_EXPORTER_PORT 9729 /* --exporter's port when --listen is not given */

enum out_format { FORMAT_TEXT, FORMAT_JSON };

struct options {
	int pids[OPT_MAX_PIDS];
	int npids;
	int first_clone_of;   /* --track-first-clone */
	const char *cgroup;   /* --cgroup PATH, resolved at start */
	const char *unit;     /* --unit NAME, a systemd unit resolved to its cgroup */
	bool batch;
	double delay;         /* seconds between frames */
	long iterations;      /* 0: no limit */
	enum out_format format;
	bool format_set;      /* -f given: only batch output has a format */
	enum field_id sort;
	bool reverse;
	bool flat;            /* list instead of tree */
	bool regions;         /* batch text: a line of copies by region per process */
	bool no_regions;      /* do not split copies by region in the kernel */
	bool demo;
	bool ascii;
	const char *snapshot; /* -o */
	double linger;        /* seconds an exited process stays on screen */
	bool linger_set;      /* --linger given: only the screen lingers */
	double smaps_budget;  /* % of one CPU for reading smaps_rollup, 0..100; 0 off */
	unsigned ringbuf_kib; /* hidden: ring buffer size, for loss tests */
	const char *usdt[OPT_MAX_USDT]; /* -u specs, checked when the probes are set up */
	int nusdt;
	const char *list_usdt; /* --list-usdt PID|PATH */
	bool stacks;          /* --stacks: copies by code path from the start */
	unsigned stacks_sample; /* --stacks-sample N: at most 1 copy in N (default 1) */
	double sample_budget; /* --sample-budget: % of one CPU for stack captures and object reads, each; 0 no limit */
	bool sample_budget_set;
	const char *folded;   /* --folded FILE: stacks in folded form at exit */
	const char *folded_objects; /* --folded-objects FILE: copies by object, folded, at exit */
	bool objects;         /* --objects: copies by runtime object */
	unsigned objects_sample; /* --objects-sample N: 1 copy in N (default OBJECTS_SAMPLE_DEFAULT) */
	const char *listen;   /* --listen [ADDR:]PORT as given; NULL: no exporter */
	char listen_addr[64]; /* ... its address (default 127.0.0.1), IPv6 without brackets */
	unsigned short listen_port;
	bool exporter;        /* --exporter: headless, serve metrics, no batch output unless -b */
	bool metrics_by_pid;  /* --metrics-by pid: per-process series too */
	const char *label_group; /* --label group=NAME: the group label of every series */
	const char *record;   /* -w FILE: every frame appended as a JSON line */
	double record_max_mib; /* --record-max-mib N: rotate to FILE.1 past N MiB (fractions allowed); 0 no limit */
	const char *replay;   /* -r FILE: show a recording instead of tracing */
	const char *diff[2];  /* --diff A B: compare two recordings */
	char **command;       /* after "--", NULL when none */
	const char *command_output; /* --command-output FILE: the command's stdout and stderr */
	bool help, version;
};

/* Parse argv into o. Returns 0, or -EINVAL with a one-line message in err. */
/* Parse [ADDR:]PORT (ADDR: IPv4, or IPv6 in brackets) into addr and port. */
int options_parse_listen(const char *s, char *addr, size_t addrlen, unsigned short *port);
int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen);
void options_usage(FILE *f);
/* Once it is known whether the full-screen view (screen) or batch output is
 * used: 0, or -EINVAL with a one-line message in err for an option that
 * would do nothing there (a usage error, never silently ignored). */
int options_check_mode(const struct options *o, bool screen, char *err, size_t errlen);

#endif
