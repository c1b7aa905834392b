/* A bounded set of files told apart by device and inode: one object named by
 * several paths ("./prog", "/abs/prog", a hard link) is examined once. */
#ifndef COWTOP_OBJSET_H
#define COWTOP_OBJSET_H

#include <stdbool.h>

/* Files a set remembers at most: memory stays bounded, and past this a file
 * may be examined twice. */
#define OBJSET_MAX 1024

struct objset;

/* A new, empty set; NULL with errno set when out of memory. */
struct objset *objset__new(void);

/* Free s; NULL is fine. */
void objset__free(struct objset *s);

/* Whether the file dev:inode is in s. */
bool objset__has(const struct objset *s, unsigned long long dev, unsigned long long inode);

/* Add the file dev:inode to s. Returns 0, or -ENOSPC when s is full. */
int objset__add(struct objset *s, unsigned long long dev, unsigned long long inode);

#endif
