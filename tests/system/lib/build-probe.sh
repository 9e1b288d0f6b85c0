#!/bin/bash
# Builds tests/system/helpers/evdev-probe.swift against the objects of
# `swift build --target PinpadInput` (no change to Package.swift), or of a build already
# made: PROBE_FROM=DIR (make test: the release build, .build/pkg/release). Prints the
# binary's path.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$root/.build/system-tests/evdev-probe}
cd "$root"
if [[ -n ${PROBE_FROM:-} ]]; then
  bin=$PROBE_FROM
else
  swift build --target PinpadInput >&2
  bin=$(swift build --show-bin-path)
fi
mkdir -p "$(dirname "$out")"
# Only the objects of sources that still exist: an incremental build keeps the object of
# a renamed or deleted file, which would clash with its successor's symbols.
objects=""
for module in PinpadCore PinpadSystem PinpadInput CPinpadShim; do
  for object in "$bin/$module.build"/*.o; do
    source=$(basename "$object" .o)
    [[ -n $(find "Sources/$module" -name "$source" -print -quit) ]] && objects+=" $object"
  done
done
# shellcheck disable=SC2086
swiftc -swift-version 6 -O -module-name evdev_probe -o "$out" \
  tests/system/helpers/evdev-probe.swift $objects \
  -I "$bin/Modules" \
  -Xcc -fmodule-map-file="$root/Sources/CLibevdev/module.modulemap" \
  -Xcc -fmodule-map-file="$root/Sources/CLibudev/module.modulemap" \
  -Xcc -fmodule-map-file="$root/Sources/CPinpadShim/include/module.modulemap" \
  -Xcc -I/usr/include/libevdev-1.0 -levdev -ludev >&2
echo "$out"
