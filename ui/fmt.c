/* Short numbers for columns of at most 7 (rates, counts) or 6 (sizes), and
 * clock times. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fmt.h"

/* v with one decimal and the first unit of units that keeps it under 1000
 * steps of step. */
static void fmt_scaled(double v, double step, const char *units, char *buf, size_t cap)
{
	const char *u = units;

	while (v >= 999.95 && u[1]) {
		v /= step;
		u++;
	}
	snprintf(buf, cap, "%.1f%c", v, *u);
}

/* A rate per second: "0.0" to "9999.9", then "12.3k", "4.5M", ... */
void fmt_rate(double v, char *buf, size_t cap)
{
	if (!(v > 0))
		v = 0;
	if (v < 9999.95)
		snprintf(buf, cap, "%.1f", v);
	else
		fmt_scaled(v / 1000, 1000, "kMGTP", buf, cap);
}

/* A count: exact up to 9999999, then "12.3M", "4.5G", ... */
void fmt_count(unsigned long long v, char *buf, size_t cap)
{
	if (v <= 9999999ULL)
		snprintf(buf, cap, "%llu", v);
	else
		fmt_scaled((double)v / 1e6, 1000, "MGTPE", buf, cap);
}

/* A size in KiB, htop-like: "1023K", "12.3M", "345M", "1.2G", ... */
void fmt_kib(unsigned long long kib, char *buf, size_t cap)
{
	static const char units[] = "KMGTPE";
	double v = (double)kib;
	int u = 0;

	if (kib < 1024) {
		snprintf(buf, cap, "%lluK", kib);
		return;
	}
	while (v >= 1023.5 && units[u + 1]) {
		v /= 1024;
		u++;
	}
	if (v < 99.95)
		snprintf(buf, cap, "%.1f%c", v, units[u]);
	else
		snprintf(buf, cap, "%.0f%c", v, units[u]);
}

/* A rate in KiB per second, as fmt_kib writes sizes ("12.3M" is 12.3 MiB/s). */
void fmt_kib_rate(double kib, char *buf, size_t cap)
{
	fmt_kib(kib > 0 ? (unsigned long long)(kib + 0.5) : 0, buf, cap);
}

/* A size in KiB with a spaced IEC unit, for the header: "980 KiB",
 * "12.3 MiB", "1.2 GiB". */
void fmt_kib_iec(unsigned long long kib, char *buf, size_t cap)
{
	char s[32];
	size_t n;

	fmt_kib(kib, s, sizeof(s));
	n = strlen(s);
	if (!n) {
		snprintf(buf, cap, "?");
		return;
	}
	snprintf(buf, cap, "%.*s %ciB", (int)(n - 1), s, s[n - 1]);
}

/* KiB in a page: copies are counted in base pages. */
unsigned long long fmt_page_kib(void)
{
	static unsigned long long kib;
	long sz;

	if (!kib) {
		sz = sysconf(_SC_PAGESIZE);
		kib = sz >= 1024 ? (unsigned long long)sz / 1024 : 4;
	}
	return kib;
}

/* Unix time t as local "HH:MM:SS.mmm". */
void fmt_clock(double t, char *buf, size_t cap)
{
	time_t sec;
	struct tm tm;
	char hms[16];
	int ms;

	if (!(t >= 0) || t > 1e15)
		t = 0;
	sec = (time_t)floor(t);
	ms = (int)floor((t - (double)sec) * 1000 + 0.5);
	if (ms > 999) /* never show the next second before it comes */
		ms = 999;
	if (!localtime_r(&sec, &tm) || !strftime(hms, sizeof(hms), "%H:%M:%S", &tm))
		snprintf(hms, sizeof(hms), "??:??:??");
	snprintf(buf, cap, "%s.%03d", hms, ms);
}
