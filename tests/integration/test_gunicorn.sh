#!/bin/bash
# gunicorn --preload with 3 sync workers under a local HTTP load, launched
# with -- and attached with -p: each worker's copies against the pagemap
# oracle, within 2%, and a killed worker's respawn shown under the master
# (see servers.sh for the oracle and its slack).
#
# The app (tests/workloads/cow_app.py) writes 256 pages of a 32 MiB buffer
# the master built, per request, and allocates: each worker copies a few
# thousand pages.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servers.sh"

INTERVAL=0.5
APPDIR=$(cd "$(dirname "$0")/../workloads" && pwd)

server_setup gunicorn:gunicorn curl:curl
SERVER_NAME=gunicorn
SOCK=$WORK/gunicorn.sock
PIDFILE=$WORK/gunicorn.pid
STOP_SIGNAL=TERM
SERVER_CMD=(gunicorn --preload --workers "$WORKERS" --worker-class sync
	--bind "unix:$SOCK" --pid "$PIDFILE" --timeout 30 --graceful-timeout 5
	--error-logfile "$WORK/gunicorn.err" --pythonpath "$APPDIR" cow_app:app)
web_case launch
web_case attach
finish
