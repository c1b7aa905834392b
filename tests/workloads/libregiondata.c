// SPDX-License-Identifier: GPL-2.0
/*
 * libregiondata: a small shared library whose only job is to own a static
 * array in its .data, for regionload: copies of those pages must be
 * counted under the region file:libregiondata.so.
 */
#include <stddef.h>

#define REGIONDATA_PAGES 256
#define REGIONDATA_PAGE 4096

/* Initialised non-zero so it lands in .data (not .bss), page-aligned so each
 * written page is one page of the mapping. */
static unsigned char regiondata[REGIONDATA_PAGES * REGIONDATA_PAGE]
	__attribute__((aligned(REGIONDATA_PAGE))) = { 1 };

/* The array and its length in bytes. */
unsigned char *regiondata_block(size_t *len);
unsigned char *regiondata_block(size_t *len)
{
	*len = sizeof(regiondata);
	return regiondata;
}
