/* The exporter: a sink that keeps the last frame and serves its metrics
 * over HTTP (GET /metrics) for Prometheus. libmicrohttpd does the HTTP,
 * driven from cowtop's one epoll loop, with no thread of its own: its epoll
 * fd is one source of the loop, and a timerfd wakes it when it asks to be
 * run (its timeouts). A scrape formats the kept frame: no /proc read, no
 * BPF map read on the scrape path. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <microhttpd.h>
#include "config.h"
#include "loop.h"
#include "metrics.h"
#include "options.h"
#include "sink.h"

#define EXPORTER_CONNECTIONS 128   /* clients at once; more are turned away */
#define EXPORTER_IDLE_S 10         /* a connection silent this long is closed */
#define EXPORTER_REQUEST_MAX 8192  /* bytes of a request's line and headers */
#define EXPORTER_BACKLOG 64

struct exporter {
	struct sink base;
	struct metrics *metrics;
	struct MHD_Daemon *d;
	int listenfd, timerfd;
};

/* Answer a request with a fixed body and status. */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body,
			     const char *type, const char *allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Answer GET /metrics with the text of the kept frame, in the format the
 * client accepts. */
static enum MHD_Result reply_metrics(struct exporter *e, struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	enum metrics_format fmt = metrics_format_of(accept);
	struct MHD_Response *r;
	enum MHD_Result ret;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int err = m ? metrics__render(e->metrics, fmt, m) : -ENOMEM;

	if (m && fclose(m) && !err)
		err = -ENOMEM;
	if (err) {
		free(buf);
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, err == -ENODATA ? "no frame yet\n" : "out of memory\n",
			     "text/plain; charset=utf-8", NULL);
	}
	r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, metrics_content_type(fmt));
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* Route a request: GET or HEAD of /metrics or /, nothing else; a request with a
 * body is refused before it is read. A GET is answered on the second call,
 * once the request is whole, so that the connection can be kept alive. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	static const char plain[] = "text/plain; charset=utf-8";
	static int seen; /* *con_cls of a request already called once */
	struct exporter *e = cls;

	/* HEAD is a GET whose body libmicrohttpd leaves out */
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n", plain, "GET, HEAD");
	if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH) ||
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return reply(c, MHD_HTTP_BAD_REQUEST, "a GET has no body\n", plain, NULL);
	if (!*con_cls) {
		*con_cls = &seen;
		return MHD_YES;
	}
	if (strcmp(url, "/metrics") == 0)
		return reply_metrics(e, c);
	if (strcmp(url, "/") == 0)
		return reply(c, MHD_HTTP_OK, "cowtop exporter: metrics at /metrics\n", plain, NULL);
	return reply(c, MHD_HTTP_NOT_FOUND, "not found: metrics are at /metrics\n", plain, NULL);
}

/* Arm the timer for when the server next wants to run (closing idle
 * connections, or work it has left pending); disarm it when it wants nothing. */
static void arm(struct exporter *e)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (MHD_get_timeout(e->d, &ms) == MHD_YES)
		loop_timer_set(e->timerfd, ms / 1000.0, 0);
	else
		loop_timer_stop(e->timerfd);
}

/* The server's epoll fd is ready: let it accept, read and write what it
 * can without blocking. */
static void on_ready(int fd, unsigned events, void *ctx)
{
	struct exporter *e = ctx;

	MHD_run(e->d);
	arm(e);
}

/* The server's timeout came. */
static void on_timer(int fd, unsigned events, void *ctx)
{
	loop_timer_expirations(fd);
	on_ready(fd, events, ctx);
}

/* Keep the frame: the next scrapes are served from it. */
static enum sink_status exporter_frame(struct sink *s, struct frame *f, char *err, size_t errlen)
{
	struct exporter *e = (struct exporter *)s;

	metrics__update(e->metrics, f); /* out of memory: the frame before is served */
	return SINK_OK;
}

/* Stop the server (it closes its connections and the listening socket),
 * drop the kept frame. */
static void exporter_free(struct sink *s)
{
	struct exporter *e = (struct exporter *)s;

	if (e->d)
		MHD_stop_daemon(e->d);
	if (e->listenfd >= 0)
		close(e->listenfd);
	if (e->timerfd >= 0)
		close(e->timerfd);
	metrics__free(e->metrics);
	free(e);
}

static const struct sink_ops exporter_ops = { .frame = exporter_frame, .free = exporter_free };

/* Whether addr (as given to --listen) is a loopback address. */
static bool loopback(const char *addr)
{
	struct in_addr a4;

	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	return strcmp(addr, "::1") == 0;
}

/* A listening socket on addr:port; -errno. */
static int listen_on(const char *addr, unsigned short port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	bool v6 = inet_pton(AF_INET6, addr, &a6.sin6_addr) == 1;
	int one = 1, fd, e;

	if (!v6 && inet_pton(AF_INET, addr, &a4.sin_addr) != 1)
		return -EINVAL;
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if ((v6 ? bind(fd, (struct sockaddr *)&a6, sizeof(a6)) : bind(fd, (struct sockaddr *)&a4, sizeof(a4))) ||
	    listen(fd, EXPORTER_BACKLOG)) {
		e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

/* Start the HTTP server on the listening socket, with its limits. */
static int start_server(struct exporter *e, bool v6)
{
	e->d = MHD_start_daemon(MHD_USE_EPOLL | (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL, on_request, e,
				MHD_OPTION_LISTEN_SOCKET, e->listenfd,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)EXPORTER_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)EXPORTER_IDLE_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)EXPORTER_REQUEST_MAX,
				MHD_OPTION_END);
	if (!e->d)
		return -EIO;
	e->listenfd = -1; /* the server closes it now */
	return 0;
}

/* Join the loop: the server's epoll fd and its timer. */
static int join_loop(struct exporter *e, struct loop *loop)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(e->d, MHD_DAEMON_INFO_EPOLL_FD);

	e->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (!info || e->timerfd < 0 ||
	    loop__add(loop, info->epoll_fd, on_ready, e) || loop__add(loop, e->timerfd, on_timer, e))
		return -EIO;
	arm(e);
	return 0;
}

/* Open the exporter when --listen or --exporter asks for it. */
int exporter_sink_open(const struct sink_env *env, struct sink **out, int *status,
		       char *err, size_t errlen)
{
	const struct options *o = env->opt;
	struct metrics_opts mo = { .by_pid = o->metrics_by_pid, .group = o->label_group,
				   .version = PACKAGE_VERSION };
	bool v6 = strchr(o->listen_addr, ':') != NULL;
	struct exporter *e;

	*out = NULL;
	*status = 1;
	if (!o->listen_port)
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->metrics = metrics__new(&mo))) {
		free(e);
		snprintf(err, errlen, "cannot start the exporter: %s", strerror(ENOMEM));
		return -1;
	}
	e->base.ops = &exporter_ops;
	e->base.own_rows = true; /* the metrics lay the tree out by pid themselves */
	e->base.own_groups = true; /* ... and sum their groups themselves */
	e->timerfd = -1;
	e->listenfd = listen_on(o->listen_addr, o->listen_port);
	if (e->listenfd < 0) {
		snprintf(err, errlen, v6 ? "cannot listen on [%s]:%u: %s" : "cannot listen on %s:%u: %s",
			 o->listen_addr, o->listen_port, strerror(-e->listenfd));
		exporter_free(&e->base);
		return -1;
	}
	if (start_server(e, v6) || join_loop(e, env->loop)) {
		snprintf(err, errlen, "cannot start the metrics server on port %u", o->listen_port);
		exporter_free(&e->base);
		return -1;
	}
	fprintf(stderr, v6 ? "cowtop: metrics at http://[%s]:%u/metrics\n" : "cowtop: metrics at http://%s:%u/metrics\n",
		o->listen_addr, o->listen_port);
	if (!loopback(o->listen_addr))
		fprintf(stderr, "cowtop: warning: metrics on a non-loopback address (%s) reveal process names "
			"to whoever can reach port %u\n", o->listen_addr, o->listen_port);
	*out = &e->base;
	return 0;
}
