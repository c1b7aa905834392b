/* cowtop: copy-on-write top. Parse the options, check the machine, run. */
#include "config.h"
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include "app.h"
#include "demo.h"
#include "options.h"
#include "preflight.h"
#include "replay.h"
#include "diff.h"
#include "usdt_list.h"

/* What was printed on stdout reached it: status, or 1 with one line when
 * it could not be written (a closed pipe is a reader that had enough). */
static int stdout_done(int status)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	if (errno == EPIPE)
		return status;
	fprintf(stderr, "cowtop: cannot write the output: %s\n", strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct options opt;
	char err[256];

	if (argc == 2 && strcmp(argv[1], DEMO_ARG) == 0)
		return demo_main();
	/* Names go out as UTF-8 where the locale is, ASCII with escapes
	 * elsewhere; numbers stay in the C locale for every reader. */
	setlocale(LC_CTYPE, "");
	if (options_parse(argc, argv, &opt, err, sizeof(err))) {
		fprintf(stderr, "cowtop: %s; see 'cowtop --help'\n", err);
		return 2;
	}
	if (opt.help) {
		options_usage(stdout);
		return stdout_done(0);
	}
	if (opt.version) {
		printf("cowtop %s\n", PACKAGE_VERSION);
		return stdout_done(0);
	}
	if (opt.list_usdt) {
		if (usdt_list_print(stdout, opt.list_usdt, err, sizeof(err))) {
			fprintf(stderr, "cowtop: %s\n", err);
			return 1;
		}
		return stdout_done(0);
	}
	if (opt.replay) /* a recording needs neither root nor BPF */
		return replay_run(&opt);
	if (opt.diff[0])
		return stdout_done(diff_run(&opt));
	if (preflight_check(err, sizeof(err))) {
		fprintf(stderr, "cowtop: %s\n", err);
		return 1;
	}
	return app_run(&opt);
}
