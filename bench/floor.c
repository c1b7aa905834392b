// SPDX-License-Identifier: GPL-2.0
/* floor: load the empty programs of floor.bpf.o on cowtop's hooks, print
 * "ready" and hold them until SIGINT or SIGTERM. A benchmark variant, not a
 * tool: usage is "floor OBJECT". */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	int n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: floor OBJECT\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "floor: cannot load %s\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "floor: cannot attach %s\n", bpf_program__name(prog));
			bpf_object__close(obj);
			return 1;
		}
		n++;
	}
	printf("ready: %d empty programs attached\n", n);
	fflush(stdout);
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
}
