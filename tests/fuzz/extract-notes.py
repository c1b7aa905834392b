#!/usr/bin/env python3
"""Write the stapsdt note descriptors of ELF files as seeds for
fuzz_usdt_note: one file per probe, a class byte (1: ELFCLASS64, 0:
ELFCLASS32) then the descriptor as it is in the file. With --as32, 64-bit
descriptors are also written as 32-bit ones (addresses cut to 4 bytes).

usage: extract-notes.py [--as32] OUTDIR ELF...
"""
import os
import struct
import sys

NT_STAPSDT = 3


def sections(data):
    """Yield (name, type, offset, size) of every section of an ELF file."""
    if data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file")
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x3a)
        fmt = end + "IIQQQQIIQQ"
    else:
        shoff, = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x2e)
        fmt = end + "IIIIIIIIII"
    shdrs = [struct.unpack_from(fmt, data, shoff + i * shentsize) for i in range(shnum)]
    stroff = shdrs[shstrndx][4]
    for sh in shdrs:
        name = data[stroff + sh[0]:data.index(b"\0", stroff + sh[0])].decode()
        yield name, sh[1], sh[4], sh[5]


def notes(data, off, size, end):
    """Yield (owner, type, desc) of the notes of a section."""
    pos, stop = off, off + size
    while pos + 12 <= stop:
        namesz, descsz, ntype = struct.unpack_from(end + "III", data, pos)
        pos += 12
        owner = data[pos:pos + namesz]
        pos += (namesz + 3) & ~3
        desc = data[pos:pos + descsz]
        pos += (descsz + 3) & ~3
        yield owner, ntype, desc


def probes(path):
    """Yield (is64, name, desc) of every stapsdt probe of an ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    asz = 8 if is64 else 4
    for name, stype, off, size in sections(data):
        if name != ".note.stapsdt" or stype != 7:
            continue
        for owner, ntype, desc in notes(data, off, size, end):
            if owner == b"stapsdt\0" and ntype == NT_STAPSDT:
                strs = desc[3 * asz:].split(b"\0")
                yield is64, (strs[0] + b"-" + strs[1]).decode(errors="replace"), desc


def as32(desc):
    """A 64-bit little-endian descriptor with its addresses cut to 4 bytes."""
    return desc[0:4] + desc[8:12] + desc[16:20] + desc[24:]


def main(argv):
    want32 = "--as32" in argv
    args = [a for a in argv if a != "--as32"]
    outdir, paths = args[0], args[1:]
    os.makedirs(outdir, exist_ok=True)
    for path in paths:
        seen = set()
        for is64, name, desc in probes(path):
            if name in seen:
                continue
            seen.add(name)
            with open(os.path.join(outdir, "note64-" + name if is64 else "note32-" + name), "wb") as f:
                f.write(bytes([1 if is64 else 0]) + desc)
            if is64 and want32:
                with open(os.path.join(outdir, "note32-" + name), "wb") as f:
                    f.write(b"\0" + as32(desc))


if __name__ == "__main__":
    main(sys.argv[1:])
