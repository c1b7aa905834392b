// SPDX-License-Identifier: GPL-2.0
/*
 * stackload: a forking workload whose every child copies pages from a
 * stack of its own, for the pruning of cowtop's stack map. The parent
 * pre-touches PAGES pages of an anonymous mapping, then forks CHILDREN
 * children one after another, GAP_MS apart, waiting for each. Child i
 * reaches write_pages() through a chain of 16 calls of step_a() or
 * step_b(), chosen by the bits of i: 65,536 distinct paths, so up to 65,536
 * children in a row copy under distinct user stacks (built with frame
 * pointers); write_pages() writes each page once (one copy each) and the
 * child exits. CHILDREN 0: fork until killed.
 *
 * Usage: stackload CHILDREN PAGES [GAP_MS] (GAP_MS 0 by default).
 * At the end it prints "children N pages P" on stdout: N children forked,
 * P pages written by them in all.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define LEVELS 16

void write_pages(volatile char *p, unsigned long n);
void step_a(unsigned level, unsigned path, volatile char *p, unsigned long n);
void step_b(unsigned level, unsigned path, volatile char *p, unsigned long n);

/* Write one byte into each of n pages at p: one copy per page. */
__attribute__((noinline)) void write_pages(volatile char *p, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		p[i * PAGE] = (char)(i + 2);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep the frame */
}

/* The next call of the chain: level calls left, path their choices. */
static inline void step(unsigned level, unsigned path, volatile char *p, unsigned long n)
{
	if (!level)
		write_pages(p, n);
	else if (path & 1)
		step_a(level - 1, path >> 1, p, n);
	else
		step_b(level - 1, path >> 1, p, n);
}

/* Two functions of different bodies (never merged), each a frame. */
__attribute__((noinline)) void step_a(unsigned level, unsigned path, volatile char *p,
				      unsigned long n)
{
	step(level, path, p, n);
	__asm__ volatile("nop" ::: "memory");
}

__attribute__((noinline)) void step_b(unsigned level, unsigned path, volatile char *p,
				      unsigned long n)
{
	step(level, path, p, n);
	__asm__ volatile("nop; nop" ::: "memory");
}

static unsigned long number(const char *s, const char *what, unsigned long max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > max) {
		fprintf(stderr, "stackload: %s: not a number up to %lu\n", what, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long children, pages, gap_ms = 0, i, n = 0;
	struct timespec gap;
	char *block;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: stackload CHILDREN PAGES [GAP_MS]\n");
		return 2;
	}
	children = number(argv[1], "CHILDREN", 1000000000UL);
	pages = number(argv[2], "PAGES", 1000000UL);
	if (argc > 3)
		gap_ms = number(argv[3], "GAP_MS", 100000UL);
	gap = (struct timespec){ .tv_sec = gap_ms / 1000, .tv_nsec = (long)(gap_ms % 1000) * 1000000L };
	block = mmap(NULL, (pages ? pages : 1) * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (block == MAP_FAILED) {
		perror("stackload: mmap");
		return 1;
	}
	for (i = 0; i < pages; i++)
		block[i * PAGE] = 1;
	for (i = 0; !children || i < children; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("stackload: fork");
			return 1;
		}
		if (!pid) {
			step(LEVELS, (unsigned)i, block, pages);
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) < 0) {
			perror("stackload: waitpid");
			return 1;
		}
		n++;
		if (gap_ms)
			nanosleep(&gap, NULL);
	}
	printf("children %lu pages %lu\n", n, n * pages);
	return 0;
}
