/* The live source's start-up and end: what a run opens before it can make
 * its first frame (the model, /proc, the probes, the kernel side), checked
 * against the output chosen, and closed again. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "app_int.h"
#include "probes.h"
#include "runtime.h"
#include "safefile.h"

/* Before anything is attached or started: every option given does
 * something in the output chosen, the files written at the end can be
 * (--folded, --folded-objects: new files, in a directory that takes one), and the
 * full-screen view has a terminal it can drive. */
static int check_output(struct app *a)
{
	char err[PATH_MAX + 256], why[256];

	if (options_check_mode(a->opt, app_use_tui(a), err, sizeof(err)))
		return driver__check(a->d, 2, err);
	if (a->opt->folded && safefile_check_new(a->opt->folded, why, sizeof(why)))
		return driver__fail(a->d, 1, "folded: cannot write %s: %s", a->opt->folded, why);
	if (a->opt->folded_objects && a->opt->folded && !strcmp(a->opt->folded, a->opt->folded_objects))
		return driver__check(a->d, 2, "--folded and --folded-objects name the same file");
	if (a->opt->folded_objects && safefile_check_new(a->opt->folded_objects, why, sizeof(why)))
		return driver__fail(a->d, 1, "folded: cannot write %s: %s", a->opt->folded_objects, why);
	if (app_use_tui(a) && (tui_check_terminal(err, sizeof(err)) ||
			   tui_check_snapshot(a->opt->snapshot, err, sizeof(err))))
		return driver__fail(a->d, 1, "%s", err);
	return 0;
}

/* With --objects, the runtime of each -p process, for the kernel side to
 * know before its programs run: a worker forked in between inherits it. */
static void detect_roots(const struct app *a, struct tracer_root *roots, int n)
{
	struct runtime_layout rt;
	int i;

	for (i = 0; a->opt->objects && i < n; i++)
		if (!runtime_detect(roots[i].pid, &rt)) {
			roots[i].runtime = (int)rt.runtime;
			roots[i].type_type = rt.type_type;
		}
}

/* Open the kernel side for the chosen targets; the collector takes its records. */
static int open_tracer(struct app *a)
{
	unsigned every = a->opt->objects_sample ? a->opt->objects_sample : OBJECTS_SAMPLE_DEFAULT;
	struct tracer_root roots[OPT_MAX_PIDS];
	struct tracer_opts to = {
		.watch_all = a->targets.watch_all,
		.roots = roots,
		.nroots = targets__tracer_roots(&a->targets, roots),
		.first_clone_of = a->opt->first_clone_of,
		.cgroup = a->targets.has_cgroup ? &a->targets.cgroup.k : NULL,
		.ringbuf_kib = a->opt->ringbuf_kib,
		.usdt = a->targets.probes != NULL,
		.mapped = probes__wants_maps(a->targets.probes),
		.no_regions = a->opt->no_regions,
		.objects = a->opt->objects,
		.objects_every = every,
		.stacks_every = a->opt->stacks ? (a->opt->stacks_sample ? a->opt->stacks_sample : 1) : 0,
		.on = collect__handlers(&a->collect),
	};
	char err[256];
	const char *notes;
	int e;

	detect_roots(a, roots, to.nroots);
	if (tracer__open(&a->tracer, &to, err, sizeof(err)))
		return driver__fail(a->d, 1, "%s", err);
	/* What this kernel lacks, a line each, before any view starts. */
	for (notes = tracer__fallback_notes(a->tracer); *notes;) {
		size_t n = strcspn(notes, "\n");

		fprintf(stderr, "cowtop: kernel: %.*s\n", (int)n, notes);
		notes += n + (notes[n] == '\n');
	}
	a->collect.tracer = a->tracer;
	stackfeed__init(&a->stacks, a->tracer, a->model, a->opt->stacks_sample, a->opt->sample_budget,
			a->opt->folded != NULL);
	if (a->opt->stacks && stackfeed__set(&a->stacks, true))
		return driver__fail(a->d, 1, "stacks: %s", strerror(ENOMEM));
	e = objfeed__init(&a->objects, a->tracer, a->model, a->opt->objects, every,
			  a->opt->sample_budget, a->opt->folded_objects != NULL);
	if (e)
		return driver__fail(a->d, 1, "objects: %s", strerror(-e));
	return 0;
}

/* A watched process exec'd: its probes and its runtime may be new. */
static void app_on_exec(int pid, void *ctx)
{
	struct app *a = ctx;

	targets__on_exec(pid, &a->targets);
	objfeed__exec(&a->objects, pid);
}

/* A watched process mapped new code: its -u probes may be there. */
static void app_on_mapped(int pid, void *ctx)
{
	struct app *a = ctx;

	targets__on_mapped(pid, &a->targets);
}

/* A watched process forked pid: its runtime may be unknown yet. */
static void app_on_fork(int pid, int ppid, void *ctx)
{
	struct app *a = ctx;

	objfeed__fork(&a->objects, pid, ppid);
}

/* A process found at start is about to be watched: its runtime first. */
static void app_on_watch(int pid, unsigned long long start, void *ctx)
{
	struct app *a = ctx;

	objfeed__watch(&a->objects, pid, start);
}

/* The model, /proc and the sampler; then the probes parsed, the kernel side
 * opened for the targets, the probes attached. */
int app__open(struct app *a)
{
	struct driver *d = a->d;
	char err[512];

	if (gethostname(a->host, sizeof(a->host) - 1))
		a->host[0] = 0;
	a->model = model__new();
	a->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	collect__init(&a->collect, a->model, a->procfd);
	a->collect.on_exec = app_on_exec;
	a->collect.on_mapped = app_on_mapped;
	a->collect.on_fork = app_on_fork;
	a->collect.on_watch = app_on_watch;
	a->collect.ctx = a;
	targets__init(&a->targets, a->opt, &a->collect);
	if (!a->model || a->procfd < 0)
		return driver__fail(d, 1, "cannot open /proc: %s", strerror(errno));
	model__set_period(a->model, a->opt->delay);
	a->sampler = sampler__new(a->model, a->procfd, a->opt->smaps_budget);
	if (!a->sampler)
		return driver__fail(d, 1, "cannot start the memory sampler: %s", strerror(errno));
	if (check_output(a) ||
	    driver__check(d, targets__setup_probes(&a->targets, a->model, err, sizeof(err)), err) ||
	    driver__check(d, targets__resolve_cgroup(&a->targets, err, sizeof(err)), err) ||
	    driver__check(d, targets__resolve_pids(&a->targets, err, sizeof(err)), err) ||
	    open_tracer(a) ||
	    driver__check(d, targets__attach_probes(&a->targets, err, sizeof(err)), err))
		return -1;
	return 0;
}

/* At exit, with --folded, --folded-objects: the stacks, the copies by
 * object of the whole run for flame graphs. */
void app__write_folded(struct app *a)
{
	char err[512];

	if (a->opt->folded && stackfeed__write_folded(&a->stacks, a->opt->folded, err, sizeof(err)))
		driver__fail(a->d, 1, "folded: cannot write %s: %s", a->opt->folded, err);
	if (a->opt->folded_objects &&
	    objfeed__write_folded(&a->objects, a->opt->folded_objects, err, sizeof(err)))
		driver__fail(a->d, 1, "folded: cannot write %s: %s", a->opt->folded_objects, err);
}

/* Let go of the machine's side: the feeds, the targets, the kernel side, the model. */
void app__free(struct app *a)
{
	stackfeed__free(&a->stacks);
	objfeed__free(&a->objects);
	targets__free(&a->targets);
	tracer__free(a->tracer);
	sampler__free(a->sampler);
	collect__free(&a->collect);
	model__free(a->model);
	if (a->procfd >= 0)
		close(a->procfd);
}
