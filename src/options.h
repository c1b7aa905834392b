/* Command-line options of cowtop. */
#ifndef COWTOP_OPTIONS_H
#define COWTOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "tree.h"

#define OPT_MAX_PIDS 64
#define OPT_MAX_USDT 32

enum out_format { FORMAT_TEXT, FORMAT_JSON };

struct options {
	int pids[OPT_MAX_PIDS];
	int npids;
	int first_clone_of;   /* --track-first-clone */
	bool batch;
	double delay;         /* seconds between frames */
	long iterations;      /* 0: no limit */
	enum out_format format;
	bool format_set;      /* -f given: only batch output has a format */
	enum sort_key sort;
	bool reverse;
	bool flat;            /* list instead of tree */
	bool regions;         /* batch text: a line of copies by region per process */
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
	unsigned stacks_sample; /* --stacks-sample N: 1 copy in N (default 1) */
	const char *folded;   /* --folded FILE: stacks in folded form at exit */
	char **command;       /* after "--", NULL when none */
	bool help, version;
};

/* Parse argv into o. Returns 0, or -EINVAL with a one-line message in err. */
int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen);
void options_usage(FILE *f);
/* Once it is known whether the full-screen view (screen) or batch output is
 * used: 0, or -EINVAL with a one-line message in err for an option that
 * would do nothing there (a usage error, never silently ignored). */
int options_check_mode(const struct options *o, bool screen, char *err, size_t errlen);

#endif
