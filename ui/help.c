/* Help text built from the key map, so it cannot miss a key. */
#include <string.h>
#include "fields.h"
#include "glyphs.h"
#include "help.h"
#include "keys.h"

/* The legend after the columns' (from the field table) and before the
 * command's. */
static const char *const legend[] = {
	"copies   (header) every copy since watching began, exited processes",
	"         included, also once they have left the table: it never goes down",
	"history  CoW/s (or SHR% after m) over the last intervals, newest on the",
	"         right; a full column is the max shown in its title (SHR%: 100%)",
	"group    the focused subtree, or the selected process's root, with its",
	"         workers: footprint (PSS summed), worker USS mean and max, how",
	"         many more workers of mean USS fit in MemAvailable (and in the",
	"         memory cgroup), how old the oldest memory reading is, and the",
	"         root's respawns: children forked and exited since watched,",
	"         and the memory pressure of its cgroup (v2)",
};

/* After the command's. */
static const char *const legend_after[] = {
	"Exited processes stay for a while, dimmed, with their final counts and",
	"how they ended after the name: [exit N], [SIGKILL], [oom-killed], [?].",
	"OOM kills and reclaim stalls are marks too, listed in the log (l).",
	"mem pressure (header): PSI memory some/full avg10, the machine's.",
	"With -u PROVIDER:NAME probes: the header counts them; probes named",
	"X__begin and X__end bound a phase X, and the line under the header",
	"shows how the selected process's copies split between the phases.",
	"regions  (r) where the selected process's copies went: heap (brk area),",
	"         stack (the main thread's), anon (anonymous mappings), file:NAME",
	"         (private mappings of a file), other (the rest); see cowtop(8)",
	"objects  (o, with --objects) the runtime objects (CPython 3.11, Ruby 3.1) on",
	"         the copied pages by type (and a Ruby object's class) and write kind:",
	"         refcount, gc_header, header, payload (CPython); flags, slot (Ruby);",
	"         outside the runtime's heap; README \"Reading the numbers\"",
};

/* The legend of field f: its title, then its description, a line of the
 * help for each of its lines. */
static void field_legend(struct line *out, size_t max, size_t *n, const struct field *f)
{
	const char *d = f->desc, *nl;
	struct line *l;
	bool first = true;

	while (d && *d && (l = line_next(out, max, n))) {
		nl = strchr(d, '\n');
		line_add(l, ROLE_PLAIN, "  %-8s %.*s", first ? f->title : "", nl ? (int)(nl - d) : (int)strlen(d), d);
		d = nl ? nl + 1 : NULL;
		first = false;
	}
}

/* The legend: the columns', the other lines, the command's, the rest. */
static void legends(struct line *out, size_t max, size_t *n)
{
	enum field_id cols[FIELD_N];
	size_t nc = fields_columns(cols), i;
	struct line *l;

	for (i = 0; i < nc; i++)
		field_legend(out, max, n, &fields[cols[i]]);
	for (i = 0; i < sizeof(legend) / sizeof(*legend) && (l = line_next(out, max, n)); i++)
		line_add(l, ROLE_PLAIN, "  %s", legend[i]);
	field_legend(out, max, n, &fields[FIELD_COMM]);
	for (i = 0; i < sizeof(legend_after) / sizeof(*legend_after) && (l = line_next(out, max, n)); i++)
		line_add(l, ROLE_PLAIN, "  %s", legend_after[i]);
}

/* The sparkline glyphs from zero to full, as a legend line. */
static void glyph_legend(struct line *l, bool utf8)
{
	const struct glyphs *g = glyphs_pick(utf8);
	int i;

	line_add(l, ROLE_LABEL, "glyphs   ");
	line_add(l, ROLE_PLAIN, "zero ");
	for (i = 0; i < g->nspark; i++)
		line_put(l, ROLE_SPARK, g->spark[i], strlen(g->spark[i]));
	line_add(l, ROLE_PLAIN, " full");
}

/* The probe marks of the sparkline, as a legend line. */
static void mark_legend(struct line *l, bool utf8)
{
	const struct glyphs *g = glyphs_pick(utf8);

	line_add(l, ROLE_LABEL, "marks    ");
	line_put(l, ROLE_MARK, g->mark, strlen(g->mark));
	line_add(l, ROLE_PLAIN, " a probe or OOM kill/stall and pages copied, ");
	line_put(l, ROLE_MARK, g->mark_idle, strlen(g->mark_idle));
	line_add(l, ROLE_PLAIN, " none copied");
}

/* Fill out (room for max lines) with the help, the keys of the actions
 * allowed (enum action) only; returns the lines used. */
size_t help_build(struct line *out, size_t max, bool utf8, unsigned allow)
{
	const struct keybind *kb;
	struct line *l;
	size_t n = 0, nk, i;

	if ((l = line_next(out, max, &n)))
		line_add(l, ROLE_VALUE, "cowtop: copy-on-write page copies per process");
	line_next(out, max, &n);
	kb = keys_table(&nk);
	for (i = 0; i < nk; i++) {
		if (keys_need(kb[i].cmd) & ~allow)
			continue;
		if (!(l = line_next(out, max, &n)))
			break;
		line_add(l, ROLE_KEY, "  %-9s", kb[i].label);
		line_add(l, ROLE_PLAIN, " %s", kb[i].help);
	}
	line_next(out, max, &n);
	legends(out, max, &n);
	if ((l = line_next(out, max, &n))) {
		line_add(l, ROLE_PLAIN, "  ");
		glyph_legend(l, utf8);
	}
	if ((l = line_next(out, max, &n))) {
		line_add(l, ROLE_PLAIN, "  ");
		mark_legend(l, utf8);
	}
	line_next(out, max, &n);
	if ((l = line_next(out, max, &n)))
		line_add(l, ROLE_STATUS, "Up/Down scroll, any other key returns.");
	return n;
}
