#!/bin/bash
# `make test-releases` (issue 20): every Swift test with Debian 13's swiftlang 6.0.3,
# the arm64 package cross-built and checked (tests/package.sh), and the packages on
# clean systems under QEMU: clean-system-debian13 (amd64 package, Debian 13 amd64) and
# clean-system-arm64 (arm64 package, Debian 13 arm64, emulated).
# Independent pieces overlap where that is honest on 2 cores: the mmdebstrap runs (the
# mirror and the disk, not the CPU, are what they mostly wait on) start together, and
# clean-system-debian13 runs while the Debian 13 build root is being made; the compiles
# and the arm64 case run one at a time. Logs of the pieces run beside others go to
# .build/releases/*.log and are shown when a piece fails.
# Usage: tools/test-releases.sh    (as root, from the worktree; SWIFT as in the Makefile)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
LANES_LOGS=$src/.build/releases
LANES_NAME=test-releases
# shellcheck source=tools/lanes.sh
. tools/lanes.sh

ls pinpadd_*_amd64.deb >/dev/null 2>&1 || timed "make deb (amd64)" make deb
# The three mmdebstrap runs at once (each cached under .build once made).
behind debian13-root tools/debian13-root.sh
behind tarball-amd64 tests/system/lib/clean-tarball.sh trixie amd64 "$src"
behind tarball-arm64 tests/system/lib/clean-tarball.sh trixie arm64 "$src"
# The amd64 package on Debian 13 while the build root is being made.
await tarball-amd64 4 || exit 1
timed clean-system-debian13 tests/system/run.sh clean-system-debian13
await debian13-root 4 || exit 1
timed test-debian13 make test-debian13
timed "make deb ARCH=arm64" make deb ARCH=arm64
timed "tests/package.sh (arm64)" tools/debian13.sh env DEB_HOST_ARCH=arm64 tests/package.sh pinpadd_*_arm64.deb pinpadctl_*_arm64.deb
await tarball-arm64 4 || exit 1
timed clean-system-arm64 tests/system/run.sh clean-system-arm64
