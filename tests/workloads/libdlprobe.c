// SPDX-License-Identifier: GPL-2.0
/*
 * libdlprobe: a small shared library with USDT probes, which dlopenload
 * loads with dlopen() once it runs: a tracer that started the program
 * cannot have found these probes at its start.
 *
 * Probes (sys/sdt.h, with semaphores: a tracer that attaches them raises
 * the semaphores in every process mapping the library, which is how
 * dlopenload knows, without timing, that they are attached):
 *   dlprobe:work__begin  arg1 = phase number
 *   dlprobe:work__end    arg1 = the same
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

__extension__ unsigned short dlprobe_work__begin_semaphore
	__attribute__((unused)) __attribute__((section(".probes")));
__extension__ unsigned short dlprobe_work__end_semaphore
	__attribute__((unused)) __attribute__((section(".probes")));

int dlprobe_attached(void);
void dlprobe_begin(long n);
void dlprobe_end(long n);

/* Whether a tracer has attached both probes (both semaphores raised). */
int dlprobe_attached(void)
{
	return *(volatile unsigned short *)&dlprobe_work__begin_semaphore &&
	       *(volatile unsigned short *)&dlprobe_work__end_semaphore;
}

/* Open phase n. */
void dlprobe_begin(long n)
{
	STAP_PROBE1(dlprobe, work__begin, n);
}

/* Close phase n. */
void dlprobe_end(long n)
{
	STAP_PROBE1(dlprobe, work__end, n);
}
