/* A small preforking "server": a master that fills a heap, then workers that
 * dirty it at different, varying rates and get respawned, like unicorn's. */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "demo.h"

#define DEMO_PAGES 16384   /* 64 MiB of shared heap */
#define DEMO_WORKERS 4
#define DEMO_PAGE 4096

static char *heap;

/* Sleep for ms milliseconds. */
static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* A worker: dirty pages of the shared heap at a rate that swells and ebbs,
 * then exit so the master respawns it. */
static void worker(int slot)
{
	long base = 40 + slot * 60, tick, next = (long)slot * (DEMO_PAGES / DEMO_WORKERS);
	long life = 150 + slot * 50; /* ticks of 100 ms */

	prctl(PR_SET_NAME, "demo-worker");
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	for (tick = 0; tick < life; tick++) {
		long n = (long)(base * (1.0 + sin(tick / 8.0 + slot)) / 10.0);

		while (n-- > 0) {
			heap[(next % DEMO_PAGES) * DEMO_PAGE] ^= 1;
			next++;
		}
		nap(100);
	}
	_exit(0);
}

/* Start the worker for slot; returns its pid. */
static pid_t spawn(int slot)
{
	pid_t pid = fork();

	if (pid == 0)
		worker(slot);
	return pid;
}

/* The master: fill the heap, keep DEMO_WORKERS workers alive, touch a few
 * pages of its own now and then. Runs until cowtop goes away. */
int demo_main(void)
{
	pid_t pids[DEMO_WORKERS];
	long round = 0;
	int i;

	prctl(PR_SET_NAME, "demo-master");
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	heap = mmap(NULL, (size_t)DEMO_PAGES * DEMO_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (heap == MAP_FAILED)
		return 1;
	madvise(heap, (size_t)DEMO_PAGES * DEMO_PAGE, MADV_NOHUGEPAGE);
	memset(heap, 0x5a, (size_t)DEMO_PAGES * DEMO_PAGE);
	for (i = 0; i < DEMO_WORKERS; i++)
		pids[i] = spawn(i);
	for (;;) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

		for (i = 0; pid > 0 && i < DEMO_WORKERS; i++)
			if (pids[i] == pid)
				pids[i] = spawn(i);
		if (pid <= 0) {
			nap(200);
			if (++round % 10 == 0)
				heap[(round * 7 % DEMO_PAGES) * DEMO_PAGE] ^= 1;
		}
	}
}
