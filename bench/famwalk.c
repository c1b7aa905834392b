/*
 * famwalk: what FAM%'s pagemap walk costs, the walk of every page mapped
 * (the way without PAGEMAP_SCAN) against the walk of PAGEMAP_SCAN's ranges,
 * on one process in one run of interleaved rounds. Built and run by
 * bench/family.sh; a benchmark, not a test.
 *
 * Usage: famwalk --sparse GIB | --heap MIB [--rounds K]
 *   --sparse GIB  a child maps GIB of private anonymous NORESERVE memory and
 *                 writes 64 pages spread over it (a reserved arena, a
 *                 sanitizer's shadow)
 *   --heap MIB    a child writes every page of MIB of private anonymous
 *                 memory (a busy heap)
 * Prints one line per way: median, minimum and maximum milliseconds of one
 * reading of the child, the median CPU time of it, and the figures read
 * (the same every way).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "procfs.h"

#define MAX_ROUNDS 100
#define SPARSE_WRITES 64

/* Set up the child's memory and wait for the parent to close its pipe. */
static void child_run(size_t len, int sparse, int ready, int hold)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m, c = 0;
	size_t i;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | (sparse ? MAP_NORESERVE : 0), -1, 0);
	if (m == MAP_FAILED)
		_exit(1);
	if (sparse)
		for (i = 0; i < SPARSE_WRITES; i++)
			m[i * (len / SPARSE_WRITES)] = 1;
	else
		for (i = 0; i < len; i += (size_t)page)
			m[i] = 1;
	if (write(ready, &c, 1) != 1)
		_exit(1);
	(void)read(hold, &c, 1);
	_exit(0);
}

/* Milliseconds since then on clock. */
static double ms_since(clockid_t clock, const struct timespec *then)
{
	struct timespec now;

	clock_gettime(clock, &now);
	return (double)(now.tv_sec - then->tv_sec) * 1e3 + (double)(now.tv_nsec - then->tv_nsec) / 1e6;
}

/* Order doubles for qsort. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n times, sorted in place. */
static double median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(t[0]), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* Print the median, minimum and maximum of n times, and the median CPU
 * time. */
static void print_times(const char *way, double *t, double *cpu, int n, const struct family_mem *f)
{
	double m = median(t, n);

	printf("%-9s median %10.3f ms  min %10.3f  max %10.3f  cpu %10.3f ms  anon %llu KiB shared %llu KiB\n",
	       way, m, t[0], t[n - 1], median(cpu, n), f->anon_kib, f->shared_kib);
}

int main(int argc, char **argv)
{
	static const enum procfs_family_way ways[2] = { PROCFS_FAMILY_WALK_ALL, PROCFS_FAMILY_SCAN };
	static const char *const names[2] = { "walk-all", "scan" };
	double t[2][MAX_ROUNDS], cpu[2][MAX_ROUNDS];
	struct family_mem f[2];
	unsigned long long zero;
	int ready[2], hold[2], procfd, rounds = 5, sparse = -1, r, k, w, ret;
	unsigned long size = 0;
	struct timespec t0, c0;
	pid_t child;
	char c;

	for (k = 1; k + 1 < argc; k += 2) {
		if (strcmp(argv[k], "--sparse") == 0 || strcmp(argv[k], "--heap") == 0) {
			sparse = strcmp(argv[k], "--sparse") == 0;
			size = strtoul(argv[k + 1], NULL, 10);
		} else if (strcmp(argv[k], "--rounds") == 0) {
			rounds = atoi(argv[k + 1]);
		} else {
			break;
		}
	}
	if (k != argc || sparse < 0 || !size || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: famwalk --sparse GIB | --heap MIB [--rounds 1..%d]\n", MAX_ROUNDS);
		return 2;
	}
	procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0 || procfs_zero_pfn(procfd, &zero) < 0 || pipe(ready) < 0 || pipe(hold) < 0) {
		fprintf(stderr, "famwalk: cannot set up: %s (needs root for frame numbers)\n", strerror(errno));
		return 1;
	}
	child = fork();
	if (child == 0) {
		close(ready[0]);
		close(hold[1]);
		child_run((size_t)size << (sparse ? 30 : 20), sparse, ready[1], hold[0]);
	}
	close(ready[1]);
	close(hold[0]);
	if (child < 0 || read(ready[0], &c, 1) != 1) {
		fprintf(stderr, "famwalk: the child could not set up its memory\n");
		return 1;
	}
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < 2; k++) {
			w = (k + r) % 2; /* the first way alternates */
			clock_gettime(CLOCK_MONOTONIC, &t0);
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
			ret = procfs_read_family_way(procfd, child, zero, ways[w], &f[w]);
			cpu[w][r] = ms_since(CLOCK_THREAD_CPUTIME_ID, &c0);
			t[w][r] = ms_since(CLOCK_MONOTONIC, &t0);
			if (ret < 0) {
				fprintf(stderr, "famwalk: %s: %s\n", names[w], strerror(-ret));
				return 1;
			}
		}
	}
	printf("%s %lu %s, %d rounds\n", sparse ? "sparse" : "heap", size, sparse ? "GiB" : "MiB", rounds);
	for (w = 0; w < 2; w++)
		print_times(names[w], t[w], cpu[w], rounds, &f[w]);
	printf("ratio walk-all/scan (medians) %.1f\n", median(t[0], rounds) / median(t[1], rounds));
	close(hold[1]);
	waitpid(child, NULL, 0);
	return f[0].anon_kib == f[1].anon_kib && f[0].shared_kib == f[1].shared_kib ? 0 : 3;
}
