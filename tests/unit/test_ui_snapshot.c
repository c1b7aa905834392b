/* Unit tests: the snapshot's text (a frame and the view's state in, lines
 * out), and snapshot files: written whole, 0600, and never through a
 * symlink, into a directory, a FIFO or a device; failures leave nothing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>
#include "safefile.h"
#include "snapshot.h"

static const char text[] = "cowtop 12:00:00  host h\n    PID S  CoW/s\n  100 S  1.0 \xe2\x96\x81\n";

struct dir {
	char path[PATH_MAX];
};

/* A fresh empty directory per test. */
static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	snprintf(d->path, sizeof(d->path), "%s/cowtop-snap-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(d->path))
		return -1;
	*state = d;
	return 0;
}

/* Remove the directory and what the test put in it. */
static int teardown(void **state)
{
	struct dir *d = *state;
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	if (system(cmd) != 0)
		return -1;
	free(d);
	return 0;
}

/* d->path/name. */
static const char *in(const struct dir *d, const char *name)
{
	static char buf[2][PATH_MAX + 64];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", d->path, name);
	return buf[k];
}

/* Number of entries in the directory, . and .. excluded. */
static int entries(const struct dir *d)
{
	DIR *dir = opendir(d->path);
	struct dirent *e;
	int n = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dir);
	return n;
}

/* The whole content of path into buf; returns its length. */
static size_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, cap);
	close(fd);
	assert_true(n >= 0);
	return (size_t)n;
}

static void test_writes_exact_content_0600(void **state)
{
	struct dir *d = *state;
	char buf[256], err[128] = "";
	struct stat st;
	mode_t old = umask(0);

	assert_int_equal(safefile_write(in(d, "snap.txt"), text, strlen(text), NULL, err, sizeof(err)), 0);
	umask(old);
	assert_int_equal(lstat(in(d, "snap.txt"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(slurp(in(d, "snap.txt"), buf, sizeof(buf)), strlen(text));
	assert_memory_equal(buf, text, strlen(text));
	assert_int_equal(entries(d), 1); /* no temporary file left */
}

/* A file cowtop did not write keeps its bytes and mode; the one it wrote
 * itself (own) is written again; check_new says so before a run. */
static void test_keeps_existing_file(void **state)
{
	struct dir *d = *state;
	char buf[256], err[128];
	struct safefile_id own = { 0, 0 };
	struct stat st;
	int fd = open(in(d, "old.txt"), O_WRONLY | O_CREAT, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a much longer old content that must stay\n", 42), 42);
	close(fd);
	assert_int_equal(safefile_write(in(d, "old.txt"), "new\n", 4, &own, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, SAFEFILE_EXISTS);
	assert_int_equal(safefile_check_new(in(d, "old.txt"), err, sizeof(err)), -EEXIST);
	assert_int_equal(slurp(in(d, "old.txt"), buf, sizeof(buf)), 42);
	assert_memory_equal(buf, "a much longer old content that must stay\n", 42);
	assert_int_equal(stat(in(d, "old.txt"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(entries(d), 1); /* no temporary file left */
	assert_int_equal(safefile_check_new(in(d, "new.txt"), err, sizeof(err)), 0);
	assert_int_equal(entries(d), 1); /* the check leaves nothing */
	assert_int_equal(safefile_write(in(d, "new.txt"), "one\n", 4, &own, err, sizeof(err)), 0);
	assert_int_equal(safefile_write(in(d, "new.txt"), "two\n", 4, &own, err, sizeof(err)), 0);
	assert_int_equal(slurp(in(d, "new.txt"), buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "two\n", 4);
	assert_int_equal(safefile_write(in(d, "new.txt"), "3\n", 2, NULL, err, sizeof(err)), -EEXIST);
	assert_int_equal(entries(d), 2);
}

static void test_refuses_symlink_target_untouched(void **state)
{
	struct dir *d = *state;
	char buf[256], err[128] = "";
	struct stat st;
	int fd = open(in(d, "victim"), O_WRONLY | O_CREAT, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "precious\n", 9), 9);
	close(fd);
	assert_int_equal(symlink(in(d, "victim"), in(d, "link.txt")), 0);
	assert_true(safefile_write(in(d, "link.txt"), text, strlen(text), NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(slurp(in(d, "victim"), buf, sizeof(buf)), 9);
	assert_memory_equal(buf, "precious\n", 9);
	assert_int_equal(lstat(in(d, "link.txt"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(entries(d), 2);
}

static void test_refuses_dangling_symlink(void **state)
{
	struct dir *d = *state;
	char err[128] = "";
	struct stat st;

	assert_int_equal(symlink(in(d, "nowhere"), in(d, "dangling")), 0);
	assert_true(safefile_write(in(d, "dangling"), text, strlen(text), NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(lstat(in(d, "nowhere"), &st), -1); /* not created through it */
	assert_int_equal(entries(d), 1);
}

static void test_refuses_directory(void **state)
{
	struct dir *d = *state;
	char err[128] = "";

	assert_int_equal(mkdir(in(d, "sub"), 0755), 0);
	assert_true(safefile_write(in(d, "sub"), text, strlen(text), NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "directory"));
	assert_int_equal(entries(d), 1);
}

static void test_refuses_fifo(void **state)
{
	struct dir *d = *state;
	char err[128] = "";

	assert_int_equal(mkfifo(in(d, "fifo"), 0600), 0);
	/* must not block opening it either */
	assert_true(safefile_write(in(d, "fifo"), text, strlen(text), NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "FIFO"));
	assert_int_equal(entries(d), 1);
}

/* A device like /dev/full to aim at: a node of our own when we may make one
 * (as root: a broken snapshot_write must not replace the real /dev/full),
 * else /dev/full itself, which an unprivileged test cannot harm. */
static const char *full_device(const struct dir *d)
{
	struct stat st;

	if (mknod(in(d, "full"), S_IFCHR | 0666, makedev(1, 7)) == 0)
		return in(d, "full");
	if (geteuid() != 0 && stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode))
		return "/dev/full";
	return NULL;
}

static void test_refuses_dev_full(void **state)
{
	struct dir *d = *state;
	const char *dev = full_device(d);
	char err[128] = "";
	struct stat st;

	if (!dev)
		skip();
	assert_true(safefile_write(dev, text, strlen(text), NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "device"));
	assert_int_equal(stat(dev, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

static void test_missing_directory_reported(void **state)
{
	struct dir *d = *state;
	char err[128] = "";

	assert_true(safefile_write(in(d, "no/such/dir.txt"), text, strlen(text), NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "No such file or directory"));
	assert_int_equal(entries(d), 0);
	assert_true(safefile_write("", text, strlen(text), NULL, err, sizeof(err)) < 0);
}

static void test_write_error_leaves_nothing(void **state)
{
	struct dir *d = *state;
	char big[4096], buf[64], err[128] = "";
	struct rlimit old, small;
	int fd = open(in(d, "keep.txt"), O_WRONLY | O_CREAT, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old\n", 4), 4);
	close(fd);
	memset(big, 'x', sizeof(big));
	/* a file size limit makes the write fail half-way (EFBIG) */
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 100;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	assert_true(safefile_write(in(d, "new.txt"), big, sizeof(big), NULL, err, sizeof(err)) < 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_non_null(strstr(err, "large"));
	assert_int_equal(entries(d), 1); /* the temporary file is gone, no new.txt */
	assert_int_equal(slurp(in(d, "keep.txt"), buf, sizeof(buf)), 4); /* untouched */
	assert_memory_equal(buf, "old\n", 4);
}

static void test_relative_name_in_cwd(void **state)
{
	struct dir *d = *state;
	char cwd[PATH_MAX], err[128];
	char buf[256];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(d->path), 0);
	assert_int_equal(safefile_write("plain.txt", "x\n", 2, NULL, err, sizeof(err)), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(slurp(in(d, "plain.txt"), buf, sizeof(buf)), 2);
	assert_int_equal(entries(d), 1);
}

/* The i-th line of s (0 the first), without its newline. */
static const char *line_at(const char *s, int i)
{
	static char buf[1024];
	const char *end;

	for (; i > 0 && s; i--)
		s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL;
	assert_non_null(s);
	end = strchr(s, '\n');
	assert_non_null(end);
	snprintf(buf, sizeof(buf), "%.*s", (int)(end - s), s);
	return buf;
}

/* master(100) -> busy(101), idle(102); busy copied 30 pages, 20 in a phase,
 * 24 in the heap. Built as the screen's frames are: without groups, which
 * the group line and the snapshot sum when they need them. */
static struct frame *sample_frame(void)
{
	static const struct frame_status st = {
		.time = 1700000000.0, .interval = 1.0, .mechanism = "raw_tp", .target = "pid 100", .lost = 2,
	};
	struct model *m = model__new();
	struct proc *p = model__add(m, 100, 1), *b = model__add(m, 101, 2), *i = model__add(m, 102, 3);
	struct frame *f;
	int ph = model__add_phase(m, "ruby:gc");

	model__add_probe(m, "ruby:gc__begin");
	model__set_comm(p, "master", 6);
	model__set_mem(p, 'S', 1024, 4096);
	model__set_parent(b, 100);
	model__set_comm(b, "busy", 4);
	model__set_mem(b, 'R', 2048, 4096);
	model__set_counts(b, &(struct cow_counts){ .cow = 30 });
	model__set_split(b, SPLIT_PHASE, ph, 20);
	model__set_split(b, SPLIT_REGION, 1, 24);
	model__settle_regions(b, 0); /* two region reads: 6 copies in no region */
	model__settle_regions(b, 0);
	model__set_parent(i, 100);
	model__set_comm(i, "idle", 4);
	model__set_smaps(b, &(struct smaps){ .pss = 3072, .anon = 4096, .private_dirty = 1024 },
			 st.time - 1.5);
	model__set_inherited(b, 4096);
	model__set_mem_available(m, 1024 * 1024);
	model__tick(m, 1.0);
	f = frame__build(m, &st, &(struct view_opts){ .sort = FIELD_COW_RATE, .tree = true,
						     .hist = SERIES_CAP, .no_groups = true }, NULL);
	model__free(m);
	assert_non_null(f);
	return f;
}

/* one of the two workers unread: the mean of one is not settled */
#define GROUP_LINE "group 100 master: 2 workers  footprint 3.0M  USS mean 1.0M max 1.0M" \
	"  headroom settling  oldest reading 1.5s  2 unread"

static void test_text_of_a_frame(void **state)
{
	struct frame *f = sample_frame();
	struct header_info hi = { .host = "h", .kernel = "k", .delay = 2.0 };
	struct view v;
	size_t len;
	char *out;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	view__init(&v, &(struct view_opts){ .sort = FIELD_PID, .tree = true }, false);
	view__set_frame(&v, f);
	frame__free(f);
	header_take_frame(&hi, v.f);
	out = snapshot_text(&v, &hi, 80, &len);
	assert_non_null(out);
	assert_int_equal(strlen(out), len);
	assert_string_equal(line_at(out, 0), "cowtop 22:13:20  host h  kernel k  mechanism raw_tp");
	assert_string_equal(line_at(out, 1),
			    "target pid 100  processes 3 (3 live)  refresh 2.0s  cowtop CPU 0.0%");
	assert_string_equal(line_at(out, 2),
			    "CoW 30.0/s  copies 30  lost 2  probes 1 (1 phase)  oldest reading 1.5s");
	assert_string_equal(line_at(out, 3), GROUP_LINE);
	/* 80 columns: VSZ, the page tables and RSS give way, the sharing and
	 * memory columns stay */
	assert_string_equal(line_at(out, 4),
			    "   ^PID S   CoW/s     COW  SHR%  FAM%    USS    PSS max 30.0/s  COMMAND");
	assert_string_equal(line_at(out, 5),
			    "    100 S     0.0       0     -     -      -      -           _ master");
	assert_string_equal(line_at(out, 6),
			    "    101 R    30.0      30   75%     -   1.0M   3.0M           @ |- busy");
	assert_string_equal(line_at(out, 7),
			    "    102 ?     0.0       0     -     -      -      -           _ `- idle");
	assert_string_equal(line_at(out, 8), "");
	assert_string_equal(line_at(out, 9),
			    "copies per phase: share of each process's copies (and their number)");
	assert_string_equal(line_at(out, 10), "pid 101 busy: ruby:gc 67% (20), outside 33% (10)");
	assert_string_equal(line_at(out, 11), "");
	assert_string_equal(line_at(out, 12), "groups: each watched root with its workers");
	assert_string_equal(line_at(out, 13), GROUP_LINE);
	assert_string_equal(line_at(out, 14), "");
	assert_string_equal(line_at(out, 15), "copies by region: pid 100 master, 0 copies");
	free(out);
	/* 120 columns: room for both */
	out = snapshot_text(&v, &hi, 120, &len);
	assert_non_null(strstr(line_at(out, 4), "    RSS  SHR%  FAM%    USS    PSS    VSZ "));
	assert_non_null(strstr(line_at(out, 4), "max 30.0/s"));
	assert_non_null(strstr(line_at(out, 5), "   1.0M     -     -      -      -   4.0M "));
	assert_non_null(strstr(line_at(out, 6), "   2.0M   75%     -   1.0M   3.0M   4.0M "));
	free(out);
	/* a filter and a flat view: the text is what the view shows */
	view__set_filter(&v, "idle");
	view__tree_toggle(&v);
	out = snapshot_text(&v, &hi, 80, &len);
	/* the oldest reading over the rows shown: none; the selection's group */
	assert_string_equal(line_at(out, 2), "CoW 30.0/s  copies 30  lost 2  probes 1 (1 phase)");
	assert_string_equal(line_at(out, 3), GROUP_LINE);
	assert_string_equal(line_at(out, 5),
			    "    102 ?     0.0       0     -     -      -      -           _ idle");
	assert_null(strstr(out, "busy"));
	free(out);
	view__free(&v);
}

/* Command lines: a section of them when COMMAND shows names (the ticket
 * gets both), none when the rows show them already. */
static void test_text_has_cmdlines(void **state)
{
	struct frame *f = sample_frame();
	struct header_info hi = { .host = "h", .kernel = "k", .delay = 2.0 };
	struct view v;
	size_t len;
	char *out;

	(void)state;
	snprintf(f->procs[1].cmdline, PROC_CMDLINE_MAX, "busy worker[1] \x1b[2J");
	view__init(&v, &(struct view_opts){ .sort = FIELD_PID, .tree = true }, false);
	view__set_frame(&v, f);
	frame__free(f);
	out = snapshot_text(&v, &hi, 80, &len);
	assert_non_null(out);
	assert_non_null(strstr(out, "\ncommand lines\n    101 busy worker[1] \\e[2J\n"));
	assert_null(strchr(out, '\x1b'));
	free(out);
	view__cmdline_toggle(&v);
	out = snapshot_text(&v, &hi, 80, &len);
	assert_non_null(out);
	assert_null(strstr(out, "command lines"));
	assert_non_null(strstr(out, "|- busy worker[1]"));
	free(out);
	/* COMMAND scrolled on screen: the snapshot has it from its start */
	view__hscroll(&v, 8);
	out = snapshot_text(&v, &hi, 80, &len);
	assert_non_null(out);
	assert_non_null(strstr(out, "|- busy worker[1]"));
	assert_null(strstr(out, "scrolled"));
	free(out);
	view__free(&v);
}

/* The regions pane of the selected process ends the snapshot. */
static void test_text_has_regions_pane(void **state)
{
	static const char *const want[] = {
		"copies by region: pid 101 busy, 30 copies",
		"",
		"  heap   80%        24  #############################",
		"  stack   0%         0",
		"  anon    0%         0",
		"  other  20%         6  #######",
		"",
	};
	struct frame *f = sample_frame();
	struct header_info hi = { .host = "h", .kernel = "k", .delay = 2.0 };
	const char *pane;
	struct view v;
	size_t len, i;
	char *out;

	(void)state;
	view__init(&v, &(struct view_opts){ .sort = FIELD_PID, .tree = true }, false);
	view__set_frame(&v, f);
	frame__free(f);
	view__move(&v, 1);
	out = snapshot_text(&v, &hi, 60, &len);
	assert_non_null(out);
	pane = strstr(out, "\n\ncopies by region: ");
	assert_non_null(pane);
	for (i = 0; i < sizeof(want) / sizeof(*want); i++)
		assert_string_equal(line_at(pane + 2, (int)i), want[i]);
	assert_non_null(strstr(pane, "heap: the brk area"));
	free(out);
	view__free(&v);
}

static void test_default_path(void **state)
{
	char buf[64];
	regex_t re;

	(void)state;
	assert_int_equal(regcomp(&re, "^\\./cowtop-[0-9]{8}-[0-9]{6}\\.txt$", REG_EXTENDED), 0);
	assert_true(snapshot_default_path(1700000000, buf, sizeof(buf)) > 0);
	assert_int_equal(regexec(&re, buf, 0, NULL, 0), 0);
	regfree(&re);
	assert_int_equal(snapshot_default_path(1700000000, buf, 5), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_writes_exact_content_0600, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keeps_existing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_symlink_target_untouched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_dangling_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_dev_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_directory_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_error_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_name_in_cwd, setup, teardown),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_text_of_a_frame),
		cmocka_unit_test(test_text_has_cmdlines),
		cmocka_unit_test(test_text_has_regions_pane),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
