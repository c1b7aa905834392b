/* Numbers made short enough for narrow columns: 12.3k, 4.5M, 1.2G; clock
 * times to the millisecond. */
#ifndef COWTOP_UI_FMT_H
#define COWTOP_UI_FMT_H

#include <stddef.h>

void fmt_rate(double v, char *buf, size_t cap);
void fmt_count(unsigned long long v, char *buf, size_t cap);
void fmt_kib(unsigned long long kib, char *buf, size_t cap);
void fmt_kib_rate(double kib, char *buf, size_t cap);
void fmt_kib_iec(unsigned long long kib, char *buf, size_t cap);
unsigned long long fmt_page_kib(void);
void fmt_clock(double t, char *buf, size_t cap);

#endif
