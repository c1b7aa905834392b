/* idle N: fork N children that pause(), print "ready N" once they all
 * exist, and on SIGTERM, SIGINT or SIGHUP kill and reap them. Children die
 * with it in any case. Built by the benchmarks that need many processes. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Kill and reap the first n children in kids. */
static void reap(const pid_t *kids, long n)
{
	long i;

	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	pid_t parent = getpid(), pid, *kids;
	sigset_t set;
	long n, i;
	char *end;
	int sig;

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) < 0 || *end) {
		fprintf(stderr, "usage: idle N\n");
		return 2;
	}
	kids = calloc((size_t)n + 1, sizeof(*kids));
	if (!kids) {
		perror("calloc");
		return 1;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "fork %ld of %ld: %s\n", i + 1, n, strerror(errno));
			reap(kids, i);
			return 1;
		}
		if (pid == 0) {
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			for (;;)
				pause();
		}
		kids[i] = pid;
	}
	printf("ready %ld\n", n);
	fflush(stdout);
	while (sigwait(&set, &sig) != 0)
		;
	reap(kids, n);
	return 0;
}
