/* The full-screen view's settings kept between runs, as htop's htoprc: the
 * columns hidden with F2, in $XDG_CONFIG_HOME/cowtop/cowtoprc (else
 * ~/.config/cowtop/cowtoprc). Read robustly (a bad line is one warning,
 * never a crash), written whole or not at all, never through a symlink and
 * never over a file cowtop did not write. */
#ifndef COWTOP_UI_SETTINGS_H
#define COWTOP_UI_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_MAGIC "# cowtop configuration"
#define CONFIG_MAX (64 * 1024) /* bytes read at most */

struct config {
	unsigned long long hidden; /* columns hidden (ROW_HIDE bits of row.h) */
};

int config_path(char *buf, size_t cap);
void config_parse(const char *text, size_t len, struct config *c, char *warn, size_t cap);
size_t config_text(const struct config *c, char *buf, size_t cap);
void config_load(const char *path, struct config *c, char *warn, size_t cap);
int config_save(const char *path, const struct config *c, char *err, size_t cap);

#endif
