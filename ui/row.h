/* The process table's rows as text: column layout, titles, one row, the
 * name filter, and what USDT probes add: a process's copies per phase and
 * the lines of the probe log. Pure functions: rows in, lines out. */
#ifndef COWTOP_UI_ROW_H
#define COWTOP_UI_ROW_H

#include <stdbool.h>
#include "line.h"
#include "frame.h"

/* Columns before the sparkline: the field table's (fields.h), a space
 * after each. When the screen is too narrow for them, the sparkline (at
 * least ROW_HIST_KEEP columns) and COMMAND, they leave by their drop level,
 * the highest first; the sparkline's own level is ROW_HIST_DROP: it goes
 * after VSZ, PTE and RSS, before the state and the memory and copy
 * figures. On a wide screen it takes at most ROW_HIST_MAX columns and
 * COMMAND the rest. */
#define ROW_HIST_KEEP 8
#define ROW_HIST_DROP 7
#define ROW_HIST_MAX 60
#define ROW_SCROLL_MAX 4096 /* columns COMMAND can be scrolled at most */
#define ROW_NAME_MAX (4 * PROC_COMM_MAX + 1)
#define ROW_LABEL_MAX (4 * PROC_CMDLINE_MAX + 1) /* a command line made safe */

/* What the sparkline shows. */
enum row_metric {
	METRIC_COW_RATE, /* copies per second */
	METRIC_SHARED,   /* shared%: the sharing-decay curve since fork */
	METRIC_N,
};

struct row_layout {
	int width;    /* screen columns */
	int hist;     /* sparkline columns, 0 when there is no room */
	double scale; /* the value a full sparkline block stands for */
	enum row_metric metric;
	bool utf8;
	int keep;     /* columns of drop level up to keep are shown */
	bool cmdline; /* COMMAND shows the command line (the name when it has none) */
	bool bytes;   /* copies in bytes (B/s, K M G), not pages */
	int scroll;   /* columns of COMMAND's text scrolled out on the left */
	unsigned long long hidden; /* columns hidden by choice (F2): bit 1 << field id */
};

/* The bit of field id in a set of hidden columns. */
#define ROW_HIDE(id) (1ULL << (id))

int row_columns_width(int keep);
void row_layout_split(struct row_layout *l, int width, bool utf8, bool cmdline, unsigned long long hidden);
double rows_scale(const struct row *rows, size_t n, int hist);
void row_layout_scale(struct row_layout *l, enum row_metric metric, const struct row *rows, size_t n);
int row_column_at(const struct row_layout *l, int x);
void row_titles(const struct row_layout *l, enum field_id key, bool reverse, struct line *out);
void row_format(const struct row *r, const struct row_layout *l, struct line *out);
size_t row_name(const struct proc *p, bool utf8, char *buf, size_t cap);
size_t row_label(const struct proc *p, bool cmdline, bool utf8, char *buf, size_t cap);
bool row_matches(const struct row *r, const char *pattern, bool utf8, bool cmdline);
size_t rows_drop_kthreads(struct row *rows, size_t n, bool tree);
size_t rows_filter(struct row *rows, size_t n, const char *pattern, bool utf8, bool cmdline,
		   bool tree);
int row_phases(const struct proc *p, const struct frame *f, bool utf8, bool counts, struct line *out);
void row_put_cell_safe(struct line *out, enum role role, const char *s, size_t n, bool utf8, int cols);
void row_marker_titles(size_t kept, int width, struct line *out);
void row_marker(const struct marker *mk, const char *comm, const char *label, bool utf8,
    int width, struct line *out);

#endif
