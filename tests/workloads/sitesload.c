// SPDX-License-Identifier: GPL-2.0
/*
 * sitesload: a program with many USDT probe sites, and probes whose
 * arguments are globals, for the tests of cowtop -u.
 *
 * Probes (sys/sdt.h, provider "sites"):
 *   sites:s300        300 sites (never reached), no arguments
 *   sites:s3000       3,000 sites (never reached), no arguments
 *   sites:work__start args: sites_counter (a global: "-4@sites_counter(%rip)"
 *                     with GCC in a PIE), the round number, sites_big (a
 *                     global 64-bit value, 0x123456789)
 *   sites:work__done  args: sites_counter, then a constant 77
 *   sites:big__start  1 site (never reached)
 *   sites:big__done   8,300 sites (never reached), each with its own
 *                     constant argument: more distinct specs than cowtop's
 *                     kernel table holds (8,192), so this end of the phase
 *                     "sites:big" cannot attach while the other can
 *
 * The 300, 3,000 and 8,300 sites are in a C file generated at build time by
 * tests/workloads/sitesgen.sh (compiled without optimization: quick).
 *
 * Usage: sitesload [--rounds N] [--start-delay MS] [--wait-signal]
 * With --wait-signal it prints "ready PID" and waits for SIGUSR1 first.
 * Then it sleeps --start-delay ms (300 by default; a tracer that starts it
 * attaches meanwhile), fires work__start and work__done --rounds times
 * (default 0), 1 ms apart, sites_counter being 1000 + round in both, and
 * says "done ROUNDS" on stderr. With --rounds 0 and --wait-signal it then sleeps until
 * killed. Exit status 0, 2 on usage errors.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <unistd.h>
#include "wlio.h"

const char wl_prog[] = "sitesload";

/* Globals the work probes pass by address (RIP-relative in the notes). */
volatile int sites_counter;
volatile long sites_big = 0x123456789L;

/* The many sites, in a file the build generates (sitesgen.sh). */
void many_sites(void);

static const char usage_text[] =
"usage: sitesload [--rounds N] [--start-delay MS] [--wait-signal]\n";

static unsigned long rounds, delay_ms = 300;
static int wait_signal;

/* One option of parse_options. */
static void set_option(int opt, const char *arg, const char *name)
{
	char *end;
	unsigned long v;

	if (opt == 'w') {
		wait_signal = 1;
		return;
	}
	v = strtoul(arg, &end, 10);
	if (!*arg || *end || v > 1000000)
		usage_error(name, "not a number up to 1000000");
	if (opt == 'r')
		rounds = v;
	else
		delay_ms = v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "start-delay", required_argument, NULL, 'd' },
		{ "wait-signal", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long i;

	if (parse_options(argc, argv, "", opts, usage_text, set_option) != argc)
		usage_error("operand", "none expected");
	if (argc > 1000) /* never: keeps the sites in the program */
		many_sites();
	if (wait_signal)
		wait_for_signal();
	sleep_ms(delay_ms);
	for (i = 0; i < rounds; i++) {
		sites_counter = (int)(1000 + i);
		STAP_PROBE3(sites, work__start, sites_counter, i, sites_big);
		sleep_ms(1);
		STAP_PROBE2(sites, work__done, sites_counter, 77);
	}
	fprintf(stderr, "sitesload: done %lu\n", rounds);
	if (wait_signal && !rounds)
		for (;;)
			pause();
	return 0;
}
