/* Unit tests: table rows as text (layout, cells, tree lines, hostile names,
 * cutting to width), column titles, number formats, the name filter, and
 * what USDT probes add: marks in the sparkline, the phase split, the lines
 * of the probe log. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "fmt.h"
#include "line.h"
#include "frame.h"
#include "row.h"
#include "text.h"
#include "tree.h"

/* master(100) -> worker(101, busy), evil(102, hostile name) -> gone(103, exited). */
static struct model *sample(void)
{
	struct model *m = model__new();
	struct proc *p = model__add(m, 100, 50), *w = model__add(m, 101, 51);
	struct proc *e = model__add(m, 102, 52), *g = model__add(m, 103, 53);
	struct cow_counts c = { .cow = 42 };

	p->ppid = 1;
	p->state = 'S';
	strcpy(p->comm, "master");
	w->ppid = 100;
	w->state = 'R';
	strcpy(w->comm, "worker");
	model__set_counts(w, &c);
	w->rss_kib = 1024;
	w->vsz_kib = 2048;
	e->ppid = 100;
	e->state = 'S';
	strcpy(e->comm, "\x1b]0;pwned\x07\x1b[2J\xff");
	g->ppid = 102;
	strcpy(g->comm, "gone");
	c.cow = 7;
	model__set_counts(g, &c);
	model__mark_exited(g, 1.0);
	model__tick(m, 1.0);  /* rates: worker 42/s, gone 7/s */
	model__set_base(w, &(struct cow_counts){ 0 }); /* its 42 again, over 2 s */
	model__set_counts(w, &(struct cow_counts){ .cow = 42 });
	model__tick(m, 2.0);  /* worker 21/s; gone copied nothing more: 0/s */
	return m;
}

/* A frame of m, its rows in pid order (tree or flat); valid until the next call. */
static struct frame *frame_tree(struct model *m, bool tree)
{
	static struct frame *f;
	struct view_opts o = { .sort = FIELD_PID, .tree = tree, .hist = SERIES_CAP };

	frame__free(f);
	f = frame__build(m, NULL, &o, NULL);
	assert_non_null(f);
	return f;
}

/* A frame of m, for its labels. */
static struct frame *frame_of(struct model *m)
{
	return frame_tree(m, true);
}

/* The rows of m in pid order (tree or flat). */
static struct row *rows_of(struct model *m, bool tree, size_t *n)
{
	struct frame *f = frame_tree(m, tree);

	*n = f->nrows;
	return f->rows;
}

/* The frame's copy of a row's process, to change in a test. */
static struct proc *mut(const struct row *r)
{
	return (struct proc *)r->p;
}

/* A frame's history, given full storage to push onto (a frame keeps an
 * idle process's history in one value, for reading). */
static void own(struct series *s)
{
	static struct series_store stores[8];
	static size_t next;
	float v[SERIES_CAP];
	unsigned char mk[SERIES_CAP];
	size_t i, n = series__len(s);

	for (i = 0; i < n; i++) {
		v[i] = (float)series__get(s, i);
		mk[i] = series__mark(s, i);
	}
	series__init_store(s, &stores[next++ % 8]);
	for (i = 0; i < n; i++)
		series__push_marked(s, v[i], mk[i]);
}

/* What most row tests start from: the sample model, its rows in tree
 * order, a line to format into and a layout to set. */
struct fix {
	struct model *m;
	struct row *rows;
	size_t n;
	struct line *l;
	struct row_layout rl;
};

/* Make the fixture of a row test (cmocka set-up). */
static int fix_setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->l = malloc(sizeof(*f->l));
	if (!f->l) {
		free(f);
		return -1;
	}
	f->m = sample();
	f->rows = rows_of(f->m, true, &f->n);
	*state = f;
	return 0;
}

/* Free the fixture of a row test (cmocka tear-down). */
static int fix_teardown(void **state)
{
	struct fix *f = *state;

	model__free(f->m);
	free(f->l);
	free(f);
	return 0;
}

/* The layout of a view showing names (COMMAND without command lines). */
static void row_layout_init(struct row_layout *l, int width, bool utf8)
{
	row_layout_split(l, width, utf8, false, 0);
}

static void test_layout_shares_width(void **state)
{
	struct row_layout l;

	(void)state;
	row_layout_init(&l, 160, true);
	assert_int_equal(l.keep, 10); /* every column */
	assert_int_equal(l.hist, 160 - row_columns_width(10) - 1 - 32);
	row_layout_init(&l, 100, false);
	assert_int_equal(l.keep, 10);
	assert_int_equal(l.hist, 100 - row_columns_width(10) - 1 - 16);
	/* 91 columns: VSZ gives way first, then (84) the page tables, then
	 * (80) RSS; the history keeps ROW_HIST_KEEP columns meanwhile */
	row_layout_init(&l, 91, false);
	assert_int_equal(l.keep, 9);
	assert_int_equal(row_columns_width(10) - row_columns_width(9), 7); /* VSZ */
	row_layout_init(&l, 84, false);
	assert_int_equal(l.keep, 8);
	assert_int_equal(row_columns_width(9) - row_columns_width(8), 7); /* PTE */
	row_layout_init(&l, 80, false);
	assert_int_equal(l.keep, 7);
	assert_int_equal(row_columns_width(8) - row_columns_width(7), 7); /* RSS */
	assert_int_equal(l.hist, 80 - row_columns_width(7) - 1 - 16);
	assert_true(l.hist >= ROW_HIST_KEEP);
	/* 40 columns: the history, the state and the memory columns have
	 * gone; the copy columns and COMMAND stay */
	row_layout_init(&l, 40, false);
	assert_int_equal(l.keep, 2);
	assert_int_equal(l.hist, 0);
	assert_int_equal(row_columns_width(2), 40 - 16);
	row_layout_init(&l, 5, false);
	assert_int_equal(l.hist, 0);
	/* a wide screen: the history is capped, COMMAND gets the rest */
	row_layout_init(&l, 200, false);
	assert_int_equal(l.hist, ROW_HIST_MAX);
	row_layout_init(&l, 2000, false);
	assert_int_equal(l.hist, ROW_HIST_MAX);
}

/* At 80 columns the titles show the copy and sharing figures, USS and
 * PSS, not RSS or VSZ; at 40 the copy figures and COMMAND. */
static void test_layout_keeps_the_figures(void **state)
{
	static const char *const at80[] = { "CoW/s", " COW ", "SHR%", "FAM%", "USS", "PSS", "COMMAND" };
	struct line *l = malloc(sizeof(*l));
	struct row_layout rl;
	size_t i;

	(void)state;
	row_layout_init(&rl, 80, false);
	row_titles(&rl, FIELD_COW_RATE, false, l);
	for (i = 0; i < sizeof(at80) / sizeof(*at80); i++)
		assert_non_null(strstr(l->text, at80[i]));
	assert_null(strstr(l->text, "RSS"));
	assert_null(strstr(l->text, "VSZ"));
	assert_null(strstr(l->text, "PTE"));
	row_layout_init(&rl, 40, false);
	row_titles(&rl, FIELD_COW_RATE, false, l);
	assert_non_null(strstr(l->text, "CoW/s"));
	assert_non_null(strstr(l->text, " COW "));
	assert_non_null(strstr(l->text, "COMMAND"));
	assert_null(strstr(l->text, "RSS"));
	free(l);
}

/* Columns hidden by choice (F2) are never shown, and give their room to
 * the others: at 80 columns without SHR% and FAM%, RSS and PTE come back. A click finds
 * the columns where they are then. */
static void test_layout_hidden(void **state)
{
	struct line *l = malloc(sizeof(*l));
	struct row_layout rl;
	const char *at;

	(void)state;
	row_layout_split(&rl, 80, false, false, ROW_HIDE(FIELD_SHARED) | ROW_HIDE(FIELD_FAMILY));
	row_titles(&rl, FIELD_COW_RATE, false, l);
	assert_null(strstr(l->text, "SHR%"));
	assert_null(strstr(l->text, "FAM%"));
	assert_non_null(strstr(l->text, "RSS"));
	assert_non_null(strstr(l->text, "PTE"));
	assert_non_null(strstr(l->text, "USS"));
	at = strstr(l->text, "USS");
	assert_int_equal(row_column_at(&rl, (int)(at - l->text)), FIELD_USS);
	row_layout_split(&rl, 200, false, false, ROW_HIDE(FIELD_VSZ) | ROW_HIDE(FIELD_RSS));
	row_titles(&rl, FIELD_COW_RATE, false, l);
	assert_null(strstr(l->text, "VSZ"));
	assert_null(strstr(l->text, "RSS"));
	assert_non_null(strstr(l->text, "PTE"));
	free(l);
}

/* A click on the titles finds the column printed there: each title's
 * first and last column, the spaces between (none), the sparkline (none),
 * COMMAND and what is right of it. */
static void test_column_at(void **state)
{
	static const struct {
		const char *title;
		enum field_id id;
	} cols[] = { { "PID", FIELD_PID }, { "CoW/s", FIELD_COW_RATE }, { "SHR%", FIELD_SHARED },
		     { "USS", FIELD_USS }, { "PSS", FIELD_PSS }, { "FAM%", FIELD_FAMILY }, { "COMMAND", FIELD_COMM } };
	struct line *l = malloc(sizeof(*l));
	struct row_layout rl;
	const char *at;
	int x, w;
	size_t i;

	(void)state;
	row_layout_init(&rl, 80, false);
	row_titles(&rl, FIELD_PID, false, l); /* ASCII: one byte a column */
	for (i = 0; i < sizeof(cols) / sizeof(*cols); i++) {
		at = strstr(l->text, cols[i].title);
		assert_non_null(at);
		x = (int)(at - l->text);
		w = (int)strlen(cols[i].title);
		assert_int_equal(row_column_at(&rl, x), cols[i].id);
		assert_int_equal(row_column_at(&rl, x + w - 1), cols[i].id);
	}
	assert_int_equal(row_column_at(&rl, 0), FIELD_PID); /* right-aligned: its padding too */
	assert_int_equal(row_column_at(&rl, 7), -1);         /* the space after PID */
	assert_int_equal(row_column_at(&rl, 8), FIELD_STATE);
	assert_int_equal(row_column_at(&rl, row_columns_width(rl.keep)), -1); /* the sparkline */
	assert_int_equal(row_column_at(&rl, 79), FIELD_COMM);
	assert_int_equal(row_column_at(&rl, -1), -1);
	row_layout_init(&rl, 200, false);
	row_titles(&rl, FIELD_PID, false, l);
	x = (int)(strstr(l->text, "VSZ") - l->text);
	assert_int_equal(row_column_at(&rl, x), FIELD_VSZ);
	free(l);
}

static void test_row_exact_ascii(void **state)
{
	struct fix *f = *state;

	assert_int_equal(f->n, 4);
	row_layout_init(&f->rl, 106, false);
	f->rl.scale = rows_scale(f->rows, f->n, f->rl.hist);
	assert_true(f->rl.scale == 42);
	row_format(&f->rows[1], &f->rl, f->l);
	assert_string_equal(f->l->text,
		"    101 R    21.0      42   1.0M     -     -      -      -   2.0M      -               @+ |- worker");
	assert_int_equal(f->l->base, ROLE_PLAIN);
	row_format(&f->rows[0], &f->rl, f->l);
	assert_string_equal(f->l->text,
		"    100 S     0.0       0     0K     -     -      -      -     0K      -               __ master");
}

/* A scrolled COMMAND hides the first columns of the command line, not the
 * tree lines; the title says how far it is scrolled. */
static void test_row_scrolled(void **state)
{
	struct fix *f = *state;

	snprintf(mut(&f->rows[1])->cmdline, PROC_CMDLINE_MAX, "unicorn worker[1] -c config.rb");
	row_layout_split(&f->rl, 140, false, true, 0);
	f->rl.scroll = 8;
	row_format(&f->rows[1], &f->rl, f->l);
	assert_non_null(strstr(f->l->text, "|- worker[1] -c config.rb"));
	assert_null(strstr(f->l->text, "unicorn"));
	row_titles(&f->rl, FIELD_COW_RATE, false, f->l);
	assert_non_null(strstr(f->l->text, "COMMAND (scrolled 8)"));
	f->rl.scroll = 1000; /* past the end: the tree lines alone */
	row_format(&f->rows[1], &f->rl, f->l);
	assert_non_null(strstr(f->l->text, "|- "));
	assert_null(strstr(f->l->text, "config"));
}

/* p: COMMAND shows the command line, escaped like names, or the name when
 * there is none; b: copies in bytes (42 pages of 4 KiB, 21 pages/s). */
static void test_row_cmdline_and_bytes(void **state)
{
	struct fix *f = *state;

	snprintf(mut(&f->rows[1])->cmdline, PROC_CMDLINE_MAX, "unicorn worker[1] -c \x1b[2Jx");
	row_layout_split(&f->rl, 106, false, true, 0);
	f->rl.scale = rows_scale(f->rows, f->n, f->rl.hist);
	assert_int_equal(f->rl.hist, 106 - row_columns_width(f->rl.keep) - 1 - 22); /* two thirds of 33 to COMMAND */
	row_format(&f->rows[1], &f->rl, f->l);
	assert_non_null(strstr(f->l->text, "|- unicorn worker[1] -")); /* cut at 106 columns */
	assert_int_equal(text_width(f->l->text), 106);
	assert_null(strchr(f->l->text, '\x1b'));
	row_format(&f->rows[0], &f->rl, f->l);
	assert_non_null(strstr(f->l->text, " master"));
	if (fmt_page_kib() == 4) {
		f->rl.bytes = true;
		row_format(&f->rows[1], &f->rl, f->l);
		assert_non_null(strstr(f->l->text, "    101 R     84K    168K   1.0M "));
		f->rl.bytes = false;
		row_titles(&f->rl, FIELD_PID, false, f->l);
		assert_non_null(strstr(f->l->text, "CoW/s     COW"));
		f->rl.bytes = true;
		row_titles(&f->rl, FIELD_PID, false, f->l);
		assert_non_null(strstr(f->l->text, "CoW B/s   COW B"));
		assert_non_null(strstr(f->l->text, "max 168K/s"));
	}
}

/* K: kernel threads leave the rows, the tree lines of the rest stay right. */
static void test_drop_kthreads(void **state)
{
	struct model *m = sample();
	size_t n;
	struct row *rows = rows_of(m, true, &n);

	(void)state;
	mut(&rows[1])->kthread = true;
	assert_int_equal(rows_drop_kthreads(rows, n, true), 3);
	assert_int_equal(rows[0].p->pid, 100);
	assert_int_equal(rows[1].p->pid, 102);
	assert_int_equal(rows[2].p->pid, 103);
	model__free(m);
}

static void test_row_exact_utf8(void **state)
{
	struct fix *f = *state;

	row_layout_init(&f->rl, 106, true);
	f->rl.scale = 42;
	row_format(&f->rows[3], &f->rl, f->l);
	assert_string_equal(f->l->text,
		"    103 X     0.0       7      -     -     -      -      -      -      -               ▃▁   └─ gone [?]");
	/* gone never had its stat read: RSS and VSZ unknown, not 0K (master's
	 * were read, as 0) */
	assert_int_equal(f->l->base, ROLE_DIM); /* exited: dimmed, final counts */
}

static void test_row_spans(void **state)
{
	struct fix *f = *state;
	int i, spark = -1, tree = -1;

	row_layout_init(&f->rl, 100, false);
	f->rl.scale = 42;
	row_format(&f->rows[1], &f->rl, f->l);
	for (i = 0; i < f->l->nspan; i++) {
		if (f->l->span[i].role == ROLE_SPARK)
			spark = i;
		if (f->l->span[i].role == ROLE_TREE)
			tree = i;
	}
	assert_true(spark >= 0 && tree > spark);
	assert_int_equal(f->l->span[spark].off, row_columns_width(f->rl.keep));
	assert_int_equal(f->l->span[spark].len, f->rl.hist);
	assert_memory_equal(f->l->text + f->l->span[tree].off, "|- ", 3);
}

static void test_hostile_name_never_reaches_terminal(void **state)
{
	struct fix *f = *state;
	int utf8;

	for (utf8 = 0; utf8 < 2; utf8++) {
		row_layout_init(&f->rl, 200, utf8);
		row_format(&f->rows[2], &f->rl, f->l);
		assert_null(strchr(f->l->text, '\x1b'));
		assert_null(strchr(f->l->text, '\x07'));
		assert_null(strchr(f->l->text, '\xff'));
		assert_non_null(strstr(f->l->text, "\\e]0;pwned\\x07\\e[2J\\xff"));
	}
}

static void test_cut_to_width(void **state)
{
	struct fix *f = *state;
	size_t i;
	int w;

	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		skip();
	for (w = 0; w < 130; w += 7) {
		row_layout_init(&f->rl, w, true);
		f->rl.scale = 42;
		for (i = 0; i < f->n; i++) {
			row_format(&f->rows[i], &f->rl, f->l);
			assert_true(text_width(f->l->text) <= w);
			assert_int_equal(strlen(f->l->text), f->l->len);
		}
		row_titles(&f->rl, FIELD_COW_RATE, false, f->l);
		assert_int_equal(text_width(f->l->text), w); /* titles span the width */
	}
	setlocale(LC_CTYPE, "C");
}

static void test_titles(void **state)
{
	struct line *l = malloc(sizeof(*l));
	struct row_layout rl;

	(void)state;
	row_layout_init(&rl, 120, false);
	rl.scale = 1234;
	row_titles(&rl, FIELD_COW_RATE, false, l);
	assert_non_null(strstr(l->text, "    PID S  vCoW/s     COW    RSS  SHR%  FAM%    USS    PSS    VSZ    PTE history (max 1234.0/s)"));
	assert_non_null(strstr(l->text, " COMMAND"));
	assert_int_equal(l->base, ROLE_COLHDR);
	assert_int_equal(l->nspan >= 1, 1);
	row_titles(&rl, FIELD_PID, false, l);
	assert_memory_equal(l->text, "   ^PID", 7); /* pid: smallest first */
	row_titles(&rl, FIELD_PID, true, l);
	assert_memory_equal(l->text, "   vPID", 7);
	row_titles(&rl, FIELD_COMM, false, l);
	assert_non_null(strstr(l->text, "COMMAND^"));
	row_layout_init(&rl, 106, false); /* 16 columns of history */
	rl.scale = 15000;
	row_titles(&rl, FIELD_COW, false, l);
	assert_non_null(strstr(l->text, " max 15.0k/s "));
	free(l);
}

/* Give the worker (rows[1]) a reading: 75% of what it inherited still
 * shared, USS 1 MiB, PSS 3 MiB, page tables 24 KiB; and a shared% history: unknown, 0, 50, 100. */
static void read_worker(const struct row *r)
{
	struct smaps s = { .anon = 4096, .private_dirty = 1024, .pss = 3072, .pte = 24 };

	model__set_smaps(mut(r), &s, 1.0);
	model__set_inherited(mut(r), 4096);
	own(&mut(r)->shared);
	series__push_marked(&mut(r)->shared, 0, 0);
	series__push_marked(&mut(r)->shared, 50, 0);
	series__push_marked(&mut(r)->shared, 100, 0);
}

/* SHR% USS PSS after RSS, "-" until read; the history shows shared% on a
 * fixed scale when asked, blank where unknown, and its title says so. */
static void test_memory_cells_and_metric(void **state)
{
	struct fix *f = *state;

	read_worker(&f->rows[1]);
	row_layout_init(&f->rl, 106, false);
	row_layout_scale(&f->rl, METRIC_COW_RATE, f->rows, f->n);
	assert_true(f->rl.scale == 42);
	row_format(&f->rows[1], &f->rl, f->l);
	assert_string_equal(f->l->text,
		"    101 R    21.0      42   1.0M   75%     -   1.0M   3.0M   2.0M    24K               @+ |- worker");
	row_layout_scale(&f->rl, METRIC_SHARED, f->rows, f->n);
	assert_true(f->rl.scale == 100);
	row_format(&f->rows[1], &f->rl, f->l);
	assert_string_equal(f->l->text,
		"    101 R    21.0      42   1.0M   75%     -   1.0M   3.0M   2.0M    24K              _+@ |- worker");
	row_format(&f->rows[0], &f->rl, f->l); /* never read: no history drawn */
	assert_string_equal(f->l->text,
		"    100 S     0.0       0     0K     -     -      -      -     0K      -                  master");
	row_titles(&f->rl, FIELD_SHARED, false, f->l);
	assert_non_null(strstr(f->l->text, "    RSS ^SHR%  FAM%    USS    PSS    VSZ    PTE SHR% history     COMMAND"));
	row_titles(&f->rl, FIELD_PTE, false, f->l);
	assert_non_null(strstr(f->l->text, "    VSZ   vPTE SHR% history "));
	row_titles(&f->rl, FIELD_USS, false, f->l);
	assert_non_null(strstr(f->l->text, " FAM%   vUSS    PSS "));
	row_layout_init(&f->rl, 126, false);
	row_layout_scale(&f->rl, METRIC_SHARED, f->rows, f->n);
	row_titles(&f->rl, FIELD_PSS, false, f->l);
	assert_non_null(strstr(f->l->text, "   vPSS    VSZ    PTE SHR% history (full 100%) "));
}

static void test_formats(void **state)
{
	char b[32];

	(void)state;
	fmt_rate(0, b, sizeof(b));
	assert_string_equal(b, "0.0");
	fmt_rate(-1, b, sizeof(b));
	assert_string_equal(b, "0.0");
	fmt_rate(9999.9, b, sizeof(b));
	assert_string_equal(b, "9999.9");
	fmt_rate(12345, b, sizeof(b));
	assert_string_equal(b, "12.3k");
	fmt_rate(999960, b, sizeof(b));
	assert_string_equal(b, "1.0M");
	fmt_count(9999999, b, sizeof(b));
	assert_string_equal(b, "9999999");
	fmt_count(12345678, b, sizeof(b));
	assert_string_equal(b, "12.3M");
	fmt_count(18446744073709551615ULL, b, sizeof(b));
	assert_true(strlen(b) <= 7);
	fmt_kib(1023, b, sizeof(b));
	assert_string_equal(b, "1023K");
	fmt_kib(1024, b, sizeof(b));
	assert_string_equal(b, "1.0M");
	fmt_kib(512 * 1024, b, sizeof(b));
	assert_string_equal(b, "512M");
	fmt_kib(3 * 1024 * 1024 / 2, b, sizeof(b));
	assert_string_equal(b, "1.5G");
	fmt_kib(18446744073709551615ULL, b, sizeof(b));
	assert_true(strlen(b) <= 6);
}

/* The pids of rows[0..n), as "100 101 ...". */
static const char *pids(const struct row *rows, size_t n)
{
	static char buf[256];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d", i ? " " : "", rows[i].p->pid);
	return buf;
}

static void test_filter_tree_keeps_ancestors(void **state)
{
	struct model *m = sample();
	char prefix[64];
	size_t n, k;
	struct row *rows = rows_of(m, true, &n);

	(void)state;
	k = rows_filter(rows, n, "GONE", false, true, true);
	assert_string_equal(pids(rows, k), "100 102 103");
	/* 102 was a middle child; alone now, it is drawn as the last one */
	assert_true(rows[1].last);
	tree_prefix(&rows[2], false, prefix, sizeof(prefix));
	assert_string_equal(prefix, "  `- ");
	rows = rows_of(m, true, &n);
	k = rows_filter(rows, n, "work", false, true, true);
	assert_string_equal(pids(rows, k), "100 101");
	rows = rows_of(m, true, &n);
	assert_int_equal(rows_filter(rows, n, "", false, true, true), n);
	assert_int_equal(rows_filter(rows, n, "nothing-matches", false, true, true), 0);
	model__free(m);
}

static void test_filter_flat_and_escapes(void **state)
{
	struct model *m = sample();
	size_t n, k;
	struct row *rows = rows_of(m, false, &n);

	(void)state;
	k = rows_filter(rows, n, "GONE", false, true, false);
	assert_string_equal(pids(rows, k), "103");
	rows = rows_of(m, false, &n);
	/* the filter sees the name as shown, escapes included */
	k = rows_filter(rows, n, "\\e]0;pwn", false, true, false);
	assert_string_equal(pids(rows, k), "102");
	model__free(m);
}

static void test_filter_relinks_bars(void **state)
{
	/* a(0) b(1) c(2) d(2) e(1) f(2): keep c, d, f -> a b c d e f minus nothing
	 * but drop d: c becomes last under b; b keeps its bar for e below. */
	struct proc p[6];
	struct row r[6];
	const int depth[6] = { 0, 1, 2, 2, 1, 2 };
	const char *names[6] = { "a", "b", "cx", "d", "e", "fx" };
	char prefix[64];
	int i;

	(void)state;
	memset(p, 0, sizeof(p));
	for (i = 0; i < 6; i++) {
		p[i].pid = i + 1;
		strcpy(p[i].comm, names[i]);
		r[i] = (struct row){ .p = &p[i], .depth = depth[i] };
	}
	assert_int_equal(rows_filter(r, 6, "x", false, true, true), 5);
	assert_string_equal(pids(r, 5), "1 2 3 5 6");
	tree_prefix(&r[2], false, prefix, sizeof(prefix));
	assert_string_equal(prefix, "| `- ");
	tree_prefix(&r[1], false, prefix, sizeof(prefix));
	assert_string_equal(prefix, "|- ");
	tree_prefix(&r[4], false, prefix, sizeof(prefix));
	assert_string_equal(prefix, "  `- ");
}

/* The role of byte off of l (ROLE_PLAIN when no span covers it). */
static enum role role_of(const struct line *l, size_t off)
{
	int i;

	for (i = 0; i < l->nspan; i++)
		if (l->span[i].off <= off && off < l->span[i].off + l->span[i].len)
			return l->span[i].role;
	return ROLE_PLAIN;
}

static void test_marks_in_their_colour(void **state)
{
	struct fix *f = *state;
	size_t k;
	const char *at;

	own(&mut(&f->rows[1])->rate);
	series__push_marked(&mut(&f->rows[1])->rate, 0, 1);
	series__push_marked(&mut(&f->rows[1])->rate, 42, 0);
	row_layout_init(&f->rl, 106, false);
	f->rl.scale = 42;
	row_format(&f->rows[1], &f->rl, f->l);
	assert_string_equal(f->l->text,
		"    101 R    21.0      42   1.0M     -     -      -      -   2.0M      -             @+|@ |- worker");
	at = strchr(f->l->text, '|');
	assert_int_equal(role_of(f->l, (size_t)(at - f->l->text)), ROLE_MARK);
	assert_int_equal(role_of(f->l, (size_t)(at - f->l->text) - 1), ROLE_SPARK);
	assert_int_equal(role_of(f->l, (size_t)(at - f->l->text) + 1), ROLE_SPARK);
	assert_int_equal(role_of(f->l, (size_t)(strstr(f->l->text, "|- ") - f->l->text)), ROLE_TREE);
	row_layout_init(&f->rl, 106, true);
	row_format(&f->rows[1], &f->rl, f->l);
	at = strstr(f->l->text, "◇");
	assert_non_null(at);
	for (k = 0; k < strlen("◇"); k++)
		assert_int_equal(role_of(f->l, (size_t)(at - f->l->text) + k), ROLE_MARK);
}

static void test_many_marks_keep_the_tree_colour(void **state)
{
	struct fix *f = *state;
	int i;

	own(&mut(&f->rows[1])->rate);
	for (i = 0; i < SERIES_CAP; i++)
		series__push_marked(&mut(&f->rows[1])->rate, i % 2 ? 5 : 0, (unsigned char)(i % 2));
	row_layout_init(&f->rl, 2000, false);
	f->rl.scale = 5;
	row_format(&f->rows[1], &f->rl, f->l);
	assert_non_null(strstr(f->l->text, "_!_!_!"));
	/* too many runs to colour: the marks keep only their glyph */
	assert_int_equal(role_of(f->l, (size_t)row_columns_width(f->rl.keep) + 1), ROLE_SPARK);
	assert_int_equal(role_of(f->l, (size_t)(strstr(f->l->text, "|- ") - f->l->text)), ROLE_TREE);
}

/* A model with one phase and probes, worker (101) having copied 100 pages,
 * 81 of them inside the phase. */
static struct model *phased(const char *phase_label)
{
	struct model *m = sample();
	struct proc *w = model__find(m, 101, 0);
	int ph = model__add_phase(m, phase_label);

	assert_int_equal(ph, 1);
	model__add_probe(m, "ruby:gc__mark__begin");
	model__add_probe(m, "ruby:gc__mark__end");
	model__add_probe(m, "ruby:\x1b[2Jboom\x07");
	w->counts.cow = 100;
	w->split[SPLIT_PHASE].v[ph] = 81;
	return m;
}

static void test_phase_split(void **state)
{
	struct model *m = phased("ruby:gc__mark");
	struct line *l = malloc(sizeof(*l));
	struct proc *w = model__find(m, 101, 0);

	(void)state;
	line_clear(l);
	assert_int_equal(row_phases(w, frame_of(m), false, false, l), 2);
	assert_string_equal(l->text, "pid 101 worker: ruby:gc__mark 81%, outside 19%");
	line_clear(l);
	row_phases(w, frame_of(m), true, true, l);
	assert_string_equal(l->text, "pid 101 worker: ruby:gc__mark 81% (81), outside 19% (19)");
	w->split[SPLIT_PHASE].v[1] = 100; /* every copy in the phase: no "outside" */
	line_clear(l);
	assert_int_equal(row_phases(w, frame_of(m), false, false, l), 1);
	assert_string_equal(l->text, "pid 101 worker: ruby:gc__mark 100%");
	w->counts.cow = 1000;
	w->split[SPLIT_PHASE].v[1] = 1; /* a sliver still shows */
	line_clear(l);
	row_phases(w, frame_of(m), false, false, l);
	assert_string_equal(l->text, "pid 101 worker: ruby:gc__mark <1%, outside 100%");
	line_clear(l);
	assert_int_equal(row_phases(model__find(m, 100, 0), frame_of(m), false, false, l), 0); /* no copies */
	assert_int_equal(l->len, 0);
	model__free(m);
	free(l);
}

static void test_phase_split_needs_phases(void **state)
{
	struct model *m = sample();
	struct line *l = malloc(sizeof(*l));

	(void)state;
	line_clear(l);
	model__add_probe(m, "ruby:marker"); /* a marker alone makes no phase */
	assert_int_equal(row_phases(model__find(m, 101, 0), frame_of(m), false, true, l), 0);
	assert_int_equal(l->len, 0);
	model__free(m);
	free(l);
}

static void test_phase_split_hostile(void **state)
{
	struct model *m = phased("x:\x1b]0;pwned\x07\xff");
	struct line *l = malloc(sizeof(*l));
	struct proc *e = model__find(m, 102, 0);
	int utf8;

	(void)state;
	e->counts.cow = 4;
	e->split[SPLIT_PHASE].v[1] = 1;
	for (utf8 = 0; utf8 < 2; utf8++) {
		line_clear(l);
		assert_int_equal(row_phases(e, frame_of(m), utf8, true, l), 2);
		assert_null(strchr(l->text, '\x1b'));
		assert_null(strchr(l->text, '\x07'));
		assert_null(strchr(l->text, '\xff'));
		assert_non_null(strstr(l->text, "x:\\e]0;pwned\\x07\\xff 25% (1), outside 75% (3)"));
		assert_memory_equal(l->text, "pid 102 \\e]0;pwned", 18);
	}
	model__free(m);
	free(l);
}

/* 12:34:56.789 UTC on the first day of 2024. */
#define NOON_ISH (1704067200.0 + 12 * 3600 + 34 * 60 + 56.789)

static void test_marker_line(void **state)
{
	struct marker mk = { .time = NOON_ISH, .pid = 101, .probe = 0, .nargs = 3,
			     .args = { 1, -2, 0x7f0000001000LL } };
	struct line *l = malloc(sizeof(*l));

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	row_marker(&mk, "worker", "ruby:gc__mark__begin", false, 200, l);
	assert_string_equal(l->text,
		"12:34:56.789     101 worker          ruby:gc__mark__begin 1 -2 0x7f0000001000");
	assert_int_equal(role_of(l, 0), ROLE_LABEL);
	mk.nargs = 0;
	row_marker(&mk, NULL, NULL, true, 200, l);
	assert_string_equal(l->text, "12:34:56.789     101 ?               ?");
	mk.nargs = 99; /* more than a hit can carry: only those there are */
	row_marker(&mk, "a-very-long-process-name", "p:n", false, 200, l);
	assert_string_equal(l->text,
		"12:34:56.789     101 a-very-long-pro p:n 1 -2 0x7f0000001000");
	row_marker(&mk, "worker", "p:n", false, 16, l);
	assert_string_equal(l->text, "12:34:56.789    ");
	mk.time = NOON_ISH + 0.2109; /* milliseconds round, never to the next second */
	row_marker(&mk, "w", "p:n", false, 12, l);
	assert_string_equal(l->text, "12:34:56.999");
	free(l);
}

static void test_marker_line_hostile(void **state)
{
	struct marker mk = { .time = NOON_ISH, .pid = 7 };
	struct line *l = malloc(sizeof(*l));
	int utf8;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	for (utf8 = 0; utf8 < 2; utf8++) {
		row_marker(&mk, "\x1b[2J\xff", "p:\x1b]0;x\x07\n", utf8, 200, l);
		assert_null(strchr(l->text, '\x1b'));
		assert_null(strchr(l->text, '\x07'));
		assert_null(strchr(l->text, '\n'));
		assert_null(strchr(l->text, '\xff'));
		assert_non_null(strstr(l->text, " \\e[2J\\xff       p:\\e]0;x\\x07\\n"));
	}
	free(l);
}

static void test_marker_titles(void **state)
{
	struct line *l = malloc(sizeof(*l));

	(void)state;
	row_marker_titles(3, 100, l);
	assert_int_equal(l->base, ROLE_COLHDR);
	assert_int_equal(l->len, 100);
	assert_memory_equal(l->text, "TIME             PID COMMAND         PROBE ARGS  (3 hits kept", 61);
	row_marker_titles(1, 10, l);
	assert_string_equal(l->text, "TIME      ");
	free(l);
}

static void test_text_fit_wide(void **state)
{
	int w;

	(void)state;
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		skip();
	assert_int_equal(text_fit("ab\xe4\xb8\xad" "c", 6, 3, &w), 2); /* the CJK char is 2 wide */
	assert_int_equal(w, 2);
	assert_int_equal(text_fit("ab\xe4\xb8\xad" "c", 6, 4, &w), 5);
	assert_int_equal(w, 4);
	assert_int_equal(text_fit("abc", 3, 0, &w), 0);
	setlocale(LC_CTYPE, "C");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_shares_width),
		cmocka_unit_test(test_layout_keeps_the_figures),
		cmocka_unit_test(test_column_at),
		cmocka_unit_test(test_layout_hidden),
		cmocka_unit_test_setup_teardown(test_row_scrolled, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_row_exact_ascii, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_row_cmdline_and_bytes, fix_setup, fix_teardown),
		cmocka_unit_test(test_drop_kthreads),
		cmocka_unit_test_setup_teardown(test_row_exact_utf8, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_row_spans, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_name_never_reaches_terminal, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_cut_to_width, fix_setup, fix_teardown),
		cmocka_unit_test(test_titles),
		cmocka_unit_test(test_formats),
		cmocka_unit_test_setup_teardown(test_memory_cells_and_metric, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_marks_in_their_colour, fix_setup, fix_teardown),
		cmocka_unit_test_setup_teardown(test_many_marks_keep_the_tree_colour, fix_setup, fix_teardown),
		cmocka_unit_test(test_phase_split),
		cmocka_unit_test(test_phase_split_needs_phases),
		cmocka_unit_test(test_phase_split_hostile),
		cmocka_unit_test(test_marker_line),
		cmocka_unit_test(test_marker_line_hostile),
		cmocka_unit_test(test_marker_titles),
		cmocka_unit_test(test_filter_tree_keeps_ancestors),
		cmocka_unit_test(test_filter_flat_and_escapes),
		cmocka_unit_test(test_filter_relinks_bars),
		cmocka_unit_test(test_text_fit_wide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
