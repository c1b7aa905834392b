# SPDX-License-Identifier: GPL-2.0
"""objfork.py: a forking Python workload whose children copy pages by known
kinds of write, for cowtop's --objects tests.

The master (the cyclic collector off) builds --instances instances of class
Item (each with a few attributes: GC-tracked, with a managed dict), --strings
strings of 40 characters (not GC-tracked), and --buffers bytearrays of 200
bytes, optionally moves everything to the permanent generation with
gc.freeze() (--freeze), reports "ready", and waits until the file --go
exists (with --early, it forks at once instead: a server that forks its
workers as soon as it has started). Then it forks --children children (1 by
default) that each do --mode and leave with os._exit(); with --prefork the
children are forked before "ready" and each waits for --go itself:

  iter   iterates over the strings only (each string's reference count is
         written; nothing else of theirs)
  gc     enables the collector and runs gc.collect() (the GC header of every
         tracked object is written)
  bytes  writes one byte into each bytearray's buffer

The master waits for the children, then until the file --stop exists (so
that a tracer can still read its memory to name types). Report lines
(appended to --report):
  main PID objects N freeze 0|1
  pages PID strings N items N buffers N   (distinct 4 KiB pages holding the
                                           strings, the Item instances, the
                                           bytearrays' buffers; by address)
  ready PID
  fork PID frames_bytes N                 (with --frames: the size of that
                                           file when the master forks, or
                                           with --prefork when --go came; 0
                                           when it is empty or missing)
  child PID mode MODE                     (one per child)
  done PID dirty_before KIB dirty_after KIB ns NS   (the child's
                                           Private_Dirty; NS: the mode's
                                           loop, nanoseconds)
"""

import argparse
import gc
import os
import sys
import time


class Item:
    """An instance of a user class: GC-tracked, its attributes in a managed dict."""

    def __init__(self, i):
        self.a = i
        self.b = None
        self.c = ()


def buffer_address(b):
    """The address of a bytearray's buffer."""
    import ctypes
    return ctypes.addressof((ctypes.c_char * len(b)).from_buffer(b))


def report(path, line):
    """Append one line to the report in one write(2)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
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


def child(args, items, strings, buffers):
    """Do the mode's writes, report the pages this made private, leave."""
    before = private_dirty_kib()
    t0 = time.perf_counter_ns()
    if args.mode == "iter":
        for s in strings:
            pass
    elif args.mode == "gc":
        gc.enable()
        gc.collect()
    elif args.mode == "bytes":
        for b in buffers:
            b[100] = 1
    ns = time.perf_counter_ns() - t0
    after = private_dirty_kib()
    report(args.report, "done %d dirty_before %d dirty_after %d ns %d"
           % (os.getpid(), before, after, ns))
    os._exit(0)


def fork_children(args, items, strings, buffers):
    """Fork --children children; with --prefork each waits for --go first."""
    pids = []
    for _ in range(args.children):
        pid = os.fork()
        if pid == 0:
            while args.prefork and not os.path.exists(args.go):
                time.sleep(0.01)
            child(args, items, strings, buffers)
        pids.append(pid)
    return pids


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=("iter", "gc", "bytes"), required=True)
    p.add_argument("--instances", type=int, default=20000)
    p.add_argument("--strings", type=int, default=50000)
    p.add_argument("--buffers", type=int, default=20000)
    p.add_argument("--freeze", action="store_true")
    p.add_argument("--children", type=int, default=1)
    p.add_argument("--early", action="store_true")
    p.add_argument("--prefork", action="store_true")
    p.add_argument("--frames")
    p.add_argument("--go")
    p.add_argument("--stop", required=True)
    p.add_argument("--report", required=True)
    args = p.parse_args()
    if not args.go and (args.prefork or not args.early):
        p.error("--go is required without --early, and with --prefork")

    gc.disable()
    items = [Item(i) for i in range(args.instances)]
    strings = ["s%039d" % i for i in range(args.strings)]
    buffers = [bytearray(200) for _ in range(args.buffers)]
    if args.freeze:
        gc.freeze()
    str_pages = {id(s) >> 12 for s in strings}
    item_pages = {id(o) >> 12 for o in items}
    # A bytearray's buffer: its address is what the buffer protocol exposes.
    buf_pages = {buffer_address(b) >> 12 for b in buffers}
    report(args.report, "main %d objects %d freeze %d"
           % (os.getpid(), len(items) + len(strings) + len(buffers), int(args.freeze)))
    report(args.report, "pages %d strings %d items %d buffers %d"
           % (os.getpid(), len(str_pages), len(item_pages), len(buf_pages)))
    pids = []
    if args.prefork:
        pids = fork_children(args, items, strings, buffers)
    report(args.report, "ready %d" % os.getpid())
    while not args.early and not os.path.exists(args.go):
        time.sleep(0.01)
    if args.frames:
        try:
            size = os.stat(args.frames).st_size
        except FileNotFoundError:
            size = 0
        report(args.report, "fork %d frames_bytes %d" % (os.getpid(), size))
    if not args.prefork:
        pids = fork_children(args, items, strings, buffers)
    for pid in pids:
        report(args.report, "child %d mode %s" % (pid, args.mode))
    for pid in pids:
        os.waitpid(pid, 0)
    while not os.path.exists(args.stop):
        time.sleep(0.01)
    return 0


if __name__ == "__main__":
    sys.exit(main())
