/* Unit tests of the sampler: a directory made to look like /proc, a model
 * filled by hand and fake clocks where every charged step costs the same. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "model.h"
#include "sampler.h"
#include "tmpdir.h"

#define INTERVAL 1.0
#define MS 1e-3
#define NPROCS 20

/* The fake clocks: every CPU clock reading moves it on by cost, so each
 * charged step (MemAvailable, a cgroup, a process) costs exactly cost; the
 * wall clock counts its readings, so smaps_time tells the order of reads. */
struct fake_clock {
	double cpu, cost, wall;
};

/* The fake thread CPU clock. */
static double fake_cpu(void *arg)
{
	struct fake_clock *c = arg;
	double t = c->cpu;

	c->cpu += c->cost;
	return t;
}

/* The fake wall clock. */
static double fake_wall(void *arg)
{
	struct fake_clock *c = arg;

	return c->wall += 1;
}

/* A test's world: a fake /proc, a model and a sampler over them. */
struct world {
	char dir[PATH_MAX];
	int procfd;
	struct model *m;
	struct fake_clock clock;
	struct sampler_clock sclock;
	struct sampler *s;
	unsigned runs;
};

/* Write text to dirfd/path, making the file. */
static void put(int dirfd, const char *path, const char *text)
{
	int fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Give the fake /proc a process: PID/stat with this start time,
 * PID/smaps_rollup whose Rss is pid KiB, so a reading names its file, and
 * PID/status whose VmPTE is 40 + pid KiB. */
static void put_proc(struct world *w, int pid, int ppid, unsigned long long start)
{
	char path[64], text[512];

	snprintf(path, sizeof(path), "%d", pid);
	assert_int_equal(mkdirat(w->procfd, path, 0700), 0);
	snprintf(path, sizeof(path), "%d/stat", pid);
	snprintf(text, sizeof(text), "%d (w) S %d %d %d 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 %llu "
	    "4096000 100 0\n", pid, ppid, pid, pid, start);
	put(w->procfd, path, text);
	snprintf(path, sizeof(path), "%d/smaps_rollup", pid);
	snprintf(text, sizeof(text), "0-1 ---p 00000000 00:00 0 [rollup]\nRss: %d kB\n"
	    "Pss: 2 kB\nShared_Clean: 3 kB\nShared_Dirty: 4 kB\nPrivate_Clean: 5 kB\n"
	    "Private_Dirty: 6 kB\nAnonymous: 7 kB\n", pid);
	put(w->procfd, path, text);
	snprintf(path, sizeof(path), "%d/status", pid);
	snprintf(text, sizeof(text), "Name:\tw\nVmRSS:\t     %d kB\nVmPTE:\t      %d kB\nThreads:\t1\n",
	    pid, 40 + pid);
	put(w->procfd, path, text);
}

/* Add a process to the fake /proc and to the model, its start time
 * 1000 + pid. */
static struct proc *add_proc(struct world *w, int pid, int ppid)
{
	struct proc *p;

	put_proc(w, pid, ppid, 1000 + (unsigned long long)pid);
	p = model__add(w->m, pid, 1000 + (unsigned long long)pid);
	assert_non_null(p);
	model__set_ppid(p, ppid);
	return p;
}

/* One run of the sampler over interval seconds. */
static void run(struct world *w, double interval)
{
	sampler__run(w->s, interval);
	w->runs++;
}

/* CPU seconds the sampler charged to its budget, all runs: every reading
 * of the fake CPU clock costs one step, and each run's first reading only
 * marks where it starts. */
static double spent(const struct world *w)
{
	return w->clock.cpu - w->runs * w->clock.cost;
}

/* Make a world with a sampler of budget_pct, each step costing cost
 * seconds, and MemAvailable in /proc/meminfo; cgroupfd as given. */
static struct world *world_new(double budget_pct, double cost, int cgroupfd)
{
	struct world *w = calloc(1, sizeof(*w));
	struct sampler_opts o = { budget_pct, cgroupfd, NULL };

	assert_non_null(w);
	o.clock = &w->sclock;
	assert_int_equal(tmpdir_make(w->dir, sizeof(w->dir), "test_sampler"), 0);
	w->procfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(w->procfd >= 0);
	put(w->procfd, "meminfo", "MemTotal: 9000 kB\nMemFree: 1 kB\nMemAvailable: 4321 kB\n");
	w->m = model__new();
	assert_non_null(w->m);
	w->clock.cost = cost;
	w->sclock = (struct sampler_clock){ fake_cpu, fake_wall, &w->clock };
	w->s = sampler__new_opts(w->m, w->procfd, &o);
	assert_non_null(w->s);
	return w;
}

/* Add processes 1..n, children of 1 (itself a root, its parent unknown). */
static void add_procs(struct world *w, int n)
{
	int pid;

	for (pid = 1; pid <= n; pid++)
		add_proc(w, pid, pid == 1 ? 0 : 1);
}

/* Free a world and its directory. */
static void world_free(struct world *w)
{
	sampler__free(w->s);
	model__free(w->m);
	close(w->procfd);
	assert_int_equal(tmpdir_remove(w->dir), 0);
	free(w);
}

/* How many processes of the model have a reading. */
static size_t nread(struct world *w)
{
	struct proc *p;
	size_t i, n = 0;

	for (i = 0; (p = model__at(w->m, i)); i++)
		n += p->smaps_time > 0;
	return n;
}

/* The smaps_time of the live process pid (0: never read). */
static double read_at(struct world *w, int pid)
{
	struct proc *p = model__find_live(w->m, pid);

	assert_non_null(p);
	return p->smaps_time;
}

/* 1% of a 1 s interval is 10 ms: with 1.1 ms a step (no run ends on a
 * credit of exactly 0), MemAvailable and 9 processes, the last one
 * overshooting by 1 ms; then 8. The readings are the files' own. */
static void test_budget(void **state)
{
	struct world *w = world_new(1, 1.1 * MS, -1);
	struct proc *p;

	(void)state;
	add_procs(w, NPROCS);
	run(w, INTERVAL);
	assert_int_equal(nread(w), 9);
	assert_true(spent(w) > 10.99 * MS && spent(w) < 11.01 * MS);
	assert_int_equal(model__mem_available(w->m), 4321);
	p = model__find_live(w->m, 9);
	assert_int_equal(p->smaps.rss, 9);
	assert_int_equal(p->smaps.private_dirty, 6);
	assert_int_equal(p->smaps.pte, 49); /* read with it, from its own status */
	assert_int_equal(p->smaps.anon, 7);
	run(w, INTERVAL);
	assert_int_equal(nread(w), 17);
	run(w, 2 * INTERVAL);
	assert_int_equal(nread(w), NPROCS);
	world_free(w);
}

/* Wanted pids come first, in their order, each once; then the processes
 * never read, in model order; then the oldest readings. */
static void test_order(void **state)
{
	static const int want[] = { 15, 3, 15, 999, 3 };
	struct world *w = world_new(0.5, 1.1 * MS, -1); /* 4 reads a run */

	(void)state;
	add_procs(w, NPROCS);
	sampler__want(w->s, want, sizeof(want) / sizeof(want[0]), true);
	run(w, INTERVAL);
	assert_int_equal(nread(w), 4);
	assert_true(read_at(w, 15) > 0 && read_at(w, 15) < read_at(w, 3));
	assert_true(read_at(w, 3) < read_at(w, 1) && read_at(w, 1) < read_at(w, 2));
	sampler__want(w->s, NULL, 0, true);
	run(w, INTERVAL);
	assert_int_equal(nread(w), 8);
	assert_true(read_at(w, 4) > read_at(w, 15) && read_at(w, 6) > 0 && read_at(w, 7) > 0);
	/* Then never-read ones until none is left, then the oldest: 15, 3. */
	run(w, 3 * INTERVAL);
	run(w, INTERVAL);
	assert_int_equal(nread(w), NPROCS);
	assert_true(read_at(w, 15) > read_at(w, 20) && read_at(w, 3) > read_at(w, 15));
	world_free(w);
}

/* Told to read only the wanted (the full screen sorting by a key the
 * kernel side gives), the sampler reads them and no other process, with
 * budget left for all; told all, it reads the others too. */
static void test_only_wanted(void **state)
{
	static const int want[] = { 7, 3 };
	struct world *w = world_new(100, 1 * MS, -1);

	(void)state;
	add_procs(w, NPROCS);
	sampler__want(w->s, want, 2, false);
	run(w, INTERVAL);
	run(w, INTERVAL);
	assert_int_equal(nread(w), 2);
	assert_true(read_at(w, 7) > 0 && read_at(w, 3) > read_at(w, 7));
	assert_true(read_at(w, 1) == 0 && read_at(w, 2) == 0);
	assert_int_equal(model__mem_available(w->m), 4321);
	/* MemAvailable and the two, then MemAvailable alone: their readings
	 * stand (see test_wanted_fresh). */
	assert_true(spent(w) > 3.99 * MS && spent(w) < 4.01 * MS);
	sampler__want(w->s, want, 2, true);
	run(w, INTERVAL);
	assert_int_equal(nread(w), NPROCS);
	world_free(w);
}

/* A wanted process is read again at the next run only if it copied or
 * its RSS changed since its reading, or once the reading is SAMPLER_FRESH
 * seconds old. */
static void test_wanted_fresh(void **state)
{
	static const int want[] = { 7, 3 };
	struct world *w = world_new(100, 1 * MS, -1);
	struct proc *a, *b;
	double a0, b0;

	(void)state;
	add_procs(w, NPROCS);
	a = model__find_live(w->m, 7);
	b = model__find_live(w->m, 3);
	sampler__want(w->s, want, 2, false);
	run(w, INTERVAL);
	a0 = read_at(w, 7);
	b0 = read_at(w, 3);
	assert_true(a0 > 0 && b0 > 0);
	run(w, INTERVAL);
	assert_true(read_at(w, 7) == a0 && read_at(w, 3) == b0);
	/* 7 grows; 3 copies a page */
	model__set_mem(a, 'S', a->rss_kib + 4, a->vsz_kib + 4);
	run(w, INTERVAL);
	assert_true(read_at(w, 7) > a0 && read_at(w, 3) == b0);
	a0 = read_at(w, 7);
	b->counts.cow++;
	run(w, INTERVAL);
	assert_true(read_at(w, 7) == a0 && read_at(w, 3) > b0);
	b0 = read_at(w, 3);
	/* neither changes, and their readings grow old */
	w->clock.wall += SAMPLER_FRESH;
	run(w, INTERVAL);
	assert_true(read_at(w, 7) > a0 && read_at(w, 3) > b0);
	world_free(w);
}

/* Gone, exited, zombie, kernel thread, pid taken by another process: no
 * reading is stored; only the reads tried are charged. */
static void test_skipped(void **state)
{
	struct world *w = world_new(100, 1 * MS, -1);
	struct proc *gone, *exited, *zombie, *kthread, *reused, *fine;

	(void)state;
	gone = model__add(w->m, 50, 1050);
	exited = add_proc(w, 51, 0);
	model__mark_exited(exited, 1);
	zombie = add_proc(w, 52, 0);
	model__set_mem(zombie, 'Z', 0, 0);
	kthread = add_proc(w, 53, 0);
	model__set_mem(kthread, 'S', 0, 0);
	reused = model__add(w->m, 54, 77);
	put_proc(w, 54, 0, 1054);
	fine = add_proc(w, 55, 0);
	model__set_mem(fine, 'S', 100, 4000);
	run(w, INTERVAL);
	assert_true(gone->smaps_time == 0 && exited->smaps_time == 0);
	assert_true(zombie->smaps_time == 0 && kthread->smaps_time == 0);
	assert_true(reused->smaps_time == 0 && fine->smaps_time > 0);
	/* MemAvailable, 50, 54 and 55. */
	assert_true(spent(w) > 3.99 * MS && spent(w) < 4.01 * MS);
	world_free(w);
}

/* A run that overshoots leaves a debt: 10 ms a run, 6.5 ms a step, so runs
 * read 1, 1, then 0 processes. Budget unused carries over, at most one
 * interval's worth: after idle runs, 20 ms (18 reads after MemAvailable),
 * not more. */
static void test_debt_and_savings(void **state)
{
	struct world *w = world_new(1, 6.5 * MS, -1);
	int i;

	(void)state;
	add_procs(w, NPROCS);
	run(w, INTERVAL);
	assert_int_equal(nread(w), 1);
	run(w, INTERVAL);
	assert_int_equal(nread(w), 2);
	run(w, INTERVAL);
	assert_int_equal(nread(w), 2);
	world_free(w);

	w = world_new(1, 1.1 * MS, -1);
	for (i = 0; i < 5; i++)
		run(w, INTERVAL);
	add_procs(w, 2 * NPROCS);
	run(w, INTERVAL);
	assert_int_equal(nread(w), 18);
	world_free(w);
}

/* Budget 0: no process read, not even the wanted ones; MemAvailable is. */
static void test_off(void **state)
{
	static const int want[] = { 2 };
	struct world *w = world_new(0, 1 * MS, -1);

	(void)state;
	add_procs(w, NPROCS);
	sampler__want(w->s, want, 1, true);
	run(w, INTERVAL);
	run(w, INTERVAL);
	assert_int_equal(nread(w), 0);
	assert_int_equal(model__mem_available(w->m), 4321);
	assert_true(spent(w) > 1.99 * MS && spent(w) < 2.01 * MS);
	world_free(w);
}

/* The memory cgroup of roots only; a budget out of range is refused. */
static void test_roots_memcg(void **state)
{
	struct world *w = world_new(100, 1 * MS, -1);
	struct sampler_opts o = { 100, -1, NULL };
	struct proc *root, *child, *orphan;
	int cgfd;

	(void)state;
	assert_int_equal(mkdirat(w->procfd, "cg", 0700), 0);
	assert_int_equal(mkdirat(w->procfd, "cg/unified", 0700), 0);
	assert_int_equal(mkdirat(w->procfd, "cg/unified/a", 0700), 0);
	put(w->procfd, "cg/unified/a/memory.max", "1048576\n");
	put(w->procfd, "cg/unified/a/memory.current", "4096\n");
	cgfd = openat(w->procfd, "cg", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(cgfd >= 0);
	o.cgroupfd = cgfd;
	o.clock = &w->sclock;
	sampler__free(w->s);
	w->s = sampler__new_opts(w->m, w->procfd, &o);
	root = add_proc(w, 10, 1);
	child = add_proc(w, 11, 10);
	orphan = add_proc(w, 12, 10);
	model__mark_exited(root, 1);
	root = add_proc(w, 20, 1);
	child = add_proc(w, 21, 20);
	put(w->procfd, "20/cgroup", "0::/a\n");
	put(w->procfd, "21/cgroup", "0::/a\n");
	put(w->procfd, "12/cgroup", "0::/a\n");
	run(w, INTERVAL);
	assert_int_equal(root->memcg.limit_kib, 1024);
	assert_int_equal(root->memcg.usage_kib, 4);
	assert_int_equal(orphan->memcg.limit_kib, 1024);
	assert_int_equal(child->memcg.limit_kib, 0);
	close(cgfd);
	o.budget_pct = 100.5;
	assert_null(sampler__new_opts(w->m, w->procfd, &o));
	o.budget_pct = -1;
	assert_null(sampler__new_opts(w->m, w->procfd, &o));
	world_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_only_wanted),
		cmocka_unit_test(test_wanted_fresh),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_debt_and_savings),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_roots_memcg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
