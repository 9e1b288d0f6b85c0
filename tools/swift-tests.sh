#!/bin/bash
# Runs the built Swift test bundle as several processes side by side: each suite that
# starts real programs (names with EndToEnd or MQTT: daemons, brokers, bridges) in a
# process of its own, up to SWIFT_TEST_JOBS at once, beside one process for all the
# other suites. Those suites spend most of their time waiting on the programs they
# started, and Swift Testing runs a process's tests on as many threads as there are
# cores, so in one process two such waits held both cores' threads while everything
# else queued (867 tests: 81 s in one process, idle, 2 cores; the pure suites alone 9 s).
# A suite keeps its own order (`.serialized`) inside its process.
# Suites start longest first, by the times the last run kept in .build/swift-tests.
# Each process's output is printed whole when it ends; the run fails if any failed.
# Usage: tools/swift-tests.sh [BUNDLE]   (default .build/debug/pinpaddPackageTests.xctest)
#   SWIFT_TEST_JOBS=4     processes for those suites at once, beside the one for the rest
#   SWIFT_TEST_SKIP=RE    tests left out everywhere (Swift Testing's --skip)
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=${1:-.build/debug/pinpaddPackageTests.xctest}
jobs=${SWIFT_TEST_JOBS:-4}
[[ -x $bundle ]] || { echo "swift-tests: no $bundle (swift build --build-tests)" >&2; exit 66; }
out=.build/swift-tests/$(dirname "$bundle" | tr / _)
extra=()
# Plain marks in logs; colours only on a terminal.
[[ -t 1 ]] || export NO_COLOR=1
# pinpadctl's one-shot commands wait 5 s for the daemon by default; an ASan build on a
# busy machine may take longer to answer (the timeout tests give --timeout themselves).
export PINPADCTL_TIMEOUT=${PINPADCTL_TIMEOUT:-60}
[[ -n ${SWIFT_TEST_SKIP:-} ]] && extra=(--skip "$SWIFT_TEST_SKIP")
times=$out/times
mkdir -p "$out"
rm -f "$out"/*.log "$out"/*.rc

run() { # NAME ARGS...: the bundle with ARGS, its output in NAME.log, its status in NAME.rc
  local name=$1 start=$SECONDS rc=0
  shift
  "$bundle" --testing-library swift-testing "$@" >"$out/$name.log" 2>&1 || rc=$?
  echo "$rc" >"$out/$name.rc"
  echo "$((SECONDS - start)) $name" >>"$out/times.new"
}

list=$("$bundle" --testing-library swift-testing --list-tests 2>/dev/null)
# A suite is the part of an id before the first "/": Module.Suite.
mapfile -t slow < <(sed 's#/.*##' <<<"$list" | grep -E '\.[A-Za-z]*(EndToEnd|MQTT)[A-Za-z]*$' | sort -u)
if [[ -f $times ]]; then
  # Longest first (by the last run), suites new since then at the front.
  mapfile -t slow < <(printf '%s\n' "${slow[@]}" |
    awk 'NR == FNR { t[$2] = $1; next } { print (($0 in t) ? t[$0] : 999999), $0 }' "$times" - |
    sort -k1,1nr | cut -d' ' -f2)
else
  # No times yet (a fresh clone): the MQTT suites first, the longest as a rule (each
  # `.serialized`, a broker and a bridge per test).
  mapfile -t slow < <(
    printf "%s\n" "${slow[@]}" | { grep MQTT || true; }
    printf "%s\n" "${slow[@]}" | { grep -v MQTT || true; }
  )
fi
: >"$out/times.new"
t0=$SECONDS
# The other suites: everything those names do not match.
skip=$(printf '%s/|' "${slow[@]}" | sed 's/\./\\./g; s/|$//')
run rest --skip "$skip${SWIFT_TEST_SKIP:+|$SWIFT_TEST_SKIP}" &
for suite in "${slow[@]}"; do
  while [[ $(jobs -rp | wc -l) -gt $jobs ]]; do wait -n || true; done
  run "$suite" --filter "$(sed 's/\./\\./g' <<<"$suite")/" "${extra[@]}" &
done
wait
mv "$out/times.new" "$times"

failed=() tests=0
for log in "$out"/rest.log "${slow[@]/#/$out/}"; do
  log=${log%.log}.log
  name=$(basename "$log" .log)
  cat "$log"
  n=$(sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p' "$log" | tail -1)
  tests=$((tests + ${n:-0}))
  [[ $(cat "$out/$name.rc") == 0 ]] || failed+=("$name")
done
echo "swift-tests: $tests tests in $((${#slow[@]} + 1)) processes, $((SECONDS - t0)) s"
rm -f "$out/failures"
if [[ ${#failed[@]} -gt 0 ]]; then
  # The failing tests' own lines, kept for the summary at the end of `make test` (a CI
  # log may keep only its tail).
  for name in "${failed[@]}"; do
    grep -E 'recorded an issue|failed after|Fatal error|Caught error' "$out/$name.log" |
      head -20 | sed "s#^#$name: #" >>"$out/failures" || true
  done
  echo "swift-tests: FAILED: ${failed[*]}" >&2
  exit 1
fi
