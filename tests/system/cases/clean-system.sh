# rig-timeout: 1800
# rig-boot: clean
# The Debian packages (pinpadd, pinpadctl) on a clean Debian 12 (mmdebstrap minbase +
# systemd-sysv, udev; no Swift toolchain), booted with its own systemd as PID 1 (lib/clean-root.sh,
# lib/boot-clean.sh). The commands are those of README's "Install on a device":
#  setup (chroot on the host): apt-get install ./pinpadd_*.deb ./pinpadctl_*.deb pulls
#  their dependencies;
#  boot: the users exist, pinpadd.socket is enabled and listening, the service is not
#  running until the first connection starts it; no /opt/swift, no swift;
#  a site udev rule plus a reinstall: the postinst reloads udev and re-triggers input
#  devices, so the USB keyboard becomes keypad "door" (tag pinpadd, group pinpadd);
#  door setup: a codes file (root:pinpadd-serve 0640, unreadable to others), the key
#  the first hash makes beside it (the same), and pinpadd-serve.service; a PIN typed over QMP on the USB keyboard arrives at
#  `pinpadctl listen` from keypad door and the reference controller grants it; no
#  digit of it in the journal;
#  dpkg --purge pinpadctl pinpadd: services and socket stopped, keyboard back to group
#  input, and no file of the packages, no unit link, no state, no /etc/pinpadd left.
# Host side: clean-system.host.py.
# The PIN typed by the host driver (7 digits: not found by chance in a log line).
pin=8642097

if [ "${1:-}" = setup ]; then
  # In a chroot of the clean root on the host, cwd /root where the .deb is.
  set -e
  [ ! -e /opt/swift ] || { echo "clean-system: /opt/swift exists in the clean root"; exit 1; }
  apt-get update
  apt-get install -y ./pinpadd_*.deb ./pinpadctl_*.deb
  dpkg -s pinpadd pinpadctl | grep -E '^(Package|Status|Version|Depends):'
  exit 0
fi

. "$RIG_LIB/guest.sh"
# How long a wait for a condition may last: generous, for the emulated arm64 guest on a
# loaded host (each wait ends as soon as its condition holds).
limit=300
export SYSTEMD_PAGER=cat PAGER=cat SYSTEMD_COLORS=0
rig_log "case started under the clean root's systemd, $(systemctl is-system-running 2>&1)"
echo "case_started_at=$(rig_now)" >>"$RIG_SCRATCH/timings"
[ "$(cat /proc/1/comm)" = systemd ] || rig_fail "PID 1 is $(cat /proc/1/comm), not systemd"
prop() { systemctl show -P "$2" "$1"; }
dump() { journalctl -b --no-pager -u pinpadd -u pinpadd-serve -u pinpadd.socket | tail -40; }

# --- a clean system -----------------------------------------------------------------
[ ! -e /opt/swift ] || rig_fail "/opt/swift exists"
command -v swift >/dev/null && rig_fail "a swift toolchain is on PATH"
for package in pinpadd pinpadctl; do
  [ "$(dpkg-query -W -f '${Status}' $package)" = "install ok installed" ] || rig_fail "$package is not installed"
done
pinpadd --version || rig_fail "pinpadd --version"

# --- what the package set up --------------------------------------------------------
id pinpadd || rig_fail "no user pinpadd"
id pinpadd-serve || rig_fail "no user pinpadd-serve"
id -nG pinpadd-serve | tr ' ' '\n' | grep -qx pinpadd || rig_fail "pinpadd-serve is not in group pinpadd"
[ "$(stat -c %U:%G:%a /etc/pinpadd/codes)" = root:pinpadd-serve:640 ] ||
  rig_fail "/etc/pinpadd/codes is $(stat -c %U:%G:%a /etc/pinpadd/codes)"
# Issue 24.8: the daemon reads tagged devices only; 24.2: the fleet controller's user,
# in no group of the daemon's, and its folder with an empty codes file and a key.
id -nG pinpadd | tr ' ' '\n' | grep -qx input && rig_fail "pinpadd is in group input"
[ "$(id -nG pinpadd-controller)" = pinpadd-controller ] ||
  rig_fail "pinpadd-controller is in groups $(id -nG pinpadd-controller)"
[ "$(stat -c %U:%G:%a /etc/pinpadd/controller)" = root:pinpadd-controller:750 ] ||
  rig_fail "/etc/pinpadd/controller is $(stat -c %U:%G:%a /etc/pinpadd/controller)"
for f in codes codes.key; do
  [ "$(stat -c %U:%G:%a /etc/pinpadd/controller/$f)" = root:pinpadd-controller:640 ] ||
    rig_fail "/etc/pinpadd/controller/$f is $(stat -c %U:%G:%a /etc/pinpadd/controller/$f)"
done
grep -qxE '[0-9a-f]{64}' /etc/pinpadd/controller/codes.key || rig_fail "codes.key holds no key"
[ "$(systemctl is-enabled pinpadd-controller.service)" = disabled ] ||
  rig_fail "pinpadd-controller is $(systemctl is-enabled pinpadd-controller.service)"
systemctl status --no-pager pinpadd.socket || rig_fail "systemctl status pinpadd.socket"
[ "$(systemctl is-enabled pinpadd.socket)" = enabled ] || rig_fail "pinpadd.socket not enabled"
[ "$(systemctl is-active pinpadd.socket)" = active ] || rig_fail "pinpadd.socket not active"
[ "$(systemctl is-enabled pinpadd.service)" = disabled ] || rig_fail "pinpadd.service is $(systemctl is-enabled pinpadd.service)"
[ "$(systemctl is-enabled pinpadd-serve.service)" = disabled ] || rig_fail "pinpadd-serve is $(systemctl is-enabled pinpadd-serve.service)"
[ "$(systemctl is-active pinpadd.service)" = inactive ] || rig_fail "pinpadd.service started before a connection"
sock=/run/pinpadd/pinpadd.sock
[ "$(stat -c %a:%U:%G $sock)" = 660:root:pinpadd ] || rig_fail "$sock is $(stat -c %a:%U:%G $sock)"
pinpadd --check-config >/dev/null || rig_fail "the shipped configuration does not check"

# --- the first connection starts the packaged service --------------------------------
t0=$(rig_now)
status=$(timeout $limit pinpadctl status) || { dump; rig_fail "pinpadctl status: $status"; }
rig_measure socket_activation_status "$t0"
echo "$status"
[ "$(prop pinpadd ActiveState)/$(prop pinpadd SubState)" = active/running ] ||
  { dump; rig_fail "pinpadd is $(prop pinpadd ActiveState)/$(prop pinpadd SubState)"; }
pid=$(prop pinpadd MainPID)
[ "$(stat -c %U /proc/"$pid")" = pinpadd ] || rig_fail "pinpadd runs as $(stat -c %U /proc/"$pid")"
grep -E '^(VmRSS|VmLck):' /proc/"$pid"/status
echo "idle_rss_kib=$(awk '/^VmRSS:/ { print $2 }' /proc/"$pid"/status)" >>"$RIG_SCRATCH/timings"

# --- configure: a site udev rule, applied by the package's postinst ------------------
usb=$(rig_node_of "QEMU USB Keyboard") || rig_fail "no USB keyboard"
# The boot's coldplug may still be on its way (the emulated arm64 guest starts the case
# before udevd has handled the keyboard): wait until udevd has.
udevadm wait --timeout=$limit "$usb" || rig_fail "udevd never initialised $usb"
[ "$(stat -c %G "$usb")" = input ] || rig_fail "$usb is group $(stat -c %G "$usb") before the site rule"
cat >/etc/udev/rules.d/69-door-keypad.rules <<'EOT'
SUBSYSTEM=="input", KERNEL=="event*", ATTRS{id/vendor}=="0627", ATTRS{id/product}=="0001", ENV{PINPADD_KEYPAD}="door"
EOT
t0=$(rig_now)
dpkg -i ./pinpadd_*.deb || rig_fail "reinstall"
rig_measure reinstall "$t0"
udevadm settle --timeout=$limit || rig_fail "udevadm settle"
udevadm info "$usb" | grep -E "PINPADD|TAGS|LIBINPUT"
udevadm info "$usb" | grep -q "E: PINPADD_KEYPAD=door" || rig_fail "the postinst did not re-trigger udev"
[ "$(stat -c %G:%a "$usb")" = pinpadd:660 ] || rig_fail "$usb is $(stat -c %G:%a "$usb") after the reinstall"
# README's way to apply a rule without reinstalling (the same as the postinst's).
udevadm control --reload && udevadm trigger --subsystem-match=input --action=change
udevadm settle --timeout=$limit || rig_fail "udevadm settle"
pinpadd --list-devices | grep -P '\tQEMU QEMU USB Keyboard\t.*\tdoor$' || rig_fail "--list-devices: not keypad door"
pinpadd --check-config >/dev/null || rig_fail "pinpadd --check-config"

# --- the door: codes file, reference controller, a PIN over QMP ----------------------
t0=$(rig_now)
echo "$pin" | pinpadctl hash alice >>/etc/pinpadd/codes
rig_measure hash "$t0"
[ "$(stat -c %U:%G:%a /etc/pinpadd/codes)" = root:pinpadd-serve:640 ] || rig_fail "codes file mode changed"
# The first hash made the key beside the codes file, as the codes file is (issue 24).
[ "$(stat -c %U:%G:%a /etc/pinpadd/codes.key)" = root:pinpadd-serve:640 ] ||
  rig_fail "/etc/pinpadd/codes.key is $(stat -c %U:%G:%a /etc/pinpadd/codes.key 2>&1)"
grep -q '^alice:\$y\$[^:]*:tag=' /etc/pinpadd/codes || rig_fail "alice's line has no tag"
command -v setpriv >/dev/null || rig_fail "no setpriv"
setpriv --reuid=nobody --regid=nogroup --clear-groups cat /etc/pinpadd/codes 2>/dev/null &&
  rig_fail "user nobody can read the codes file"
grep -c '^alice:\$y\$' /etc/pinpadd/codes || rig_fail "no yescrypt line for alice"
t0=$(rig_now)
systemctl enable --now pinpadd-serve || rig_fail "systemctl enable --now pinpadd-serve"
rig_measure enable_serve "$t0"
events=$RIG_SCRATCH/events.txt
pinpadctl listen >"$events" &
listener=$!
# serve, listen and the status request itself.
deadline=$((SECONDS + limit))
until pinpadctl status | grep -q '"clients":3'; do
  kill -0 $listener 2>/dev/null || rig_fail "pinpadctl listen ended"
  [ "$SECONDS" -ge "$deadline" ] && { pinpadctl status; dump; rig_fail "serve never connected"; }
  rig_nap 0.2
done
[ "$(prop pinpadd-serve ActiveState)" = active ] || rig_fail "pinpadd-serve not active"
[ "$(stat -c %U /proc/"$(prop pinpadd-serve MainPID)")" = pinpadd-serve ] || rig_fail "serve's user"
t0=$(rig_now)
rig_signal ready # host: the PIN and Enter on the USB keyboard
deadline=$((SECONDS + limit))
until grep -q '"result":"granted"' "$events"; do
  [ "$SECONDS" -ge "$deadline" ] && { cat "$events"; dump; rig_fail "no granted verdict"; }
  rig_nap 0.05
done
rig_measure typed_to_granted "$t0"
kill $listener
cat "$events"
grep "\"code\":\"$pin\"" "$events" | grep -q '"keypad":"door"' || rig_fail "the code did not come from keypad door"
journalctl -b -o cat -u pinpadd -u pinpadd-serve --no-pager | tail -15
journalctl -b -o cat -u pinpadd -u pinpadd-serve --no-pager | grep -q "alice" ||
  rig_fail "serve did not log the grant"
journalctl -b -o cat --no-pager | rig_scrubbed | grep -F "$pin" && rig_fail "the PIN is in the journal"

# --- purge ---------------------------------------------------------------------------
dpkg-query -L pinpadd pinpadctl | sort -u >"$RIG_SCRATCH/package-files"
# Every path named *pinpadd*, but the downloaded .deb and the rig's scratch mount point.
owned() {
  find / -xdev -path "${RIG_SCRATCH%/*}" -prune -o -name '*pinpadd*' ! -path '/root/pinpadd_*.deb' -print 2>/dev/null | sort
}
owned >"$RIG_SCRATCH/before-purge"
grep -q /var/lib/pinpadd "$RIG_SCRATCH/before-purge" || rig_fail "no state folder before the purge (a blind check)"
t0=$(rig_now)
dpkg --remove pinpadctl pinpadd || rig_fail "dpkg --remove pinpadctl pinpadd"
rig_measure remove "$t0"
udevadm settle --timeout=$limit || rig_fail "udevadm settle"
if [ "$(stat -c %G "$usb")" != input ]; then
  ls -l "$usb"; udevadm info "$usb"; ls /lib/udev/rules.d | grep pinpadd
  journalctl -b -o short-monotonic --no-pager | tail -40
  rig_fail "$usb is group $(stat -c %G "$usb") after the remove (no udev trigger?)"
fi
t0=$(rig_now)
dpkg --purge pinpadctl pinpadd || rig_fail "dpkg --purge pinpadctl pinpadd"
rig_measure purge "$t0"
for unit in pinpadd.socket pinpadd.service pinpadd-serve.service pinpadd-controller.service; do
  [ "$(prop $unit ActiveState)" = inactive ] || rig_fail "$unit is $(prop $unit ActiveState) after the purge"
  [ "$(prop $unit LoadState)" = not-found ] || rig_fail "$unit is $(prop $unit LoadState) after the purge"
done
for comm in /proc/[0-9]*/comm; do
  case $(cat "$comm" 2>/dev/null) in pinpadd | pinpadctl) rig_fail "a pinpadd process is left: $comm" ;; esac
done
# (TAGS keeps every tag a device ever had; CURRENT_TAGS is what the rules gave now.)
udevadm info "$usb" | grep -q "CURRENT_TAGS=.*:pinpadd:" && rig_fail "$usb is still tagged pinpadd"
left=$(owned)
[ -z "$left" ] || rig_fail "left after the purge: $left"
while read -r file; do
  [ -d "$file" ] && continue # shared folders (/usr/bin ...) stay
  [ -e "$file" ] || [ -L "$file" ] && rig_fail "left after the purge: $file"
done <"$RIG_SCRATCH/package-files"
[ ! -e /run/pinpadd ] || rig_fail "/run/pinpadd left"
ls /var/lib/systemd/deb-systemd-helper-enabled /etc/systemd/system/*.wants 2>/dev/null | grep pinpadd &&
  rig_fail "unit state left"
dpkg-query -W pinpadd 2>/dev/null && rig_fail "dpkg still knows pinpadd"
dpkg-query -W pinpadctl 2>/dev/null && rig_fail "dpkg still knows pinpadctl"
rig_log "purged: $(wc -l <"$RIG_SCRATCH/package-files") package paths, $(wc -l <"$RIG_SCRATCH/before-purge") named *pinpadd* before, none after; users kept: $(getent passwd pinpadd pinpadd-serve | cut -d: -f1 | tr '\n' ' ')"
exit 0
