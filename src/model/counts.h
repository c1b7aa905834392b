/* Copy counters of one process, in base pages: cowtop's own type, so that
 * nothing above the tracer needs the kernel ABI header. */
#ifndef COWTOP_COUNTS_H
#define COWTOP_COUNTS_H

struct cow_counts {
	unsigned long long cow;        /* pages copied because they were shared: sharing lost */
	unsigned long long cow_kernel; /* of cow: copies made by kernel-mode writes */
	unsigned long long zero_fill;  /* writes that replaced the shared zero page */
	unsigned long long reuse;      /* write-protect faults resolved without a copy */
};

#define SPLIT_SLOTS 32 /* slots of a per-process breakdown; slot 0 is "none/other" */
#define PHASE_MAX 16   /* phase ids 0..15, as many as the kernel side counts */

/* Kinds of records and counts the kernel side could not keep. */
enum lost_kind {
	LOST_RINGBUF,     /* ring-buffer records that did not fit */
	LOST_MAP_FULL,    /* processes that could not be added to the kernel's table */
	LOST_PHASE_FULL,  /* copies in a phase that could not be counted */
	LOST_REGION_FULL, /* flushes of region copies that found the table full */
	LOST_KINDS,
};

#endif
