#!/usr/bin/env bash
# Runs a command (the Swift test suite, in `make test`) with every close(2) watched:
# it fails when the command passes but one of pinpadd's own processes (the test
# process, the pinpadd and pinpadctl programs it starts) closed a descriptor number that
# was not open, the trace of a double close. The report names the program, the number
# and the call stack (addresses: `addr2line -f -e PROGRAM OFFSET | swift demangle`).
#   tests/double-close/run.sh swift test --skip-build
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/.build/double-close

# First the rule that makes a double close impossible: a descriptor is closed only by
# its one owner, PinpadSystem's OwnedDescriptor (Sources/PinpadSystem/IO/FileDescriptor.swift).
raw=$(cd "$root" && grep -rnE '(^|[^.A-Za-z_])close\([^)]|Glibc\.close\(' Sources Tests tests/system/helpers \
  --include='*.swift' | grep -vE '^[^:]+:[0-9]+: *//|func close\(|^Sources/PinpadSystem/IO/FileDescriptor\.swift:' || true)
if [ -n "$raw" ]; then
  echo "double-close: close(2) on a raw number outside OwnedDescriptor; own it instead:" >&2
  echo "$raw" >&2
  exit 1
fi
mkdir -p "$out"
cc -O1 -g -shared -fPIC -Wall -o "$out/closetrace.so" "$here/closetrace.c" -ldl
log=$out/closes.log
: >"$log"
status=0
CLOSETRACE_LOG=$log LD_PRELOAD=$out/closetrace.so "$@" || status=$?
# Shells and other tools the tests start are not ours to judge.
ours=$(grep -E '^EBADF close\([0-9]+\) in \S*/(pinpaddPackageTests\.xctest|pinpadd|pinpadctl) ' "$log" || true)
if [ -n "$ours" ]; then
  echo "double-close: descriptors closed that were not open (full traces in $log):" >&2
  echo "$ours" | sed 's/ pid [0-9]* tid [0-9]*$//' | sort | uniq -c | sort -rn | head -20 >&2
  exit 1
fi
echo "double-close: no descriptor closed twice ($(grep -c '^EBADF' "$log" || true) by other programs)"
exit "$status"
