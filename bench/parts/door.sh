#!/bin/sh
# Benchmark: a door's local decision (issue 43; docs/protocol.md, "Replica: the door"):
#   door_local_decision_p50_ms_N, door_local_decision_p99_ms_N   (N = 1000, 10000)
# a code line from the daemon's socket (a stand-in, bench/door_bench.py) to the verdict
# back from a real `pinpadctl mqtt` with Decide=local, over 200 right PINs of people
# spread over a tagged yescrypt codes file of N people the real site signed. The first
# run makes 10 000 yescrypt hashes (minutes) into .build/bench-cache/. Asserts nothing.
set -eu
cd "$(dirname "$0")/../.."
. bench/parts/bin.sh
[ -x /usr/sbin/mosquitto ] || { echo "door.sh: no mosquitto" >&2; exit 69; }
exec python3 bench/door_bench.py latency "$BENCH_BIN/pinpadctl"
