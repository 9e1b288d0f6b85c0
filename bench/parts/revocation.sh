#!/bin/sh
# Benchmark: a revocation at 50 doors (issue 43; docs/protocol.md, "Replica"):
#   revocation_p50_ms_50, revocation_p99_ms_50, revocation_max_ms_50
# 50 `pinpadctl mqtt` bridges with Decide=local (each with a stand-in daemon socket,
# bench/door_bench.py) and the real site on one Mosquitto; a person removed from a
# codes file of 1000 (the new file renamed over it), timed to each door's retained
# TOPIC/replica/state of the new generation; 4 revocations, 200 samples. Then (not
# timed) the removed PIN is typed at every door and the denials counted. 52 processes
# on this machine: the load is printed beside. Asserts nothing.
set -eu
cd "$(dirname "$0")/../.."
. bench/parts/bin.sh
[ -x /usr/sbin/mosquitto ] || { echo "revocation.sh: no mosquitto" >&2; exit 69; }
exec python3 bench/door_bench.py revocation "$BENCH_BIN/pinpadctl"
