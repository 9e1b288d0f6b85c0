#!/usr/bin/env bash
# Benchmark: what pinpadd weighs on disk and what makes it up (issue 25). Prints
#   pinpadd_stripped_bytes        the daemon as installed (stripped)
#   floor_stripped_bytes          bench/floor/empty.swift, linked as pinpadd is
#                                 (static runtime, the same linker flags): the floor
#   pinpadd_over_floor_bytes      the difference: pinpadd's own code and data
#   pinpadd_code_bytes_MODULE     symbol sizes (nm) by the module that defined them:
#                                 Swift (the standard library and its specialisations),
#                                 the runtime (C++), PinpadCore, PinpadDaemon, ...
#   pinpadd_package_installed_kib what the daemon's package installs: `make install`
#                                 (stripped) less pinpadctl and its pages, the man pages
#                                 gzipped as debhelper does, summed as dpkg-gencontrol
#                                 sums Installed-Size (each file rounded up to 1 KiB)
# Asserts nothing. BENCH_BIN: the release binaries' folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BENCH_BIN:-.build/release}
SWIFTC=${SWIFTC:-swiftc}
work=$(mktemp -d "${TMPDIR:-/tmp}/pinpadd-size.XXXXXX")
trap 'rm -rf "$work"' EXIT

strip -o "$work/pinpadd" "$BIN/pinpadd"
pinpadd=$(stat -c %s "$work/pinpadd")
echo "pinpadd_stripped_bytes: $pinpadd"

# The floor, compiled and linked as the Makefile's RELEASE_FLAGS make pinpadd (libstdc++
# and the unretained runtime in it too when `make release` has made their folders).
cxx=.build/static-libstdc++/$(dpkg --print-architecture)
stdlib=.build/static-stdlib/$(dpkg --print-architecture)
"$SWIFTC" -O -static-stdlib -use-ld=lld $([ -e "$cxx/libstdc++.a" ] && echo -L "$cxx") \
  $([ -e "$stdlib/linux/libswiftCore.a" ] && echo -resource-dir "$stdlib") \
  -Xlinker -z -Xlinker pack-relative-relocs \
  -Xlinker -z -Xlinker now -Xlinker --gc-sections -Xlinker --no-export-dynamic -Xlinker --icf=safe \
  -Xlinker --no-eh-frame-hdr -Xlinker -T -Xlinker tools/discard-unwind-tables.ld \
  -Xlinker -T -Xlinker tools/nobits-backtrace-settings.ld \
  -Xfrontend -function-sections -Xfrontend -internalize-at-link \
  -o "$work/empty" bench/floor/empty.swift
strip "$work/empty"
floor=$(stat -c %s "$work/empty")
echo "floor_stripped_bytes: $floor"
echo "pinpadd_over_floor_bytes: $((pinpadd - floor))"

python3 - "$BIN/pinpadd" <<'PY'
import collections, re, subprocess, sys
out = subprocess.run(["nm", "--size-sort", "-S", sys.argv[1]], capture_output=True,
                     text=True, check=True).stdout
sizes = collections.Counter()
for line in out.splitlines():
    parts = line.split()
    if len(parts) < 4 or parts[2] not in "tT":
        continue
    name = parts[3]
    m = re.match(r"^\$s(\d+)([A-Za-z_]\w*)", name)
    if m and not name.startswith(("$ss", "$sS")):
        module = m.group(2)[:int(m.group(1))]
    elif name.startswith("$s"):
        module = "Swift"  # the standard library and specialisations of its generics
    elif re.match(r"^(_ZN5swift|swift_|_swift)", name):
        module = "runtime"
    else:
        module = "C"  # libstdc++, the C shims, crt
    sizes[module] += int(parts[1], 16)
for module, size in sorted(sizes.items(), key=lambda kv: -kv[1]):
    if size >= 4096:
        print(f"pinpadd_code_bytes_{module}: {size}")
PY

make -s install DESTDIR="$work/root" PREFIX=/usr INSTALL_BIN="$BIN" >/dev/null
rm -f "$work/root/usr/bin/pinpadctl" "$work/root"/usr/share/man/man1/pinpadctl*
install -d "$work/root/usr/share/doc/pinpadd"
install -m 0644 debian/copyright "$work/root/usr/share/doc/pinpadd/copyright"
gzip -9nc debian/changelog >"$work/root/usr/share/doc/pinpadd/changelog.Debian.gz"
find "$work/root/usr/share/man" -type f ! -name '*.gz' -exec gzip -9n {} + 2>/dev/null || true
python3 - "$work/root" <<'PY'
import os, sys
total = 0
for folder, _, files in os.walk(sys.argv[1]):
    for name in files:
        path = os.path.join(folder, name)
        if not os.path.islink(path):
            total += (os.path.getsize(path) + 1023) // 1024
print(f"pinpadd_package_installed_kib: {total}")
PY
