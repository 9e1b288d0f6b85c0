#!/bin/bash
# Checks the Debian package that `make deb` built, file by file (run by `make test`):
#  * its files (dpkg-deb -c): exactly the list below plus every unit in systemd/, with
#    their modes; the binaries stripped, without RUNPATH/RPATH, linked with -z now,
#    needing only Debian's libraries, and running with every Swift toolchain hidden
#    (a tmpfs over /opt/swift, /opt/swift-arm64 and /usr/libexec/swift, in a mount
#    namespace of their own);
#  * control fields: version = debian/changelog = the programs' own version, the
#    architecture of this machine (or DEB_HOST_ARCH's, for a cross-built package), Depends from dpkg-shlibdeps (libudev1, libevdev2,
#    libcrypt1 ...) plus sysusers, nothing from a Swift toolchain;
#  * conffiles: /etc/pinpadd/pinpadd.conf only; it sets nothing (every key commented)
#    and lists every key `pinpadd --check-config` knows, with its default;
#  * pinpadd.conf(5) names every key with its default, its examples pass
#    --check-config, and man reports no warning for the three pages;
#  * the maintainer scripts: valid sh, systemd-sysusers before the socket starts, the
#    socket enabled and started, the services neither, udev reloaded and input devices
#    triggered, purge removes the state and codes file;
#  * the units as installed: no @PLACEHOLDER@ left, ExecStart= paths in the package;
#  * README's "Install on a device" commands all appear in the clean-system case, which
#    clean-system-debian13 and clean-system-arm64 run too;
#  * the licence: LICENSE is the Apache License 2.0 text, /usr/share/doc/pinpadd/copyright
#    is debian/copyright in DEP-5 form (Format:, a Files: * paragraph under Apache-2.0,
#    a licence text for every licence a Files: paragraph names), Package.swift and the C
#    shim carry SPDX-License-Identifier: Apache-2.0;
#  * lintian (when installed): no error (warnings are printed).
# What the package does on a real system is the QEMU case clean-system.
# A cross-built arm64 package is checked in the Debian 13 build root, where its programs
# run under qemu-user-static (binfmt) with the arm64 libraries installed multiarch:
#   tools/debian13.sh env DEB_HOST_ARCH=arm64 tests/package.sh pinpadd_VERSION_arm64.deb
# Usage: tests/package.sh PINPADD_DEB
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
deb=${1:?usage: tests/package.sh pinpadd_VERSION_ARCH.deb}
[[ -f $deb ]] || { echo "package: no $deb (make deb)" >&2; exit 69; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "package: FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "package: ok: $*"; }

# Units and rules: /lib in a package built on Debian 12, /usr/lib in one built on 13
# (merged /usr; the Makefile's LIBDIR). The check runs where the package was built.
libdir=lib
[[ $(cut -d. -f1 /etc/debian_version 2>/dev/null) -ge 13 ]] 2>/dev/null && libdir=usr/lib
dpkg-deb -x "$deb" "$work/root"
dpkg-deb -e "$deb" "$work/control"
field() { dpkg-deb -f "$deb" "$1"; }

# --- files ---------------------------------------------------------------------------
expected=(
  "drwxr-xr-x ./etc/pinpadd/"
  "-rw-r--r-- ./etc/pinpadd/pinpadd.conf"
  "-rw-r--r-- ./$libdir/udev/rules.d/70-pinpadd.rules"
  "-rwxr-xr-x ./usr/bin/pinpadctl"
  "-rwxr-xr-x ./usr/sbin/pinpadd"
  "-rw-r--r-- ./usr/lib/sysusers.d/pinpadd.conf"
  "-rw-r--r-- ./usr/share/doc/pinpadd/changelog.gz"
  "-rw-r--r-- ./usr/share/doc/pinpadd/copyright"
  "-rw-r--r-- ./usr/share/man/man1/pinpadctl.1.gz"
  "-rw-r--r-- ./usr/share/man/man5/pinpadd.conf.5.gz"
  "-rw-r--r-- ./usr/share/man/man8/pinpadd.8.gz"
  "-rw-r--r-- ./$libdir/systemd/system/pinpadd.service"
  "-rw-r--r-- ./$libdir/systemd/system/pinpadd.socket"
  "-rw-r--r-- ./$libdir/systemd/system/pinpadd-serve.service"
)
for unit in "$src"/systemd/*.service "$src"/systemd/*.socket; do
  expected+=("-rw-r--r-- ./$libdir/systemd/system/$(basename "$unit")")
done
# Every file and folder is root-owned; folders are the parents of the files above.
dpkg-deb -c "$deb" | awk '{ print $1, $2, $6 }' >"$work/listing"
if awk '$2 != "root/root"' "$work/listing" | grep -q .; then
  fail "files not owned by root: $(awk '$2 != "root/root"' "$work/listing" | tr '\n' ' ')"
fi
awk '$1 !~ /^d/ || $3 == "./etc/pinpadd/" { print $1, $3 }' "$work/listing" | sort -u >"$work/actual"
printf '%s\n' "${expected[@]}" | sort -u >"$work/expected"
if diff -u "$work/expected" "$work/actual"; then
  pass "files: $(wc -l <"$work/actual") as expected"
else
  fail "the package's files differ from the expected list (- expected, + in the package)"
fi

# --- binaries ------------------------------------------------------------------------
allowed='^(libmosquitto\.so\.1|libsqlite3\.so\.0|libudev\.so\.1|libevdev\.so\.2|libcrypt\.so\.1|libm\.so\.6|libz\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libc\.so\.6|ld-linux-.*\.so\.[0-9]+)$'
for bin in usr/sbin/pinpadd usr/bin/pinpadctl; do
  elf=$work/root/$bin
  dynamic=$(readelf -d "$elf")
  if grep -qE 'RUNPATH|RPATH' <<<"$dynamic"; then
    fail "$bin has a library search path: $(grep -E 'RUNPATH|RPATH' <<<"$dynamic")"
  fi
  grep -q 'BIND_NOW' <<<"$dynamic" || fail "$bin is not linked with -z now"
  needed=$(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$dynamic")
  others=$(grep -vE "$allowed" <<<"$needed" || true)
  [[ -z $others ]] || fail "$bin needs libraries outside Debian's base set: $others"
  grep -q swift <<<"$needed" && fail "$bin needs a Swift library: $needed"
  # The daemon never touches the network: the MQTT client library is pinpadctl's only.
  if [[ $bin == usr/sbin/pinpadd ]] && grep -qE 'mosquitto|ssl|crypto' <<<"$needed"; then
    fail "pinpadd links a network library: $needed"
  fi
  # The access log's database is the controller's: pinpadd never links SQLite.
  if [[ $bin == usr/sbin/pinpadd ]] && grep -q sqlite <<<"$needed"; then
    fail "pinpadd links libsqlite3: $needed"
  fi
  if [[ $bin == usr/bin/pinpadctl ]] && ! grep -q '^libsqlite3\.so\.0$' <<<"$needed"; then
    fail "pinpadctl does not link libsqlite3 (the access log): $needed"
  fi
  sections=$(readelf -S "$elf")
  if grep -qE '\.symtab|\.debug_info' <<<"$sections"; then
    fail "$bin is not stripped"
  fi
done
pass "binaries: stripped, no RUNPATH, BIND_NOW, needs only $(echo $needed | tr ' ' ',')"

# The programs run without the toolchain: a tmpfs hides every Swift toolchain there is
# (swift.org's /opt/swift, Debian 13's /usr/libexec/swift, the arm64 runtime).
hide='true'
for toolchain in /opt/swift /opt/swift-arm64 /usr/libexec/swift; do
  [[ -d $toolchain ]] && hide="$hide && mount -t tmpfs none $toolchain"
done
version_out=$(unshare -m sh -c "$hide && find /opt/swift /opt/swift-arm64 /usr/libexec/swift -mindepth 1 2>/dev/null | grep -c . ; '$work/root/usr/sbin/pinpadd' --version" 2>&1) ||
  fail "pinpadd --version with the Swift toolchains hidden: $version_out"
hidden_files=$(head -1 <<<"$version_out")
[[ $hidden_files == 0 ]] || fail "a Swift toolchain was not hidden ($hidden_files entries)"
daemon_version=$(tail -1 <<<"$version_out" | awk '{ print $NF }')
help_out=$(unshare -m sh -c "$hide && '$work/root/usr/bin/pinpadctl' --help" 2>&1) ||
  fail "pinpadctl --help with the Swift toolchains hidden: $help_out"
pass "programs run with the Swift toolchains hidden (pinpadd --version: $daemon_version)"

# sd_notify from the packaged (release) build: READY=1 reaches $NOTIFY_SOCKET. A static
# initialised wrongly in release builds once sent it to descriptor 0, and the packaged
# pinpadd.service stayed "activating" although the daemon had said it was ready.
notify_dir=$(mktemp -d)
printf 'E: 0.000000 0001 004f 0001\n' >"$notify_dir/r.evemu"
notify_out=$(python3 - "$notify_dir" "$work/root/usr/sbin/pinpadd" <<'PY'
import socket, subprocess, sys
d, prog = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(d + "/notify")
s.settimeout(20)
p = subprocess.Popen(
    [prog, "--config", "/dev/null", "--input", "replay:" + d + "/r.evemu", "--display",
     "none", "--socket", d + "/s.sock", "--state-dir", "none"],
    env={"NOTIFY_SOCKET": d + "/notify", "PATH": "/usr/bin:/bin"}, stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    print(s.recv(4096).decode(errors="replace").split("\n")[0])
except Exception as e:
    print("nothing (%s)" % e)
p.terminate()
p.wait()
PY
)
rm -rf "$notify_dir"
[[ $notify_out == READY=1 ]] && pass "the packaged pinpadd says READY=1 on \$NOTIFY_SOCKET" ||
  fail "the packaged pinpadd sent no READY=1 to NOTIFY_SOCKET (got: $notify_out)"

# --- control -------------------------------------------------------------------------
source_version=$(sed -n 's/^public let pinpaddVersion = "\(.*\)"$/\1/p' "$src/Sources/PinpadProgram/Version.swift")
changelog_version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
[[ $(field Package) == pinpadd ]] || fail "Package: $(field Package)"
[[ $(field Version) == "$changelog_version" ]] || fail "Version $(field Version), changelog $changelog_version"
[[ $(field Version) == "$source_version" ]] || fail "Version $(field Version), Options.swift $source_version"
[[ $daemon_version == "$source_version" ]] || fail "pinpadd --version says $daemon_version, not $source_version"
arch=${DEB_HOST_ARCH:-$(dpkg --print-architecture)}
[[ $(field Architecture) == "$arch" ]] || fail "Architecture: $(field Architecture), not $arch"
[[ $(basename "$deb") == "pinpadd_$(field Version)_$(field Architecture).deb" ]] ||
  fail "file name $(basename "$deb") is not pinpadd_VERSION_ARCH.deb"
depends=$(field Depends)
for lib in libc6 libudev1 libevdev2 libcrypt1 zlib1g libstdc++6 libgcc-s1; do
  grep -qE "(^|, )${lib//+/\\+}( |,|\$)" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
grep -qF 'systemd | systemd-standalone-sysusers' <<<"$depends" || fail "Depends lacks sysusers: $depends"
grep -qi swift <<<"$depends" && fail "Depends names Swift: $depends"
for f in Maintainer Installed-Size Section Priority Description; do
  [[ -n $(field $f) ]] || fail "no $f field"
done
pass "control: $(field Package) $(field Version) $(field Architecture), Installed-Size $(field Installed-Size) KiB, Depends: $depends"

# --- conffile ------------------------------------------------------------------------
conffiles=$(cat "$work/control/conffiles")
[[ $conffiles == /etc/pinpadd/pinpadd.conf ]] || fail "conffiles: $conffiles"
conf=$work/root/etc/pinpadd/pinpadd.conf
: >"$work/empty.conf"
pinpadd=$work/root/usr/sbin/pinpadd
# Every key as --check-config prints it, a [Keypad] section included so its keys show.
printf '[Keypad x]\n' >"$work/keypad.conf"
"$pinpadd" --check-config --config "$work/keypad.conf" |
  sed -n 's/^\(# \)\{0,1\}\([A-Za-z]*\)=\(.*\)$/\2=\3/p' | sed 's/ (default)$//' >"$work/keys"
[[ $(wc -l <"$work/keys") -ge 25 ]] || fail "only $(wc -l <"$work/keys") keys from --check-config"
grep -vE '^[[:space:]]*(#|;|\[|$)' "$conf" && fail "the conffile sets keys (every key must be commented)"
while IFS= read -r line; do
  grep -qxF "#$line" "$conf" || fail "conffile lacks '#$line'"
done <"$work/keys"
# Commented out, it is the defaults: the same effective configuration as no file.
if ! diff <("$pinpadd" --check-config --config "$conf") <("$pinpadd" --check-config --config "$work/empty.conf"); then
  fail "the conffile does not leave every key at its default"
fi
pass "conffile: /etc/pinpadd/pinpadd.conf, $(wc -l <"$work/keys") keys, all commented at their defaults"

# --- man pages -----------------------------------------------------------------------
man5=$src/man/pinpadd.conf.5
for section in Entry Lockout "Keypad NAME" Display Socket; do
  grep -qxF ".SH [$section]" "$man5" || fail "pinpadd.conf(5) has no section [$section]"
done
while IFS= read -r line; do
  grep -qxF ".B $line" "$man5" || fail "pinpadd.conf(5) lacks '.B $line'"
done <"$work/keys"
awk '/^\.nf/ { n++; on = 1; next } /^\.fi/ { on = 0; next } on { print > (dir "/example" n ".conf") }' \
  dir="$work" "$man5"
examples=0
for example in "$work"/example*.conf; do
  sed -i 's/\\-/-/g' "$example"
  out=$("$pinpadd" --check-config --config "$example" 2>&1) || fail "pinpadd.conf(5) example: $out"
  examples=$((examples + 1))
done
[[ $examples -ge 2 ]] || fail "pinpadd.conf(5) has $examples examples"
for page in "$work"/root/usr/share/man/man*/*.gz; do
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  [[ -z $warnings ]] || fail "man $(basename "$page"): $warnings"
done
pass "man pages: pinpadd.conf(5) has every key and $examples examples that check clean; no man warnings"

# --- maintainer scripts --------------------------------------------------------------
for script in preinst postinst prerm postrm; do
  [[ -f $work/control/$script ]] || continue
  sh -n "$work/control/$script" || fail "$script is not valid sh"
done
postinst=$work/control/postinst
line_of() { grep -nF -- "$1" "$2" | head -1 | cut -d: -f1; }
sysusers=$(line_of 'systemd-sysusers ${DPKG_ROOT:+--root="$DPKG_ROOT"} pinpadd.conf' "$postinst")
start=$(line_of "deb-systemd-invoke \$_dh_action 'pinpadd.socket'" "$postinst")
[[ -n $sysusers ]] || fail "postinst does not run systemd-sysusers pinpadd.conf"
[[ -n $start ]] || fail "postinst does not start pinpadd.socket"
[[ -n $sysusers && -n $start && $sysusers -lt $start ]] || fail "postinst starts the socket before sysusers"
grep -qF "deb-systemd-helper enable 'pinpadd.socket'" "$postinst" || fail "postinst does not enable the socket"
grep -qE "deb-systemd-invoke .*'pinpadd(-serve)?\.service'" "$postinst" && fail "postinst starts a service"
grep -qF 'udevadm control --reload' "$postinst" || fail "postinst does not reload udev"
grep -qF 'udevadm trigger --subsystem-match=input --action=change' "$postinst" || fail "postinst does not trigger input devices"
grep -qF 'udevadm trigger --subsystem-match=input --tag-match=pinpadd --action=add' "$work/control/postrm" ||
  fail "postrm does not give tagged devices their default group back"
grep -qF 'rm -rf /var/lib/pinpadd' "$work/control/postrm" || fail "postrm purge keeps /var/lib/pinpadd"
grep -qF 'rm -f /etc/pinpadd/codes' "$work/control/postrm" || fail "postrm purge keeps the codes file"
grep -qF 'rm -rf /etc/pinpadd/controller' "$work/control/postrm" || fail "postrm purge keeps the fleet controller's files"
grep -qF 'install -d -m 0750 -o root -g pinpadd-controller /etc/pinpadd/controller' "$postinst" ||
  fail "postinst does not make the fleet controller's folder"
grep -qF "deb-systemd-helper purge" "$work/control/postrm" || fail "postrm does not purge the units' state"
grep -qF "deb-systemd-invoke stop 'pinpadd.socket'" "$work/control/prerm" || fail "prerm does not stop the socket"
pass "maintainer scripts: sysusers, enable + start of the socket only, udev reload + trigger, purge"

# --- units as installed --------------------------------------------------------------
for unit in "$work"/root/$libdir/systemd/system/*; do
  grep -q '@[A-Z]*@' "$unit" && fail "$(basename "$unit") keeps a placeholder"
  for exe in $(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit"); do
    [[ -x $work/root$exe ]] || fail "$(basename "$unit"): ExecStart=$exe is not in the package"
  done
done
pass "units: placeholders filled, ExecStart= programs shipped"

# --- README ------------------------------------------------------------------------
# "Install on a device" promises the commands the QEMU case clean-system runs.
case_file=$src/tests/system/cases/clean-system.sh
commands=$(sed -n '/^## Install on a device/,/^### /p' "$src/README.md" | sed -n 's/^    //p' |
  sed 's/  *# .*$//')
[[ $(wc -l <<<"$commands") -ge 8 ]] || fail "README's install section has only $(wc -l <<<"$commands") command lines"
while IFS= read -r command; do
  grep -qF -- "$command" "$case_file" || fail "README command not run by clean-system: $command"
done <<<"$commands"
# ... on each system README names: Debian 13 amd64 and arm64 run clean-system's script.
for other in clean-system-debian13 clean-system-arm64; do
  grep -qx '# rig-same-as: clean-system' "$src/tests/system/cases/$other.sh" ||
    fail "case $other does not run clean-system's commands"
done
pass "README: $(wc -l <<<"$commands") install command lines, all run by the clean-system cases (Debian 12, 13, arm64)"

# --- licence -----------------------------------------------------------------------
# The Apache License 2.0 as published (LICENSE-2.0.txt; Debian ships the same text).
apache_sha256=cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30
[[ $(sha256sum <"$src/LICENSE" | cut -d' ' -f1) == "$apache_sha256" ]] ||
  fail "LICENSE is not the Apache License 2.0 text"
copyright=$work/root/usr/share/doc/pinpadd/copyright
cmp -s "$copyright" "$src/debian/copyright" || fail "the package's copyright is not debian/copyright"
dep5=$(awk '
  NR == 1 && $0 != "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" {
    print "first line is not the DEP-5 Format: URL"; bad = 1 }
  /^$/ { files = ""; next }
  /^Files: / { files = substr($0, 8) }
  /^Copyright: / && files != "" { copyright[files] = 1 }
  /^License: / {
    name = substr($0, 10)
    if (files != "") { used[name] = files } else { text[name] = 1 }
    if (files == "*") { star = name }
  }
  END {
    if (star != "Apache-2.0") { print "no Files: * paragraph under License: Apache-2.0"; bad = 1 }
    if (!copyright["*"]) { print "Files: * has no Copyright:"; bad = 1 }
    for (name in used) if (!text[name]) { print "no licence text for " name; bad = 1 }
    exit bad
  }' "$copyright") || fail "copyright is not valid DEP-5: $dep5"
for file in "$src/Package.swift" "$src"/Sources/CPinpadShim/*.c "$src"/Sources/CPinpadShim/include/*.h; do
  grep -q 'SPDX-License-Identifier: Apache-2.0' "$file" || fail "${file#"$src/"} has no SPDX line"
done
pass "licence: LICENSE is Apache-2.0, copyright in DEP-5 form, SPDX lines present"

# --- lintian -------------------------------------------------------------------------
if command -v lintian >/dev/null; then
  report=$(lintian "$deb" 2>&1 | grep -v '^running with root privileges' || true)
  [[ -n $report ]] && echo "$report"
  errors=$(grep -c '^E:' <<<"$report" || true)
  warnings=$(grep -c '^W:' <<<"$report" || true)
  [[ $errors == 0 ]] || fail "lintian: $errors errors"
  pass "lintian: $errors errors, $warnings warnings"
else
  echo "package: lintian not installed, not run"
fi

if [[ $failures -gt 0 ]]; then
  echo "package: $failures checks FAILED" >&2
  exit 1
fi
echo "package: all checks passed"
