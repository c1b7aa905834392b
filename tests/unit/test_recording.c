/* Unit tests: recordings written by the recorder's own functions and read
 * back (values, labels, histories), and every kind of bad recording with
 * its exact message; the append opener's refusals. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "diff.h"
#include "frame.h"
#include "output.h"
#include "procs.h"
#include "record.h"
#include "recording.h"
#include "runtime.h"
#include "safefile.h"
#include "tmpdir.h"

static char dir[4096], path[4200], err[1024];
/* What the full-screen view asks of a frame: the whole history. */
static const struct view_opts drawn = { .sort = FIELD_COW_RATE, .tree = true, .hist = SERIES_CAP };

static int setup(void **state)
{
	(void)state;
	if (tmpdir_make(dir, sizeof(dir), "cowtop-recording"))
		return -1;
	snprintf(path, sizeof(path), "%s/rec", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove(dir);
}

/* A model of a root with two children, some copies split by region and phase. */
static struct model *workload(void)
{
	struct model *m = model__new();
	struct proc *root, *a, *b;
	struct smaps s = { .pss = 900, .private_dirty = 400, .private_clean = 100, .anon = 1000, .pte = 68 };

	assert_non_null(m);
	root = add(m, 100, 1, 50, "master", 10);
	a = add(m, 101, 100, 60, "worker", 1000);
	b = add(m, 102, 100, 61, "worker", 3000);
	model__set_mem(root, 'S', 5000, 9000);
	model__set_mem(a, 'R', 4000, 9000);
	model__set_mem(b, 'S', 4100, 9000);
	model__set_inherited(a, 2000);
	model__set_smaps(a, &s, 1000.0);
	model__set_split(b, SPLIT_REGION, SPLIT_REGION_ANON, 2500);
	model__set_split(b, SPLIT_REGION, model__add_label(m, SPLIT_REGION, "file:libc.so.6"), 7);
	model__settle_regions(b, 0); /* two region reads: 493 copies in no region */
	model__settle_regions(b, 0);
	model__set_split(a, SPLIT_PHASE, model__add_phase(m, "ruby:gc"), 600);
	model__add_marker(m, &(struct marker){ .time = 1000.5, .pid = 101, .probe = model__add_probe(m, "ruby:gc__mark__begin"), .nargs = 1, .args = { 7 } });
	return m;
}

/* The copies by runtime object the next recording holds (NULL: none). */
static const struct objects *rec_objects;

/* Write a header and n frames of m (ticking it between them) to path. */
static void write_recording(struct model *m, int n, int schema)
{
	FILE *f = fopen(path, "w");
	struct record_who w = { "box", "Linux 6.18", "id", "0.1", 999.0, 900.0, 100 };
	struct frame_status st = { .time = 1001, .interval = 1, .mechanism = "raw_tp", .target = "pid 100", .usdt = true,
				   .objects = rec_objects };
	unsigned long long cursor = 0;
	int i;

	assert_non_null(f);
	for (i = 0; i < n; i++) {
		struct frame *fr;

		model__tick(m, 1);
		st.time = 1001 + i;
		fr = frame__build(m, &st, NULL, &cursor);
		assert_non_null(fr);
		if (i == 0 && schema == RECORD_SCHEMA) {
			record_header(f, &w, fr, &(struct options){ .delay = 1 });
		} else if (i == 0) {
			fprintf(f, "{\"recording\":true,\"schema\":%d}\n", schema);
		}
		output_json(f, fr);
		frame__free(fr);
	}
	fclose(f);
}

/* Write text as the whole file. */
static void write_text(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Open path, expecting failure with exactly the path and then after. */
static void expect_open_error(const char *after)
{
	struct recording *r;
	char want[8192];

	snprintf(want, sizeof(want), "%s%s", path, after);
	assert_int_not_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_null(r);
	assert_string_equal(err, want);
}

/* The proc of pid in f. */
static const struct proc *proc_of(const struct frame *f, int pid)
{
	size_t i;

	for (i = 0; i < f->nprocs; i++)
		if (f->procs[i].pid == pid)
			return &f->procs[i];
	fail_msg("pid %d not in the frame", pid);
	return NULL;
}

/* What a frame holds comes back: counts, memory, splits, labels, markers, history. */
static void test_round_trip(void **state)
{
	struct model *m = workload();
	struct recording *r;
	struct frame *f;
	const struct proc *a, *b;

	(void)state;
	write_recording(m, 3, RECORD_SCHEMA);
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(recording__frames(r), 3);
	assert_string_equal(recording__warning(r), "");
	assert_string_equal(recording__info(r)->host, "box");
	assert_string_equal(recording__info(r)->kernel, "Linux 6.18");
	assert_true(recording__info(r)->btime == 900.0);
	assert_true(recording__info(r)->delay == 1.0);
	assert_true(recording__time(r, 2) == 1003);
	assert_true(recording__marked(r, 0));  /* the probe hit is in the first frame */
	assert_false(recording__marked(r, 1));
	assert_int_equal(recording__at_time(r, 1001.5), 1);
	assert_int_equal(recording__frame(r, 2, &drawn, &f, err, sizeof(err)), 0);
	assert_int_equal(f->nprocs, 3);
	assert_int_equal(f->nrows, 3);
	assert_string_equal(f->target, "pid 100");
	a = proc_of(f, 101);
	b = proc_of(f, 102);
	assert_int_equal(a->ppid, 100);
	assert_string_equal(a->comm, "worker");
	assert_int_equal(a->counts.cow, 1000);
	assert_int_equal(b->counts.cow, 3000);
	assert_int_equal(a->rss_kib, 4000);
	assert_int_equal(a->smaps.pss, 900);
	assert_int_equal(a->smaps.pte, 68); /* pte_kib, through the field table */
	assert_int_equal(proc_uss_kib(a), 500);
	assert_true(b->smaps_time == 0); /* never read stays unknown */
	assert_true(proc_shared_pct(a) == 100.0 * 600 / 2000);
	assert_int_equal(b->split[SPLIT_REGION].v[SPLIT_REGION_ANON], 2500);
	assert_string_equal(frame_label(f, SPLIT_REGION, 4), "file:libc.so.6");
	assert_int_equal(b->split[SPLIT_REGION].v[4], 7);
	assert_int_equal(frame_split_none(b, SPLIT_REGION), 493);
	assert_string_equal(frame_phase_label(f, 1), "ruby:gc");
	assert_int_equal(a->split[SPLIT_PHASE].v[1], 600);
	assert_int_equal(series__len(&a->rate), 3); /* the history of the frames before */
	assert_int_equal(f->totals.cow, 4010);
	assert_int_equal(f->ngroups, 1);
	assert_int_equal(f->nlog, 1);
	assert_string_equal(f->log[0].comm, "worker");
	frame__free(f);
	/* a jump back rebuilds the history of the frames before it only */
	assert_int_equal(recording__frame(r, 0, &drawn, &f, err, sizeof(err)), 0);
	assert_int_equal(series__len(&proc_of(f, 101)->rate), 1);
	assert_int_equal(f->nmarks, 1);
	assert_string_equal(frame_probe_label(f, f->marks[0].probe), "ruby:gc__mark__begin");
	assert_int_equal(f->marks[0].args[0], 7);
	frame__free(f);
	recording__free(r);
	model__free(m);
}

/* Copies by runtime object (--objects) come back: the sampler's status,
 * each sampled process's runtime, kinds of write and rows; none for a
 * process without; none at all in a recording made without --objects. */
static void test_objects_round_trip(void **state)
{
	struct model *m = workload();
	struct objects *o = objects__new();
	const struct objects_proc *op;
	struct recording *r;
	struct frame *f;

	(void)state;
	assert_non_null(o);
	/* a child of 101 with a lower pid: the file has it before 102 */
	add(m, 50, 101, 70, "helper", 40);
	objects__set(o, &(struct objects_key){ .pid = 101, .start = 60, .runtime = OBJ_RT_RUBY31,
					      .type = 5, .write = OBJ_W_FLAGS },
		     500);
	objects__set(o, &(struct objects_key){ .pid = 50, .start = 70, .runtime = OBJ_RT_RUBY31,
					      .type = 7, .write = OBJ_W_FLAGS },
		     40);
	objects__set(o, &(struct objects_key){ .pid = 101, .start = 60, .runtime = OBJ_RT_RUBY31,
					      .type = OBJ_RBT_NONE, .write = OBJ_W_OUTSIDE },
		     300);
	objects__set(o, &(struct objects_key){ .pid = 100, .start = 50, .runtime = OBJ_RT_RUBY31,
					      .type = 5, .write = OBJ_W_SLOT },
		     10);
	objects__set(o, &(struct objects_key){ .pid = 100, .start = 50, .runtime = OBJ_RT_RUBY31,
					      .type = 1, .klass = 0x1000, .klass_serial = 9,
					      .write = OBJ_W_SLOT },
		     20);
	objects__name_class(o, 100, 50, 0x1000, 9, "Cowtest::Widget");
	objects__set_status(o, 8, 0.5, 2);
	rec_objects = o;
	write_recording(m, 2, RECORD_SCHEMA);
	rec_objects = NULL;
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(recording__frame(r, 1, &drawn, &f, err, sizeof(err)), 0);
	assert_non_null(f->objects);
	assert_int_equal(f->objects->every, 8);
	assert_int_equal(f->objects->failed, 2);
	assert_true(f->objects->us_per_sample == 0.5);
	op = objects_snap__of(f->objects, 101, 60);
	assert_non_null(op);
	assert_string_equal(op->runtime, "ruby-3.1");
	assert_int_equal(op->pages, 800);
	assert_int_equal(op->by_write[OBJ_W_FLAGS], 500);
	assert_int_equal(op->by_write[OBJ_W_OUTSIDE], 300);
	assert_int_equal(op->ntop, 2);
	assert_string_equal(op->top[0].type, "T_STRING");
	assert_int_equal(op->top[0].write, OBJ_W_FLAGS);
	assert_int_equal(op->top[0].pages, 500);
	assert_null(objects_snap__of(f->objects, 102, 61));
	assert_null(objects_snap__of(f->objects, 101, 61)); /* another start */
	assert_non_null(op = objects_snap__of(f->objects, 50, 70));
	assert_int_equal(op->by_write[OBJ_W_FLAGS], 40);
	assert_string_equal(op->top[0].type, "T_ARRAY");
	assert_non_null(op = objects_snap__of(f->objects, 100, 50));
	assert_int_equal(op->by_write[OBJ_W_SLOT], 30);
	assert_int_equal(op->ntop, 2);
	assert_string_equal(op->top[0].type, "T_OBJECT"); /* with its class */
	assert_string_equal(op->top[0].cls, "Cowtest::Widget");
	assert_string_equal(op->top[1].type, "T_STRING"); /* without */
	assert_string_equal(op->top[1].cls, "");
	assert_int_equal(f->objects->nprocs, 3);
	frame__free(f);
	recording__free(r);
	write_recording(m, 1, RECORD_SCHEMA);
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(recording__frame(r, 0, &drawn, &f, err, sizeof(err)), 0);
	assert_null(f->objects);
	frame__free(f);
	recording__free(r);
	objects__free(o);
	model__free(m);
}

/* A recording made when the copies outside every phase were "none" in
 * JSON reads them as today's "outside", in the same slot: no third phase. */
static void test_old_outside_word(void **state)
{
	struct model *m = workload();
	struct recording *r;
	struct frame *f;
	char *text, *at;
	FILE *fp;
	long len;
	int n = 0;

	(void)state;
	write_recording(m, 2, RECORD_SCHEMA);
	fp = fopen(path, "r+");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	len = ftell(fp);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	rewind(fp);
	assert_int_equal(fread(text, 1, (size_t)len, fp), (size_t)len);
	for (at = text; (at = strstr(at, "\"outside\":")); n++)
		memcpy(at, "\"none\":   ", 10); /* the same length: JSON allows the spaces */
	assert_true(n > 0);
	rewind(fp);
	assert_int_equal(fwrite(text, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	free(text);
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(recording__frame(r, 1, &drawn, &f, err, sizeof(err)), 0);
	assert_int_equal(frame_nlabels(f, SPLIT_PHASE), 2);
	assert_string_equal(frame_phase_label(f, 0), PHASE_OUTSIDE);
	assert_string_equal(frame_phase_label(f, 1), "ruby:gc");
	assert_int_equal(proc_of(f, 101)->split[SPLIT_PHASE].v[1], 600);
	frame__free(f);
	recording__free(r);
	model__free(m);
}

/* The text --diff A B prints to stdout, in buf. */
static void diff_text(const char *a, const char *b, char *buf, size_t cap)
{
	struct options o = { .diff = { a, b }, .format = FORMAT_TEXT };
	char out[4300];
	int fd, saved;
	ssize_t n;

	snprintf(out, sizeof(out), "%s/diff.txt", dir);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	assert_int_equal(diff_run(&o), 0);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	fd = open(out, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, cap - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
}

/* --diff: a figure that is 0 in A and in B has no ratio ("-"), not 1; a
 * figure with one keeps it. */
static void test_diff_zero_ratio(void **state)
{
	struct model *m = workload();
	char a[4300], text[16384], *root, *line;

	(void)state;
	write_recording(m, 2, RECORD_SCHEMA);
	snprintf(a, sizeof(a), "%s/a.rec", dir);
	assert_int_equal(rename(path, a), 0);
	model__free(m);
	m = workload();
	write_recording(m, 2, RECORD_SCHEMA);
	diff_text(a, path, text, sizeof(text));
	root = strstr(text, "role root master");
	assert_non_null(root);
	line = strstr(root, "copies in ruby:gc"); /* the master copied nothing in the phase */
	assert_non_null(line);
	*strchrnul(line, '\n') = '\0';
	assert_non_null(strstr(line, "  0            0          -                   -"));
	line = strstr(line + strlen(line) + 1, "copies in ruby:gc"); /* the workers: 600 vs 600 */
	assert_non_null(line);
	*strchrnul(line, '\n') = '\0';
	assert_non_null(strstr(line, "  1                1..1"));
	unlink(a);
	model__free(m);
}

/* A replay keeps of the histories only what the view draws: after a jump,
 * that many frames are read again; batch output (no history) reads none. */
static void test_history_as_drawn(void **state)
{
	static const struct view_opts two = { .sort = FIELD_COW_RATE, .tree = true, .hist = 2 };
	struct model *m = workload();
	struct recording *r;
	struct frame *f;

	(void)state;
	write_recording(m, 3, RECORD_SCHEMA);
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(recording__frame(r, 2, &two, &f, err, sizeof(err)), 0);
	assert_int_equal(series__len(&proc_of(f, 101)->rate), 2); /* frames 2 and 3 */
	frame__free(f);
	assert_int_equal(recording__frame(r, 2, NULL, &f, err, sizeof(err)), 0);
	assert_int_equal(series__len(&proc_of(f, 101)->rate), 0);
	assert_int_equal(f->nprocs, 3);
	frame__free(f);
	/* from no history to some: read again, not a gap */
	assert_int_equal(recording__frame(r, 1, &drawn, &f, err, sizeof(err)), 0);
	assert_int_equal(series__len(&proc_of(f, 101)->rate), 2);
	frame__free(f);
	recording__free(r);
	model__free(m);
}

/* What the jump prompt takes: #FRAME, +SECONDS, HH:MM[:SS] (local time). */
static void test_find(void **state)
{
	struct model *m = workload();
	struct recording *r;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	write_recording(m, 3, RECORD_SCHEMA); /* frames at 1001, 1002, 1003 */
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(recording__find(r, "#1"), 0);
	assert_int_equal(recording__find(r, "#3"), 2);
	assert_int_equal(recording__find(r, "#99"), 2);
	assert_int_equal(recording__find(r, "+0"), 0);
	assert_int_equal(recording__find(r, "+1"), 1);
	assert_int_equal(recording__find(r, "+0.5"), 1);
	assert_int_equal(recording__find(r, "+100"), 2);
	assert_int_equal(recording__find(r, "00:16:42"), 1); /* 1002 s after the epoch */
	assert_int_equal(recording__find(r, "00:16"), 0);
	assert_int_equal(recording__find(r, "#0"), -1);
	assert_int_equal(recording__find(r, "#x"), -1);
	assert_int_equal(recording__find(r, "+-1"), -1);
	assert_int_equal(recording__find(r, "+"), -1);
	assert_int_equal(recording__find(r, "25:00"), -1);
	assert_int_equal(recording__find(r, "12:00:00x"), -1);
	assert_int_equal(recording__find(r, "noon"), -1);
	recording__free(r);
	model__free(m);
}

/* A cut last line: the frames before it, and a warning naming its line. */
static void test_truncated(void **state)
{
	struct model *m = workload();
	struct recording *r;
	char want[8192];
	struct stat st;

	(void)state;
	write_recording(m, 3, RECORD_SCHEMA);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 20), 0);
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(recording__frames(r), 2);
	snprintf(want, sizeof(want),
		 "%s: line 4 is cut short (the recorder stopped mid-line): reading only the 2 frames before it", path);
	assert_string_equal(recording__warning(r), want);
	recording__free(r);
	model__free(m);
}

static void test_empty(void **state)
{
	(void)state;
	write_text("");
	expect_open_error(" is empty: not a cowtop recording");
	write_text("{\"recording\":true,\"schema\":1,\"host\":\"x\"}\n");
	expect_open_error(" holds no frames");
}

static void test_newer_schema(void **state)
{
	struct model *m = workload();

	(void)state;
	write_recording(m, 2, RECORD_SCHEMA + 1);
	expect_open_error(" was recorded by a newer cowtop (schema 2; this one reads schema 1)");
	model__free(m);
}

static void test_not_a_recording(void **state)
{
	(void)state;
	write_text("hello\n");
	expect_open_error(": not a cowtop recording (line 1 is not its header)");
	write_text("PID COMM\n1 init\n");
	expect_open_error(": not a cowtop recording (line 1 is not its header)");
}

/* A corrupt line: found when indexing (not a frame's shape) or when it is
 * shown (bad JSON inside), with its line number either way. */
static void test_corrupt(void **state)
{
	struct recording *r;
	struct frame *f;
	char want[8192];

	(void)state;
	write_text("{\"recording\":true,\"schema\":1}\n{\"time\":1,\"processes\":[]}\ngarbage\n{\"time\":3,\"processes\":[]}\n");
	expect_open_error(":3: corrupt line (not a frame)");
	write_text("{\"recording\":true,\"schema\":1}\n{\"time\":1,\"processes\":[]}\n{\"time\":2,\"processes\":[{\"pid\":}]}\n");
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(recording__frame(r, 0, NULL, &f, err, sizeof(err)), 0);
	frame__free(f);
	assert_int_not_equal(recording__frame(r, 1, NULL, &f, err, sizeof(err)), 0);
	assert_null(f);
	snprintf(want, sizeof(want), "%s:3: corrupt line: unexpected character", path);
	assert_string_equal(err, want);
	recording__free(r);
	/* a corrupt frame does not keep the ones after it from being shown */
	write_text("{\"recording\":true,\"schema\":1}\n{\"time\":1,\"processes\":[{]}\n{\"time\":2,\"processes\":[]}\n");
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_not_equal(recording__frame(r, 0, NULL, &f, err, sizeof(err)), 0);
	assert_int_equal(recording__frame(r, 1, NULL, &f, err, sizeof(err)), 0);
	assert_true(f->time == 2);
	frame__free(f);
	recording__free(r);
	write_text("{\"recording\":true,\"schema\":1}\n{\"time\":1,\"processes\":7}\n");
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_not_equal(recording__frame(r, 0, NULL, &f, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s:2: corrupt line: not a frame", path);
	assert_string_equal(err, want);
	recording__free(r);
}

/* A frame's processes are read one at a time: a corrupt one in the middle,
 * or corrupt text after them, gives json-c's message for the whole line,
 * with its number; text the recorder never writes (a key twice, a key
 * further down or in a string, comments) gives the frame json-c makes of
 * the whole line. */
static void test_processes_apart(void **state)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{ "{\"time\":2,\"processes\":[{\"pid\":1},{\"pid\":2},{\"pid\":3,\"comm\":x},{\"pid\":4}],\"groups\":[]}",
		  "unexpected character" },
		{ "{\"time\":2,\"processes\":[{\"pid\":1},{\"pid\":2}}", "array value separator ',' expected" },
		{ "{\"time\":2,\"processes\":[{\"pid\":1} {\"pid\":2}]}", "array value separator ',' expected" },
		{ "{\"time\":2,\"processes\":[{\"pid\":1}],\"groups\":[{]}", "quoted object property name expected" },
		{ "{\"time\":2,\"processes\":[{\"pid\":1},7,{\"pid\":2}]}", "not a frame" },
		{ "{\"time\":2,\"processes\":[{\"pid\":1},{\"pid\":2,\"comm\":\"a\\qb\"}]}", "invalid string sequence" },
	};
	static const struct {
		const char *line;
		double time;
		int pids[3]; /* 0 ends */
	} odd[] = {
		{ "{\"time\":2,\"processes\":[{\"pid\":1}],\"processes\":[{\"pid\":2},{\"pid\":3}]}", 2, { 2, 3 } },
		{ "{\"time\":2,\"processes\":[{\"pid\":1}],\"proce\\u0073ses\":[]}", 2, { 0 } },
		{ "{\"time\":2,\"x\":{\"processes\":[{\"pid\":1}]},\"processes\":[]}", 2, { 0 } },
		{ "{\"time\":2,\"a\\\"processes\":[{\"pid\":1}],\"proce\\u0073ses\":[]}", 2, { 0 } },
		{ "{\"time\":2,'a\"processes':[{\"pid\":1}],\"proce\\u0073ses\":[]}", 2, { 0 } },
		{ "{\"time\":2,\"host\":\"\\\"processes\\\":[\",\"processes\":[{\"pid\":1}]}", 2, { 1 } },
		{ "{\"time\":2,\"processes\":[ {\"pid\":1} /* c */, {\"pid\":2} ]  }", 2, { 1, 2 } },
		{ "{\"time\":2,\"processes\":[{\"pid\":1}],\"time\":3}", 3, { 1 } },
	};
	char text[512], want[8192];
	struct recording *r;
	struct frame *f;
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(text, sizeof(text), "{\"recording\":true,\"schema\":1}\n{\"time\":1,\"processes\":[]}\n%s\n",
			 bad[i].line);
		write_text(text);
		assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
		assert_int_not_equal(recording__frame(r, 1, NULL, &f, err, sizeof(err)), 0);
		assert_null(f);
		snprintf(want, sizeof(want), "%s:3: corrupt line: %s", path, bad[i].why);
		assert_string_equal(err, want);
		recording__free(r);
	}
	for (i = 0; i < sizeof(odd) / sizeof(*odd); i++) {
		snprintf(text, sizeof(text), "{\"recording\":true,\"schema\":1}\n%s\n", odd[i].line);
		write_text(text);
		assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
		assert_int_equal(recording__frame(r, 0, NULL, &f, err, sizeof(err)), 0);
		assert_true(f->time == odd[i].time);
		for (k = 0; k < 3 && odd[i].pids[k]; k++)
			assert_non_null(proc_of(f, odd[i].pids[k]));
		assert_int_equal(f->nprocs, k);
		frame__free(f);
		recording__free(r);
	}
	/* the index takes the first ,"time": (here one further down): the
	 * processes' smaps times are the frame's time less their age */
	write_text("{\"recording\":true,\"schema\":1}\n{\"schema\":1,\"x\":{\"a\":1,\"time\":7},\"time\":2,"
		   "\"processes\":[{\"pid\":1,\"pss_kib\":5,\"smaps_age\":0.5}]}\n");
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(recording__frame(r, 0, NULL, &f, err, sizeof(err)), 0);
	assert_true(f->time == 2);
	assert_true(proc_of(f, 1)->smaps_time == 1.5);
	frame__free(f);
	recording__free(r);
}

/* What the recorder never writes is refused, the frame whole, with what is
 * wrong and the line: pids out of range, negative or fractional counts,
 * members of another type, a parent that is the process itself or a cycle
 * of parents, a process twice. The frames before and after are shown. */
static void test_invalid_records(void **state)
{
	static const struct {
		const char *procs, *why;
	} bad[] = {
		{ "{\"pid\":-7,\"ppid\":1}", "pid -7 out of range 1-4194304" },
		{ "{\"pid\":0,\"ppid\":1}", "pid 0 out of range 1-4194304" },
		{ "{\"pid\":4194305,\"ppid\":1}", "pid 4194305 out of range 1-4194304" },
		{ "{\"pid\":1e300,\"ppid\":1}", "pid is not a whole number from 0 to 2^63" },
		{ "{\"pid\":\"7\",\"ppid\":1}", "pid is not a number" },
		{ "{\"ppid\":1,\"comm\":\"x\"}", "a process without a pid" },
		{ "{\"pid\":null,\"ppid\":1}", "a process without a pid" },
		{ "{\"pid\":5,\"ppid\":-1}", "ppid -1 out of range 0-4194304" },
		{ "{\"pid\":5,\"ppid\":5}", "process 5 is its own parent" },
		{ "{\"pid\":5,\"ppid\":6},{\"pid\":6,\"ppid\":7},{\"pid\":7,\"ppid\":5}", "process 5 is its own ancestor" },
		{ "{\"pid\":5,\"ppid\":1,\"start_time\":9},{\"pid\":5,\"ppid\":1,\"start_time\":9}",
		  "process 5 (start 9) is in the frame twice" },
		{ "{\"pid\":5,\"ppid\":1,\"cow_pages\":-1}", "cow_pages is negative" },
		{ "{\"pid\":5,\"ppid\":1,\"cow_pages\":1.5}", "cow_pages is not a whole number from 0 to 2^63" },
		{ "{\"pid\":5,\"ppid\":1,\"reuse\":\"many\"}", "reuse is not a number" },
		{ "{\"pid\":5,\"ppid\":1,\"rss_kib\":[1]}", "rss_kib is not a number" },
		{ "{\"pid\":5,\"ppid\":1,\"pss_kib\":1,\"pte_kib\":-4}", "pte_kib is negative" },
		{ "{\"pid\":5,\"ppid\":1,\"pss_kib\":1,\"pte_kib\":\"4\"}", "pte_kib is not a number" },
		{ "{\"pid\":5,\"ppid\":1,\"start_time\":-2}", "start_time is negative" },
		{ "{\"pid\":5,\"ppid\":1,\"comm\":7}", "comm is not a string" },
		{ "{\"pid\":5,\"ppid\":1,\"cow_rate\":-3}", "cow_rate -3 out of range" },
		{ "{\"pid\":5,\"ppid\":1,\"pss_kib\":1,\"smaps_age\":-1}", "smaps_age -1 out of range" },
		{ "{\"pid\":5,\"ppid\":1,\"nspid\":0}", "nspid 0 out of range 1-4194304" },
		{ "{\"pid\":5,\"ppid\":1,\"exit\":{\"code\":300}}", "code 300 out of range 0-255" },
		{ "{\"pid\":5,\"ppid\":1,\"cow_by_region\":{\"heap\":-3}}", "heap is negative" },
		{ "{\"pid\":5,\"ppid\":1}],\"markers\":[{\"time\":1,\"pid\":-1,\"probe\":\"a:b\"}", "pid -1 out of range 1-4194304" },
		{ "{\"pid\":5,\"ppid\":1}],\"markers\":[{\"time\":1,\"probe\":\"a:b\"}", "a probe hit without a pid" },
		{ "{\"pid\":5,\"ppid\":1}],\"markers\":[{\"time\":1,\"pid\":5,\"probe\":\"a:b\",\"args\":[\"x\"]}",
		  "a probe argument is not an integer" },
		{ "{\"pid\":5,\"ppid\":1}],\"groups\":[{\"root\":-5}", "root -5 out of range 1-4194304" },
		{ "{\"pid\":5,\"ppid\":1}],\"interval\":-1,\"x\":[", "interval -1 out of range" },
	};
	char text[1024], want[8192];
	struct recording *r;
	struct frame *f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(text, sizeof(text),
			 "{\"recording\":true,\"schema\":1}\n{\"time\":1,\"processes\":[]}\n"
			 "{\"time\":2,\"processes\":[%s]}\n{\"time\":3,\"processes\":[{\"pid\":1,\"ppid\":0}]}\n",
			 bad[i].procs);
		write_text(text);
		assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
		assert_int_equal(recording__frame(r, 0, &drawn, &f, err, sizeof(err)), 0);
		frame__free(f);
		assert_int_not_equal(recording__frame(r, 1, &drawn, &f, err, sizeof(err)), 0);
		assert_null(f);
		snprintf(want, sizeof(want), "%s:3: corrupt line: %s", path, bad[i].why);
		assert_string_equal(err, want);
		assert_int_equal(recording__frame(r, 2, &drawn, &f, err, sizeof(err)), 0);
		assert_int_equal(f->nprocs, 1);
		frame__free(f);
		recording__free(r);
	}
	/* a parent the frame does not hold makes a root; a pid reused (an
	 * exited process and a new one) is no process twice */
	write_text("{\"recording\":true,\"schema\":1}\n{\"time\":2,\"processes\":[{\"pid\":5,\"ppid\":4,\"start_time\":1,"
		   "\"state\":\"exited\"},{\"pid\":5,\"ppid\":4,\"start_time\":2},{\"pid\":6,\"ppid\":5}]}\n");
	assert_int_equal(recording__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(recording__frame(r, 0, &drawn, &f, err, sizeof(err)), 0);
	assert_int_equal(f->nprocs, 3);
	frame__free(f);
	recording__free(r);
	/* a time that is no time, and a header member of another type, are
	 * found when the file is opened */
	write_text("{\"recording\":true,\"schema\":1}\n{\"time\":-5,\"processes\":[]}\n");
	expect_open_error(":2: corrupt line (no time)");
	write_text("{\"recording\":true,\"schema\":1,\"clk_tck\":\"x\"}\n{\"time\":1,\"processes\":[]}\n");
	expect_open_error(":1: invalid header: clk_tck is not a number");
	write_text("{\"recording\":true,\"schema\":-1}\n{\"time\":1,\"processes\":[]}\n");
	expect_open_error(":1: invalid schema in the header");
}

/* A line longer than any frame is refused without reading it into memory whole. */
static void test_huge_line(void **state)
{
	FILE *f = fopen(path, "w");
	size_t i;

	(void)state;
	assert_non_null(f);
	fputs("{\"recording\":true,\"schema\":1}\n{\"time\":1,\"processes\":[]}\n{\"time\":2,\"x\":\"", f);
	for (i = 0; i < (RECORDING_LINE_MAX >> 10) + 64; i++)
		fprintf(f, "%01024d", 0);
	fputs("\"}\n", f);
	fclose(f);
	expect_open_error(":3: line longer than 16 MiB: not a cowtop frame");
}

/* The recorder's opener: 0600, appends to a recording only, refuses what
 * is not a regular file; a file that is no recording keeps its bytes and
 * mode. */
static void test_open_append(void **state)
{
	char link[4300], buf[64];
	struct stat st;
	int fd;

	(void)state;
	unlink(path);
	fd = safefile_open_append(path, RECORD_MAGIC, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, RECORD_MAGIC "a\n", sizeof(RECORD_MAGIC) + 1), sizeof(RECORD_MAGIC) + 1);
	close(fd);
	fd = safefile_open_append(path, RECORD_MAGIC, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "b\n", 2), 2);
	close(fd);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, sizeof(RECORD_MAGIC) + 3);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_int_equal(write(fd, "root:x:0:0\n", 11), 11);
	close(fd);
	assert_true(safefile_open_append(path, RECORD_MAGIC, err, sizeof(err)) < 0);
	assert_string_equal(err, SAFEFILE_NOT_OURS);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(st.st_size, 11);
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf)), 11);
	close(fd);
	assert_memory_equal(buf, "root:x:0:0\n", 11);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644); /* empty: no recording either */
	close(fd);
	assert_true(safefile_open_append(path, RECORD_MAGIC, err, sizeof(err)) < 0);
	unlink(path);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_true(safefile_open_append(link, RECORD_MAGIC, err, sizeof(err)) < 0);
	assert_string_equal(err, "is a symbolic link");
	snprintf(link, sizeof(link), "%s/fifo", dir);
	assert_int_equal(mkfifo(link, 0600), 0);
	assert_true(safefile_open_append(link, RECORD_MAGIC, err, sizeof(err)) < 0); /* and does not block */
	assert_string_equal(err, "is a FIFO");
	assert_true(safefile_open_append("/dev/null", RECORD_MAGIC, err, sizeof(err)) < 0);
	assert_string_equal(err, "is a device");
	assert_true(safefile_open_append(dir, RECORD_MAGIC, err, sizeof(err)) < 0);
	assert_string_equal(err, "is a directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_objects_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_outside_word, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diff_zero_ratio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history_as_drawn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_recording, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_processes_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_append, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
