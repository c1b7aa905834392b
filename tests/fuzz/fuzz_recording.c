/* libFuzzer target for the recording reader (cowtop -r, --diff): the input
 * is the whole file. It is opened and indexed, then every frame it indexes
 * is rebuilt, in order and again after a jump back, as the views ask for
 * them (with the histories the full-screen view draws, and with none as
 * batch output does). Beyond not crashing, every frame that is given is
 * checked against what recording.c promises: pids from 1 to 4194304,
 * parents in range, no process its own ancestor, every row one of the
 * frame's processes; and every refusal says why, in one line naming the
 * file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "frame.h"
#include "recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop the run: libFuzzer saves the input that got here. */
#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define PID_LIMIT 4194304

/* An error message: one line, naming the file. */
static void check_err(const char *err, const char *path)
{
	CHECK(err[0] && !strchr(err, '\n'));
	CHECK(strstr(err, path) != NULL);
}

/* Whether q is an ancestor of itself through the frame's parents. */
static void check_frame(const struct frame *f)
{
	size_t i, j, steps;

	for (i = 0; i < f->nprocs; i++) {
		const struct proc *p = &f->procs[i];
		int pid = p->ppid;

		CHECK(p->pid >= 1 && p->pid <= PID_LIMIT);
		CHECK(p->ppid >= 0 && p->ppid <= PID_LIMIT && p->ppid != p->pid);
		/* a walk up the parents ends within nprocs steps */
		for (steps = 0; pid > 0 && steps <= f->nprocs; steps++) {
			for (j = 0; j < f->nprocs && f->procs[j].pid != pid; j++)
				;
			if (j == f->nprocs)
				break;
			pid = f->procs[j].ppid;
		}
		CHECK(steps <= f->nprocs);
	}
	CHECK(f->nrows <= f->nprocs);
}

/* Frame k as a view asks for it; checked when given. */
static void one_frame(struct recording *r, size_t k, const struct view_opts *vo, const char *path)
{
	struct frame *f;
	char err[1024];

	if (recording__frame(r, k, vo, &f, err, sizeof(err))) {
		CHECK(f == NULL);
		check_err(err, path);
		return;
	}
	check_frame(f);
	frame__free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct view_opts drawn = { .sort = FIELD_COW_RATE, .tree = true, .hist = SERIES_CAP };
	static const struct view_opts flat = { .sort = FIELD_PID };
	struct recording *r;
	char path[64], err[1024];
	size_t k, n;
	int fd = memfd_create("recording", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (recording__open(&r, path, err, sizeof(err))) {
		CHECK(r == NULL);
		check_err(err, path);
		close(fd);
		return 0;
	}
	n = recording__frames(r);
	CHECK(n > 0);
	for (k = 0; k < n && k < 64; k++)
		one_frame(r, k, &drawn, path);
	one_frame(r, 0, &flat, path);
	one_frame(r, n - 1, NULL, path);
	CHECK(recording__at_time(r, 0) < n);
	recording__free(r);
	close(fd);
	return 0;
}
