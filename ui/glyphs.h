/* Glyph tables: one for UTF-8 terminals, one for ASCII, chosen once. */
#ifndef COWTOP_UI_GLYPHS_H
#define COWTOP_UI_GLYPHS_H

#include <stdbool.h>

struct glyphs {
	bool utf8;
	const char *const *spark; /* spark[0]: zero (the baseline); then rising */
	int nspark;
	const char *sort_down, *sort_up;
	/* An interval in which a USDT probe fired, instead of its spark glyph:
	 * mark when pages were copied in it, mark_idle when none were. */
	const char *mark, *mark_idle;
	/* Horizontal bars: bar[0] an empty cell, bar[nbar - 1] a full one,
	 * between them cells filled in part, rising. */
	const char *const *bar;
	int nbar;
};

const struct glyphs *glyphs_pick(bool utf8);

#endif
