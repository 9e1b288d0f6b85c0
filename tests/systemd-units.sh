#!/bin/bash
# Host-side checks of the shipped systemd units, no QEMU needed (run by `make test`):
#  * `systemd-analyze verify` of every unit in systemd/ (pinpadd.service, pinpadd.socket,
#    pinpadd-serve.service ...), with @SBINDIR@/@BINDIR@ substituted by a temporary
#    folder holding stand-in programs (verify insists that ExecStart= is executable)
#    and man pages not looked up (--man=no);
#  * `systemd-analyze security --offline=yes` of every service, installed in a
#    temporary root (--root=) the way `make install PREFIX=/usr` lays it out: the
#    overall exposure of each must be <= 2.0 (SPEC §6);
#  * what the units promise beyond the score: pinpadd-controller.service runs
#    `pinpadctl serve --mqtt` as its own sysusers user, in no group of the daemon's, with
#    its own codes file, key and [MQTT] file, the network but not the daemon's socket;
#    pinpadd (unit and sysusers) is not in group input (issue 24.8).
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
mkdir -p "$work/verify/sbin" "$work/verify/bin"
printf '#!/bin/sh\nexit 0\n' >"$work/verify/sbin/pinpadd"
cp "$work/verify/sbin/pinpadd" "$work/verify/bin/pinpadctl"
chmod 0755 "$work/verify/sbin/pinpadd" "$work/verify/bin/pinpadctl"
units=()
services=()
for unit in "$src"/systemd/*.service "$src"/systemd/*.socket; do
  name=$(basename "$unit")
  sed -e "s|@SBINDIR@|$work/verify/sbin|g" -e "s|@BINDIR@|$work/verify/bin|g" "$unit" >"$work/verify/$name"
  units+=("$work/verify/$name")
  [[ $name == *.service ]] && services+=("$name")
done
if grep -q '@[A-Z]*@' "${units[@]}"; then
  echo "systemd-units: FAIL: a placeholder other than @SBINDIR@/@BINDIR@ is left in the units" >&2
  fail=1
fi
# verify prints problems on stderr (exit status 0 for some warnings): any output fails.
out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "${units[@]}" 2>&1) || {
  echo "$out" >&2
  echo "systemd-units: FAIL: systemd-analyze verify exited non-zero" >&2
  fail=1
}
if [[ -n $out ]]; then
  echo "$out" >&2
  echo "systemd-units: FAIL: systemd-analyze verify reported problems" >&2
  fail=1
else
  echo "systemd-units: verify clean (${#units[@]} units)"
fi

# --- what the units promise -----------------------------------------------------------
promise() {  # promise UNIT-OR-FILE PATTERN WHAT: a line matching PATTERN (grep -E) is there
  grep -qE "$2" "$src/$1" || { echo "systemd-units: FAIL: $1: $3" >&2; fail=1; }
}
refuse() {  # refuse UNIT-OR-FILE PATTERN WHAT: no line matches PATTERN
  ! grep -qE "$2" "$src/$1" || { echo "systemd-units: FAIL: $1: $3" >&2; fail=1; }
}
controller=systemd/pinpadd-controller.service
cdir=/etc/pinpadd/controller
promise $controller "^ExecStart=@BINDIR@/pinpadctl serve --codes $cdir/codes --key $cdir/codes.key --mqtt --config $cdir/controller.conf\$" \
  "ExecStart= is not serve --mqtt with its own codes file, key and [MQTT] file"
promise $controller '^User=pinpadd-controller$' "not User=pinpadd-controller"
promise $controller '^Group=pinpadd-controller$' "not Group=pinpadd-controller"
refuse $controller '^(SupplementaryGroups|DynamicUser)=' "a supplementary group or a dynamic user"
promise systemd/pinpadctl.sysusers '^u pinpadd-controller ' "pinpadctl.sysusers does not create pinpadd-controller"
refuse systemd/pinpadctl.sysusers '^m pinpadd-controller ' "pinpadd-controller is in another group"
promise $controller '^RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX$' "not the network families"
refuse $controller '^(PrivateNetwork=yes|IPAddressDeny=)' "the network is closed"
promise $controller '^InaccessiblePaths=-/run/pinpadd$' "the daemon's socket folder is reachable"
promise $controller "^ConditionPathExists=$cdir/controller.conf\$" "starts without its [MQTT] file"
promise $controller '^WantedBy=multi-user.target$' "no [Install] section"
refuse systemd/pinpadd.sysusers '^m pinpadd input' "pinpadd is put in group input"
refuse systemd/pinpadctl.sysusers '^m pinpadd input' "pinpadd is put in group input"
refuse systemd/pinpadd.service '^SupplementaryGroups=.*\binput\b' "pinpadd.service adds group input"
# pinpadctl locks the pages that hold codes (pinpadctl(1)); mlock is outside @system-service.
for unit in systemd/pinpadd-serve.service systemd/pinpadd-mqtt.service $controller; do
  promise "$unit" '^SystemCallFilter=@system-service .*\bmlock\b' "mlock is not allowed"
done
[[ $fail == 0 ]] && echo "systemd-units: controller unit and group promises hold"

# --- security -----------------------------------------------------------------------
root=$work/root
mkdir -p "$root/usr/sbin" "$root/usr/bin" "$root/etc/systemd/system"
cp "$work/verify/sbin/pinpadd" "$root/usr/sbin/pinpadd"
cp "$work/verify/bin/pinpadctl" "$root/usr/bin/pinpadctl"
for unit in "$src"/systemd/*.service "$src"/systemd/*.socket; do
  sed -e 's|@SBINDIR@|/usr/sbin|g' -e 's|@BINDIR@|/usr/bin|g' "$unit" >"$root/etc/systemd/system/$(basename "$unit")"
done
for service in "${services[@]}"; do
  report=$(systemd-analyze security --offline=yes --root="$root" --no-pager "$service" 2>&1) || {
    echo "$report" >&2
    echo "systemd-units: FAIL: systemd-analyze security $service failed" >&2
    exit 1
  }
  score=$(sed -n "s/.*Overall exposure level for $service: \([0-9.]*\).*/\1/p" <<<"$report")
  if [[ -z $score ]]; then
    echo "$report" >&2
    echo "systemd-units: FAIL: no exposure level for $service in systemd-analyze security's output" >&2
    exit 1
  fi
  if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s + 0 <= m + 0) }'; then
    echo "systemd-units: $service security exposure $score <= $max"
  else
    grep '✗' <<<"$report" >&2 || true
    echo "systemd-units: FAIL: $service security exposure $score > $max" >&2
    fail=1
  fi
done
exit $fail
