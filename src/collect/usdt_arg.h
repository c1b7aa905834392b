/* The argument specs of USDT probes ("-4@%eax", "8@-16(%rbp)",
 * "-4@NBuffers(%rip)", "4@$5"): how to fetch each one at a hit. */
#ifndef COWTOP_USDT_ARG_H
#define COWTOP_USDT_ARG_H

#include <stdbool.h>
#include <stddef.h>

enum usdt_arg_kind {
	USDT_ARG_NONE,   /* unavailable: a form not read (scaled index, unknown register...) */
	USDT_ARG_CONST,  /* value is off */
	USDT_ARG_REG,    /* the register at reg_off in the kernel's struct pt_regs */
	USDT_ARG_DEREF,  /* the memory at that register + off */
	USDT_ARG_GLOBAL, /* the memory at symbol sym + off (PC-relative in the note) */
};

/* One argument. */
struct usdt_arg {
	enum usdt_arg_kind kind;
	int size;          /* bytes: 1, 2, 4 or 8 */
	bool is_signed;
	unsigned reg_off;  /* REG, DEREF; the ip register for GLOBAL */
	long long off;     /* CONST, DEREF, GLOBAL */
	char sym[128];     /* GLOBAL */
};

/* Parse one spec of an x86-64 note, e.g. "-4@-20(%rbp)". Pure. Returns 0
 * (out->kind is USDT_ARG_NONE for a well-formed size with a location cowtop
 * does not read) or -EINVAL when the text is not a spec at all. */
int usdt_arg_parse(const char *s, struct usdt_arg *out);

/* Parse the first max specs of a space-separated list into args; returns
 * how many specs there were (up to max), or -EINVAL. */
int usdt_args_parse(const char *s, struct usdt_arg *args, int max);

#endif
