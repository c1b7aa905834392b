/* The single event loop: one epoll set for the ring buffer, the terminal,
 * signals (signalfd) and the refresh timer (timerfd). */
#ifndef COWTOP_LOOP_H
#define COWTOP_LOOP_H

#include <signal.h>
#include <stdbool.h>

struct loop;
/* Called with the fd and its epoll events (EPOLLIN, EPOLLHUP, EPOLLERR). */
typedef void (*loop_fn)(int fd, unsigned events, void *ctx);

struct loop *loop__new(void);
void loop__free(struct loop *l);
int loop__add(struct loop *l, int fd, loop_fn fn, void *ctx);
int loop__run_once(struct loop *l, int timeout_ms);
int loop_signalfd(const int *signals, int n, sigset_t *old);
int loop_timerfd(double period);
int loop_timer_set(int fd, double first, double period);
int loop_timer_stop(int fd);
unsigned long long loop_timer_expirations(int fd);
double loop_now(void);
double loop_wall_now(void);
double loop_cpu_seconds(void);

#endif
