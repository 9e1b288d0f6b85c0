#!/bin/sh
# `make bench`: every figure of issues 13, 25, 43 and 44 as one `name: value` line, ratios
# last, then each figure that has a goal beside it (`goal NAME: VALUE (GOAL)`).
# Asserts nothing. Runs the release binaries in BIN (default .build/release, which
# `make bench` builds first), compiles the C baseline (bench/baseline.c) with cc -O2,
# then runs the driver (pinpadd and C alternated), the frame timings, and every
# executable bench/parts/*.sh, printing their lines.
#
#   bench/run.sh [BIN]           every figure (about an hour: the memory part idles that
#                                long beside the others; BENCH_IDLE_SECONDS=60 for less)
#   bench/run.sh --smoke [BIN]   builds the baseline, the driver answers a few codes
#                                against pinpadd and the C baseline (and a few under
#                                the malloc counter): no figures
#                                (`make test` runs this, with the debug build)
# BENCH_KEEP=1 keeps the scratch directory (logs, strace output).
set -eu
cd "$(dirname "$0")/.."
smoke=
if [ "${1:-}" = --smoke ]; then smoke=--smoke; shift; fi
bin=${1:-.build/release}
work=$(mktemp -d "${TMPDIR:-/tmp}/pinpadd-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -o "$work/baseline" bench/baseline.c
# The malloc counter (LD_PRELOAD) behind allocs_per_code.
cc -O2 -Wall -shared -fPIC -o "$work/alloc_count.so" bench/alloc_count.c

if [ -n "$smoke" ]; then
  python3 bench/driver.py --smoke --pinpadd "$bin/pinpadd" --baseline "$work/baseline" \
    --alloc-counter "$work/alloc_count.so"
  "$bin/pinpadd-bench-frames" 1 >/dev/null
  echo "bench smoke: the frame timings ran"
  exit 0
fi

# The floor: programs that do nothing (Swift runtime static and dynamic, and C).
swiftc -O -static-stdlib -o "$work/empty-swift_static" bench/floor/empty.swift
swiftc -O -o "$work/empty-swift_dynamic" bench/floor/empty.swift
swiftc -O -static-stdlib -o "$work/listen-swift_static" bench/floor/listen.swift
# The same linked as pinpadd is, libstdc++ in it too (the folder `make release` made).
cxx=.build/static-libstdc++/$(dpkg --print-architecture)
if [ -e "$cxx/libstdc++.a" ]; then
  swiftc -O -static-stdlib -use-ld=lld -L "$cxx" -o "$work/listen-swift_static_cxx" \
    bench/floor/listen.swift
fi
cc -O2 -o "$work/empty-c" bench/floor/empty.c

{
  BENCH_RATIOS="$work/ratios" python3 bench/driver.py \
    --pinpadd "$bin/pinpadd" --baseline "$work/baseline" --floor-dir "$work" \
    --alloc-counter "$work/alloc_count.so"
  "$bin/pinpadd-bench-frames"
  export BENCH_BIN="$bin"
  for part in bench/parts/*.sh; do
    if [ -x "$part" ]; then "$part" || echo "# $part failed ($?)"; fi
  done
  while read -r name value; do
    printf '%s: %.2f\n' "$name" "$value"
  done <"$work/ratios"
} | tee "$work/figures"

# Every figure of issue 25 beside its goal (and those of issue 13 that are kept).
echo "# goals: figure: value (goal)"
awk -F': ' '
  BEGIN {
    n = split("code_cpu_ratio <=1.5|replay_parse_ratio <=2|startup_floor_ratio <=1.5|" \
      "rss_over_floor_kib <=1536|pinpadd_package_installed_kib <=6144|" \
      "allocs_per_code fewer|syscalls_ratio <=1.5|idle_wakeups_per_s =0|" \
      "idle_wakeups_per_s_entry_open =0|frame_us_800x480_rgb565 <=500|" \
      "digit_update_us_rgb565 <=20|drm_frame_us_800x480 <=500|" \
      "drm_frame_us_1920x1080 <=2500|drm_digit_update_us <=20|" \
      "drm_rotated_frame_ratio <=1.3|replica_site_build_sign_ms <=500|" \
      "replica_door_verify_apply_ms <=1000|door_local_decision_p99_ms_1000 <=100|" \
      "door_local_decision_p99_ms_10000 <=100|revocation_p99_ms_50 <=2000|" \
      "site_log_drain_10000_ms <=10000", goals, "|")
  }
  { value[$1] = $2 }
  END {
    for (i = 1; i <= n; i++) {
      split(goals[i], g, " ")
      printf "goal %s: %s (%s)\n", g[1], (g[1] in value ? value[g[1]] : "not measured"), g[2]
    }
  }' "$work/figures"
