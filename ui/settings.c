/* The settings file of the full-screen view (see settings.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "settings.h"
#include "fields.h"
#include "row.h"

#define LINE_MAX_BYTES 1024
#define KEY_HIDDEN "hidden_columns"

/* The file's path: $XDG_CONFIG_HOME/cowtop/cowtoprc when that is set and
 * absolute (as the XDG spec says), else $HOME/.config/cowtop/cowtoprc.
 * 0, -ENOENT with neither, -ENAMETOOLONG. */
int config_path(char *buf, size_t cap)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, cap, "%s/cowtop/cowtoprc", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, cap, "%s/.config/cowtop/cowtoprc", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* The column titled name[0..n) (any case), or -1. */
static int column_named(const char *name, size_t n)
{
	enum field_id cols[FIELD_N];
	size_t nc = fields_columns(cols), i;

	for (i = 0; i < nc; i++)
		if (strlen(fields[cols[i]].title) == n && strncasecmp(fields[cols[i]].title, name, n) == 0)
			return (int)cols[i];
	return -1;
}

/* Keep the first warning only: one line on the status line. */
__attribute__((format(printf, 3, 4)))
static void warn_once(char *warn, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (!cap || warn[0])
		return;
	va_start(ap, fmt);
	vsnprintf(warn, cap, fmt, ap);
	va_end(ap);
}

/* Take the column names of hidden_columns=v[0..n) (spaces or commas
 * between them). */
static void take_hidden(const char *v, size_t n, unsigned lineno, struct config *c, char *warn, size_t cap)
{
	size_t i = 0, k;
	int id;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		for (k = i; k < n && v[k] != ' ' && v[k] != '\t' && v[k] != ','; k++)
			;
		if (k == i)
			break;
		id = column_named(v + i, k - i);
		if (id < 0)
			warn_once(warn, cap, "line %u: no column '%.*s' (ignored)", lineno, (int)(k - i > 32 ? 32 : k - i),
				  v + i);
		else if (id == FIELD_PID)
			warn_once(warn, cap, "line %u: PID cannot be hidden (ignored)", lineno);
		else
			c->hidden |= ROW_HIDE(id);
		i = k;
	}
}

/* Whether s[0..n) is text: no control byte but tab and CR. */
static bool is_text(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\r') || s[i] == 0x7f)
			return false;
	return true;
}

/* Take one line (no newline) of the file. */
static void take_line(const char *s, size_t n, unsigned lineno, struct config *c, char *warn, size_t cap)
{
	const char *eq;
	size_t k, kn;

	while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (!n || *s == '#')
		return;
	if (n > LINE_MAX_BYTES || !is_text(s, n)) {
		warn_once(warn, cap, "line %u: not a setting (too long, or not text): ignored", lineno);
		return;
	}
	eq = memchr(s, '=', n);
	if (!eq) {
		warn_once(warn, cap, "line %u: no '=' (NAME=VALUE): ignored", lineno);
		return;
	}
	for (kn = (size_t)(eq - s); kn && (s[kn - 1] == ' ' || s[kn - 1] == '\t'); kn--)
		;
	k = (size_t)(eq - s) + 1;
	if (kn == strlen(KEY_HIDDEN) && memcmp(s, KEY_HIDDEN, kn) == 0)
		take_hidden(s + k, n - k, lineno, c, warn, cap);
	else
		warn_once(warn, cap, "line %u: unknown setting '%.*s' (ignored)", lineno, (int)(kn > 32 ? 32 : kn), s);
}

/* Read the settings in text[0..len) into c (what the text does not set
 * is the default: nothing hidden). The first problem is put in warn (""
 * when none); the lines after it are still read. */
void config_parse(const char *text, size_t len, struct config *c, char *warn, size_t cap)
{
	const char *nl;
	unsigned lineno = 0;
	size_t n;

	if (cap)
		warn[0] = '\0';
	c->hidden = 0;
	while (len) {
		nl = memchr(text, '\n', len);
		n = nl ? (size_t)(nl - text) : len;
		take_line(text, n, ++lineno, c, warn, cap);
		text += n + (nl != NULL);
		len -= n + (nl != NULL);
	}
}

/* The file's text for c, as written: the magic first line, then the
 * settings. Returns its length (cut at cap - 1). */
size_t config_text(const struct config *c, char *buf, size_t cap)
{
	enum field_id cols[FIELD_N];
	size_t nc = fields_columns(cols), i, n;

	n = (size_t)snprintf(buf, cap, "%s (F2 in cowtop's full-screen view writes it)\n%s=", CONFIG_MAGIC,
			     KEY_HIDDEN);
	for (i = 0; i < nc && n < cap; i++)
		if (c->hidden & ROW_HIDE(cols[i]))
			n += (size_t)snprintf(buf + n, cap - n, "%s ", fields[cols[i]].title);
	if (n < cap && buf[n - 1] == ' ')
		n--;
	if (n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "\n");
	return n < cap ? n : cap - 1;
}

/* Read the file at path into c. A missing file leaves c as it is; a file that cannot be read, is no regular file or is
 * too large is ignored, and a bad line is skipped, each with one line in
 * warn ("" when all went well). */
void config_load(const char *path, struct config *c, char *warn, size_t cap)
{
	char *text = NULL, why[512] = "";
	struct stat st;
	ssize_t r;
	size_t len = 0;
	int fd;

	warn[0] = '\0';
	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			snprintf(warn, cap, "config %s: cannot read it: %s (ignored)", path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		snprintf(warn, cap, "config %s: not a regular file (ignored)", path);
	else if (st.st_size > CONFIG_MAX)
		snprintf(warn, cap, "config %s: larger than %d KiB (ignored)", path, CONFIG_MAX / 1024);
	else if (!(text = malloc(CONFIG_MAX + 1)))
		snprintf(warn, cap, "config %s: out of memory (ignored)", path);
	while (text && !warn[0] && len < CONFIG_MAX && (r = read(fd, text + len, CONFIG_MAX - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			snprintf(warn, cap, "config %s: cannot read it: %s (ignored)", path, strerror(errno));
		else
			len += (size_t)r;
	}
	close(fd);
	if (text && !warn[0]) {
		config_parse(text, len, c, why, sizeof(why));
		if (why[0])
			snprintf(warn, cap, "config %s %s", path, why);
	}
	free(text);
}

/* Make the directories of path's directory that are missing (0700, as the
 * XDG spec says). */
static void make_dirs(const char *dir)
{
	char buf[4096];
	size_t i, n = strlen(dir);

	if (n >= sizeof(buf))
		return;
	memcpy(buf, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		mkdir(buf, 0700); /* EEXIST and the rest: the open after says */
		buf[i] = i < n ? '/' : '\0';
	}
}

/* Whether the file base in dirfd may be replaced: absent, or a regular
 * file that cowtop wrote (it starts with CONFIG_MAGIC). 0 or -errno with
 * the reason in err. */
static int may_replace(int dirfd, const char *base, char *err, size_t cap)
{
	char head[sizeof(CONFIG_MAGIC)];
	struct stat st;
	ssize_t r;
	int fd;

	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : (snprintf(err, cap, "%s", strerror(errno)), -errno);
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, cap, "it is a symlink: cowtop writes neither through nor over one");
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, cap, "it is not a regular file");
		return -EINVAL;
	}
	fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	r = fd >= 0 ? read(fd, head, sizeof(head) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (r != (ssize_t)sizeof(head) - 1 || memcmp(head, CONFIG_MAGIC, sizeof(head) - 1) != 0) {
		snprintf(err, cap, "it exists and cowtop did not write it (its first line is not '%s')",
			 CONFIG_MAGIC);
		return -EEXIST;
	}
	return 0;
}

/* Write buf[0..n) to fd whole. 0 or -errno. */
static int write_all(int fd, const char *buf, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Write c to the file at path whole, or not at all: a 0600 temporary file
 * in its directory (made 0700 when missing, never a symlink), renamed over
 * it. A symlink, another kind of file, or a file cowtop did not write at
 * path is refused. 0, or -errno with the reason in err. */
int config_save(const char *path, const struct config *c, char *err, size_t cap)
{
	char dir[4096], tmp[64], text[1024];
	const char *slash = strrchr(path, '/'), *base;
	int dirfd, fd, e;
	size_t n;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir)) {
		snprintf(err, cap, "no directory in its name");
		return -EINVAL;
	}
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	base = slash + 1;
	make_dirs(dir);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0) {
		e = -errno;
		snprintf(err, cap, "%s: %s", dir, e == -ELOOP || e == -ENOTDIR ? "not a directory (a symlink?)" :
			 strerror(-e));
		return e;
	}
	e = may_replace(dirfd, base, err, cap);
	snprintf(tmp, sizeof(tmp), ".cowtoprc.%ld", (long)getpid());
	fd = e ? -1 : openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (!e && fd < 0) {
		e = -errno;
		snprintf(err, cap, "cannot create a temporary file next to it: %s", strerror(-e));
	}
	if (fd >= 0) {
		n = config_text(c, text, sizeof(text));
		e = write_all(fd, text, n);
		if (!e && fsync(fd))
			e = -errno;
		if (close(fd) && !e)
			e = -errno;
		if (!e && renameat(dirfd, tmp, dirfd, base))
			e = -errno;
		if (e) {
			snprintf(err, cap, "%s", strerror(-e));
			unlinkat(dirfd, tmp, 0);
		}
	}
	close(dirfd);
	return e;
}
