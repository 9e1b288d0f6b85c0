#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/targets/*.swift against PinpadCore and
# PinpadControlCore, with libFuzzer and AddressSanitizer) and runs each for FUZZ_SECONDS
# seconds.
#
#   fuzz/run.sh [TARGET...]     all targets when none is named
#   FUZZ_SECONDS=60             time per target
#   FUZZ_RUNS=N                 at most N inputs per target, with a fixed seed (-seed=1):
#                               with the same seeds and the same code, the same inputs,
#                               so a CI run does not fail at random on a new find
#   FUZZ_BUILD_ONLY=1           build, do not run
#   FUZZ_JOBS=N                 targets built and run at once (default: nproc)
#
# Everything it writes is under .build/fuzz: the binaries, newly found inputs
# (corpus/TARGET, read together with the seeds in fuzz/corpus/TARGET, which are never
# written), crashes (crashes/TARGET/crash-*, timeout-*, oom-*) and each run's log
# (logs/TARGET.log). Prints `fuzz TARGET: N execs, M s, K crashes` per target and exits
# non-zero when any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."

# libFuzzer reports a trap itself; the Swift runtime's backtracer would add a slow one first.
export SWIFT_BACKTRACE=enable=no
# ASan without the stack of every malloc and free (a report still has the faulting
# access's stack) and with a 32 MiB quarantine (256 by default) for freed memory: about
# a fifth less CPU per input, most of it page clearing and stack unwinding. Set
# ASAN_OPTIONS to override; a crash reproduced by running the binary alone has ASan's
# defaults, and so where a freed block was allocated and freed.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0:quarantine_size_mb=32}
SECONDS_EACH=${FUZZ_SECONDS:-60}
OUT=.build/fuzz
ALL_TARGETS=(config socket-line evemu lockout mqtt codes replica)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")
# -O keeps Swift's overflow and bounds checks (only -Ounchecked drops them).
FLAGS=(-sanitize=fuzzer,address -O -swift-version 6 -use-ld=lld)
mkdir -p "$OUT/lib" "$OUT/bin" "$OUT/logs" "$OUT/src"

# The pure modules (PinpadCore, then PinpadControlCore over it) once each, as static
# libraries; one is rebuilt when a source of it is newer (or a file came or went), and
# PinpadControlCore also when PinpadCore was.
build_lib() { # MODULE [-I DIR]
  local module=$1 sources lib=$OUT/lib/lib$1.a
  shift
  sources=$(find "Sources/$module" -name '*.swift' | sort)
  if [ ! -f "$lib" ] || [ -n "$(find "Sources/$module" -name '*.swift' -newer "$lib")" ] ||
    [ "$(cat "$OUT/lib/$module.sources" 2>/dev/null)" != "$sources" ] ||
    { [ $# -gt 0 ] && [ "$OUT/lib/libPinpadCore.a" -nt "$lib" ]; }; then
    echo "fuzz: building $module"
    # shellcheck disable=SC2086
    swiftc "${FLAGS[@]}" -parse-as-library -wmo -module-name "$module" -emit-library -static \
      -emit-module -emit-module-path "$OUT/lib/$module.swiftmodule" "$@" -o "$lib" $sources
    echo "$sources" > "$OUT/lib/$module.sources"
  fi
}
build_lib PinpadCore
build_lib PinpadControlCore -I "$OUT/lib"
LIBS=("$OUT/lib/libPinpadCore.a" "$OUT/lib/libPinpadControlCore.a")

# At most FUZZ_JOBS (default: the number of cores) target builds, then runs, at once;
# a run's inputs depend only on its seed and corpus, never on what runs beside it.
JOBS=${FUZZ_JOBS:-$(nproc)}
# Waits until fewer than JOBS background jobs run.
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done; }

build_target() { # TARGET
  local target=$1 source=fuzz/targets/$1.swift binary=$OUT/bin/$1
  # shellcheck disable=SC2086
  if [ ! -x "$binary" ] || [ -n "$(find "$source" fuzz/targets/Support.swift "${LIBS[@]}" -newer "$binary")" ]; then
    echo "fuzz: building $target"
    swiftc "${FLAGS[@]}" -parse-as-library -I "$OUT/lib" -L "$OUT/lib" -lPinpadControlCore -lPinpadCore \
      "$source" fuzz/targets/Support.swift -o "$binary"
  fi
}
for target in "${TARGETS[@]}"; do
  [ -f "fuzz/targets/$target.swift" ] || { echo "fuzz: no target $target (fuzz/targets/$target.swift)" >&2; exit 2; }
done
for target in "${TARGETS[@]}"; do
  throttle
  rm -f "$OUT/bin/$target.failed"
  { build_target "$target" || touch "$OUT/bin/$target.failed"; } &
done
wait
for target in "${TARGETS[@]}"; do
  [ ! -f "$OUT/bin/$target.failed" ] || { echo "fuzz: $target failed to build" >&2; exit 1; }
done
[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0

# Longest input per target: a socket line may be just over the 4096-byte limit.
max_len() {
  case $1 in
    socket-line) echo 4200 ;;
    lockout | codes | mqtt) echo 4096 ;;
    *) echo 8192 ;;
  esac
}

# One target's run; its summary line (and, for a crash, where the input is) goes to
# $OUT/logs/TARGET.summary, status 1 when it crashed.
run_target() { # TARGET
  local target=$1 corpus=$OUT/corpus/$1 crashes=$OUT/crashes/$1 summary=$OUT/logs/$1.summary
  mkdir -p "$corpus" "$crashes" "fuzz/corpus/$target"
  local dict=()
  [ -f "fuzz/dict/$target.dict" ] && dict=(-dict="fuzz/dict/$target.dict")
  local before start status=0 runs=() elapsed execs found
  before=$(find "$crashes" -type f | wc -l)
  start=$(date +%s)
  # Leak checks are off: the Swift runtime keeps metadata caches for the process's
  # life, which LeakSanitizer reports. -timeout: an input that takes 10 s is a hang.
  [ -z "${FUZZ_RUNS:-}" ] || runs=(-runs="$FUZZ_RUNS" -seed=1)
  "$OUT/bin/$target" -max_total_time="$SECONDS_EACH" "${runs[@]}" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$(max_len "$target")" -detect_leaks=0 -print_final_stats=1 \
    -artifact_prefix="$crashes/" "${dict[@]}" "$corpus" "fuzz/corpus/$target" \
    > "$OUT/logs/$target.log" 2>&1 || status=$?
  elapsed=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/logs/$target.log" | tail -1)
  found=$(($(find "$crashes" -type f | wc -l) - before))
  if [ "$status" -ne 0 ] && [ "$found" -eq 0 ]; then found=1; fi
  echo "fuzz $target: ${execs:-0} execs, $elapsed s, $found crashes" >"$summary"
  [ "$found" -eq 0 ] && return 0
  {
    grep -m1 -E 'Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer|inconsistent' \
      "$OUT/logs/$target.log" || true
    echo "  input saved in $crashes/, log $OUT/logs/$target.log;" \
      "reproduce with $OUT/bin/$target FILE"
  } >>"$summary"
  return 1
}

for target in "${TARGETS[@]}"; do
  throttle
  rm -f "$OUT/logs/$target.summary" "$OUT/logs/$target.crashed"
  { run_target "$target" || touch "$OUT/logs/$target.crashed"; } &
done
wait
failed=0
for target in "${TARGETS[@]}"; do
  cat "$OUT/logs/$target.summary" 2>/dev/null || echo "fuzz $target: no summary (the run script failed)"
  [ -f "$OUT/logs/$target.summary" ] && [ ! -f "$OUT/logs/$target.crashed" ] || failed=1
done
exit $failed
