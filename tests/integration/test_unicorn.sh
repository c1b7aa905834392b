#!/bin/bash
# unicorn with 3 preloaded workers (preload_app true) under a local HTTP
# load, launched with -- and attached with -p: each worker's copies against
# the pagemap oracle, within 2%, and a killed worker's respawn shown under
# the master (see servers.sh for the oracle and its slack).
#
# The app (tests/workloads/cow_app.ru) writes 256 pages of a 32 MiB string
# the master built, per request, and allocates: each worker copies a few
# thousand pages, of the string and of the Ruby heap its collector marks.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servers.sh"

INTERVAL=0.5
APP=$(cd "$(dirname "$0")/../workloads" && pwd)/cow_app.ru

server_setup unicorn:unicorn ruby:ruby curl:curl
ruby -e 'require "rack"' 2>/dev/null || die "rack is required (Debian package ruby-rack)"
SERVER_NAME=unicorn
SOCK=$WORK/unicorn.sock
PIDFILE=$WORK/unicorn.pid
STOP_SIGNAL=QUIT
cat >"$WORK/unicorn.conf.rb" <<CONF
worker_processes $WORKERS
preload_app true
listen "$SOCK", backlog: 64
timeout 30
pid "$PIDFILE"
stderr_path "$WORK/unicorn.err"
CONF
SERVER_CMD=(unicorn -c "$WORK/unicorn.conf.rb" -E none "$APP")
web_case launch
web_case attach
finish
