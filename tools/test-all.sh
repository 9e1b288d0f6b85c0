#!/bin/bash
# `make test`'s body: every test of the worktree, the pieces side by side where that
# keeps both cores busy. The chain that takes longest is the release build, the
# packages, then the clean-system cases, so it starts first:
#   beside: the clean roots' tarballs (mmdebstrap: the mirror and the disk)
#   beside: release build (its own folder, .build/pkg), make deb, tests/package.sh,
#           then clean-system and clean-system-debian13 at once (one QEMU each)
#   here:   the debug build and the evdev probe, then
#   beside: the fuzzing pass, then every other QEMU case that runs the worktree's build
#   beside: the rest of those QEMU cases
#   here:   the Swift tests (every close watched), the bench smoke, the unit checks,
#           then the Swift tests under AddressSanitizer
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

# The packages, then at once the clean systems they are installed on (one QEMU each).
packages() {
  timed "make deb (release build in .build/pkg)" $MAKE deb RELEASE_SCRATCH=.build/pkg &&
    timed tests/package.sh tests/package.sh pinpadd_*_"$arch".deb pinpadctl_*_"$arch".deb &&
    await tarball-bookworm 3 && await tarball-trixie 3 || return 1
  # The evdev probe the script builds after the debug build: waited for, not built
  # again here (that would wait on the debug build's lock, then compile it twice more).
  while [[ ! -f $LANES_LOGS/probe.done ]]; do sleep 1; done
  behind clean-system tests/system/run.sh clean-system
  behind clean-system-debian13 tests/system/run.sh clean-system-debian13
  local rc=0
  await clean-system || rc=1
  await clean-system-debian13 || rc=1
  return $rc
}
# The QEMU cases that run the worktree's build, in two lanes (every other case each).
mapfile -t tree < <(tests/system/run.sh --list all-tree)
tree_a=() tree_b=()
for i in "${!tree[@]}"; do
  if ((i % 2 == 0)); then tree_a+=("${tree[i]}"); else tree_b+=("${tree[i]}"); fi
done
fuzz_and_tree() {
  timed "fuzzing pass" fuzz/run.sh &&
    timed "QEMU cases ${tree_a[*]}" tests/system/run.sh "${tree_a[@]}"
}

export RIG_PROBE=$src/.build/system-tests/evdev-probe
rm -f "$LANES_LOGS/probe.done" "$RIG_PROBE"
rm -f .build/swift-tests/*/failures  # an earlier run's, not to be shown for this one
behind tarball-bookworm tests/system/lib/clean-tarball.sh bookworm "$arch" "$src"
behind tarball-trixie tests/system/lib/clean-tarball.sh trixie "$arch" "$src"
behind packages packages
# Up to four guests share the cores with the builds here: a case's timeout (a guard
# against a hang, not a measure) is three times run.sh's own.
export RIG_TIMEOUT=${RIG_TIMEOUT:-900}
built=0
timed "debug build" $SWIFT build --build-tests &&
  timed "evdev probe" tests/system/lib/build-probe.sh "$RIG_PROBE" >/dev/null && built=1
# Without a probe (a failed build), the clean-system cases build their own.
touch "$LANES_LOGS/probe.done"
if [[ $built == 1 ]]; then
  behind fuzz-and-tree fuzz_and_tree
  behind tree tests/system/run.sh "${tree_b[@]}"
  # `make check` itself (its build is done by now), so the two never drift apart.
  timed "Swift tests" $MAKE --no-print-directory check SWIFT="$SWIFT" || failed+=("Swift tests")
  timed "bench smoke" bench/run.sh --smoke .build/debug || failed+=("bench smoke")
  timed "unit files" tests/systemd-units.sh || failed+=("unit files")
  timed "Swift tests under AddressSanitizer" $MAKE test-asan || failed+=(asan)
  await fuzz-and-tree || failed+=("fuzzing and QEMU")
  await tree || failed+=(QEMU)
  await packages || failed+=("packages and clean systems")
else
  failed+=("debug build")
  await packages || failed+=(packages)
fi
stamp "all pieces ended after $((SECONDS - t0)) s"
if [[ ${#failed[@]} -gt 0 ]]; then
  stamp "FAILED: ${failed[*]}"
  # Which Swift tests failed, again here at the end (the lines are in the output above).
  cat .build/swift-tests/*/failures 2>/dev/null | head -40 || true
  exit 1
fi
stamp "every piece passed"
