/* Command-line parsing: every value is checked, every mistake gets one line. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "options_int.h"
#include "sample_budget.h"

#define SECONDS_MAX 86400 /* longest delay or linger: a day */

enum {
	OPT_FIRST_CLONE = 256,
	OPT_DEMO,
	OPT_ASCII,
	OPT_LINGER,
	OPT_RINGBUF,
	OPT_FLAT,
	OPT_LIST_USDT,
	OPT_SMAPS_BUDGET,
	OPT_REGIONS,
	OPT_STACKS,
	OPT_STACKS_SAMPLE,
	OPT_OBJECTS,
	OPT_OBJECTS_SAMPLE,
	OPT_SAMPLE_BUDGET,
	OPT_FOLDED,
	OPT_FOLDED_OBJECTS,
	OPT_NO_REGIONS,
	OPT_CGROUP,
	OPT_UNIT,
	OPT_LISTEN,
	OPT_EXPORTER,
	OPT_METRICS_BY,
	OPT_LABEL,
	OPT_REVERSE,
	OPT_RECORD_MAX,
	OPT_DIFF,
	OPT_COMMAND_OUTPUT,
};

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "track-first-clone", required_argument, NULL, OPT_FIRST_CLONE },
	{ "batch", no_argument, NULL, 'b' },
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "format", required_argument, NULL, 'f' },
	{ "sort", required_argument, NULL, 's' },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "flat", no_argument, NULL, OPT_FLAT },
	{ "snapshot", required_argument, NULL, 'o' },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ "smaps-budget", required_argument, NULL, OPT_SMAPS_BUDGET },
	{ "regions", no_argument, NULL, OPT_REGIONS },
	{ "no-regions", no_argument, NULL, OPT_NO_REGIONS },
	{ "ascii", no_argument, NULL, OPT_ASCII },
	{ "demo", no_argument, NULL, OPT_DEMO },
	{ "ringbuf-kib", required_argument, NULL, OPT_RINGBUF },
	{ "usdt", required_argument, NULL, 'u' },
	{ "list-usdt", required_argument, NULL, OPT_LIST_USDT },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ "stacks-sample", required_argument, NULL, OPT_STACKS_SAMPLE },
	{ "objects", no_argument, NULL, OPT_OBJECTS },
	{ "objects-sample", required_argument, NULL, OPT_OBJECTS_SAMPLE },
	{ "sample-budget", required_argument, NULL, OPT_SAMPLE_BUDGET },
	{ "folded", required_argument, NULL, OPT_FOLDED },
	{ "folded-objects", required_argument, NULL, OPT_FOLDED_OBJECTS },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "exporter", no_argument, NULL, OPT_EXPORTER },
	{ "metrics-by", required_argument, NULL, OPT_METRICS_BY },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "record", required_argument, NULL, 'w' },
	{ "record-max-mib", required_argument, NULL, OPT_RECORD_MAX },
	{ "replay", required_argument, NULL, 'r' },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ "command-output", required_argument, NULL, OPT_COMMAND_OUTPUT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

/* Format a usage error into err. */
__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Whether s is a plain decimal number: digits, with at most one '.' among
 * them (fractions only when allowed). No sign, spaces, hex or exponent: what
 * strtod and strtol would also take ("0x10", " 1", "1e3", "inf") is a
 * mistake on a command line. */
static bool plain_decimal(const char *s, bool fraction)
{
	bool digit = false, dot = false;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digit = true;
		else if (*s == '.' && fraction && !dot)
			dot = true;
		else
			return false;
	}
	return digit;
}

/* parse_number's and parse_count's own code for a negative number. */
#define ENEGATIVE ENOTSUP

/* Why s, no plain decimal, is refused: a number strtod reads whole (with
 * a sign or an exponent, "-1", "1e9") says what is wrong with its value,
 * -ENEGATIVE, -ERANGE above max, -EDOM below min; anything else (hex,
 * inf, spaces, one in range written so) is -EINVAL. */
static int number_refusal(const char *s, double min, double max)
{
	char *end;
	double v;

	if (!*s || strpbrk(s, " \t\n\v\f\rxXnNiIpP"))
		return -EINVAL; /* spaces, hex, inf, nan */
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end)
		return -EINVAL;
	if (s[0] == '-' && v != 0)
		return -ENEGATIVE;
	if (v > max || (errno == ERANGE && v != 0))
		return -ERANGE;
	if (v < min)
		return -EDOM;
	return -EINVAL;
}

/* Parse a finite decimal number in [min, max], fractions allowed: 0,
 * -EINVAL when it is no plain decimal, -ENEGATIVE, -EDOM below min,
 * -ERANGE above max. */
static int parse_number(const char *s, double min, double max, double *out)
{
	double v;

	if (!plain_decimal(s, true))
		return number_refusal(s, min, max);
	errno = 0;
	v = strtod(s, NULL);
	if (v > max || errno == ERANGE)
		return -ERANGE;
	if (v < min)
		return -EDOM;
	*out = v;
	return 0;
}

/* Parse a decimal count in [min, max]: 0, -EINVAL, -ENEGATIVE, -EDOM or
 * -ERANGE as parse_number. */
static int parse_count(const char *s, long min, long max, long *out)
{
	long v;

	if (!plain_decimal(s, false))
		return number_refusal(s, (double)min, (double)max);
	errno = 0;
	v = strtol(s, NULL, 10);
	if (errno == ERANGE || v > max)
		return -ERANGE;
	if (v < min)
		return -EDOM;
	*out = v;
	return 0;
}

/* Parse a positive pid. */
static int parse_pid(const char *s, int *out)
{
	long v;
	int e = parse_count(s, 1, INT_MAX, &v);

	if (!e)
		*out = (int)v;
	return e;
}

/* The words for a number parse_number or parse_count refused with e. */
static const char *number_problem(int e)
{
	if (e == -ENEGATIVE)
		return "negative";
	return e == -ERANGE ? "too large" : e == -EDOM ? "too small" : "not a decimal number";
}

/* Take the pids of one -p: "12" or a comma-separated list "12,34,56", as
 * top and htop take them. */
static int parse_pid_list(struct options *o, const char *arg, char *err, size_t errlen)
{
	char one[32];
	const char *s = arg, *comma;
	size_t len;
	int e;

	do {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (o->npids == OPT_MAX_PIDS)
			return fail(err, errlen, "too many -p PIDs (at most %d)", OPT_MAX_PIDS);
		if (len == 0 || len >= sizeof(one))
			return fail(err, errlen, "invalid PID list '%s'", arg);
		memcpy(one, s, len);
		one[len] = '\0';
		e = parse_pid(one, &o->pids[o->npids]);
		if (e && !comma && s == arg)
			return fail(err, errlen, "invalid PID '%s': %s", one, number_problem(e));
		if (e)
			return fail(err, errlen, "invalid PID '%s' in '%s': %s", one, arg, number_problem(e));
		o->npids++;
		s = comma ? comma + 1 : NULL;
	} while (s);
	return 0;
}


/* Parse [ADDR:]PORT: ADDR an IPv4 address or an IPv6 one in brackets
 * (default 127.0.0.1), PORT 1..65535. 0 or -EINVAL. */
int options_parse_listen(const char *s, char *addr, size_t addrlen, unsigned short *port)
{
	const char *colon = strrchr(s, ':'), *ps = colon ? colon + 1 : s;
	unsigned char bin[sizeof(struct in6_addr)];
	size_t alen = colon ? (size_t)(colon - s) : 0;
	long v;

	if (parse_count(ps, 1, 65535, &v))
		return -EINVAL;
	*port = (unsigned short)v;
	if (!colon) {
		snprintf(addr, addrlen, "127.0.0.1");
		return 0;
	}
	if (alen >= 2 && s[0] == '[' && s[alen - 1] == ']') {
		if (alen - 2 >= addrlen)
			return -EINVAL;
		memcpy(addr, s + 1, alen - 2);
		addr[alen - 2] = 0;
		return inet_pton(AF_INET6, addr, bin) == 1 ? 0 : -EINVAL;
	}
	if (alen == 0 || alen >= addrlen)
		return -EINVAL;
	memcpy(addr, s, alen);
	addr[alen] = 0;
	return inet_pton(AF_INET, addr, bin) == 1 ? 0 : -EINVAL;
}

/* Parse --label KEY=VALUE: only "group" is known; the value is a printable
 * name of at most 63 bytes. */
static int parse_label(const char *s, const char **group)
{
	const char *v;

	if (strncmp(s, "group=", 6))
		return -EINVAL;
	v = s + 6;
	if (!*v || strlen(v) > 63)
		return -EINVAL;
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			return -EINVAL;
	*group = v;
	return 0;
}

/* Set the defaults. */
static void options_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->delay = 1.0;
	o->sort = SORT_DEFAULT;
	o->format = FORMAT_TEXT;
	o->linger = 10.0;
	o->smaps_budget = 1.0;
	o->sample_budget = SAMPLE_BUDGET_DEFAULT;
}

/* Apply one parsed option c with argument arg. */
static int apply(struct options *o, int c, const char *arg, char *err, size_t errlen)
{
	long v;
	int e;

	switch (c) {
	case 'p':
		return parse_pid_list(o, arg, err, errlen);
	case OPT_FIRST_CLONE:
		e = parse_pid(arg, &o->first_clone_of);
		if (e)
			return fail(err, errlen, "invalid PID '%s': %s", arg, number_problem(e));
		return 0;
	case 'b': o->batch = true; return 0;
	case OPT_REVERSE: o->reverse = true; return 0;
	case 'w':
		if (!*arg)
			return fail(err, errlen, "--record needs a file name");
		o->record = arg;
		return 0;
	case OPT_RECORD_MAX:
		if (parse_number(arg, 0.01, 1 << 30, &o->record_max_mib))
			return fail(err, errlen, "invalid record size '%s' (MiB, at least 0.01)", arg);
		return 0;
	case 'r':
		if (!*arg)
			return fail(err, errlen, "--replay needs a file name");
		o->replay = arg;
		return 0;
	case OPT_FLAT: o->flat = true; return 0;
	case OPT_ASCII: o->ascii = true; return 0;
	case OPT_REGIONS: o->regions = true; return 0;
	case OPT_DEMO: o->demo = true; return 0;
	case 'o':
		if (!*arg)
			return fail(err, errlen, "empty snapshot file name");
		o->snapshot = arg;
		return 0;
	case OPT_LIST_USDT: o->list_usdt = arg; return 0;
	case OPT_CGROUP:
		if (!*arg)
			return fail(err, errlen, "empty cgroup path");
		o->cgroup = arg;
		return 0;
	case OPT_UNIT:
		if (!*arg || strchr(arg, '/'))
			return fail(err, errlen, "--unit takes a unit name, such as nginx.service");
		o->unit = arg;
		return 0;
	case 'u':
		if (o->nusdt == OPT_MAX_USDT)
			return fail(err, errlen, "too many -u (at most %d)", OPT_MAX_USDT);
		o->usdt[o->nusdt++] = arg;
		return 0;
	case 'h': o->help = true; return 0;
	case 'V': o->version = true; return 0;
	case 'd':
		e = parse_number(arg, 0.1, SECONDS_MAX, &o->delay);
		if (e)
			return fail(err, errlen, "invalid delay '%s': %s (seconds, 0.1 to %d)", arg,
				    number_problem(e), SECONDS_MAX);
		return 0;
	case OPT_LINGER:
		o->linger_set = true;
		e = parse_number(arg, 0, SECONDS_MAX, &o->linger);
		if (e)
			return fail(err, errlen, "invalid linger '%s': %s (seconds, 0 to %d)", arg,
				    number_problem(e), SECONDS_MAX);
		return 0;
	case OPT_SMAPS_BUDGET:
		e = parse_number(arg, 0, 100, &o->smaps_budget);
		if (e)
			return fail(err, errlen, "invalid smaps budget '%s': %s (percent of a CPU, 0 to 100)",
				    arg, number_problem(e));
		return 0;
	case OPT_SAMPLE_BUDGET:
		e = parse_number(arg, 0, 100, &o->sample_budget);
		if (e)
			return fail(err, errlen, "invalid sample budget '%s': %s (percent of a CPU, 0 to 100)",
				    arg, number_problem(e));
		o->sample_budget_set = true;
		return 0;
	case OPT_STACKS: o->stacks = true; return 0;
	case OPT_OBJECTS: o->objects = true; return 0;
	case OPT_OBJECTS_SAMPLE:
		e = parse_count(arg, 1, 1000000, &v);
		if (e)
			return fail(err, errlen, "invalid object sampling '%s': %s (1 copy in N, 1 to 1000000)",
				    arg, number_problem(e));
		o->objects_sample = (unsigned)v;
		return 0;
	case OPT_NO_REGIONS: o->no_regions = true; return 0;
	case OPT_COMMAND_OUTPUT:
		if (!*arg)
			return fail(err, errlen, "--command-output needs a file name");
		o->command_output = arg;
		return 0;
	case OPT_FOLDED:
		if (!*arg)
			return fail(err, errlen, "--folded needs a file name");
		o->folded = arg;
		o->stacks = true;
		return 0;
	case OPT_FOLDED_OBJECTS:
		if (!*arg)
			return fail(err, errlen, "--folded-objects needs a file name");
		o->folded_objects = arg;
		o->objects = true;
		return 0;
	case OPT_STACKS_SAMPLE:
		e = parse_count(arg, 1, 1000000, &v);
		if (e)
			return fail(err, errlen, "invalid stack sampling '%s': %s (1 copy in N, 1 to 1000000)",
				    arg, number_problem(e));
		o->stacks_sample = (unsigned)v;
		return 0;
	case OPT_LISTEN:
		if (options_parse_listen(arg, o->listen_addr, sizeof(o->listen_addr), &o->listen_port))
			return fail(err, errlen, "invalid listen address '%s' ([ADDR:]PORT, ADDR IPv4 or [IPv6], PORT 1-65535)", arg);
		o->listen = arg;
		return 0;
	case OPT_EXPORTER: o->exporter = true; return 0;
	case OPT_METRICS_BY:
		if (strcmp(arg, "pid") && strcmp(arg, "group"))
			return fail(err, errlen, "invalid --metrics-by '%s' (group or pid)", arg);
		o->metrics_by_pid = strcmp(arg, "pid") == 0;
		return 0;
	case OPT_LABEL:
		if (parse_label(arg, &o->label_group))
			return fail(err, errlen, "invalid label '%s' (group=NAME, printable, at most 63 bytes)", arg);
		return 0;
	case 'n':
		e = parse_count(arg, 1, LONG_MAX, &o->iterations);
		if (e)
			return fail(err, errlen, "invalid iteration count '%s': %s (1 to %ld)", arg,
				    number_problem(e), LONG_MAX);
		return 0;
	case OPT_RINGBUF:
		e = parse_count(arg, 4, 1 << 20, &v);
		if (e || (v & (v - 1)))
			return fail(err, errlen, "invalid ring buffer size '%s': %s (KiB, a power of 2, 4 to %d)",
				    arg, e ? number_problem(e) : "not a power of 2", 1 << 20);
		o->ringbuf_kib = (unsigned)v;
		return 0;
	case 'f':
		o->format_set = true;
		if (strcmp(arg, "text") == 0)
			o->format = FORMAT_TEXT;
		else if (strcmp(arg, "json") == 0)
			o->format = FORMAT_JSON;
		else
			return fail(err, errlen, "invalid format '%s' (text or json)", arg);
		return 0;
	case 's':
		if (sort_key_parse(arg, &o->sort)) {
			char names[512];

			fields_sort_names(SORT_DEFAULT, names, sizeof(names));
			return fail(err, errlen, "invalid sort key '%s' (%s)", arg, names);
		}
		return 0;
	}
	return fail(err, errlen, "invalid option");
}

/* --diff A B: A is the option's value, B the next argument. */
static int take_diff(struct options *o, int argc, char **argv, char *err, size_t errlen)
{
	if (optind >= argc || !*optarg || !*argv[optind] || strcmp(argv[optind], "--") == 0)
		return fail(err, errlen, "--diff needs two recordings: --diff A B");
	o->diff[0] = optarg;
	o->diff[1] = argv[optind++];
	return 0;
}

/* Check that the targets given make sense together. */
static int check_targets(const struct options *o, char *err, size_t errlen)
{
	int kinds = (o->npids > 0) + (o->first_clone_of > 0) + (o->command != NULL) + o->demo +
		    (o->cgroup != NULL) + (o->unit != NULL);
	int files = (o->replay != NULL) + (o->diff[0] != NULL);

	if (kinds > 1)
		return fail(err, errlen, "-p, --track-first-clone, --cgroup, --unit, --demo and -- COMMAND "
			    "exclude each other");
	if (o->regions && o->no_regions)
		return fail(err, errlen, "--regions and --no-regions exclude each other");
	if (files > 1 || (files && (kinds || o->record || o->listen || o->exporter)))
		return fail(err, errlen, "--replay and --diff read recordings: no targets, no --record, "
			    "--listen or --exporter, not both");
	if (o->command_output && !o->command)
		return fail(err, errlen, "--command-output is where the output of -- COMMAND goes: "
			    "give a command");
	if (o->record_max_mib > 0 && !o->record)
		return fail(err, errlen, "--record-max-mib needs --record FILE");
	if (o->list_usdt && (kinds || o->nusdt))
		return fail(err, errlen, "--list-usdt lists probes and exits: no target or -u with it");
	return 0;
}

/* Whether every option given does something in the output chosen (screen:
 * the full-screen view, else batch); see options.h. */
int options_check_mode(const struct options *o, bool screen, char *err, size_t errlen)
{
	if (screen && o->format_set)
		return fail(err, errlen, "-f is the format of batch output: add -b "
			    "(the full-screen view has none)");
	if (!screen && o->snapshot)
		return fail(err, errlen, "-o names the file of the full-screen view's snapshot key: "
			    "not with batch output");
	if (!screen && o->linger_set)
		return fail(err, errlen, "--linger is for the full-screen view (batch output shows an "
			    "exited process once)");
	if (o->regions && (screen || o->format == FORMAT_JSON))
		return fail(err, errlen, "--regions is for batch text (JSON always carries regions, "
			    "the full-screen view shows them on r)");
	if (!screen && o->ascii && o->format == FORMAT_JSON)
		return fail(err, errlen, "--ascii is for the screen and batch text, not JSON");
	if (!screen && o->stacks_sample && !o->stacks)
		return fail(err, errlen, "--stacks-sample needs --stacks in batch output");
	if (o->objects_sample && !o->objects)
		return fail(err, errlen, "--objects-sample needs --objects");
	if (!screen && o->sample_budget_set && !o->stacks && !o->objects)
		return fail(err, errlen, "--sample-budget needs --stacks or --objects in batch output");
	return 0;
}

/* Parse argv into o (see options.h). */
int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
	int c, r;

	options_defaults(o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:bd:n:f:s:r:o:u:w:hV", long_opts, NULL)) != -1) {
		if (c == '?') {
			if (optopt)
				return fail(err, errlen, "unknown option '-%c'", optopt);
			return fail(err, errlen, "unknown option '%s'", argv[optind - 1]);
		}
		if (c == ':')
			return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		if (c == OPT_DIFF)
			r = take_diff(o, argc, argv, err, errlen);
		else
			r = apply(o, c, optarg, err, errlen);
		if (r)
			return r;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return fail(err, errlen, "unexpected argument '%s' (a command goes after --)", argv[optind]);
		o->command = &argv[optind];
	} else if (optind > 1 && strcmp(argv[optind - 1], "--") == 0) {
		return fail(err, errlen, "no command after --");
	}
	if (o->exporter && !o->listen) {
		snprintf(o->listen_addr, sizeof(o->listen_addr), "127.0.0.1");
		o->listen_port = OPT_EXPORTER_PORT;
	}
	if ((o->metrics_by_pid || o->label_group) && !o->listen && !o->exporter)
		return fail(err, errlen, "--metrics-by and --label need --listen or --exporter");
	return check_targets(o, err, errlen);
}
