/* /proc/PID/stat files kept open between ticks. Reading every watched
 * process's stat once a tick was most of cowtop's CPU time, and most of that
 * was opening and closing the files (path walk, permission checks): a kept
 * file is read again with one pread. An open file pins the process it was
 * opened for: once that process is gone the read fails (ESRCH), so a reused
 * pid is never read through an old file. */
#ifndef COWTOP_STATFDS_H
#define COWTOP_STATFDS_H

#include <stddef.h>
#include "procfs.h"

struct statfds;

/* Keep at most max_open files of the /proc directory procfd; NULL, errno set. */
struct statfds *statfds__new(int procfd, size_t max_open);
void statfds__free(struct statfds *s);
/* Read and parse the stat of pid (as procfs_read_stat), through its kept
 * file, opened and kept here on first use while there is room. A failed
 * read closes the file: the next one opens the path afresh. */
int statfds__read(struct statfds *s, int pid, struct proc_stat *out);
/* pid is gone: close its file, if one is kept. */
void statfds__drop(struct statfds *s, int pid);
/* How many files a process may keep: the open-file limit, raised to its
 * hard maximum, less a reserve for everything else. */
size_t statfds_budget(void);

#endif
