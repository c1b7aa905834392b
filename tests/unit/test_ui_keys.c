/* Unit tests: the key map is complete, unambiguous and fully documented. */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fields.h"
#include "help.h"
#include "keys.h"
#include "screen.h"
#include "signals.h"
#include "text.h"

static void test_every_command_has_a_key(void **state)
{
	const struct keybind *kb;
	size_t n, i;
	int c, found;

	(void)state;
	kb = keys_table(&n);
	for (c = CMD_NONE + 1; c < CMD_N; c++) {
		for (found = 0, i = 0; i < n; i++)
			found += kb[i].cmd == (enum cmd)c && kb[i].keys[0] != 0;
		if (c == CMD_SORT_FIELD) /* one key per sort key of the field table */
			assert_int_equal(found, 11);
		else
			assert_int_equal(found, 1);
	}
}

static void test_no_key_bound_twice(void **state)
{
	const struct keybind *kb;
	size_t n, i, k;

	(void)state;
	kb = keys_table(&n);
	for (i = 0; i < n; i++)
		for (k = 0; k < KEYS_PER_CMD && kb[i].keys[k]; k++)
			assert_int_equal(keys_lookup(kb[i].keys[k]), kb[i].cmd);
}

static void test_conventions(void **state)
{
	(void)state;
	assert_int_equal(keys_lookup('q'), CMD_QUIT);
	assert_int_equal(keys_lookup(KEY_F(10)), CMD_QUIT);
	assert_int_equal(keys_lookup(KEY_UP), CMD_UP);
	assert_int_equal(keys_lookup('j'), CMD_DOWN);
	assert_int_equal(keys_lookup(KEY_NPAGE), CMD_PGDN);
	assert_int_equal(keys_lookup(KEY_HOME), CMD_HOME);
	assert_int_equal(keys_lookup('\r'), CMD_FOCUS);
	assert_int_equal(keys_lookup(KEY_BACKSPACE), CMD_BACK);
	assert_int_equal(keys_lookup(27), CMD_ESCAPE);
	assert_int_equal(keys_lookup('F'), CMD_FOLLOW);
	assert_int_equal(keys_lookup('t'), CMD_TREE);
	assert_int_equal(keys_lookup('/'), CMD_FILTER);
	assert_int_equal(keys_lookup('\\'), CMD_FILTER);
	assert_int_equal(keys_lookup(' '), CMD_PAUSE);
	assert_int_equal(keys_lookup('d'), CMD_DELAY);
	assert_int_equal(keys_lookup('w'), CMD_SNAPSHOT);
	assert_int_equal(keys_lookup('?'), CMD_HELP);
	assert_int_equal(keys_lookup('l'), CMD_LOG);
	assert_int_equal(keys_lookup('S'), CMD_SORT_FIELD);
	assert_int_equal(keys_sort_field('S'), FIELD_SHARED);
	assert_int_equal(keys_lookup('U'), CMD_SORT_FIELD);
	assert_int_equal(keys_sort_field('U'), FIELD_USS);
	assert_int_equal(keys_lookup('P'), CMD_SORT_FIELD);
	assert_int_equal(keys_sort_field('P'), FIELD_PSS);
	assert_int_equal(keys_lookup('E'), CMD_SORT_FIELD); /* the page tables' */
	assert_int_equal(keys_sort_field('E'), FIELD_PTE);
	assert_int_equal(keys_sort_field('s'), -1);
	assert_int_equal(keys_lookup('m'), CMD_METRIC);
	assert_int_equal(keys_lookup('r'), CMD_REGIONS);
	assert_int_equal(keys_lookup('x'), CMD_NONE);
}

static void test_help_lists_every_key(void **state)
{
	struct line *lines = calloc(HELP_LINES, sizeof(*lines));
	const struct keybind *kb;
	size_t n, nl, i, k;
	bool found;

	(void)state;
	assert_non_null(lines);
	nl = help_build(lines, HELP_LINES, false, ACTIONS_LIVE | ACTIONS_REPLAY);
	assert_true(nl < HELP_LINES); /* nothing cut off */
	kb = keys_table(&n);
	for (i = 0; i < n; i++) {
		for (found = false, k = 0; k < nl && !found; k++)
			found = strstr(lines[k].text, kb[i].label) && strstr(lines[k].text, kb[i].help);
		assert_true(found);
	}
	for (k = 0; k < nl; k++)
		for (i = 0; i < lines[k].len; i++)
			assert_true((unsigned char)lines[k].text[i] < 0x80); /* ASCII mode */
	free(lines);
}

static void test_footer_log_hint_only_with_probes(void **state)
{
	const struct keyhint *h;
	size_t n, i, usdt = 0;

	(void)state;
	h = keys_footer(&n);
	for (i = 0; i < n; i++) {
		if (!(h[i].need & HINT_USDT))
			continue;
		usdt++;
		assert_string_equal(h[i].key, "l");
		assert_int_equal(keys_lookup(h[i].key[0]), CMD_LOG);
	}
	assert_int_equal(usdt, 1);
	assert_string_equal(h[n - 1].key, "q"); /* quit stays last */
}

/* The table's footer offers the regions pane; the pane's footer says how
 * to leave it. */
static void test_footer_regions(void **state)
{
	struct screen_state s = { .mode = MODE_TABLE, .allow = ACTIONS_LIVE };
	struct line l;

	(void)state;
	screen_footer_line(&s, 0, 200, &l);
	assert_non_null(strstr(l.text, "rRegions"));
	s.mode = MODE_REGIONS;
	screen_footer_line(&s, 0, 200, &l);
	assert_string_equal(l.text, "Up/DownProcess wSnapshot r EscBack ");
	assert_int_equal(keys_lookup('r'), CMD_REGIONS);
	assert_int_equal(keys_lookup(27), CMD_ESCAPE);
}

/* Wide, the footer names htop's function keys; at 80 columns it keeps
 * Quit (F10 or q) and the most needed hints, and fits; at 10, Quit alone. */
static void test_footer_widths(void **state)
{
	struct screen_state s = { .mode = MODE_TABLE, .allow = ACTIONS_LIVE };
	struct line l;

	(void)state;
	screen_footer_line(&s, 0, 200, &l);
	assert_non_null(strstr(l.text, "F1Help "));
	assert_non_null(strstr(l.text, "F9Kill "));
	assert_non_null(strstr(l.text, "F10Quit "));
	assert_non_null(strstr(l.text, "F5Tree "));
	screen_footer_line(&s, 0, 80, &l);
	assert_true(text_width(l.text) <= 81); /* the last space may go */
	assert_non_null(strstr(l.text, "Quit "));
	assert_non_null(strstr(l.text, "Help "));
	assert_non_null(strstr(l.text, "Kill "));
	screen_footer_line(&s, 0, 10, &l);
	assert_string_equal(l.text, "qQuit ");
}

/* The kill menu: k and F9 open it (k moves nothing any more); the status
 * line names the process and every signal, the one picked marked. */
static void test_kill_menu(void **state)
{
	struct screen_state s = { .mode = MODE_KILL, .kill_pid = 42, .kill_name = "unicorn worker[1]",
				  .kill_sel = 1 };
	struct view v;
	struct line l;

	(void)state;
	assert_int_equal(keys_lookup('k'), CMD_KILL);
	assert_int_equal(keys_lookup(KEY_F(9)), CMD_KILL);
	assert_int_equal(keys_lookup('p'), CMD_CMDLINE);
	assert_int_equal(keys_lookup('K'), CMD_KTHREADS);
	assert_int_equal(keys_lookup('Z'), CMD_PAUSE);
	assert_int_equal(keys_lookup('b'), CMD_UNITS);
	memset(&v, 0, sizeof(v));
	screen_status_line(&s, &v, &l);
	assert_non_null(strstr(l.text, "PID 42 unicorn worker[1]?"));
	assert_non_null(strstr(l.text, " TERM "));
	assert_non_null(strstr(l.text, "[KILL]"));
	assert_non_null(strstr(l.text, " USR2 "));
	assert_true(strstr(l.text, "USR2") - l.text < 60); /* every signal in 80 columns */
	screen_footer_line(&s, 0, 200, &l);
	assert_non_null(strstr(l.text, "EnterSend"));
	assert_non_null(strstr(l.text, "EscCancel"));
}

/* The menu's target is pinned: a signal reaches the child it was opened
 * for; once that child is reaped, ESRCH (never another process). A target
 * never opened closes nothing (fd 0 stays open). */
static void test_signal_send(void **state)
{
	struct signal_target tg = { .pid = 0, .pidfd = -1 };
	int status;
	pid_t kid;

	(void)state;
	signal_target__free(&tg);
	assert_int_not_equal(fcntl(0, F_GETFD), -1);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		pause();
		_exit(0);
	}
	signal_target__open(&tg, kid);
	assert_int_equal(signal_send(&tg, SIGUSR2), 0);
	assert_int_equal(waitpid(kid, &status, 0), kid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR2);
	assert_int_equal(signal_send(&tg, SIGTERM), -ESRCH);
	assert_string_equal(signal_errno_name(-ESRCH), "ESRCH");
	assert_string_equal(signal_errno_name(-EPERM), "EPERM");
	signal_target__free(&tg);
	assert_int_equal(tg.pidfd, -1);
	signal_target__open(&tg, kid); /* reaped: gone */
	assert_int_equal(signal_send(&tg, SIGTERM), -ESRCH);
	signal_target__free(&tg);
	assert_int_equal(signal_menu[0].sig, SIGTERM);
	assert_string_equal(signal_menu[SIGNAL_MENU_N - 1].name, "USR2");
}

/* Whether one of the n lines has text. */
static bool lines_have(const struct line *lines, size_t n, const char *text)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (strstr(lines[k].text, text))
			return true;
	return false;
}

/* A replay acts on nothing live: its footer and help offer no signal and
 * no refresh interval, and those keys need actions it does not allow;
 * live, the time keys are not offered. */
static void test_replay_offers_nothing_live(void **state)
{
	struct screen_state s = { .mode = MODE_TABLE, .allow = ACTIONS_REPLAY };
	struct line *lines = calloc(HELP_LINES, sizeof(*lines));
	struct line l;
	size_t nl;

	(void)state;
	assert_non_null(lines);
	screen_footer_line(&s, 0, 200, &l);
	assert_null(strstr(l.text, "Kill"));
	assert_null(strstr(l.text, "Delay"));
	assert_non_null(strstr(l.text, "F10Quit "));
	assert_true(keys_need(keys_lookup('k')) & ~ACTIONS_REPLAY);
	assert_true(keys_need(keys_lookup(KEY_F(9))) & ~ACTIONS_REPLAY);
	assert_true(keys_need(keys_lookup('d')) & ~ACTIONS_REPLAY);
	assert_true(keys_need(keys_lookup('c')) & ~ACTIONS_REPLAY);
	assert_false(keys_need(keys_lookup('[')) & ~ACTIONS_REPLAY);
	assert_false(keys_need(keys_lookup('w')) & ~ACTIONS_REPLAY);
	assert_non_null(strstr(keys_refusal(ACT_SIGNAL), "live processes only"));
	nl = help_build(lines, HELP_LINES, false, ACTIONS_REPLAY);
	assert_false(lines_have(lines, nl, "send a signal"));
	assert_false(lines_have(lines, nl, "refresh interval"));
	assert_true(lines_have(lines, nl, "replay: one frame back"));
	nl = help_build(lines, HELP_LINES, false, ACTIONS_LIVE);
	assert_true(lines_have(lines, nl, "send a signal"));
	assert_false(lines_have(lines, nl, "replay: one frame back"));
	assert_false(keys_need(keys_lookup('k')) & ~ACTIONS_LIVE);
	free(lines);
}

static void test_help_explains_marks(void **state)
{
	struct line *lines = calloc(HELP_LINES, sizeof(*lines));
	size_t nl, k;
	int utf8, found;

	(void)state;
	assert_non_null(lines);
	for (utf8 = 0; utf8 < 2; utf8++) {
		nl = help_build(lines, HELP_LINES, utf8, ACTIONS_LIVE);
		for (found = 0, k = 0; k < nl; k++)
			found += strstr(lines[k].text, utf8 ? "\u25c6 a probe or OOM kill" : "! a probe or OOM kill") != NULL;
		assert_int_equal(found, 1);
	}
	free(lines);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_command_has_a_key),
		cmocka_unit_test(test_replay_offers_nothing_live),
		cmocka_unit_test(test_no_key_bound_twice),
		cmocka_unit_test(test_conventions),
		cmocka_unit_test(test_help_lists_every_key),
		cmocka_unit_test(test_footer_log_hint_only_with_probes),
		cmocka_unit_test(test_help_explains_marks),
		cmocka_unit_test(test_footer_regions),
		cmocka_unit_test(test_footer_widths),
		cmocka_unit_test(test_kill_menu),
		cmocka_unit_test(test_signal_send),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
