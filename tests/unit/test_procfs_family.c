/* Unit tests of the family walk behind FAM% (procfs_read_family) on real
 * forks, checked against what the children wrote: the walk over
 * PAGEMAP_SCAN's ranges, the walk of every page mapped, and the fallback
 * where the kernel has no PAGEMAP_SCAN. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "procfs_fixture.h"
#include "procfs.h"

/* built with the address sanitizer (gcc says so with a macro, clang with
 * __has_feature): its shadow is terabytes mapped, which the walk of every
 * page mapped would take minutes to read */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* The way of reading every page mapped, however many; under the address
 * sanitizer, whose shadow makes it minutes long, the scan stands in. */
#define WALK_ALL (SANITIZED ? PROCFS_FAMILY_SCAN : PROCFS_FAMILY_WALK_ALL)

/* The pages the family tests map, read and write. */
#define FAM_PAGES 512
#define FAM_FRESH 64
#define FAM_WRITES 128
#define FAM_SLACK 16 /* pages the child copies besides: stack, libc data */

/* A process with more private mappings than PROCFS_FAMILY_MAX_PAGES (a
 * sanitizer's shadow, a reserved arena: mapped, not present). Without
 * PAGEMAP_SCAN (forced here; on kernels before 6.7 the only way) it is not
 * walked: -E2BIG at once, before any of pagemap is read. With it, it is
 * walked like any other: the pages written in the sparse mapping count,
 * as the walk of every page mapped counts them. */
static void test_family_too_big(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long kib = (unsigned long long)page / 1024;
	size_t len = (size_t)(PROCFS_FAMILY_MAX_PAGES + 1) * (size_t)page;
	unsigned long long zero = 0;
	struct family_mem f = { 7, 7 }, all, scanned, none;
	int ret, i;
	char *huge;

	(void)state;
	huge = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (huge == MAP_FAILED)
		skip();
	assert_int_equal(procfs_read_family_way(procfd, getpid(), zero, PROCFS_FAMILY_WALK, &f), -E2BIG);
	assert_int_equal(f.anon_kib, 7); /* not written */
	assert_int_equal(f.shared_kib, 7);
	ret = procfs_zero_pfn(procfd, &zero);
	if (ret == -EPERM)
		skip();
	assert_int_equal(ret, 0);
	/* huge mapped, nothing present: the scan's way asks PAGEMAP_SCAN */
	ret = procfs_read_family_way(procfd, getpid(), zero, PROCFS_FAMILY_SCAN, &none);
	if (ret == -EOPNOTSUPP) {
		/* no PAGEMAP_SCAN: procfs_read_family falls back to the walk */
		assert_int_equal(procfs_read_family(procfd, getpid(), zero, &f), -E2BIG);
		munmap(huge, len);
		return;
	}
	assert_int_equal(ret, 0);
	for (i = 0; i < 8; i++)
		huge[(size_t)i * (len / 8)] = 1;
	assert_int_equal(procfs_read_family(procfd, getpid(), zero, &scanned), 0);
	assert_int_equal(procfs_read_family_way(procfd, getpid(), zero, WALK_ALL, &all), 0);
	assert_true(scanned.anon_kib >= none.anon_kib + 8 * kib);
	assert_true(all.anon_kib >= none.anon_kib + 8 * kib);
	munmap(huge, len);
}

/* Read a family's figures of pid every way, until two readings of every
 * page mapped agree (the process may still be settling: its stack, malloc):
 * then the readings from PAGEMAP_SCAN's ranges must agree too. */
static void family_same_ways(int pid, unsigned long long zero, struct family_mem *all)
{
	struct family_mem again, scanned, any;
	int tries;

	for (tries = 0; tries < 20; tries++) {
		assert_int_equal(procfs_read_family_way(procfd, pid, zero, WALK_ALL, all), 0);
		assert_int_equal(procfs_read_family_way(procfd, pid, zero, PROCFS_FAMILY_SCAN, &scanned), 0);
		assert_int_equal(procfs_read_family(procfd, pid, zero, &any), 0);
		assert_int_equal(procfs_read_family_way(procfd, pid, zero, WALK_ALL, &again), 0);
		if (all->anon_kib == again.anon_kib && all->shared_kib == again.shared_kib)
			break;
	}
	assert_true(tries < 20);
	assert_int_equal(scanned.anon_kib, all->anon_kib);
	assert_int_equal(scanned.shared_kib, all->shared_kib);
	assert_int_equal(any.anon_kib, all->anon_kib);
	assert_int_equal(any.shared_kib, all->shared_kib);
}

/* The walk over PAGEMAP_SCAN's ranges counts what the walk of every page
 * mapped counts, on the same state of two children (this process, walking,
 * changes under its own walks): a sparse 64 GiB NORESERVE mapping with a
 * few pages written and a few only read (the zero page), and a run of every
 * other page written (more ranges than one scan returns); 512 pages they
 * share, of which one child wrote 128; a private file mapping read and
 * written in part, by both sides. Skipped on kernels without PAGEMAP_SCAN
 * (test_family_too_big checks the fallback there); under the address
 * sanitizer, whose shadow the walk of every page would take minutes over,
 * the scan is held to the lower bounds only. */
#define WAYS_SPARSE (64ULL << 30)
#define WAYS_FILE_PAGES 8
#define WAYS_HOLES 1000 /* pages written one in two */

static void test_family_ways(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long zero = 0, kib = (unsigned long long)page / 1024;
	size_t sparse_len = (size_t)WAYS_SPARSE, file_len = WAYS_FILE_PAGES * (size_t)page;
	struct family_mem mem[2];
	volatile char *sparse, *file;
	int go[2], done[2], ret, fd, i, k;
	char *buf, c = 0;
	pid_t child[2];

	(void)state;
	ret = procfs_zero_pfn(procfd, &zero);
	if (ret == -EPERM)
		skip();
	assert_int_equal(ret, 0);
	sparse = mmap(NULL, sparse_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sparse == MAP_FAILED)
		skip();
	/* nothing present yet: the scan's way asks PAGEMAP_SCAN at once */
	if (procfs_read_family_way(procfd, getpid(), zero, PROCFS_FAMILY_SCAN, &mem[0]) == -EOPNOTSUPP) {
		munmap((void *)sparse, sparse_len);
		skip();
	}
	buf = mmap(NULL, FAM_PAGES * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	memset(buf, 1, FAM_PAGES * (size_t)page);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	file = mmap(NULL, file_len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	assert_true(file != MAP_FAILED);
	close(fd);
	for (i = 0; i < WAYS_FILE_PAGES; i++)
		c += file[(size_t)i * (size_t)page];
	file[0] = 1;
	file[2 * page] = 1;
	for (i = 0; i < 4; i++)
		sparse[(size_t)i * (sparse_len / 4) + (size_t)page * 3] = 1;
	for (i = 0; i < 16; i++)
		c += sparse[(2ULL << 30) + (size_t)i * (size_t)page];
	sparse[sparse_len - 1] = 1;
	for (i = 0; i < WAYS_HOLES; i++)
		sparse[(3ULL << 30) + 2 * (size_t)i * (size_t)page] = 1;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	for (k = 0; k < 2; k++) {
		child[k] = fork();
		assert_true(child[k] >= 0);
		if (child[k] > 0)
			continue;
		close(go[1]); /* the test's end gone, it reads the end of file */
		close(done[0]);
		for (i = 0; k == 0 && i < FAM_WRITES; i++)
			buf[i * page] = 2;
		for (i = 0; k == 0 && i < 16; i++)
			c += sparse[(5ULL << 30) + (size_t)i * (size_t)page];
		if (k == 0) {
			sparse[(7ULL << 30)] = 2;
			file[page] = 2;
		}
		if (write(done[1], &c, 1) != 1)
			_exit(1);
		(void)read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	for (k = 0; k < 2; k++)
		assert_int_equal(read(done[0], &c, 1), 1);
	for (k = 0; k < 2; k++)
		family_same_ways(child[k], zero, &mem[k]);
	close(go[1]);
	close(done[0]);
	for (k = 0; k < 2; k++) {
		assert_int_equal(waitpid(child[k], &ret, 0), child[k]);
		assert_true(WIFEXITED(ret) && WEXITSTATUS(ret) == 0);
	}
	/* what each child wrote or inherited, at the least */
	assert_true(mem[0].anon_kib >= (FAM_PAGES + WAYS_HOLES + 5 + 1 + 2 + 1) * kib);
	assert_true(mem[0].shared_kib >= (FAM_PAGES - FAM_WRITES + WAYS_HOLES + 5) * kib);
	assert_true(mem[1].anon_kib >= (FAM_PAGES + WAYS_HOLES + 5 + 2) * kib);
	assert_true(mem[1].shared_kib >= (FAM_PAGES + WAYS_HOLES + 5 + 2) * kib);
	munmap(buf, FAM_PAGES * (size_t)page);
	munmap((void *)sparse, sparse_len);
	munmap((void *)file, file_len);
}

/* Let the child take its next step and wait until it has. */
static void family_step(int go, int done)
{
	char c = 0;

	assert_int_equal(write(go, &c, 1), 1);
	assert_int_equal(read(done, &c, 1), 1);
}

/* The family walk on a real fork: a child sharing 512 pre-touched pages
 * with this process shares them all; reading 64 fresh pages (the zero page,
 * where the kernel has one; else pages of its own) shares none more; once
 * it wrote 128 of the 512 its shared memory drops by those 128 pages and a
 * few of its own (its stack), never more. Without CAP_SYS_ADMIN pagemap
 * hides frame numbers: -EPERM, and the test is skipped. */
static void test_family_live(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long zero = 0, kib = (unsigned long long)page / 1024;
	struct family_mem first, read_only, written, self;
	int go[2], done[2], ret, i;
	volatile char *fresh;
	char *buf, c = 0;
	pid_t child;

	(void)state;
	ret = procfs_zero_pfn(procfd, &zero);
	if (ret == -EPERM)
		skip();
	assert_int_equal(ret, 0);
	buf = mmap(NULL, FAM_PAGES * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(buf != MAP_FAILED);
	memset(buf, 1, FAM_PAGES * (size_t)page);
	fresh = mmap(NULL, FAM_FRESH * (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(fresh != MAP_FAILED);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(go[1]); /* the test's end gone, it reads the end of file */
		close(done[0]);
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < FAM_FRESH; i++)
			c += fresh[i * page];
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < FAM_WRITES; i++)
			buf[i * page] = 2;
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(done[0], &c, 1), 1);
	assert_int_equal(procfs_read_family(procfd, child, zero, &first), 0);
	family_step(go[1], done[0]);
	assert_int_equal(procfs_read_family(procfd, child, zero, &read_only), 0);
	family_step(go[1], done[0]);
	assert_int_equal(procfs_read_family(procfd, child, zero, &written), 0);
	assert_int_equal(procfs_read_family(procfd, getpid(), zero, &self), 0);
	assert_int_equal(write(go[1], &c, 1), 1);
	assert_int_equal(waitpid(child, &ret, 0), child);
	assert_true(WIFEXITED(ret) && WEXITSTATUS(ret) == 0);
	assert_true(first.shared_kib >= FAM_PAGES * kib);
	assert_true(first.shared_kib <= first.anon_kib);
	/* pages only read share nothing more (the zero page is no family's) */
	assert_true(read_only.shared_kib <= first.shared_kib + FAM_SLACK * kib);
	assert_true(first.shared_kib <= read_only.shared_kib + FAM_SLACK * kib);
	assert_true(read_only.shared_kib - written.shared_kib >= FAM_WRITES * kib);
	assert_true(read_only.shared_kib - written.shared_kib <= (FAM_WRITES + FAM_SLACK) * kib);
	assert_true(written.anon_kib >= read_only.anon_kib);
	assert_true(written.anon_kib <= read_only.anon_kib + FAM_SLACK * kib);
	assert_true(self.shared_kib <= self.anon_kib);
	assert_int_equal(procfs_read_family(procfd, INT_MAX, zero, &self), -ENOENT);
	munmap(buf, FAM_PAGES * (size_t)page);
	munmap((void *)fresh, FAM_FRESH * (size_t)page);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_live),
		cmocka_unit_test(test_family_too_big),
		cmocka_unit_test(test_family_ways),
	};
	return cmocka_run_group_tests(tests, procfd_setup, procfd_teardown);
}
