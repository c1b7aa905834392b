/* The header above the table: host, kernel, mechanism, target, totals. */
#ifndef COWTOP_UI_HEADER_H
#define COWTOP_UI_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "frame.h"
#include "line.h"

#define HEADER_LINES 3

struct header_info {
	const char *host, *kernel;  /* as the system says (sanitized here) */
	const char *mechanism, *fallbacks, *target;
	time_t now;
	double delay;               /* refresh interval, seconds */
	double cpu_pct;             /* cowtop's own CPU use */
	size_t watched, live;       /* processes held, and those not exited (in any state) */
	double rate;                /* total copies per second */
	unsigned long long cow;     /* total copies */
	unsigned long long lost;
	unsigned long long lost_procs; /* of lost: processes the kernel's table refused */
	int nprobes;                /* USDT probes attached (-u) */
	int nphases;                /* phases they pair into */
	int nkprobes;               /* kinds of kernel markers logged (OOM kills, reclaim stalls) */
	bool psi;                   /* the memory pressure is known: */
	double psi_some, psi_full;  /* ... avg10 %, full negative when not known */
	bool smaps_read;            /* a row shown has a smaps reading ... */
	double smaps_age;           /* ... and this is the oldest's age, seconds */
	unsigned stacks_every;      /* copy stacks: 0 off, else 1 copy in N */
	double stacks_us;           /* ... their measured cost per capture; < 0 unknown */
	double stacks_budget;       /* ... the % of a CPU the rate adapts to; 0 none */
	double stacks_cpu;          /* ... the % of a CPU they cost last tick; < 0 unknown */
	unsigned long long stacks_failed; /* ... captures that failed (stack table full,
					     a hash collision, an unreadable stack) */
	bool paused;
	const char *replay;         /* replaying: where in the recording; NULL live */
	bool command_done;
	int command_status;
	bool utf8;
	bool bytes;                 /* copies in bytes, not pages */
	int cols;                   /* screen width: fields that do not fit go, the least needed first; 0 any */
};

void header_take_frame(struct header_info *h, const struct frame *f);
void header_build(const struct header_info *h, struct line out[HEADER_LINES]);

#endif
