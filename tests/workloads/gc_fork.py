# SPDX-License-Identifier: GPL-2.0
"""gc_fork.py: a preforking Python workload for cowtop's USDT tests.

The parent allocates many container objects (dicts holding lists, strings and
ints) with the cyclic garbage collector disabled, optionally moves them all to
the permanent generation with gc.freeze() (--freeze), then forks children. Each
child enables the collector and runs gc.collect() a few times: a full
collection writes the GC header of every tracked object it examines (and the
reference counts of what it visits), so without --freeze the child copies
nearly every page that holds the parent's objects; those copies are made
between the python:gc__start and python:gc__done probes of the interpreter
(probes guarded by semaphores: a tracer must enable them). With --freeze the
collector skips the parent's objects. Children leave with os._exit() (no
interpreter teardown).

Children start after --start-delay (200 ms by default), so that a tracer that
finds the interpreter's probes once it is mapped has attached by then. Each
child waits --pre-gc-delay (0 by default) before its first collection, so that
an observer can read its memory while it still shares everything, and sleeps
--linger seconds after the last one, so that it can read it again.

Report lines (appended to --report FILE, else printed on stdout):
  main PID ppid PPID role main objects N freeze 0|1
  child PID ppid PPID role gc index I      (written by the parent)
  dirty PID before KIB after KIB           (written by the child: its
                                            Private_Dirty from
                                            /proc/self/smaps_rollup before
                                            the first gc.collect() and after
                                            the last one)
  gc PID begin T end T                     (written by the child: unix
                                            time before the first
                                            gc.collect() and after the
                                            last one)
"""

import argparse
import gc
import os
import sys
import time


def report(path, line):
    """Append one line to the report in one write(2)."""
    data = (line + "\n").encode()
    if path is None:
        os.write(1, data)
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def private_dirty_kib():
    """Private_Dirty of this process in KiB (-1 if unknown)."""
    try:
        with open("/proc/self/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Private_Dirty:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def child(args):
    """Collect a few times; leave without teardown."""
    status = 0
    try:
        time.sleep(args.pre_gc_delay / 1000.0)
        before = private_dirty_kib()
        gc.enable()
        begin = time.time()
        for _ in range(args.gc_runs):
            gc.collect()
        end = time.time()
        after = private_dirty_kib()
        report(args.report, "dirty %d before %d after %d"
               % (os.getpid(), before, after))
        report(args.report, "gc %d begin %.6f end %.6f"
               % (os.getpid(), begin, end))
        if args.linger > 0:
            time.sleep(args.linger)
    except BaseException:  # never let a child run the parent's code
        status = 1
    os._exit(status)


def parse_args():
    p = argparse.ArgumentParser(
        prog="gc_fork.py",
        description="Preforking workload: children run gc.collect().")
    p.add_argument("--children", type=int, default=3,
                   help="children to fork (default 3)")
    p.add_argument("--objects", type=int, default=200000,
                   help="dicts the parent allocates (default 200000)")
    p.add_argument("--gc-runs", type=int, default=3,
                   help="gc.collect() runs in each child (default 3)")
    p.add_argument("--freeze", action="store_true",
                   help="gc.freeze() in the parent before forking")
    p.add_argument("--start-delay", type=int, default=200, metavar="MS",
                   help="sleep before the first fork (default 200)")
    p.add_argument("--pre-gc-delay", type=int, default=0, metavar="MS",
                   help="children sleep before collecting (default 0)")
    p.add_argument("--linger", type=float, default=0.0, metavar="S",
                   help="children sleep S seconds before leaving")
    p.add_argument("--report", metavar="FILE",
                   help="append report lines to FILE")
    args = p.parse_args()
    for name in ("children", "objects", "gc_runs", "start_delay",
                 "pre_gc_delay"):
        if getattr(args, name) < 0:
            p.error("--%s must not be negative" % name.replace("_", "-"))
    return args


def main():
    args = parse_args()
    report(args.report, "main %d ppid %d role main objects %d freeze %d"
           % (os.getpid(), os.getppid(), args.objects, int(args.freeze)))
    # the way preforking servers do it: no collection while the shared
    # heap is built, freeze (optionally) right before forking
    gc.disable()
    objs = [{"id": i, "name": "name-%d" % i, "tags": [i, str(i)]}
            for i in range(args.objects)]
    if args.freeze:
        gc.freeze()
    time.sleep(args.start_delay / 1000.0)
    pids = []
    for i in range(args.children):
        pid = os.fork()
        if pid == 0:
            child(args)
        report(args.report, "child %d ppid %d role gc index %d"
               % (pid, os.getpid(), i))
        pids.append(pid)
    failed = 0
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            failed += 1
    if failed:
        print("gc_fork.py: %d children failed" % failed, file=sys.stderr)
    del objs
    os._exit(1 if failed else 0)


if __name__ == "__main__":
    main()
