/* The epoll loop and its signal and timer fds. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "loop.h"

#define LOOP_MAX_SOURCES 16

struct source {
	int fd;
	loop_fn fn;
	void *ctx;
};

struct loop {
	int epfd;
	struct source src[LOOP_MAX_SOURCES];
	int n;
};

/* Create an empty loop. */
struct loop *loop__new(void)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return NULL;
	}
	return l;
}

/* Close the loop (not the fds added to it); NULL is fine. */
void loop__free(struct loop *l)
{
	if (!l)
		return;
	close(l->epfd);
	free(l);
}

/* Call fn(fd, events, ctx) whenever fd is readable or hung up. */
int loop__add(struct loop *l, int fd, loop_fn fn, void *ctx)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (l->n == LOOP_MAX_SOURCES)
		return -ENOSPC;
	l->src[l->n] = (struct source){ fd, fn, ctx };
	ev.data.ptr = &l->src[l->n];
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	l->n++;
	return 0;
}

/* Wait up to timeout_ms (-1: forever) and dispatch what is ready. */
int loop__run_once(struct loop *l, int timeout_ms)
{
	struct epoll_event ev[LOOP_MAX_SOURCES];
	int n, i;

	n = epoll_wait(l->epfd, ev, LOOP_MAX_SOURCES, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n; i++) {
		struct source *s = ev[i].data.ptr;

		s->fn(s->fd, ev[i].events, s->ctx);
	}
	return n;
}

/* Block the given signals and return a signalfd for them; the previous mask
 * goes to old. */
int loop_signalfd(const int *signals, int n, sigset_t *old)
{
	sigset_t set;
	int i;

	sigemptyset(&set);
	for (i = 0; i < n; i++)
		sigaddset(&set, signals[i]);
	if (sigprocmask(SIG_BLOCK, &set, old))
		return -errno;
	i = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return i < 0 ? -errno : i;
}

/* Fill a timespec from seconds. */
static struct timespec ts_of(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - floor(s)) * 1e9);
	return ts;
}

/* Arm timer fd: first expiry after first seconds, then every period. */
int loop_timer_set(int fd, double first, double period)
{
	struct itimerspec its = { .it_interval = ts_of(period), .it_value = ts_of(first) };

	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	return timerfd_settime(fd, 0, &its, NULL) ? -errno : 0;
}

/* Disarm timer fd. */
int loop_timer_stop(int fd)
{
	struct itimerspec its = { 0 };

	return timerfd_settime(fd, 0, &its, NULL) ? -errno : 0;
}

/* A monotonic timer fd firing every period seconds. */
int loop_timerfd(double period)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int e;

	if (fd < 0)
		return -errno;
	e = loop_timer_set(fd, period, period);
	if (e) {
		close(fd);
		return e;
	}
	return fd;
}

/* Read and return how many times timer fd expired since the last read. */
unsigned long long loop_timer_expirations(int fd)
{
	unsigned long long n = 0;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

/* Monotonic clock, seconds. */
double loop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wall clock, unix seconds. */
double loop_wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds this process has used (user + system). */
double loop_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}
