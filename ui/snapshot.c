/* Snapshot text: the view as plain lines (pure); the file is written by
 * safefile.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "objpane.h"
#include "regions.h"
#include "row.h"
#include "screen.h"
#include "snapshot.h"

/* Write one line of text with its trailing blanks trimmed. */
static void put_trimmed(FILE *f, const struct line *l)
{
	size_t n = l->len;

	while (n > 0 && l->text[n - 1] == ' ')
		n--;
	fwrite(l->text, 1, n, f);
	fputc('\n', f);
}

/* Whether p made copies inside any phase. */
static bool in_phases(const struct proc *p)
{
	int i;

	for (i = 1; i < SPLIT_SLOTS; i++)
		if (p->split[SPLIT_PHASE].v[i])
			return true;
	return false;
}

/* The phase split of every row that made copies inside a phase, after a
 * blank line and a title; nothing when none did. */
static void snapshot_phases(const struct view *v, struct line *scratch, FILE *f)
{
	bool titled = false;
	size_t k;

	for (k = 0; k < v->n; k++) {
		if (!in_phases(v->rows[k].p))
			continue;
		line_clear(scratch);
		if (!row_phases(v->rows[k].p, v->f, v->utf8, true, scratch))
			continue;
		if (!titled)
			fputs("\ncopies per phase: share of each process's copies (and their number)\n", f);
		titled = true;
		put_trimmed(f, scratch);
	}
}

/* The regions pane of the selected process, after a blank line. */
static int snapshot_regions(const struct view *v, int cols, FILE *f)
{
	const struct proc *p = view__selected(v);
	struct line *pane;
	size_t n, i;

	if (!v->f || !p)
		return 0;
	pane = calloc(REGIONS_LINES, sizeof(*pane));
	if (!pane)
		return -ENOMEM;
	n = regions_build(v->f, p, cols, v->utf8, pane, REGIONS_LINES);
	fputc('\n', f);
	for (i = 0; i < n; i++)
		put_trimmed(f, &pane[i]);
	free(pane);
	return 0;
}

/* With --objects, the objects pane of the selected process, after a blank
 * line. */
static int snapshot_objects(const struct view *v, int cols, FILE *f)
{
	const struct proc *p = view__selected(v);
	struct line *pane;
	size_t n, i;

	if (!v->f || !v->f->objects || !p)
		return 0;
	pane = calloc(OBJPANE_LINES, sizeof(*pane));
	if (!pane)
		return -ENOMEM;
	n = objpane_build(v->f, p, cols, v->utf8, pane, OBJPANE_LINES);
	fputc('\n', f);
	for (i = 0; i < n; i++)
		put_trimmed(f, &pane[i]);
	free(pane);
	return 0;
}

/* The command line of every row that has one, when COMMAND shows names:
 * the ticket gets both. After a blank line and a title. */
static void snapshot_cmdlines(const struct view *v, FILE *f)
{
	char safe[ROW_LABEL_MAX];
	bool titled = false;
	size_t k;

	for (k = 0; k < v->n && !v->cmdline; k++) {
		const struct proc *p = v->rows[k].p;

		if (!p->cmdline[0])
			continue;
		if (!titled)
			fputs("\ncommand lines\n", f);
		titled = true;
		row_label(p, true, v->utf8, safe, sizeof(safe));
		fprintf(f, "%7d %s\n", p->pid, safe);
	}
}

/* Every group of the frame, after a blank line and a title; the screen's
 * frames are built without them, so they are summed now. 0 or -ENOMEM. */
static int snapshot_groups(const struct view *v, struct line *scratch, FILE *f)
{
	size_t k;

	if (!v->f)
		return 0;
	if (frame__groups(v->f))
		return -ENOMEM;
	if (!v->f->ngroups)
		return 0;
	fputs("\ngroups: each watched root with its workers\n", f);
	for (k = 0; k < v->f->ngroups; k++) {
		line_clear(scratch);
		screen_group_text(v->f, &v->f->groups[k], v->utf8, scratch);
		put_trimmed(f, scratch);
	}
	return 0;
}

/* The header, its oldest reading taken over every row, and the group line. */
static void snapshot_header(const struct view *v, const struct header_info *hi,
			    struct line *scratch, FILE *f)
{
	struct header_info h = *hi;
	struct line hdr[HEADER_LINES];
	int i;

	h.cols = 0; /* a file: every field, whatever the screen's width */
	h.smaps_age = view__oldest_reading(v, 0, v->n);
	h.smaps_read = h.smaps_age >= 0;
	header_build(&h, hdr);
	for (i = 0; i < HEADER_LINES; i++)
		put_trimmed(f, &hdr[i]);
	if (screen_has_group(v)) {
		screen_group_line(v, v->utf8, scratch);
		put_trimmed(f, scratch);
	}
}

/* The view as plain text, cols wide: header, group line, titles, every row
 * (not only those on screen), the phase split, every group, the regions
 * pane of the selected process and, with --objects, its objects pane; no
 * footer. A malloc'd string of *len bytes,
 * NULL when out of memory. */
char *snapshot_text(const struct view *v, const struct header_info *hi, int cols, size_t *len)
{
	struct line scratch;
	struct row_layout rl;
	char *buf = NULL;
	size_t k;
	int e;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	snapshot_header(v, hi, &scratch, f);
	view__row_layout(v, cols, &rl);
	rl.scroll = 0; /* the ticket gets COMMAND from its start, however it is scrolled */
	row_titles(&rl, v->vo.sort, v->vo.reverse, &scratch);
	put_trimmed(f, &scratch);
	for (k = 0; k < v->n; k++) {
		row_format(&v->rows[k], &rl, &scratch);
		put_trimmed(f, &scratch);
	}
	snapshot_phases(v, &scratch, f);
	e = snapshot_groups(v, &scratch, f);
	snapshot_cmdlines(v, f);
	if (!e)
		e = snapshot_regions(v, cols, f);
	if (!e)
		e = snapshot_objects(v, cols, f);
	if (fclose(f) || e) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* "./cowtop-YYYYmmdd-HHMMSS.txt" for local time now; returns its length. */
size_t snapshot_default_path(time_t now, char *buf, size_t cap)
{
	struct tm tm;

	if (cap == 0)
		return 0;
	localtime_r(&now, &tm);
	return strftime(buf, cap, "./cowtop-%Y%m%d-%H%M%S.txt", &tm);
}
