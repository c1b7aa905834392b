/* The per-process figures as one table, as htop's ProcessField: each row
 * says how a figure is named in JSON, shown as a column, sorted, exported
 * and described, and how it is read from a process and put back from a
 * recording. The JSON writer and reader, the columns, the sort keys, the
 * help and the exporter loop over it: a new figure is one row here plus
 * the place where it is measured. */
#ifndef COWTOP_FIELDS_H
#define COWTOP_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include "model.h"

struct frame;

/* Every field, in the order of a process's JSON object. PID, STATE and
 * COMM are identities, not figures: they are here for their column, sort key and
 * help; the process record (procjson.c) writes and reads them itself. */
enum field_id {
	FIELD_PID, FIELD_STATE, FIELD_COMM,
	FIELD_COW, FIELD_COW_RATE, FIELD_COW_KERNEL, FIELD_REUSE, FIELD_ZERO_FILL,
	FIELD_RSS, FIELD_VSZ, FIELD_PTE,
	FIELD_PSS, FIELD_PSS_ANON, FIELD_USS, FIELD_SHARED_CLEAN, FIELD_SHARED_DIRTY,
	FIELD_PRIVATE_DIRTY, FIELD_ANON, FIELD_SWAP, FIELD_SMAPS_AGE, FIELD_INHERITED, FIELD_SHARED,
	FIELD_FAMILY_SHARED, FIELD_FAMILY_ANON, FIELD_FAMILY, FIELD_FAMILY_AGE, FIELD_COW_SINCE_READING,
	FIELD_N
};

/* What a figure's value is made of. */
enum field_type {
	FIELD_IDENTITY, /* pid, comm: no value here */
	FIELD_U64,      /* a whole number: JSON integer, checked 0..2^63 when read */
	FIELD_REAL,     /* a real with decimals: checked finite and >= 0 when read */
};

/* Where a figure is read, so when it is known and what must be read to
 * sort by it. */
enum field_source {
	FIELD_KERNEL,  /* the BPF side's counts: always known */
	FIELD_STAT,    /* /proc stat (or the task walk), every tick */
	FIELD_SMAPS,   /* the memory sampler's reading (smaps_rollup, status), on its budget */
	FIELD_DERIVED, /* worked out of others: written, never read back */
};

/* How a sort key orders. */
enum field_order {
	FIELD_DESC,     /* largest first */
	FIELD_ASC,      /* smallest first (pid, name) */
	FIELD_LEAST,    /* smallest first, unknown (below 0) last */
};

/* How a column shows a value. */
enum field_unit {
	FIELD_NONE,
	FIELD_PAGES,    /* a count of pages (bytes with b) */
	FIELD_PER_SEC,  /* pages per second (bytes with b) */
	FIELD_KIB,
	FIELD_PERCENT,
	FIELD_SECONDS,
};

/* One value of a figure: known or not (JSON null, "-"). */
struct fval {
	bool known;
	unsigned long long u; /* FIELD_U64 */
	double d;             /* FIELD_REAL */
};

struct field {
	enum field_type type;
	const char *json;        /* key in a process's JSON object, NULL none */
	int decimals;            /* of a FIELD_REAL in JSON */
	enum field_source source;
	enum field_unit unit;
	/* the column: title, width, place from the left (0: none) and when it is
	 * dropped on a narrow screen (0 never; higher first: the least telling
	 * figures leave first, the copy rate last; the sparkline's own level
	 * is ROW_HIST_DROP in ui/row.h) */
	const char *title;
	const char *title_bytes; /* ... when copies are shown in bytes (b) */
	int width, column, drop;
	bool left;               /* left-aligned */
	const char *desc;        /* the help's legend: what the column shows */
	/* the sort key: its -s name, its key in the view, how it orders */
	const char *sort_name;
	const char *sort_key;    /* one key, as the help names it */
	const char *sort_help;
	enum field_order order;
	/* the exporter: families cowtop_NAME (per group and role) and
	 * cowtop_process_NAME (per process, --metrics-by pid); KiB are exported
	 * as bytes; counters also count exited members */
	const char *metric;
	bool counter;
	const char *metric_help, *metric_pid_help;
	/* read it from a process; put it back into one from a recording (time:
	 * the frame's), NULL when the recording reader leaves it */
	void (*get)(const struct frame *fr, const struct proc *p, struct fval *v);
	void (*set)(struct proc *p, const struct fval *v, double time);
	bool gate;               /* null: the figures of its source after it were never read */
	bool late;               /* put back after the others (it is derived from them) */
};

extern const struct field fields[FIELD_N];

/* The value of field id of p in frame fr (fr may be NULL but for figures
 * that need the frame's time). */
static inline struct fval field_value(enum field_id id, const struct frame *fr, const struct proc *p)
{
	struct fval v = { 0 };

	if (fields[id].get)
		fields[id].get(fr, p, &v);
	return v;
}

/* Sort keys are the fields with a sort name. */
int sort_key_parse(const char *s, enum field_id *out);
const char *sort_key_name(enum field_id k);
/* The field whose sort key is key ch, or -1. */
int field_by_sort_key(int ch);
/* The sort keys, in the order of the columns (then the command): what the
 * sort cycle walks. Returns how many (at most FIELD_N). */
size_t fields_sort_cycle(enum field_id *out);
/* The sort keys' names, first one first, joined by ", " (--help, errors). */
void fields_sort_names(enum field_id first, char *buf, size_t len);
/* The columns left to right. Returns how many. */
size_t fields_columns(enum field_id *out);

#endif
