/* Resolving --cgroup and --unit, and listing a cgroup subtree's processes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include "cgroups.h"

/* Put a one-line message in err; returns 1 (the runtime failure status). */
static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return 1;
}

/* Whether path is on a file system of type magic. */
static bool fs_is(const char *path, long magic)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == magic;
}

/* The directory a --cgroup path names, in buf (see cgroups.h for the forms). */
static int fs_path(const char *root, const char *path, char *buf, size_t cap)
{
	size_t rl = strlen(root), n = strcspn(path, "/");
	char first[PATH_MAX];
	int len;

	if (strncmp(path, root, rl) == 0 && path[rl] == '/') {
		len = snprintf(buf, cap, "%s", path);
	} else {
		snprintf(first, sizeof(first), "%s/%.*s", root, (int)n, path);
		if (path[0] != '/' && fs_is(first, CGROUP_SUPER_MAGIC))
			len = snprintf(buf, cap, "%s/%s", root, path);
		else if (fs_is(root, CGROUP2_SUPER_MAGIC))
			len = snprintf(buf, cap, "%s/%s", root, path + (path[0] == '/'));
		else
			len = snprintf(buf, cap, "%s/unified/%s", root, path + (path[0] == '/'));
	}
	return len < 0 || (size_t)len >= cap ? -ENAMETOOLONG : 0;
}

/* The top of the mount dir is on (the hierarchy's root cgroup), in top, and
 * how many levels dir is below it. */
static int mount_top(const char *dir, char *top, size_t cap, int *level)
{
	struct stat self, up;
	char cur[PATH_MAX], parent[PATH_MAX], tmp[PATH_MAX];

	if (stat(dir, &self))
		return -errno;
	snprintf(cur, sizeof(cur), "%s", dir);
	*level = 0;
	for (;;) {
		snprintf(tmp, sizeof(tmp), "%s", cur);
		snprintf(parent, sizeof(parent), "%s", dirname(tmp));
		if (strcmp(parent, cur) == 0 || stat(parent, &up) || up.st_dev != self.st_dev)
			break;
		snprintf(cur, sizeof(cur), "%s", parent);
		(*level)++;
	}
	snprintf(top, cap, "%s", cur);
	return 0;
}

/* The controller of the v1 hierarchy mounted at top ("cpu,cpuacct" gives
 * cpu), in out; false for a named hierarchy with no controller. */
static bool v1_controller(const char *top, char *out, size_t cap)
{
	const char *base = strrchr(top, '/');

	base = base ? base + 1 : top;
	snprintf(out, cap, "%.*s", (int)strcspn(base, ","), base);
	return out[0] && strcmp(out, "systemd") != 0 && strncmp(out, "name=", 5) != 0;
}

/* Fill out from the directory dir of a cgroup named name (for messages). */
static int identify(const char *root, const char *dir, const char *name, struct cgroup_target *out,
		    char *err, size_t errlen)
{
	char real[PATH_MAX], top[PATH_MAX];
	struct stat st;
	int level = 0;

	if (!realpath(dir, real) || stat(real, &st) || !S_ISDIR(st.st_mode))
		return fail(err, errlen, "--cgroup %s: no such cgroup (%s)", name, dir);
	if (strncmp(real, root, strlen(root)) != 0 ||
	    (!fs_is(real, CGROUP2_SUPER_MAGIC) && !fs_is(real, CGROUP_SUPER_MAGIC)))
		return fail(err, errlen, "--cgroup %s: %s is not a cgroup", name, real);
	if (mount_top(real, top, sizeof(top), &level))
		return fail(err, errlen, "--cgroup %s: cannot read %s: %s", name, real, strerror(errno));
	memset(out, 0, sizeof(*out));
	snprintf(out->dir, sizeof(out->dir), "%s", real);
	out->k.id = st.st_ino; /* a cgroup's id is its kernfs node's, its inode number on 64-bit */
	out->k.level = level;
	if (fs_is(real, CGROUP_SUPER_MAGIC) &&
	    !v1_controller(top, out->k.controller, sizeof(out->k.controller)))
		return fail(err, errlen, "--cgroup %s: the v1 hierarchy at %s has no controller "
			    "to follow: give its cgroup v2 path, or a controller's (memory/...)", name, top);
	return 0;
}

/* Run systemctl to read unit's ControlGroup into buf ("" when it has none). */
static int unit_cgroup(const char *unit, char *buf, size_t cap)
{
	int fd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		execlp("systemctl", "systemctl", "show", "--property=ControlGroup", "--value", "--",
		       unit, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (got < (ssize_t)cap - 1 && (n = read(fd[0], buf + got, cap - 1 - (size_t)got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += n;
	}
	close(fd[0]);
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -ECHILD;
	return 0;
}

/* Resolve --cgroup or --unit; see cgroups.h. */
int cgroup_target_resolve(const char *root, const char *path, const char *unit,
			  struct cgroup_target *out, char *err, size_t errlen)
{
	char dir[PATH_MAX], cg[PATH_MAX];

	if (unit) {
		if (access("/run/systemd/system", F_OK))
			return fail(err, errlen, "--unit %s: this machine does not run systemd (PID 1 is "
				    "not systemd): give the unit's cgroup with --cgroup PATH", unit);
		if (unit_cgroup(unit, cg, sizeof(cg)))
			return fail(err, errlen, "--unit %s: systemctl cannot tell its cgroup", unit);
		if (!cg[0])
			return fail(err, errlen, "--unit %s: the unit is not running (it has no cgroup)",
				    unit);
		path = cg;
	}
	if (fs_path(root, path, dir, sizeof(dir)))
		return fail(err, errlen, "--cgroup %s: the path is too long", path);
	return identify(root, dir, unit ? unit : path, out, err, errlen);
}

/* Call fn for each pid in dir's cgroup.procs. */
static int each_proc(const char *dir, int (*fn)(int pid, void *arg), void *arg)
{
	char path[PATH_MAX + 16];
	FILE *f;
	int pid, r = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return 0; /* removed meanwhile */
	while (!r && fscanf(f, "%d", &pid) == 1)
		if (pid > 0)
			r = fn(pid, arg);
	fclose(f);
	return r;
}

/* The processes of dir and of every cgroup below it. */
static int walk(const char *dir, int (*fn)(int pid, void *arg), void *arg)
{
	char sub[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = each_proc(dir, fn, arg);

	if (r || !(d = opendir(dir)))
		return r;
	while (!r && (de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) < (int)sizeof(sub))
			r = walk(sub, fn, arg);
	}
	closedir(d);
	return r;
}

/* Every process in the subtree; see cgroups.h. */
int cgroup_target_for_each_pid(const struct cgroup_target *t, int (*fn)(int pid, void *arg), void *arg)
{
	return walk(t->dir, fn, arg);
}
