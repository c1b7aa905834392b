/* The copy-sites pane's lines. */
#include <stdio.h>
#include <string.h>
#include "sites.h"
#include "text.h"

/* Append untrusted text (a symbol name) made safe. */
static void put_safe(struct line *l, enum role role, const char *s, bool utf8)
{
	char buf[512];
	size_t n;

	if (utf8)
		n = text_sanitize(s, strlen(s), buf, sizeof(buf));
	else
		n = text_sanitize_ascii(s, strlen(s), buf, sizeof(buf));
	line_put(l, role, buf, n);
}

/* "Top copy sites of PID", with the sampling, or why there are none. */
void sites_title(const struct frame *f, const struct proc *p, bool focus, struct line *l)
{
	const struct stacks_snap *sn = f ? f->stacks : NULL;

	line_clear(l);
	l->base = ROLE_COLHDR;
	if (!p) {
		line_add(l, ROLE_COLHDR, "Top copy sites: no process selected");
		return;
	}
	line_add(l, ROLE_COLHDR, "Top copy sites of %d", p->pid);
	if (!sn || !sn->every)
		line_add(l, ROLE_COLHDR, " (stacks off: c turns them on)");
	else if (sn->every > 1)
		line_add(l, ROLE_COLHDR, " (1 copy in %u sampled, counts x%u)", sn->every, sn->every);
	line_add(l, ROLE_COLHDR, focus ? "  Up/Down pick  Enter stack  Tab back" : "  Tab: pick a site");
	line_add(l, ROLE_COLHDR, "   SHARE   COPIES  FUNCTION (OBJECT)");
}

/* One site line. */
void sites_row(const struct stack_site *s, unsigned long long total, bool utf8, struct line *l)
{
	line_clear(l);
	line_add(l, ROLE_PLAIN, "%7.1f%% %8llu  ", total ? 100.0 * (double)s->pages / (double)total : 0.0,
		 s->pages);
	put_safe(l, ROLE_PLAIN, s->name, utf8);
}

/* The title of a site's opened stack. */
void sites_stack_title(const struct stack_site *s, const struct stack_top *st, bool utf8,
		       struct line *l)
{
	line_clear(l);
	l->base = ROLE_COLHDR;
	line_add(l, ROLE_COLHDR, "Stack of ");
	put_safe(l, ROLE_COLHDR, s->name, utf8);
	if (!st) {
		line_add(l, ROLE_COLHDR, ": not among the top stacks  Esc back");
		return;
	}
	line_add(l, ROLE_COLHDR, ": %llu of its %llu copies, innermost first (%d frame%s)  Esc back",
		 st->pages, s->pages, st->nframes, st->nframes == 1 ? "" : "s");
}

/* One frame of an opened stack. */
void sites_frame(int depth, const char *frame, bool utf8, struct line *l)
{
	line_clear(l);
	line_add(l, ROLE_PLAIN, "  #%-2d ", depth);
	put_safe(l, ROLE_PLAIN, frame, utf8);
}
