/* A line of the screen as text plus the roles (colours) of its parts: built
 * off-screen by pure functions, drawn by the terminal code, written as plain
 * text by snapshots. */
#ifndef COWTOP_UI_LINE_H
#define COWTOP_UI_LINE_H

#include <stdarg.h>
#include <stddef.h>

#define LINE_CAP 4096
#define LINE_SPANS 64

/* What a piece of text is; the terminal code maps each role to attributes. */
enum role {
	ROLE_PLAIN,
	ROLE_LABEL,   /* header labels */
	ROLE_VALUE,   /* header values */
	ROLE_WARN,    /* lost events and other trouble */
	ROLE_SPARK,   /* sparklines */
	ROLE_TREE,    /* tree lines */
	ROLE_COLHDR,  /* column titles */
	ROLE_SORT,    /* the title of the sort column */
	ROLE_KEY,     /* a key in the footer */
	ROLE_KEYDESC, /* what it does */
	ROLE_STATUS,  /* the status line */
	ROLE_SEL,     /* the selected row */
	ROLE_DIM,     /* exited processes */
	ROLE_MARK,    /* USDT probe marks in sparklines */
	ROLE_N,
};

struct span {
	size_t off, len;
	enum role role;
};

struct line {
	char text[LINE_CAP];
	size_t len;
	enum role base; /* role of the text no span covers */
	struct span span[LINE_SPANS];
	int nspan;
};

void line_clear(struct line *l);
struct line *line_next(struct line *out, size_t max, size_t *n);
void line_put(struct line *l, enum role role, const char *s, size_t n);
void line_add(struct line *l, enum role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void line_pad(struct line *l, int cols);
void line_fit(struct line *l, int cols);
size_t text_fit(const char *s, size_t len, int cols, int *width);

#endif
