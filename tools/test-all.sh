#!/bin/bash
# `make test`'s body: every test of the worktree, the pieces side by side where that
# keeps both cores busy. There is one build of the whole package for the tests, with
# AddressSanitizer, and one release build (what the packages ship), which every QEMU
# case runs; the debug build (and the probe's partial one) is `make check`'s alone.
#   beside: the clean roots' tarballs (mmdebstrap: the mirror and the disk)
#   beside: the fuzzing pass (its own build of the pure modules)
#   beside: release build (its own folder, .build/pkg) and its symbol order checked
#           (tools/symbol-order.py --check), the evdev probe from its objects,
#           make deb, tests/package.sh, then clean-system and clean-system-debian13
#           at once (one QEMU each)
#   beside: once the release build and the probe are there, the worktree's QEMU cases
#           on the release build, in two lanes
#   beside: the arm64 package: the Debian 13 build root (mmdebstrap, once), the
#           cross-built release (Debian 13's swiftlang), make deb ARCH=arm64 and
#           tests/package.sh on it, its programs run by qemu-user-static (the booted
#           arm64 system is make test-releases')
#   here:   the unit checks, the ASan build, the Swift tests under AddressSanitizer
#           (every close watched), the VmLck tests and the bench smoke on the release
#           build, the example broker ACL on Mosquitto with the release build's
#           pinpadctl (tests/mosquitto-acl.sh)
# Each piece's output is shown whole when it ends (and kept in .build/test-all); every
# piece runs to its end even when another failed, and the run fails if any did.
# Usage: tools/test-all.sh    (from the Makefile: SWIFT, MAKE, FUZZ_* as it sets them)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
SWIFT=${SWIFT:-swift}
MAKE=${MAKE:-make}
arch=$(dpkg --print-architecture)
LANES_LOGS=$src/.build/test-all
LANES_NAME=test
# shellcheck source=tools/lanes.sh
. tools/lanes.sh
failed=()
t0=$SECONDS
release=.build/pkg/release

# The release build, the evdev probe linked from its objects, the packages, then at once
# the clean systems they are installed on (one QEMU each). probe.done says the release
# build and the probe ended; probe.ok that both passed, so the worktree's cases can start.
packages() {
  timed "release build (.build/pkg)" $MAKE --no-print-directory release RELEASE_SCRATCH=.build/pkg &&
    timed "symbol order" tools/symbol-order.py --check tools/pinpadd.order "$release/pinpadd" &&
    timed "evdev probe" env PROBE_FROM=$release tests/system/lib/build-probe.sh "$RIG_PROBE" >/dev/null &&
    touch "$LANES_LOGS/probe.ok"
  touch "$LANES_LOGS/probe.done"
  # Without a probe, the clean-system cases build their own (and so does make deb).
  timed "make deb" $MAKE deb RELEASE_SCRATCH=.build/pkg &&
    timed tests/package.sh tests/package.sh pinpadd_*_"$arch".deb pinpadctl_*_"$arch".deb &&
    await tarball-bookworm 3 && await tarball-trixie 3 || return 1
  behind clean-system tests/system/run.sh clean-system
  behind clean-system-debian13 tests/system/run.sh clean-system-debian13
  local rc=0
  await clean-system || rc=1
  await clean-system-debian13 || rc=1
  [[ -f $LANES_LOGS/probe.ok ]] || rc=1
  return $rc
}
# The arm64 package, cross-built and checked as tests/package.sh checks the amd64 one
# (make deb serialises its use of debian/ with the amd64 build's).
arm64_package() {
  tools/binfmt-arm64.sh && timed "Debian 13 build root" tools/debian13-root.sh &&
    timed "make deb ARCH=arm64" $MAKE --no-print-directory deb ARCH=arm64 &&
    timed "tests/package.sh (arm64)" tools/debian13.sh env DEB_HOST_ARCH=arm64 \
      tests/package.sh pinpadd_*_arm64.deb pinpadctl_*_arm64.deb
}
# Waits for the release build and the probe; true when both passed.
release_ready() {
  while [[ ! -f $LANES_LOGS/probe.done ]]; do sleep 1; done
  [[ -f $LANES_LOGS/probe.ok ]]
}
# A lane of the worktree's QEMU cases, on the release build once it and the probe are
# there (beside the ASan build and tests).
tree_lane() {
  release_ready || { echo "no release build or evdev probe: no QEMU case"; return 1; }
  RIG_BIN=$release tests/system/run.sh "$@"
}
# The QEMU cases that run the worktree's build, in two lanes of about equal work: the
# largest first, each to the lane with less so far, by the CPU seconds each case's QEMU
# used (the rig's `qemu_cpu_s` timing in a fresh-clone make test, 2026-12-03; a case not
# listed counts 25). CPU time, unlike a case's wall time, hardly depends on what runs
# beside it.
declare -A took=([systemd-service]=100 [mqtt-service]=78 [door-gpio]=62 [card-pin]=47
  [screen]=26 [evdev-kernel]=25 [virtual-keypad]=20 [rig-smoke]=19 [two-keyboards]=19
  [keypad-auto]=19 [hotplug]=18 [udev-rules]=18)
mapfile -t tree < <(tests/system/run.sh --list all-tree |
  while read -r c; do echo "${took[$c]:-25} $c"; done | sort -k1,1nr | cut -d' ' -f2)
tree_a=() tree_b=()
sum_a=0 sum_b=0
for c in "${tree[@]}"; do
  if ((sum_a <= sum_b)); then
    tree_a+=("$c") sum_a=$((sum_a + ${took[$c]:-25}))
  else
    tree_b+=("$c") sum_b=$((sum_b + ${took[$c]:-25}))
  fi
done

export RIG_PROBE=$src/.build/system-tests/evdev-probe
rm -f "$LANES_LOGS"/probe.{done,ok} "$RIG_PROBE"
rm -f .build/swift-tests/*/failures  # an earlier run's, not to be shown for this one
# Up to four guests share the cores with the builds here: a case's timeout (a guard
# against a hang, not a measure) is three times run.sh's own.
export RIG_TIMEOUT=${RIG_TIMEOUT:-900}
behind tarball-bookworm tests/system/lib/clean-tarball.sh bookworm "$arch" "$src"
behind tarball-trixie tests/system/lib/clean-tarball.sh trixie "$arch" "$src"
behind fuzz timed "fuzzing pass" fuzz/run.sh
behind packages packages
behind arm64 arm64_package
behind tree-a tree_lane "${tree_a[@]}"
behind tree-b tree_lane "${tree_b[@]}"
timed "unit files" tests/systemd-units.sh || failed+=("unit files")
# The ASan build once; the two targets that use it do not run its no-op build again.
if timed "ASan build" $MAKE --no-print-directory build-asan SWIFT="$SWIFT"; then
  timed "Swift tests under AddressSanitizer" $MAKE --no-print-directory -o build-asan test-asan ||
    failed+=("Swift tests (ASan)")
  if release_ready; then
    timed "VmLck tests on the release build" $MAKE --no-print-directory -o build-asan test-vmlck \
      VMLCK_BIN="$release" || failed+=("VmLck tests")
  fi
else
  failed+=("ASan build")
fi
if release_ready; then
  timed "bench smoke" bench/run.sh --smoke "$release" || failed+=("bench smoke")
fi
# The example broker ACL on a real Mosquitto, with the release build's bridge and site
# (without them when there is no release build, which has failed already).
if release_ready; then
  timed "Mosquitto ACL" tests/mosquitto-acl.sh --bridge "$release/pinpadctl" ||
    failed+=("Mosquitto ACL")
else
  timed "Mosquitto ACL (topics only)" tests/mosquitto-acl.sh || failed+=("Mosquitto ACL")
fi
await fuzz || failed+=(fuzzing)
await tree-a || failed+=("QEMU cases ${tree_a[*]}")
await tree-b || failed+=("QEMU cases ${tree_b[*]}")
await packages || failed+=("release build, probe, packages or clean systems")
await arm64 || failed+=("arm64 package")
stamp "all pieces ended after $((SECONDS - t0)) s"
# Every QEMU case run again, with the rig's reason (tests/system/run.sh retries only
# its own failures, never a crash): a green run that needed one is said so here.
mapfile -t retries < <(grep -h "^rig: retry: " "$LANES_LOGS"/*.log 2>/dev/null | sort -u || true)
stamp "QEMU retries: ${#retries[@]}"
for r in "${retries[@]}"; do stamp "  ${r#rig: retry: }"; done
if [[ ${#failed[@]} -gt 0 ]]; then
  stamp "FAILED: ${failed[*]}"
  # Which Swift tests failed, again here at the end (the lines are in the output above).
  cat .build/swift-tests/*/failures 2>/dev/null | head -40 || true
  exit 1
fi
stamp "every piece passed"
