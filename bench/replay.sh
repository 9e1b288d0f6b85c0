#!/bin/sh
# The replay figures of `make bench` (bench/run.sh calls this; it can also run alone):
#   replay_parse_us       median time to read and parse a recording of REPLAY_PRESSES
#                         key presses with PinpadCore's EvemuParser (-O, whole module)
#   replay_parse_c_us     the same file through bench/evemu_baseline.c (-O2), same rules
#   replay_parse_ratio    the two, Swift / C (runs alternated, REPLAY_RUNS of each)
#   replay_idle_rss_kib   peak RSS of `pinpadd --input replay-fast:EMPTY --display none`
#   replay_peak_rss_kib   the same with the recording (needs a release build: PINPADD,
#                         default .build/release/pinpadd; skipped without one)
# Builds into BENCH_OUT (default .build/bench). Asserts nothing.
set -eu
cd "$(dirname "$0")/.."
OUT=${BENCH_OUT:-.build/bench}
PRESSES=${REPLAY_PRESSES:-40000}
RUNS=${REPLAY_RUNS:-9}
PINPADD=${PINPADD:-.build/release/pinpadd}
SWIFTC=${SWIFTC:-swiftc}
mkdir -p "$OUT/evemu-bench"
RECORDING=$OUT/replay-$PRESSES.evemu

# A recording as evemu-record writes it: codes of 4 keypad digits and Enter, each key a
# press, a release and their SYN_REPORTs, 0.2 s apart, with evemu's comments.
python3 - "$PRESSES" "$RECORDING" <<'PY'
import sys
presses, path = int(sys.argv[1]), sys.argv[2]
digits = [82, 79, 80, 81, 75, 76, 77, 71, 72, 73]
names = ["KEY_KP%d" % d for d in range(10)]
out = ["# EVEMU 1.3\n# Input device name: \"bench keypad\"\nN: bench keypad\nI: 0003 1234 5678 0110\n"]
def line(t, typ, code, value, comment):
    out.append("E: %d.%06d %04x %04x %04d\t# %s\n" % (t // 1000000, t % 1000000, typ, code, value, comment))
t = 0
for i in range(presses):
    if i % 5 == 4: code, name = 96, "KEY_KPENTER"
    else: code, name = digits[i % 10], names[i % 10]
    for value, dt in ((1, 0), (0, 80000)):
        line(t + dt, 1, code, value, "EV_KEY / %-20s %d" % (name, value))
        line(t + dt, 0, 0, 0, "------------ SYN_REPORT (0) ---------- +%dms" % (dt // 1000))
    t += 200000
open(path, "w").write("".join(out))
PY

cc -O2 -o "$OUT/evemu_baseline" bench/evemu_baseline.c
cp bench/evemu_bench.swift "$OUT/evemu-bench/main.swift"
# shellcheck disable=SC2046
"$SWIFTC" -O -wmo -module-name PinpadCore -o "$OUT/evemu-bench/evemu-bench" \
  $(find Sources/PinpadCore -name '*.swift' | sort) "$OUT/evemu-bench/main.swift"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >"$OUT/replay-swift.us"
: >"$OUT/replay-c.us"
i=0
while [ "$i" -lt "$RUNS" ]; do
  s=$("$OUT/evemu-bench/evemu-bench" "$RECORDING")
  c=$("$OUT/evemu_baseline" "$RECORDING")
  # Both parsers must have read the same events.
  if [ "${s% *}" != "${c% *}" ]; then
    echo "replay.sh: the Swift and C parsers disagree: $s / $c" >&2
    exit 1
  fi
  echo "${s##* }" >>"$OUT/replay-swift.us"
  echo "${c##* }" >>"$OUT/replay-c.us"
  i=$((i + 1))
done
swift_us=$(median <"$OUT/replay-swift.us")
c_us=$(median <"$OUT/replay-c.us")
echo "replay_parse_us: $swift_us"
echo "replay_parse_c_us: $c_us"

# Peak RSS (VmHWM) of the daemon once it has replayed everything and gone idle.
peak_rss() {
  dir=$(mktemp -d)
  : >"$dir/pinpadd.conf"
  "$PINPADD" --config "$dir/pinpadd.conf" --input "replay-fast:$1" --display none \
    --socket "$dir/sock" --state-dir "$dir/state" >/dev/null 2>&1 &
  pid=$!
  last=-1
  same=0
  # Idle when its CPU time has not moved for 0.5 s (and at most 60 s in all).
  for _ in $(seq 600); do
    sleep 0.1
    [ -r "/proc/$pid/stat" ] || break
    cpu=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    if [ "$cpu" = "$last" ] && [ -S "$dir/sock" ]; then
      same=$((same + 1))
      [ "$same" -ge 5 ] && break
    else
      same=0
    fi
    last=$cpu
  done
  awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo "?"
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}
if [ -x "$PINPADD" ]; then
  : >"$OUT/replay-empty.evemu"
  echo "replay_idle_rss_kib: $(peak_rss "$OUT/replay-empty.evemu")"
  echo "replay_peak_rss_kib: $(peak_rss "$RECORDING")"
else
  echo "replay.sh: no $PINPADD (swift build -c release): replay_peak_rss_kib skipped" >&2
fi
awk -v s="$swift_us" -v c="$c_us" 'BEGIN { printf "replay_parse_ratio: %.2f\n", s / (c > 0 ? c : 1) }'
