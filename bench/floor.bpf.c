// SPDX-License-Identifier: GPL-2.0
/* The floor of any tracer built like cowtop: empty programs on the three
 * hooks cowtop uses, so a benchmark can tell what the hooks cost from what
 * the programs on them do. */

/* No headers: the programs touch nothing. */
#define SEC(name) __attribute__((section(name), used))

SEC("raw_tp/page_fault_user")
int floor_fault_user(void *ctx)
{
	return 0;
}

SEC("raw_tp/page_fault_kernel")
int floor_fault_kernel(void *ctx)
{
	return 0;
}

SEC("raw_tp/mm_page_alloc")
int floor_page_alloc(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
