#!/bin/bash
# Host-side checks of the shipped systemd units, no QEMU needed (run by `make test`):
#  * `systemd-analyze verify` of pinpadd.service + pinpadd.socket, with @SBINDIR@
#    substituted by a temporary folder holding a stand-in pinpadd (verify insists that
#    ExecStart= is executable) and man pages not looked up (--man=no);
#  * `systemd-analyze security --offline=yes` of the service, installed in a temporary
#    root (--root=) the way `make install PREFIX=/usr` lays it out: the overall exposure
#    must be <= 2.0 (SPEC §6);
#  * the same two checks for the MQTT bridge's pinpadd-mqtt.service (@BINDIR@).
# Usage: tests/systemd-units.sh [MAX_EXPOSURE]   (default 2.0)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
max=${1:-2.0}

if ! command -v systemd-analyze >/dev/null; then
  echo "systemd-units: systemd-analyze not found (apt-get install systemd)" >&2
  exit 69
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# --- verify -------------------------------------------------------------------------
mkdir -p "$work/verify/sbin"
printf '#!/bin/sh\nexit 0\n' >"$work/verify/sbin/pinpadd"
chmod 0755 "$work/verify/sbin/pinpadd"
sed "s|@SBINDIR@|$work/verify/sbin|g" "$src/systemd/pinpadd.service" >"$work/verify/pinpadd.service"
cp "$src/systemd/pinpadd.socket" "$work/verify/pinpadd.socket"
if grep -q '@[A-Z]*@' "$work/verify/pinpadd.service" "$work/verify/pinpadd.socket"; then
  echo "systemd-units: FAIL: a placeholder other than @SBINDIR@ is left in the units" >&2
  fail=1
fi
# verify prints problems on stderr (exit status 0 for some warnings): any output fails.
out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no \
  "$work/verify/pinpadd.service" "$work/verify/pinpadd.socket" 2>&1) || {
  echo "$out" >&2
  echo "systemd-units: FAIL: systemd-analyze verify exited non-zero" >&2
  fail=1
}
if [[ -n $out ]]; then
  echo "$out" >&2
  echo "systemd-units: FAIL: systemd-analyze verify reported problems" >&2
  fail=1
else
  echo "systemd-units: verify clean"
fi

# --- security -----------------------------------------------------------------------
root=$work/root
mkdir -p "$root/usr/sbin" "$root/etc/systemd/system"
cp "$work/verify/sbin/pinpadd" "$root/usr/sbin/pinpadd"
sed 's|@SBINDIR@|/usr/sbin|g' "$src/systemd/pinpadd.service" >"$root/etc/systemd/system/pinpadd.service"
cp "$src/systemd/pinpadd.socket" "$root/etc/systemd/system/pinpadd.socket"
report=$(systemd-analyze security --offline=yes --root="$root" --no-pager pinpadd.service 2>&1) || {
  echo "$report" >&2
  echo "systemd-units: FAIL: systemd-analyze security failed" >&2
  exit 1
}
score=$(sed -n 's/.*Overall exposure level for pinpadd.service: \([0-9.]*\).*/\1/p' <<<"$report")
if [[ -z $score ]]; then
  echo "$report" >&2
  echo "systemd-units: FAIL: no exposure level in systemd-analyze security's output" >&2
  exit 1
fi
if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s + 0 <= m + 0) }'; then
  echo "systemd-units: security exposure $score <= $max"
else
  grep '✗' <<<"$report" >&2 || true
  echo "systemd-units: FAIL: security exposure $score > $max" >&2
  fail=1
fi

# --- the MQTT bridge's unit -----------------------------------------------------------
mkdir -p "$work/verify/bin" "$root/usr/bin"
printf '#!/bin/sh\nexit 0\n' >"$work/verify/bin/pinpadctl"
chmod 0755 "$work/verify/bin/pinpadctl"
cp "$work/verify/bin/pinpadctl" "$root/usr/bin/pinpadctl"
sed "s|@BINDIR@|$work/verify/bin|g" "$src/systemd/pinpadd-mqtt.service" >"$work/verify/pinpadd-mqtt.service"
out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$work/verify/pinpadd-mqtt.service" 2>&1) || fail=1
if [[ -n $out ]] || grep -q '@[A-Z]*@' "$work/verify/pinpadd-mqtt.service"; then
  echo "$out" >&2
  echo "systemd-units: FAIL: systemd-analyze verify of pinpadd-mqtt.service reported problems" >&2
  fail=1
else
  echo "systemd-units: pinpadd-mqtt.service verify clean"
fi
sed 's|@BINDIR@|/usr/bin|g' "$src/systemd/pinpadd-mqtt.service" >"$root/etc/systemd/system/pinpadd-mqtt.service"
report=$(systemd-analyze security --offline=yes --root="$root" --no-pager pinpadd-mqtt.service 2>&1) || fail=1
score=$(sed -n 's/.*Overall exposure level for pinpadd-mqtt.service: \([0-9.]*\).*/\1/p' <<<"$report")
if [[ -n $score ]] && awk -v s="$score" -v m="$max" 'BEGIN { exit !(s + 0 <= m + 0) }'; then
  echo "systemd-units: pinpadd-mqtt.service security exposure $score <= $max"
else
  grep '✗' <<<"$report" >&2 || echo "$report" >&2
  echo "systemd-units: FAIL: pinpadd-mqtt.service security exposure ${score:-unknown} > $max" >&2
  fail=1
fi
exit $fail
