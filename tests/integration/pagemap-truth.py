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

With --differs-from PARENT, each PID is compared with its parent instead,
page by page over the PID's private writable mappings at the same virtual
addresses (a fork keeps them), and one line is printed per pid:

    PID compared differs zero time

compared: pages present in both; differs: of those, the ones whose frames
differ, the parent's not the shared zero page (after a fork they shared
the frame, so one side copied it); zero: the child's differs from the
parent's zero page (a zero fill, not a copy). What this view cannot see,
and so the slack a test must allow: a page one side copied and then freed
or unmapped (the other's is then not present: missed); a page the parent
copied after the fork (its frame differs too: counted for every child that
shares it, though cowtop counts it for the parent); memory one side freed
and reused at the same address (new frame, no copy: counted); a range
unmapped and mapped again in either side after the fork (counted).

With --family PID... (a master and its workers), each pid's anonymous
pages are compared with the other pids' by frame number, one line a pid:

    PID anon_kib shared_kib time

anon: present pages of its private mappings (special ones such as [vdso]
aside) that pagemap does not mark as a file's page, the shared zero page
aside; shared: of those, the ones whose frame another pid given maps too.
This is what cowtop's family_shared_kib claims, found another way (cowtop
reads pagemap's exclusively-mapped bit; this compares frames).

With --vs PARENT first, each PID is compared with its parent instead, page
by page over the private anonymous ranges both map at the same addresses:

    PID copied_pages time

where copied_pages counts the pages present in both whose frames differ: a
page the child (or the parent) copied since the fork. Right for a parent
that has written nothing since (an idle server's master process).
"""
import mmap
import ctypes
import os
import struct
import sys
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
PRESENT = 1 << 63
EXCLUSIVE = 1 << 56
PFN = (1 << 55) - 1


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


def writable_ranges(pid):
    """The private writable mappings of pid as (start, end) pairs."""
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if parts[1][1] == "w" and parts[1][3] == "p":
                yield lo, hi


def entries(pm, lo, hi):
    """The pagemap entries of [lo, hi) in an open pagemap file."""
    pm.seek(lo // PAGE * 8)
    data = pm.read((hi - lo) // PAGE * 8)
    return [e for (e,) in struct.iter_unpack("<Q", data)]


def zero_pfn():
    """The frame of the shared zero page, or None on a kernel without one:
    two fresh pages that were only read share one frame only if the kernel
    maps them to its zero page (some kernels give each a page of its own;
    one page alone would name a frame that is freed and reused later)."""
    buf = mmap.mmap(-1, 2 * PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    assert buf[0] == 0 and buf[PAGE] == 0
    with open("/proc/self/pagemap", "rb") as pm:
        a, b = entries(pm, addr, addr + 2 * PAGE)
    if a & PRESENT and b & PRESENT and a & PFN == b & PFN:
        return a & PFN
    return None


def differs(parent, pid, zero):
    """Pages of pid present in parent too, those whose frame differs (the
    parent's not the zero page), and those that were the zero page."""
    compared = diff = zeros = own = 0
    with open(f"/proc/{pid}/pagemap", "rb") as cm, \
            open(f"/proc/{parent}/pagemap", "rb") as pm:
        for lo, hi in writable_ranges(pid):
            for c, p in zip(entries(cm, lo, hi), entries(pm, lo, hi)):
                if not (c & PRESENT and p & PRESENT):
                    continue
                compared += 1
                if c & PFN == p & PFN:
                    continue
                if p & PFN == zero:
                    zeros += 1
                else:
                    diff += 1
                    own += bool(c & EXCLUSIVE)
    return compared, diff, zeros, own


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


FILE = 1 << 61


def private_ranges(pid):
    """The private mappings of pid that may hold anonymous pages."""
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            path = parts[5] if len(parts) > 5 else ""
            if parts[1][3] != "p" or parts[1][:3] == "---":
                continue
            if path.startswith("[") and path not in ("[heap]", "[stack]") \
                    and not path.startswith("[anon:"):
                continue
            yield lo, hi


def anon_frames(pid, zero):
    """The frames of pid's present anonymous pages, one per page."""
    out = []
    with open(f"/proc/{pid}/pagemap", "rb") as pm:
        for lo, hi in private_ranges(pid):
            for e in entries(pm, lo, hi):
                if e & PRESENT and not e & FILE and e & PFN != zero:
                    out.append(e & PFN)
    return out


def family(pids):
    """Each pid's anonymous pages, and those another pid maps too."""
    zero = zero_pfn()
    kib = PAGE // 1024
    mine = {pid: anon_frames(pid, zero) for pid in pids}
    owners = {}
    for pid, frs in mine.items():
        for f in set(frs):
            owners[f] = owners.get(f, 0) + 1
    t = time.time()
    for pid in pids:
        frs = mine[pid]
        shared = sum(1 for f in frs if owners[f] > 1)
        print(pid, len(frs) * kib, shared * kib, f"{t:.3f}")
    return 0


def main():
    kib = PAGE // 1024
    if len(sys.argv) > 2 and sys.argv[1] == "--family":
        return family([int(a) for a in sys.argv[2:]])
    if len(sys.argv) > 2 and sys.argv[1] == "--vs":
        return compare(int(sys.argv[2]), [int(a) for a in sys.argv[3:]])
    if len(sys.argv) > 2 and sys.argv[1] == "--differs-from":
        parent, zero = int(sys.argv[2]), zero_pfn()
        for arg in sys.argv[3:]:
            compared, diff, zeros, own = differs(parent, int(arg), zero)
            print(arg, compared, diff, zeros, own, f"{time.time():.3f}")
        return 0
    for arg in sys.argv[1:]:
        present, exclusive = walk(int(arg))
        print(arg, present * kib, exclusive * kib, (present - exclusive) * kib,
              f"{time.time():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
