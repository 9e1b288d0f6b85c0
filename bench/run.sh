#!/bin/sh
# `make bench`: every figure of issue 13 as one `name: value` line, ratios last.
# Asserts nothing. Runs the release binaries in BIN (default .build/release, which
# `make bench` builds first), compiles the C baseline (bench/baseline.c) with cc -O2,
# then runs the driver (pinpadd and C alternated), the frame timings, and every
# executable bench/parts/*.sh, printing their lines.
#
#   bench/run.sh [BIN]           every figure (about 3-4 minutes here)
#   bench/run.sh --smoke [BIN]   builds the baseline, the driver answers a few codes
#                                against pinpadd and the C baseline: no figures
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

if [ -n "$smoke" ]; then
  python3 bench/driver.py --smoke --pinpadd "$bin/pinpadd" --baseline "$work/baseline"
  "$bin/pinpadd-bench-frames" 1 >/dev/null
  echo "bench smoke: the frame timings ran"
  exit 0
fi

# The floor: programs that do nothing (Swift runtime static and dynamic, and C).
swiftc -O -static-stdlib -o "$work/empty-swift_static" bench/floor/empty.swift
swiftc -O -o "$work/empty-swift_dynamic" bench/floor/empty.swift
cc -O2 -o "$work/empty-c" bench/floor/empty.c

BENCH_RATIOS="$work/ratios" python3 bench/driver.py \
  --pinpadd "$bin/pinpadd" --baseline "$work/baseline" --floor-dir "$work"
"$bin/pinpadd-bench-frames"
export BENCH_BIN="$bin"
for part in bench/parts/*.sh; do
  if [ -x "$part" ]; then "$part" || echo "# $part failed ($?)"; fi
done
while read -r name value; do
  printf '%s: %.2f\n' "$name" "$value"
done <"$work/ratios"
