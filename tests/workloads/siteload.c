// SPDX-License-Identifier: GPL-2.0
/*
 * siteload: a forking workload whose copies come from known functions, for
 * cowtop --stacks. The parent pre-touches a block of the brk heap and an
 * anonymous mapping, forks one child, and the child writes HEAP pages of the
 * heap from write_heap() and MMAP pages of the mapping from write_mmap(),
 * each page once: every write copies a page shared with the parent. The
 * parent waits for the child and exits.
 *
 * Usage: siteload [HEAP [MMAP [DELAY_MS [HOLD_MS]]]] (defaults 2000 1000 0 0);
 * DELAY_MS sleeps before the fork, so a tracer given -p can attach first;
 * HOLD_MS keeps the child alive after its writes (a tracer names addresses
 * of live processes).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL

void write_heap(volatile char *p, unsigned long n);
void write_mmap(volatile char *p, unsigned long n);

/* Write one byte into each of n pages at p: one copy per page. */
__attribute__((noinline)) void write_heap(volatile char *p, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		p[i * PAGE] = (char)i;
	__asm__ volatile("" ::: "memory"); /* no tail call: keep the frame */
}

/* The same into the anonymous mapping, from another function. */
__attribute__((noinline)) void write_mmap(volatile char *p, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		p[i * PAGE] = (char)(i + 1);
	__asm__ volatile("" ::: "memory");
}

/* A block of the brk heap, n pages, page-aligned and touched. */
static char *heap_block(unsigned long n)
{
	char *start = sbrk(0), *p;
	unsigned long pad = (PAGE - ((unsigned long)start & (PAGE - 1))) & (PAGE - 1);

	if (sbrk(pad + n * PAGE) == (void *)-1)
		return NULL;
	p = start + pad;
	for (unsigned long i = 0; i < n; i++)
		p[i * PAGE] = 1;
	return p;
}

int main(int argc, char **argv)
{
	unsigned long heap = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
	unsigned long map = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
	long delay = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
	char *h = heap_block(heap);
	char *m = mmap(NULL, (map ? map : 1) * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long hold = argc > 4 ? strtol(argv[4], NULL, 10) : 0;
	struct timespec ts = { delay / 1000, (delay % 1000) * 1000000L };
	struct timespec th = { hold / 1000, (hold % 1000) * 1000000L };
	pid_t pid;
	int status;

	if (!h || m == MAP_FAILED) {
		perror("siteload");
		return 1;
	}
	for (unsigned long i = 0; i < map; i++)
		m[i * PAGE] = 1;
	nanosleep(&ts, NULL);
	pid = fork();
	if (pid < 0) {
		perror("siteload: fork");
		return 1;
	}
	if (pid == 0) {
		write_heap(h, heap);
		write_mmap(m, map);
		nanosleep(&th, NULL);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
