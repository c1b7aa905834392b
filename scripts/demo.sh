#!/usr/bin/env bash
# Fresh machine to a running cowtop: install packages, build, run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j"$(nproc)"
exec ./cowtop --demo "$@"
