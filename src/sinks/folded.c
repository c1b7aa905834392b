/* The folded writer: flame-graph input from the stack table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "folded.h"
#include "safefile.h"

/* Write name with the folded format's separators and control bytes replaced. */
static void put_name(FILE *f, const char *name)
{
	for (; *name; name++) {
		unsigned char c = (unsigned char)*name;

		fputc(c == ';' ? ':' : c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}

/* One stack, outermost frame first, as flame graphs draw it. */
void folded_line(FILE *f, const char *comm, const struct stack_top *st)
{
	int i;

	if (!st->pages)
		return;
	put_name(f, comm);
	if (!st->nframes)
		fputs(";[unknown]", f);
	for (i = st->nframes - 1; i >= 0; i--) {
		fputc(';', f);
		put_name(f, st->frames[i]);
	}
	fprintf(f, " %llu\n", st->pages);
}

/* stacks__each callback: one line. */
static void each_line(const char *comm, const struct stack_top *st, void *ctx)
{
	folded_line(ctx, comm, st);
}

/* One (process, type, write kind) row as a folded line. */
static void object_line(const char *comm, const char *runtime, const char *type, int write,
			unsigned long long pages, void *ctx)
{
	FILE *f = ctx;

	if (!pages)
		return;
	put_name(f, *comm ? comm : "[unknown]");
	fputc(';', f);
	put_name(f, runtime);
	fputc(';', f);
	put_name(f, type);
	fputs(";[", f);
	put_name(f, obj_write_name(write));
	fprintf(f, "] %llu\n", pages);
}

/* The copies by object of the whole run, folded. */
char *folded_objects_text(const struct objects *o, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	objects__each(o, object_line, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The whole table, folded. */
char *folded_text(const struct stacks *s, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	stacks__each(s, each_line, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int folded_write(const char *path, char *text, size_t len, char *err, size_t errlen)
{
	int e;

	if (!text) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	e = safefile_write(path, text, len, NULL, err, errlen);
	free(text);
	return e ? -1 : 0;
}
