#!/usr/bin/env python3
"""Ground truth of sharing, read from the kernel's page tables.

For each PID given, walk its private anonymous mappings (no backing file, or
[heap] / [stack]) in /proc/PID/maps and look every page up in
/proc/PID/pagemap: bit 63 says present, bit 56 says mapped by this process
alone. Prints, per pid, one line:

    PID present_kib exclusive_kib shared_kib time

where shared = present - exclusive and time is the unix time of the walk.
Needs root (CAP_SYS_ADMIN) for the exclusive bit. Pages on the swap are not
counted (the test workloads do not swap).

With --vs PARENT first, each PID is compared with its parent instead, page
by page over the private anonymous ranges both map at the same addresses:

    PID copied_pages time

where copied_pages counts the pages present in both whose frames differ: a
page the child (or the parent) copied since the fork. Right for a parent
that has written nothing since (an idle server's master process).
"""
import os
import struct
import sys
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
PRESENT = 1 << 63
EXCLUSIVE = 1 << 56


def anon_ranges(pid):
    """The private anonymous mappings of pid as (start, end) pairs."""
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            perms = parts[1]
            path = parts[5] if len(parts) > 5 else ""
            if perms[3] != "p" or path not in ("", "[heap]", "[stack]"):
                continue
            yield lo, hi


def walk(pid):
    """Present and exclusively mapped anonymous pages of pid."""
    present = exclusive = 0
    with open(f"/proc/{pid}/pagemap", "rb") as pm:
        for lo, hi in anon_ranges(pid):
            pm.seek(lo // PAGE * 8)
            data = pm.read((hi - lo) // PAGE * 8)
            for (entry,) in struct.iter_unpack("<Q", data):
                if entry & PRESENT:
                    present += 1
                    if entry & EXCLUSIVE:
                        exclusive += 1
    return present, exclusive


PFN_MASK = (1 << 55) - 1


def frames(pid, ranges):
    """{address: frame} of the present pages of pid in ranges."""
    out = {}
    with open(f"/proc/{pid}/pagemap", "rb") as pm:
        for lo, hi in ranges:
            pm.seek(lo // PAGE * 8)
            data = pm.read((hi - lo) // PAGE * 8)
            for i, (entry,) in enumerate(struct.iter_unpack("<Q", data)):
                if entry & PRESENT and entry & PFN_MASK:
                    out[lo + i * PAGE] = entry & PFN_MASK
    return out


def overlap(a, b):
    """The address ranges in both lists of (start, end) pairs."""
    for lo, hi in a:
        for lo2, hi2 in b:
            if max(lo, lo2) < min(hi, hi2):
                yield max(lo, lo2), min(hi, hi2)


def compare(parent, pids):
    """Pages of each pid whose frame differs from the parent's."""
    pranges = list(anon_ranges(parent))
    for pid in pids:
        ranges = list(overlap(list(anon_ranges(pid)), pranges))
        mine, theirs = frames(pid, ranges), frames(parent, ranges)
        copied = sum(1 for a, f in mine.items() if a in theirs and theirs[a] != f)
        print(pid, copied, f"{time.time():.3f}")
    return 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--vs":
        return compare(int(sys.argv[2]), [int(a) for a in sys.argv[3:]])
    kib = PAGE // 1024
    for arg in sys.argv[1:]:
        present, exclusive = walk(int(arg))
        print(arg, present * kib, exclusive * kib, (present - exclusive) * kib,
              f"{time.time():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
