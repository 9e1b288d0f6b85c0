#!/usr/bin/env python3
"""Make the static Swift runtime that pinpadd's release builds link against.

    tools/static-stdlib.py SOURCE DEST

SOURCE is a toolchain's static resource folder (`.../lib/swift_static`); DEST becomes a
folder of symbolic links to everything in it, except that the Swift archives of
SOURCE/linux are copies in which no function section is marked SHF_GNU_RETAIN.

Why: swiftc marks every public function of a module it compiles as retained (the ELF
flag SHF_GNU_RETAIN, from llvm.used), so that `--gc-sections` keeps it for a library's
users. The standard library's archives are built that way, so every program linked
with `-static-stdlib` carries all of its public functions, called or not: the Unicode
scalar names table behind `Unicode.Scalar.Properties.name` (half a megabyte), SIMD's
descriptions, Float16 and Float80 conversions. In a static executable that exports no
symbol (`--no-export-dynamic`) nobody else can call them, so the flag only keeps dead
code. Without it the linker still keeps what is reachable: every function that a
kept section references, and the Swift metadata sections (conformances, type
metadata, reflection), which keep their witness tables and accessors. pinpadd's own
modules get the same by `-internalize-at-link` (Makefile RELEASE_FLAGS).

Only the section header's flags word of `.text*` sections changes; nothing is moved.
The source is never written: DEST gets copies, and a link to a file is never patched.
"""
import os
import shutil
import struct
import sys

SHF_GNU_RETAIN = 0x200000


def unretain_object(data: bytearray, base: int, name: str) -> int:
    """Clears the flag on an ELF64 little-endian relocatable object at data[base:]."""
    if data[base + 4] != 2 or data[base + 5] != 1:
        sys.exit(f"static-stdlib: {name}: not a 64-bit little-endian ELF object")
    shoff, = struct.unpack_from("<Q", data, base + 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, base + 0x3A)
    if shentsize != 64:
        sys.exit(f"static-stdlib: {name}: section headers of {shentsize} bytes, not 64")
    names, = struct.unpack_from("<Q", data, base + shoff + shstrndx * 64 + 0x18)
    cleared = 0
    for index in range(shnum):
        header = base + shoff + index * 64
        name_offset, = struct.unpack_from("<I", data, header)
        start = base + names + name_offset
        if data[start:start + 5] != b".text":
            continue
        flags, = struct.unpack_from("<Q", data, header + 8)
        if flags & SHF_GNU_RETAIN:
            struct.pack_into("<Q", data, header + 8, flags & ~SHF_GNU_RETAIN)
            cleared += 1
    return cleared


def unretain_archive(path: str) -> int:
    """Walks an ar archive's members (60-byte headers, even-aligned) in place."""
    with open(path, "rb") as file:
        data = bytearray(file.read())
    if data[:8] != b"!<arch>\n":
        sys.exit(f"static-stdlib: {path}: not an ar archive")
    position, cleared = 8, 0
    while position + 60 <= len(data):
        size = int(data[position + 48:position + 58].decode("ascii").strip())
        body = position + 60
        if data[body:body + 4] == b"\x7fELF":
            cleared += unretain_object(data, body, path)
        position = body + size + (size & 1)
    with open(path, "wb") as file:
        file.write(data)
    return cleared


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: tools/static-stdlib.py SOURCE DEST")
    source, dest = (os.path.abspath(p) for p in sys.argv[1:])
    if not os.path.isdir(os.path.join(source, "linux")):
        sys.exit(f"static-stdlib: {source}/linux: no such folder (a swift_static folder?)")
    if dest == source or dest.startswith(source + os.sep) or source.startswith(dest + os.sep):
        sys.exit(f"static-stdlib: {dest}: must be a folder of its own, beside {source}")
    partial = dest + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    os.makedirs(os.path.join(partial, "linux"))
    for entry in os.listdir(source):
        if entry != "linux":
            os.symlink(os.path.join(source, entry), os.path.join(partial, entry))
    cleared = 0
    for entry in sorted(os.listdir(os.path.join(source, "linux"))):
        origin = os.path.join(source, "linux", entry)
        target = os.path.join(partial, "linux", entry)
        if entry.startswith("libswift") and entry.endswith(".a"):
            shutil.copyfile(origin, target)
            cleared += unretain_archive(target)
        else:
            os.symlink(origin, target)
    if cleared == 0:
        print(f"static-stdlib: warning: {source}: no retained function section in its "
              "Swift archives, so the programs are as large as without this folder",
              file=sys.stderr)
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(partial, dest)
    print(f"static-stdlib: {dest}: {cleared} function sections of {source} no longer retained")


if __name__ == "__main__":
    main()
