#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""reuse_io: write faults that copy nothing, each followed at once by a
system call that allocates a page, for cowtop's tests.

Usage: reuse_io.py PAGES FILE REPORT

Maps PAGES private anonymous pages (no huge pages) and writes them; forks a
child that exits at once, so that every page is still write-protected but
mapped by this process alone: a write to it is resolved by reusing the page,
not by a copy. Then, PAGES times: write one of those pages, and append one
page to FILE (a new page-cache page). A detector that takes the allocation
after a reuse fault for the new page of a copy counts PAGES copies too many.

Appends "reuse_io PID pages N exclusive E" to REPORT: E pages were exclusively mapped
(/proc/self/pagemap bit 56) just before the writes, so none of their writes
can have been a copy.
"""
import ctypes
import mmap
import os
import struct
import sys


def exclusive_pages(addr, n, page):
    """Pages of [addr, addr + n pages) mapped by this process alone."""
    with open("/proc/self/pagemap", "rb") as f:
        f.seek(addr // page * 8)
        data = f.read(n * 8)
    return sum(1 for (v,) in struct.iter_unpack("<Q", data) if v >> 56 & 1)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: reuse_io.py PAGES FILE REPORT")
    n, path, report = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    page = mmap.PAGESIZE
    m = mmap.mmap(-1, n * page, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    m.madvise(mmap.MADV_NOHUGEPAGE)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    for i in range(n):
        m[i * page] = 1
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    excl = exclusive_pages(addr, n, page)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    block = b"x" * page
    for i in range(n):
        m[i * page] = 2
        os.write(fd, block)
    os.close(fd)
    os.unlink(path)
    with open(report, "a") as f:
        f.write(f"reuse_io {os.getpid()} pages {n} exclusive {excl}\n")


main()
