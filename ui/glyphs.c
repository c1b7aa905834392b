/* The glyph tables, UTF-8 and ASCII, side by side. */
#include "glyphs.h"

/* Eighth blocks: the lowest stands for zero so an idle history is a flat
 * line, and any copy at all shows as at least a quarter block. */
static const char *const spark_utf8[] = {
	"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
};

/* Rising ink: '_' is the zero baseline, '@' a full column. */
static const char *const spark_ascii[] = {
	"_", ".", ":", "-", "=", "+", "*", "#", "%", "@",
};

/* Eighths of a cell, left to right. */
static const char *const bar_utf8[] = {
	" ", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589", "\u2588",
};

/* Whole cells only. */
static const char *const bar_ascii[] = { " ", "#" };

static const struct glyphs glyphs_utf8 = {
	.utf8 = true,
	.spark = spark_utf8,
	.nspark = sizeof(spark_utf8) / sizeof(*spark_utf8),
	.sort_down = "\u25bc",
	.sort_up = "\u25b2",
	.mark = "\u25c6",
	.mark_idle = "\u25c7",
	.bar = bar_utf8,
	.nbar = sizeof(bar_utf8) / sizeof(*bar_utf8),
};

static const struct glyphs glyphs_ascii = {
	.utf8 = false,
	.spark = spark_ascii,
	.nspark = sizeof(spark_ascii) / sizeof(*spark_ascii),
	.sort_down = "v",
	.sort_up = "^",
	.mark = "!",
	.mark_idle = "|",
	.bar = bar_ascii,
	.nbar = sizeof(bar_ascii) / sizeof(*bar_ascii),
};

/* The table for a UTF-8 terminal or an ASCII one. */
const struct glyphs *glyphs_pick(bool utf8)
{
	return utf8 ? &glyphs_utf8 : &glyphs_ascii;
}
