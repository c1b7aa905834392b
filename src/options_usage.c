/* The help text of --help: the options, the keys and the sort keys. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "options.h"
#include "options_int.h"

#define USAGE_COL 28   /* where the help's descriptions start */
#define USAGE_WIDTH 80 /* ... and where the sort keys' line wraps */

/* The help's -s line: the sort keys of the field table, the default first,
 * wrapped under the descriptions. */
static void usage_sort(FILE *f)
{
	char names[512], *name, *save = NULL;
	int at = fprintf(f, "  -s, --sort KEY            ");
	bool first = true;

	fields_sort_names(SORT_DEFAULT, names, sizeof(names));
	for (name = strtok_r(names, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
		int w = (int)strlen(name) + (first ? (int)strlen(" (default)") : 0) + 1;

		if (!first && at + 1 + w > USAGE_WIDTH)
			at = fprintf(f, "\n%*s", USAGE_COL, "") - 1;
		else if (!first)
			at += fprintf(f, " ");
		at += fprintf(f, "%s%s%s", name, first ? " (default)" : "", save && *save ? "," : "");
		first = false;
	}
	fputc('\n', f);
}

/* Print the help text. */
void options_usage(FILE *f)
{
	fputs("Usage: cowtop [OPTIONS] [-p PID]... | [OPTIONS] -- COMMAND [ARG]...\n"
	      "Show copy-on-write page copies per process, live, as a process tree.\n"
	      "\n"
	      "Targets (default: every process):\n"
	      "  -p, --pid PID[,PID...]    watch each PID and all its descendants (repeatable)\n"
	      "  -- COMMAND [ARG]...       run COMMAND traced from its first instruction\n"
	      "      --command-output FILE  its stdout and stderr into FILE, a new file\n"
	      "                            (default: the terminal with -b, else /dev/null)\n"
	      "      --track-first-clone PID  watch only the first child PID forks\n"
	      "      --demo                run a small built-in preforking workload\n"
	      "      --cgroup PATH         every process in a cgroup subtree, as they come and go\n"
	      "                            (v2 path below the unified mount, or a v1 controller's:\n"
	      "                            memory/PATH, or the full path under /sys/fs/cgroup)\n"
	      "      --unit NAME           every process of a running systemd unit (its cgroup)\n"
	      "\n"
	      "Output:\n"
	      "  -b, --batch               print frames as text instead of the full-screen view\n"
	      "  -f, --format text|json    batch format, with -b (json: one object per line per frame)\n"
	      "  -d, --delay SECONDS       refresh interval (default 1, minimum 0.1)\n"
	      "  -n, --iterations N        stop after N frames\n", f);
	usage_sort(f);
	fputs("      --reverse             reverse the sort order\n"
	      "      --flat                a flat list instead of the tree\n"
	      "      --linger SECONDS      full screen: keep exited processes this long (default 10)\n"
	      "      --regions             batch text: each process's copies by memory region\n"
	      "      --no-regions          do not split copies by region (all are \"other\")\n"
	      "                            (heap, stack, anon, file:NAME, other)\n"
	      "  -o, --snapshot FILE       full screen: where the snapshot key writes\n"
	      "                            (default ./cowtop-DATE.txt)\n"
	      "      --ascii               ASCII only: glyphs, and names in batch text\n"
	      "      --smaps-budget PERCENT  share of one CPU for reading memory sharing\n"
	      "                            (smaps_rollup; default 1, 0 off)\n"
	      "\n"
	      "Runtime phases (USDT):\n"
	      "  -u, --usdt [PATH:]PROVIDER:NAME  mark probe hits, count copies per phase\n"
	      "                            (X__begin/X__end pairs form the phase PROVIDER:X)\n"
	      "      --list-usdt PID|PATH  list the USDT probes of a process or an ELF file\n"
	      "\n"
	      "Record, replay, compare:\n"
	      "  -w, --record FILE         also append every frame to FILE as a JSON line\n"
	      "                            (after a header line; with any view)\n"
	      "      --record-max-mib N    past N MiB, rename FILE to FILE.1 and start anew\n"
	      "  -r, --replay FILE         show a recording (no root, no BPF); time keys:\n"
	      "                            Space play/pause, Left/Right a frame, { } a marker,\n"
	      "                            : jump to a time, +/- faster/slower\n"
	      "      --diff A B            compare two recordings of the same program\n"
	      "                            (per role: copies, rates by age, peaks; -f json)\n"
	      "\n"
	      "Copies by code path:\n"
	      "      --stacks              capture the user stack of each copy (key c in the view)\n"
	      "      --stacks-sample N     at most 1 copy in N (counts scaled; default 1)\n"
	      "      --sample-budget PERCENT  share of one CPU the kernel may spend on stack\n"
	      "                            captures, and on object reads: the sampling rate\n"
	      "                            adapts to stay within it (default 1, 0 no limit)\n"
	      "      --folded FILE         at exit, write the stacks for flame graphs (implies --stacks)\n"
	      "\n"
	      "Copies by runtime object (CPython 3.11, Ruby 3.1):\n"
	      "      --objects             the object type (and a Ruby object's class) each\n"
	      "                            copy's write fell in, and which part was written\n"
	      "                            (refcount, gc_header, flags, ...)\n"
	      "      --objects-sample N    read the object of at most 1 copy in N (default 8;\n"
	      "                            --sample-budget applies)\n"
	      "      --folded-objects FILE at exit, write the copies by object for flame graphs,\n"
	      "                            comm;runtime;type;[write] (implies --objects)\n"
	      "\n"
	      "Metrics for Prometheus (see cowtop(8), METRICS):\n"
	      "      --listen [ADDR:]PORT  serve /metrics there (ADDR default 127.0.0.1;\n"
	      "                            IPv6 in brackets), with the screen or batch output\n"
	      "      --exporter            headless: serve metrics only (default port 9729)\n"
	      "      --metrics-by group|pid  series per group and role (default), or per\n"
	      "                            process as well\n"
	      "      --label group=NAME    the group label of every series (default: the\n"
	      "                            watched root's name)\n"
	      "\n"
	      "In the full-screen view: F1 help, F2 the columns shown (kept in\n"
	      "$XDG_CONFIG_HOME/cowtop/cowtoprc or ~/.config/cowtop/cowtoprc), F3 search,\n"
	      "F4 filter; Left/Right scroll COMMAND; click a row to select, a title to sort.\n"
	      "\n"
	      "  -h, --help                this help\n"
	      "  -V, --version             version\n"
	      "\n"
	      "Needs root (or CAP_BPF and CAP_PERFMON) and a kernel with BTF. See cowtop(8).\n",
	      f);
}
