/* The argument specs of USDT probes on x86-64: the assembler operands GCC
 * and clang write into stapsdt notes, each after its size ("-4@"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "usdt_arg.h"

/* Offsets in the kernel's x86-64 struct pt_regs (its layout is ABI: it is
 * what ptrace and BPF programs see), with every name of each register. */
static const struct {
	unsigned off;
	const char *names[4];
} regs[] = {
	{ 0, { "r15", "r15d", "r15w", "r15b" } },
	{ 8, { "r14", "r14d", "r14w", "r14b" } },
	{ 16, { "r13", "r13d", "r13w", "r13b" } },
	{ 24, { "r12", "r12d", "r12w", "r12b" } },
	{ 32, { "rbp", "ebp", "bp", "bpl" } },
	{ 40, { "rbx", "ebx", "bx", "bl" } },
	{ 48, { "r11", "r11d", "r11w", "r11b" } },
	{ 56, { "r10", "r10d", "r10w", "r10b" } },
	{ 64, { "r9", "r9d", "r9w", "r9b" } },
	{ 72, { "r8", "r8d", "r8w", "r8b" } },
	{ 80, { "rax", "eax", "ax", "al" } },
	{ 88, { "rcx", "ecx", "cx", "cl" } },
	{ 96, { "rdx", "edx", "dx", "dl" } },
	{ 104, { "rsi", "esi", "si", "sil" } },
	{ 112, { "rdi", "edi", "di", "dil" } },
	{ 128, { "rip", "eip", "ip", NULL } },
	{ 152, { "rsp", "esp", "sp", "spl" } },
};

#define IP_OFF 128

/* The pt_regs offset of register name[0..n), or -1. */
static int reg_off(const char *name, size_t n)
{
	size_t i, j;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (j = 0; j < 4 && regs[i].names[j]; j++)
			if (strlen(regs[i].names[j]) == n && !strncmp(regs[i].names[j], name, n))
				return (int)regs[i].off;
	return -1;
}

/* Parse "%reg" at s up to end; returns the offset or -1. */
static int parse_reg(const char *s, const char *end)
{
	if (end - s < 2 || *s != '%')
		return -1;
	return reg_off(s + 1, (size_t)(end - s - 1));
}

/* Parse a whole decimal or 0x number in s[0..n). */
static int parse_num(const char *s, size_t n, long long *v)
{
	char buf[32], *e;

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtoll(buf, &e, 0);
	return *e || errno ? -EINVAL : 0;
}

/* Whether c may be in a symbol name. */
static bool sym_char(char c)
{
	return c == '_' || c == '.' || c == '$' || (c >= '0' && c <= '9') ||
	       (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* "SYM", "SYM+N", "SYM-N" or "N+SYM" in s[0..n): the operand of a
 * PC-relative global (GCC writes "40+CheckpointStats(%rip)" for a member). */
static int parse_global(const char *s, size_t n, struct usdt_arg *a)
{
	const char *plus = memchr(s, '+', n);
	long long lead = 0;
	size_t i = 0;

	if (plus && plus > s && s[0] >= '0' && s[0] <= '9') {
		if (parse_num(s, (size_t)(plus - s), &lead) || parse_global(plus + 1,
		    n - (size_t)(plus + 1 - s), a))
			return -EINVAL;
		a->off += lead;
		return 0;
	}

	while (i < n && sym_char(s[i]))
		i++;
	if (i == 0 || i >= sizeof(a->sym) || (s[0] >= '0' && s[0] <= '9'))
		return -EINVAL;
	memcpy(a->sym, s, i);
	a->sym[i] = '\0';
	a->off = 0;
	if (i < n && parse_num(s + i + (s[i] == '+'), n - i - (s[i] == '+'), &a->off))
		return -EINVAL;
	a->kind = USDT_ARG_GLOBAL;
	a->reg_off = IP_OFF;
	return 0;
}

/* The location after "SIZE@": "$N", "%reg", "OFF(%reg)", "SYM(%rip)". */
static void parse_where(const char *s, const char *end, struct usdt_arg *a)
{
	const char *open = memchr(s, '(', (size_t)(end - s));
	int r;

	a->kind = USDT_ARG_NONE;
	if (*s == '$') {
		if (!parse_num(s + 1, (size_t)(end - s - 1), &a->off))
			a->kind = USDT_ARG_CONST;
		return;
	}
	if (*s == '%') {
		r = parse_reg(s, end);
		if (r >= 0 && r != IP_OFF) {
			a->kind = USDT_ARG_REG;
			a->reg_off = (unsigned)r;
		}
		return;
	}
	if (!open || end[-1] != ')' || memchr(open, ',', (size_t)(end - open)))
		return; /* no parenthesis, or a scaled index: not read */
	r = parse_reg(open + 1, end - 1);
	if (r < 0)
		return;
	if (r == IP_OFF) {
		if (parse_global(s, (size_t)(open - s), a))
			a->kind = USDT_ARG_NONE;
		return;
	}
	a->off = 0;
	if (open == s || !parse_num(s, (size_t)(open - s), &a->off)) {
		a->kind = USDT_ARG_DEREF;
		a->reg_off = (unsigned)r;
	}
}

/* Parse one spec; see usdt_arg.h. */
int usdt_arg_parse(const char *s, struct usdt_arg *out)
{
	const char *at = strchr(s, '@'), *end = s + strlen(s);
	struct usdt_arg a = { .kind = USDT_ARG_NONE };
	long long size;

	if (!at || parse_num(s, (size_t)(at - s), &size) || at + 1 == end)
		return -EINVAL;
	if (size != 1 && size != 2 && size != 4 && size != 8 && size != -1 && size != -2 &&
	    size != -4 && size != -8)
		return -EINVAL;
	a.is_signed = size < 0;
	a.size = (int)(size < 0 ? -size : size);
	parse_where(at + 1, end, &a);
	*out = a;
	return 0;
}

/* Parse the first max specs of a list; see usdt_arg.h. */
int usdt_args_parse(const char *s, struct usdt_arg *args, int max)
{
	char one[256];
	int n = 0;

	while (*s && n < max) {
		size_t len;

		s += strspn(s, " ");
		len = strcspn(s, " ");
		if (len == 0)
			break;
		if (len >= sizeof(one))
			return -EINVAL;
		memcpy(one, s, len);
		one[len] = '\0';
		if (usdt_arg_parse(one, &args[n]))
			return -EINVAL;
		n++;
		s += len;
	}
	return n;
}
