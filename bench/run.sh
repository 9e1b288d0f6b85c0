#!/bin/sh
# `make bench`: every figure of issues 13, 25, 41, 43 and 44 as one `name: value` line,
# ratios last, then one table of each figure that has a goal (figure | value | goal |
# ✓/✗; "not measured" where a part did not give it) and one of the memory figures.
# Asserts nothing. Runs the release binaries in BIN (default .build/release, which
# `make bench` builds first), compiles the C baseline (bench/baseline.c) with cc -O2,
# then runs the driver (pinpadd and C alternated), the frame timings, and every
# executable bench/parts/*.sh, printing their lines.
#
#   bench/run.sh [BIN]           every figure but the idle one (about 5 minutes here,
#                                on 2 cores; more the first time, when serve.sh and
#                                door.sh make their codes files). BENCH_IDLE_SECONDS=N
#                                adds the memory part's reading after N s of idle
#                                (counted beside the other parts; longer runs wait)
#   bench/run.sh --idle [BIN]    the memory part alone, with its reading after
#                                BENCH_IDLE_SECONDS (default 3600) of idle
#                                (`make bench-idle`; only the memory table at the end)
#   bench/run.sh --smoke [BIN]   builds the baseline, the driver answers a few codes
#                                against pinpadd and the C baseline (and a few under
#                                the malloc counter): no figures
#                                (`make test` runs this, with the debug build)
# BENCH_KEEP=1 keeps the scratch directory (logs, strace output).
set -eu
cd "$(dirname "$0")/.."
smoke=
idle=
if [ "${1:-}" = --smoke ]; then smoke=--smoke; shift; fi
if [ "${1:-}" = --idle ]; then idle=1; shift; fi
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

if [ -n "$idle" ]; then
  # `make bench-idle`: the memory part alone, its daemon idle to the last reading.
  BENCH_IDLE_SECONDS=${BENCH_IDLE_SECONDS:-3600} python3 bench/driver.py --only memory \
    --pinpadd "$bin/pinpadd" --baseline "$work/baseline" | tee "$work/figures"
else
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
fi

# Each figure that has a goal (issue 25's; those of issues 13, 43 and 44 that are kept)
# beside it, ✓ when met, ✗ when not (not with --idle, which measures none of them);
# then the memory figures (issue 41) as a table.
python3 - "$work/figures" "$idle" <<'PY'
import re, sys
GOALS = [  # figure, comparison, limit
    ("code_cpu_ratio", "<=", 1.5), ("replay_parse_ratio", "<=", 2),
    ("startup_floor_ratio", "<=", 1.5), ("rss_over_floor_kib", "<=", 1536),
    ("pinpadd_package_installed_kib", "<=", 6000),
    ("allocs_per_code", "<", 165),  # "fewer": than issue 25's 165
    ("syscalls_ratio", "<=", 1.5), ("idle_wakeups_per_s", "=", 0),
    ("idle_wakeups_per_s_entry_open", "=", 0), ("frame_us_800x480_rgb565", "<=", 500),
    ("digit_update_us_rgb565", "<=", 20), ("drm_frame_us_800x480", "<=", 500),
    ("drm_frame_us_1920x1080", "<=", 2500), ("drm_digit_update_us", "<=", 20),
    ("drm_rotated_frame_ratio", "<=", 1.3), ("replica_site_build_sign_ms", "<=", 500),
    ("replica_door_verify_apply_ms", "<=", 1000),
    ("door_local_decision_p99_ms_1000", "<=", 100),
    ("door_local_decision_p99_ms_10000", "<=", 100), ("revocation_p99_ms_50", "<=", 2000),
    ("site_log_drain_10000_ms", "<=", 10000),
]
value = {}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.match(r"([a-z0-9_]+): (\S+)$", line.strip())
    if m:
        value[m.group(1)] = m.group(2)

def row(cells, widths):
    print(" | ".join(c.ljust(w) if i == 0 else c.rjust(w) if i == 1 else c.ljust(w)
                     for i, (c, w) in enumerate(zip(cells, widths))).rstrip())

widths = (33, 12, 16, 3)
if not sys.argv[2]:
    print()
    row(("figure", "value", "goal", "met"), widths)
    print("-|-".join("-" * w for w in widths))
for name, op, limit in GOALS if not sys.argv[2] else []:
    goal = {"<=": "≤ ", "<": "< ", "=": "= "}[op] + f"{limit:g}"
    if name == "allocs_per_code":
        goal += " (fewer)"
    if name not in value:
        row((name, "not measured", goal, "–"), widths)
        continue
    try:
        v = float(value[name])
    except ValueError:
        row((name, value[name], goal, "?"), widths)
        continue
    met = v <= limit if op == "<=" else v < limit if op == "<" else v == limit
    row((name, value[name], goal, "✓" if met else "✗"), widths)

phases = ["start", "after_use"] + sorted(
    {m.group(1) for k in value for m in [re.match(r"memory_(idle_\d+s)_rss_kib$", k)] if m}
    or {"idle (make bench-idle)"})
print()
widths = (22, 6, 13, 6, 6)
row(("memory, KiB", "Rss", "Private_Dirty", "Locked", "VmLck"), widths)
print("-|-".join("-" * w for w in widths))
for phase in phases:
    cells = [value.get(f"memory_{phase}_{f}_kib", "–")
             for f in ("rss", "private_dirty", "locked", "vmlck")]
    print(" | ".join([phase.ljust(22)] + [c.rjust(w) for c, w in zip(cells, widths[1:])]))
PY
