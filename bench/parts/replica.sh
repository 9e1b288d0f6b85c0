#!/usr/bin/env bash
# Benchmark: the replica of issue 43 (docs/protocol.md, "Replica") for 10 000 people:
# the site's build and Ed25519 signature of it, and the door's check (parse, signature,
# device, generation) and reading of its lines, with a key made by the openssl command.
# Prints one `name: value` line per figure (the median in milliseconds); asserts
# nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
# BENCH_BIN: the release binaries' folder (bench/run.sh sets it). Run alone, it builds
# them the Makefile's way first.
if [ -z "${BENCH_BIN:-}" ]; then
  make -s --no-print-directory release >&2
  BENCH_BIN=.build/release
fi
BENCH=$BENCH_BIN/pinpadd-bench-replica
[ -x "$BENCH" ] || { echo "replica.sh: no $BENCH" >&2; exit 66; }
keys=$(mktemp -d)
trap 'rm -rf "$keys"' EXIT
(umask 077 && openssl genpkey -algorithm ed25519 -out "$keys/site.key")
openssl pkey -in "$keys/site.key" -pubout -out "$keys/site.pub"
"$BENCH" "$keys/site.key" "$keys/site.pub"
