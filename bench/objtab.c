/*
 * objtab: what the object table (--objects) costs a tick, fed as the
 * object feed feeds it: every counter of every process set each tick (the
 * kernel's order, not the table's), a type named when its row asks for a
 * name, the table pruned of the processes that exited and a snapshot taken
 * for the frame. Built by bench/objtab.sh against two builds of
 * src/model/objects.c; a benchmark, not a test.
 *
 * Usage: objtab --procs N --rows M [--ticks K] [--churn C]
 *   --procs N  processes copying objects (half CPython, half Ruby)
 *   --rows M   rows of each: (type or class, write kind) pairs
 *   --ticks K  ticks timed (default 20), after one untimed tick
 *   --churn C  processes that exit and are replaced by new ones each tick
 *              (default 1)
 * Prints "set NS prune NS snap NS procs P toprows R check X": the median
 * nanoseconds of a tick's sets, prune and snapshot, then of the last
 * snapshot its processes, their rows and a checksum of its pids, pages and
 * names (the same for every build fed the same).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "objects.h"
#include "runtime.h"

#define MAX_TICKS 1000

struct feed {
	int procs, rows, churn;
	int *pid;          /* by process slot: its pid now (replaced on churn) */
	bool *alive;       /* by pid - 1000: in a slot now */
	unsigned *order;   /* the counters in the kernel's order: slot * rows + row */
	unsigned long long tick;
};

/* A number from a fixed sequence (every build fed the same). */
static unsigned next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The key of row r of the process in slot s. */
static struct objects_key key_of(const struct feed *f, int s, int r)
{
	int pid = f->pid[s];
	struct objects_key k = { .pid = pid, .start = 1000ULL * (unsigned)pid, .comm = "bench" };

	if (s % 2) {
		k.runtime = OBJ_RT_PY311;
		k.type = 0x7f0000001000ULL + 0x400ULL * (unsigned)(r / 4); /* a type object */
		k.write = OBJ_W_REFCNT + r % 4;
	} else {
		k.runtime = OBJ_RT_RUBY31;
		k.type = 1; /* T_OBJECT, of class r / 2 */
		k.klass = 0x5600000000ULL + 0x28ULL * (unsigned)(r / 2);
		k.klass_serial = (unsigned)(r / 2) + 1;
		k.write = r % 2 ? OBJ_W_SLOT : OBJ_W_FLAGS;
	}
	return k;
}

/* Set every counter once, naming what asks for a name. */
static void feed_tick(struct objects *o, struct feed *f)
{
	size_t i, n = (size_t)f->procs * (size_t)f->rows;
	char name[32];

	f->tick++;
	for (i = 0; i < n; i++) {
		int s = (int)(f->order[i] / (unsigned)f->rows), r = (int)(f->order[i] % (unsigned)f->rows);
		struct objects_key k = key_of(f, s, r);
		int need = objects__set(o, &k, f->tick * (1 + (unsigned)r % 3));

		if (need < 0) {
			fprintf(stderr, "objtab: out of memory\n");
			exit(1);
		}
		if (need & OBJECTS_NEED_TYPE) {
			snprintf(name, sizeof(name), "type%llx", k.type);
			objects__name(o, k.pid, k.start, k.type, name);
		}
		if (need & OBJECTS_NEED_CLASS) {
			snprintf(name, sizeof(name), "Class%llu", k.klass_serial);
			objects__name_class(o, k.pid, k.start, k.klass, k.klass_serial, name);
		}
	}
}

/* keep() of objects__prune: the processes in a slot now. */
static bool held(int pid, unsigned long long start, void *ctx)
{
	const struct feed *f = ctx;

	(void)start;
	return f->alive[pid - 1000];
}

/* A checksum of string s into c. */
static unsigned long long sum_str(unsigned long long c, const char *s)
{
	while (*s)
		c = c * 131 + (unsigned char)*s++;
	return c;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static double t_set[MAX_TICKS], t_prune[MAX_TICKS], t_snap[MAX_TICKS];
	struct feed f = { .churn = 1 };
	int ticks = 20, i, t, next_pid;
	unsigned long long check = 0;
	struct objects_snap *sn = NULL;
	struct objects *o;
	unsigned seed = 7;
	size_t n;

	for (i = 1; i + 1 < argc; i += 2) {
		int v = atoi(argv[i + 1]);

		if (!strcmp(argv[i], "--procs"))
			f.procs = v;
		else if (!strcmp(argv[i], "--rows"))
			f.rows = v;
		else if (!strcmp(argv[i], "--ticks"))
			ticks = v;
		else if (!strcmp(argv[i], "--churn"))
			f.churn = v;
		else
			break;
	}
	if (i != argc || f.procs < 1 || f.rows < 1 || ticks < 1 || ticks > MAX_TICKS || f.churn < 0 ||
	    f.churn > f.procs) {
		fprintf(stderr, "usage: objtab --procs N --rows M [--ticks K (1-%d)] [--churn C (0-N)]\n",
			MAX_TICKS);
		return 2;
	}
	n = (size_t)f.procs * (size_t)f.rows;
	f.pid = malloc((size_t)f.procs * sizeof(*f.pid));
	f.order = malloc(n * sizeof(*f.order));
	f.alive = calloc((size_t)f.procs + (size_t)f.churn * ((size_t)ticks + 1), sizeof(*f.alive));
	o = objects__new();
	if (!f.pid || !f.order || !f.alive || !o) {
		fprintf(stderr, "objtab: out of memory\n");
		return 1;
	}
	for (i = 0; i < f.procs; i++) {
		f.pid[i] = 1000 + i;
		f.alive[i] = true;
	}
	next_pid = 1000 + f.procs;
	for (i = 0; i < (int)n; i++)
		f.order[i] = (unsigned)i;
	for (i = (int)n - 1; i > 0; i--) { /* the kernel's map order: no order of ours */
		int j = (int)(next_rand(&seed) % (unsigned)(i + 1));
		unsigned x = f.order[i];

		f.order[i] = f.order[j];
		f.order[j] = x;
	}
	for (t = -1; t < ticks; t++) {
		double a, b, c, d;

		a = now_ns();
		feed_tick(o, &f);
		b = now_ns();
		for (i = 0; i < f.churn; i++) { /* exited: the prune lets them go */
			int s = (int)(next_rand(&seed) % (unsigned)f.procs);

			f.alive[f.pid[s] - 1000] = false;
			f.alive[next_pid - 1000] = true;
			f.pid[s] = next_pid++;
		}
		objects__prune(o, held, &f);
		c = now_ns();
		objects_snap__free(sn);
		if (!(sn = objects__snap(o))) {
			fprintf(stderr, "objtab: out of memory\n");
			return 1;
		}
		d = now_ns();
		if (t >= 0) {
			t_set[t] = b - a;
			t_prune[t] = c - b;
			t_snap[t] = d - c;
		}
	}
	for (i = 0; i < (int)sn->nprocs; i++) {
		size_t r;

		check = check * 31 + (unsigned long long)sn->procs[i].pid + sn->procs[i].pages;
		for (r = 0; r < sn->procs[i].ntop; r++)
			check = sum_str(sum_str(check * 31 + sn->procs[i].top[r].pages,
						sn->procs[i].top[r].type),
					sn->procs[i].top[r].cls);
	}
	n = 0;
	for (i = 0; i < (int)sn->nprocs; i++)
		n += sn->procs[i].ntop;
	printf("set %.0f prune %.0f snap %.0f procs %zu toprows %zu check %llx\n", median(t_set, ticks),
	       median(t_prune, ticks), median(t_snap, ticks), sn->nprocs, n, check);
	objects_snap__free(sn);
	objects__free(o);
	free(f.pid);
	free(f.order);
	free(f.alive);
	return 0;
}
