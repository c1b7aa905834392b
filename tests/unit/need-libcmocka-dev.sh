#!/bin/sh
# Stands for the unit tests when configure found no cmocka: make check says
# which package they need instead of building nothing silently.
echo "cowtop: the unit tests need cmocka: install the Debian package libcmocka-dev, then run ./configure again"
exit 99
