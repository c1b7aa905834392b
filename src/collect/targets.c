/* Choosing and starting what is watched. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include "demo.h"
#include "loop.h"
#include "probes.h"
#include "safefile.h"
#include "targets.h"

#define SCAN_PASSES 16       /* /proc walks to find descendants forked meanwhile */
#define RESCAN_SECONDS 0.5   /* how long a freshly exec'd process is rescanned */
#define END_GRACE_SECONDS 2  /* from SIGTERM to SIGKILL when cowtop ends the command */

/* Put a one-line message in err; returns status (the exit status to use). */
static int __attribute__((format(printf, 4, 5)))
fail(int status, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return status;
}

/* Say in a few words what is watched, for the header. */
static void describe(struct targets *tg)
{
	const struct options *o = tg->opt;

	if (o->demo)
		snprintf(tg->what, sizeof(tg->what), "demo");
	else if (o->command)
		snprintf(tg->what, sizeof(tg->what), "command %s", o->command[0]);
	else if (o->npids)
		snprintf(tg->what, sizeof(tg->what), "pid %d%s", o->pids[0], o->npids > 1 ? " ..." : "");
	else if (o->first_clone_of)
		snprintf(tg->what, sizeof(tg->what), "first clone of %d", o->first_clone_of);
	else if (o->cgroup)
		snprintf(tg->what, sizeof(tg->what), "cgroup %s", o->cgroup);
	else if (o->unit)
		snprintf(tg->what, sizeof(tg->what), "unit %s", o->unit);
	else
		snprintf(tg->what, sizeof(tg->what), "all processes");
}

/* Targets of these options, fed into c; nothing started yet. */
void targets__init(struct targets *tg, const struct options *opt, struct collect *c)
{
	memset(tg, 0, sizeof(*tg));
	tg->opt = opt;
	tg->collect = c;
	tg->scanfd = -1;
	tg->launch.pid = -1;
	tg->launch.gate_fd = tg->launch.err_fd = tg->launch.tty_fd = tg->launch.out_fd = -1;
	tg->has_cgroup = opt->cgroup || opt->unit;
	tg->watch_all = !opt->npids && !opt->command && !opt->demo && !opt->first_clone_of &&
			!tg->has_cgroup;
	c->log_clean_exits = !tg->watch_all;
	describe(tg);
}

/* Parse the -u specs into m's probes and open the rescan timer; a malformed
 * spec is a usage error (2). */
int targets__setup_probes(struct targets *tg, struct model *m, char *err, size_t errlen)
{
	int i;

	if (!tg->opt->nusdt)
		return 0;
	tg->probes = probes__new(m);
	if (!tg->probes)
		return fail(1, err, errlen, "out of memory");
	for (i = 0; i < tg->opt->nusdt; i++)
		if (probes__add_spec(tg->probes, tg->opt->usdt[i], err, errlen))
			return 2;
	tg->scanfd = loop_timerfd(3600);
	if (tg->scanfd < 0 || loop_timer_stop(tg->scanfd))
		return fail(1, err, errlen, "cannot set up the probe scan timer");
	return 0;
}

/* Attach the probes whose object was named. */
int targets__attach_probes(struct targets *tg, char *err, size_t errlen)
{
	if (tg->probes && probes__attach_paths(tg->probes, tg->collect->tracer, err, errlen))
		return 1;
	return 0;
}

/* Start time and parent of pid from /proc; -ESRCH when it is gone. */
static int identity(struct targets *tg, int pid, struct proc_stat *st)
{
	int e = procfs_read_stat(tg->collect->procfd, pid, st);

	return e == -ENOENT ? -ESRCH : e;
}

/* /proc walk step: watch pid if its parent is watched (or everything is). */
static int scan_one(int pid, void *ctx)
{
	struct targets *tg = ctx;
	struct proc_stat st;
	int ppid;

	if (collect__is_live(tg->collect, pid))
		return 0;
	/* Seen by the task iterator with a parent not watched: no need to
	 * read its stat to know it is not a descendant. */
	ppid = discover__ppid(&tg->found, pid);
	if (ppid >= 0 && !tg->watch_all && !collect__is_live(tg->collect, ppid))
		return 0;
	if (identity(tg, pid, &st))
		return 0;
	if (!tg->watch_all && !collect__is_live(tg->collect, st.ppid))
		return 0;
	collect__watch(tg->collect, &st); /* no room in the kernel map: shown, not counted */
	return 0;
}

/* Watch the existing descendants of the watched processes (or all
 * processes) with the task iterator, in one read of every task: watching
 * everything, the kernel side adds each child forked since its programs
 * were attached, so one pass finds the rest; with -p, a descendant watched
 * now may have forked before, so passes go on until one finds none. Pid 1
 * is read from /proc: the iterator passes over it on some kernels. Where
 * there is no iterator, /proc is walked until no new one turns up (a stat
 * read per process). New forks are the kernel's job. */
static void scan_existing(struct targets *tg)
{
	size_t before;
	int pass, e = 0;

	for (pass = 0; pass < SCAN_PASSES; pass++) {
		before = model__count(tg->collect->model);
		discover__free(&tg->found);
		e = discover__run(&tg->found, tg->collect, tg->watch_all);
		if (e || tg->watch_all || model__count(tg->collect->model) == before)
			break;
	}
	if (!e) {
		scan_one(1, tg);
		discover__free(&tg->found);
		return;
	}
	for (pass = 0; pass < SCAN_PASSES; pass++) {
		before = model__count(tg->collect->model);
		procfs_for_each_pid(tg->collect->procfd, scan_one, tg);
		if (model__count(tg->collect->model) == before)
			break;
	}
}

/* pid must be a live user process: not a thread, not a kernel thread;
 * flag names the option. */
static int check_pid(struct targets *tg, int pid, const char *flag, struct proc_stat *st,
		     char *err, size_t errlen)
{
	int tgid = procfs_read_tgid(tg->collect->procfd, pid);

	if (tgid < 0 || identity(tg, pid, st))
		return fail(1, err, errlen, "no process with PID %d", pid);
	if (st->state == 'Z' || st->state == 'X') /* nothing more can happen to it */
		return fail(1, err, errlen, "PID %d has exited (a zombie its parent has not reaped)", pid);
	if (tgid != pid) /* forks are matched by process: a thread's id never forks */
		return fail(1, err, errlen, "%d is a thread of process %d; use %s %d", pid, tgid,
			    flag, tgid);
	if (st->flags & PROCFS_PF_KTHREAD)
		return fail(1, err, errlen, "PID %d is a kernel thread: it has no user memory to copy "
			    "on write; watch a user process", pid);
	return 0;
}

/* Check the -p targets before the kernel side opens: it watches them
 * before its programs run (see targets__tracer_roots). */
int targets__resolve_pids(struct targets *tg, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < tg->opt->npids; i++)
		if (check_pid(tg, tg->opt->pids[i], "-p", &tg->roots[i], err, errlen))
			return 1;
	return 0;
}

/* The -p targets as the kernel side watches them from the start; how many. */
int targets__tracer_roots(const struct targets *tg, struct tracer_root *roots)
{
	int i;

	for (i = 0; i < tg->opt->npids; i++)
		roots[i] = (struct tracer_root){ .pid = tg->roots[i].pid, .ppid = tg->roots[i].ppid,
						 .start = tg->roots[i].start_time };
	return tg->opt->npids;
}

/* Watch the -p targets and their descendants. The kernel side has followed
 * their forks since its programs were attached (it was given them first):
 * the /proc walk finds the children forked before, and may find one the
 * kernel side holds too, which is watched once. */
static int watch_pids(struct targets *tg, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < tg->opt->npids; i++)
		if (collect__watch(tg->collect, &tg->roots[i]))
			return fail(1, err, errlen, "cannot watch PID %d: the process map is full", tg->roots[i].pid);
	scan_existing(tg);
	return 0;
}

/* Look for the -u probes in everything the watched processes map now; a
 * probe found nowhere is an error. */
static int find_probes(struct targets *tg, char *err, size_t errlen)
{
	struct collect *c = tg->collect;
	struct proc *p;
	size_t i;

	if (!tg->probes)
		return 0;
	if (tg->opt->first_clone_of)
		probes__scan_pid(tg->probes, c->tracer, c->procfd, tg->opt->first_clone_of);
	for (i = 0; (p = model__at(c->model, i)); i++) {
		probes__scan_pid(tg->probes, c->tracer, c->procfd, p->pid);
		p->track.probes_vsz = p->vsz_kib;
	}
	return probes__missing(tg->probes, err, errlen) ? 1 : 0;
}

/* Before the command runs, look for the probes in its executable (as execvp
 * would find it): those fire from its first instruction. Libraries come
 * after exec, from the rescans. */
static void scan_command_binary(struct targets *tg, const char *file)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!tg->probes)
		return;
	if (strchr(file, '/')) {
		probes__scan_file(tg->probes, tg->collect->tracer, file);
		return;
	}
	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, file);
		if (access(buf, X_OK) == 0) {
			probes__scan_file(tg->probes, tg->collect->tracer, buf);
			return;
		}
		path += n + (path[n] == ':');
	}
}

/* In batch mode, the terminal whose foreground cowtop holds (stdin, stdout
 * or stderr), to hand to the command so that Ctrl-C and the command's
 * reads reach it as without cowtop; -1 when there is none. The full-screen
 * view keeps the terminal: it reads the keys. */
static int foreground_tty(bool screen)
{
	int fd;

	if (screen)
		return -1;
	for (fd = 0; fd <= 2; fd++)
		if (isatty(fd) && tcgetpgrp(fd) == getpgrp())
			return fd;
	return -1;
}

/* Start the command (or the demo) behind the gate, watch it, open the gate.
 * A command that cannot be executed is exit status 127, as in a shell. */
static int launch_command(struct targets *tg, bool quiet, char *err, size_t errlen)
{
	static char self[] = "/proc/self/exe", demo_arg[] = DEMO_ARG;
	static char *demo_argv[] = { self, demo_arg, NULL };
	char **argv = tg->opt->demo ? demo_argv : tg->opt->command;
	struct proc_stat st;
	int e;

	tg->launch.quiet = quiet;
	if (tg->opt->command_output) {
		char why[256];

		e = safefile_open_new(tg->opt->command_output, why, sizeof(why));
		if (e < 0)
			return fail(1, err, errlen, "--command-output %s: %s", tg->opt->command_output, why);
		if (e == 0) { /* stdin was closed: 0 means none to the launcher */
			tg->launch.out_fd = fcntl(e, F_DUPFD_CLOEXEC, 3);
			close(e);
			if (tg->launch.out_fd < 0)
				return fail(1, err, errlen, "--command-output %s: %s", tg->opt->command_output,
					    strerror(errno));
		} else {
			tg->launch.out_fd = e;
		}
	}
	e = launch__start(&tg->launch, launch_exec_argv, argv);
	if (tg->launch.out_fd >= 0) /* the child has it */
		close(tg->launch.out_fd);
	tg->launch.out_fd = -1;
	tg->launch.tty_fd = foreground_tty(quiet);
	if (e)
		return fail(1, err, errlen, "cannot start '%s': %s", argv[0], strerror(-e));
	tg->collect->launched = tg->launch.pid;
	if (identity(tg, tg->launch.pid, &st) || collect__watch(tg->collect, &st))
		return fail(1, err, errlen, "cannot watch the command (pid %d)", tg->launch.pid);
	scan_command_binary(tg, argv[0]);
	if (tg->probes && probes__failed(tg->probes, err, errlen)) {
		/* Refused before the command runs: closing the gate ends it
		 * (status 127, reaped when the targets are freed). */
		launch__free(&tg->launch);
		tg->cmd_status = 127;
		return 1;
	}
	e = launch__release(&tg->launch);
	if (e) {
		tg->cmd_status = 127;
		return fail(127, err, errlen, "cannot execute '%s': %s", argv[0], strerror(e));
	}
	return 0;
}

/* Find the cgroup --cgroup or --unit names, before the kernel side is
 * opened (it recognises the cgroup's members). */
int targets__resolve_cgroup(struct targets *tg, char *err, size_t errlen)
{
	if (!tg->has_cgroup)
		return 0;
	return cgroup_target_resolve("/sys/fs/cgroup", tg->opt->cgroup, tg->opt->unit,
				     &tg->cgroup, err, errlen);
}

/* One member of the target cgroup found at start: watch it. */
static int watch_member(int pid, void *ctx)
{
	struct targets *tg = ctx;
	struct proc_stat st;

	if (!collect__is_live(tg->collect, pid) && identity(tg, pid, &st) == 0)
		collect__watch(tg->collect, &st); /* no room in the kernel map: shown, not counted */
	return 0;
}

/* Watch what the options name: pids, a command, a first clone, or all.
 * Returns 0, or the exit status with a message in err. */
int targets__start(struct targets *tg, bool quiet, char *err, size_t errlen)
{
	struct proc_stat st;

	if (tg->opt->npids)
		return watch_pids(tg, err, errlen) ?: find_probes(tg, err, errlen);
	if (tg->opt->command || tg->opt->demo)
		return launch_command(tg, quiet, err, errlen);
	if (tg->has_cgroup) {
		/* Members come and go in the kernel's view from now on; these
		 * are the ones already there. */
		cgroup_target_for_each_pid(&tg->cgroup, watch_member, tg);
		return find_probes(tg, err, errlen);
	}
	if (tg->opt->first_clone_of) {
		if (check_pid(tg, tg->opt->first_clone_of, "--track-first-clone", &st, err, errlen))
			return 1;
		return find_probes(tg, err, errlen);
	}
	scan_existing(tg);
	return find_probes(tg, err, errlen);
}

/* A watched process exec'd: look for probes in it. Where the kernel side
 * reports the libraries its loader maps (targets__on_mapped), once, now:
 * the executable and the loader are mapped. Else for a while, since its
 * loader is still mapping libraries. */
void targets__on_exec(int pid, void *ctx)
{
	struct targets *tg = ctx;

	if (tg->probes && tg->collect->tracer && tracer__sees_mappings(tg->collect->tracer)) {
		probes__scan_pid(tg->probes, tg->collect->tracer, tg->collect->procfd, pid);
		return;
	}
	if (!tg->probes || tg->nrescan == TARGETS_RESCAN_MAX)
		return;
	tg->rescan[tg->nrescan] = pid;
	tg->rescan_until[tg->nrescan++] = loop_now() + RESCAN_SECONDS;
	loop_timer_set(tg->scanfd, 0.005, 0.02);
}

/* A watched process mapped a file executable (the loader mapping a
 * library's code): look in its maps now, for the objects not met before. */
void targets__on_mapped(int pid, void *ctx)
{
	struct targets *tg = ctx;

	if (tg->probes && probes__wants_maps(tg->probes))
		probes__scan_pid(tg->probes, tg->collect->tracer, tg->collect->procfd, pid);
}

/* The rescan timer fired: look for probes in the processes that exec'd
 * lately; stop the timer when none is left. */
void targets__rescan(struct targets *tg)
{
	double now = loop_now();
	int i, j = 0;

	loop_timer_expirations(tg->scanfd);
	for (i = 0; i < tg->nrescan; i++) {
		probes__scan_pid(tg->probes, tg->collect->tracer, tg->collect->procfd, tg->rescan[i]);
		if (tg->rescan_until[i] > now) {
			tg->rescan[j] = tg->rescan[i];
			tg->rescan_until[j++] = tg->rescan_until[i];
		}
	}
	tg->nrescan = j;
	if (!j)
		loop_timer_stop(tg->scanfd);
}

/* Whether p's mappings may have changed since its maps were last looked
 * at for probes: its size did. A fork maps what its parent maps: a child
 * the size its parent was when last looked at needs no look of its own. */
static bool maps_changed(struct targets *tg, struct proc *p)
{
	struct proc *parent;

	if (p->exited || p->kthread || !p->vsz_kib || p->vsz_kib == p->track.probes_vsz)
		return false;
	if (!p->track.probes_vsz && p->ppid > 0 &&
	    (parent = model__find_live(tg->collect->model, p->ppid)) &&
	    parent->track.probes_vsz == p->vsz_kib) {
		p->track.probes_vsz = p->vsz_kib;
		return false;
	}
	return true;
}

/* Once a tick, where the kernel does not report new executable mappings
 * (targets__on_mapped): look for the -u probes in what the watched
 * processes mapped since they were last looked at (a library they
 * dlopen()ed): the probe is attached in the new object as soon as this
 * tick, for every process that maps it. The trigger is the size (VSZ) the
 * tick read anyway: a process whose size did not change mapped nothing new
 * (or unmapped as much: a library swapped for a region of its size within
 * a tick is missed), and costs nothing; one that did costs a read of its
 * maps, without an open for the objects met before. */
void targets__tick(struct targets *tg)
{
	struct collect *c = tg->collect;
	struct proc *p;
	size_t i;

	if (!probes__wants_maps(tg->probes) || (c->tracer && tracer__sees_mappings(c->tracer)))
		return;
	for (i = 0; (p = model__at(c->model, i)); i++) {
		if (!maps_changed(tg, p))
			continue;
		probes__scan_pid(tg->probes, c->tracer, c->procfd, p->pid);
		p->track.probes_vsz = p->vsz_kib;
	}
}

/* The command was reaped with status: keep it as a shell would report it,
 * and take the terminal back. */
static void reaped(struct targets *tg, int status)
{
	tg->cmd_reaped = true;
	launch__take_terminal(&tg->launch);
	if (WIFEXITED(status))
		tg->cmd_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		tg->cmd_status = 128 + WTERMSIG(status);
}

/* Reap the launched command, keeping its status as a shell would report it;
 * a command stopped by job control stops cowtop with it. */
void targets__reap(struct targets *tg)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG | WUNTRACED)) > 0) {
		if (pid != tg->launch.pid)
			continue;
		if (WIFSTOPPED(status)) {
			launch__stopped(&tg->launch, WSTOPSIG(status));
			continue;
		}
		reaped(tg, status);
	}
}

/* End the launched command if it still runs (SIGTERM to its process group,
 * SIGKILL after a grace time), and reap it. */
void targets__end_command(struct targets *tg)
{
	int status;

	if (tg->launch.pid <= 0 || tg->cmd_reaped)
		return;
	status = launch__end(&tg->launch, END_GRACE_SECONDS);
	if (status >= 0)
		reaped(tg, status);
}

/* Whether the watched processes are all gone and nothing more can come. */
bool targets__done(const struct targets *tg)
{
	if (tg->watch_all || tg->has_cgroup || model__live(tg->collect->model) > 0)
		return false; /* a cgroup can gain members at any time */
	if (tg->opt->first_clone_of && !tg->collect->saw_fork)
		return false; /* the clone has not been born yet */
	return tg->launch.pid <= 0 || tg->cmd_reaped;
}

/* At the end of a command's run: a probe it never mapped is an error. */
int targets__missing_probes(const struct targets *tg, char *err, size_t errlen)
{
	if (tg->probes && tg->launch.pid > 0 && probes__missing(tg->probes, err, errlen))
		return 1;
	return 0;
}

/* End a launched command that still runs (whatever ends cowtop: it is
 * never left behind, orphaned), then release the launch gate, the probes
 * and the timer. */
void targets__free(struct targets *tg)
{
	targets__end_command(tg);
	launch__free(&tg->launch);
	if (tg->scanfd >= 0)
		close(tg->scanfd);
	tg->scanfd = -1;
	probes__free(tg->probes);
	tg->probes = NULL;
}
