/* A bounded set of files by device and inode. */
#include <errno.h>
#include <stdlib.h>
#include "objset.h"

struct objset {
	size_t n;
	struct {
		unsigned long long dev, inode;
	} id[OBJSET_MAX];
};

/* Create an empty set. */
struct objset *objset__new(void)
{
	return calloc(1, sizeof(struct objset));
}

/* Free a set; NULL is fine. */
void objset__free(struct objset *s)
{
	free(s);
}

/* Whether a file is in the set. */
bool objset__has(const struct objset *s, unsigned long long dev, unsigned long long inode)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->id[i].dev == dev && s->id[i].inode == inode)
			return true;
	}
	return false;
}

/* Add a file to the set, if there is room. */
int objset__add(struct objset *s, unsigned long long dev, unsigned long long inode)
{
	if (s->n == OBJSET_MAX)
		return -ENOSPC;
	s->id[s->n].dev = dev;
	s->id[s->n].inode = inode;
	s->n++;
	return 0;
}
