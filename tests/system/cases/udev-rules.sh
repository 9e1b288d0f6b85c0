# udev-rules/70-pinpadd.rules on systemd's udevd: a full keyboard is left alone; the
# documented site rule (vendor/product -> PINPADD_KEYPAD=door) tags the QEMU USB
# keyboard, gives it group pinpadd mode 0660 and LIBINPUT_IGNORE_DEVICE=1, and pinpadd's
# enumeration and --list-devices put it on keypad "door". Also checks the rules parse.
. "$RIG_LIB/guest.sh"
groupadd -r pinpadd || rig_fail "groupadd"
rig_install_rules
# The site rule exactly as documented in the rules file, with the QEMU keyboard's ids.
sed -n 's/^#   \(SUBSYSTEM==.*PINPADD_KEYPAD.*\)$/\1/p' udev-rules/70-pinpadd.rules |
  sed 's/"1234"/"0627"/; s/"5678"/"0001"/' >/etc/udev/rules.d/69-pinpadd-local.rules
cat /etc/udev/rules.d/69-pinpadd-local.rules
[ -s /etc/udev/rules.d/69-pinpadd-local.rules ] || rig_fail "no example site rule in the file"
rig_start_udevd

usb=$(rig_node_of "QEMU USB Keyboard") || rig_fail "no USB keyboard"
at=$(rig_node_of "AT Translated") || rig_fail "no AT keyboard"
udevadm info "$usb"
info=$(udevadm info "$usb")
echo "$info" | grep -q "E: PINPADD_KEYPAD=door" || rig_fail "no PINPADD_KEYPAD=door"
echo "$info" | grep -q "E: LIBINPUT_IGNORE_DEVICE=1" || rig_fail "no LIBINPUT_IGNORE_DEVICE"
echo "$info" | grep -qE "E: (CURRENT_)?TAGS=.*:pinpadd:" || rig_fail "not tagged pinpadd"
[ "$(stat -c %G:%a "$usb")" = "pinpadd:660" ] || rig_fail "owner/mode $(stat -c %G:%a "$usb")"
udevadm info "$at" | grep -q "pinpadd" && rig_fail "a full keyboard was tagged"
[ "$(stat -c %G "$at")" = "input" ] || rig_fail "AT keyboard group changed: $(stat -c %G "$at")"

"$RIG_PROBE" list | tee "$RIG_SCRATCH/list.txt"
grep -qP "^$usb\t.*\t0627:0001\t.*\tyes\tdoor$" "$RIG_SCRATCH/list.txt" || rig_fail "not listed as door"

# Rule syntax: udevadm test reports parse problems per file and line.
udevadm test "/sys/class/input/$(basename "$usb")" >"$RIG_SCRATCH/udevadm-test.txt" 2>&1 || true
grep -E "70-pinpadd.rules|69-pinpadd" "$RIG_SCRATCH/udevadm-test.txt"
if grep -iE "pinpadd.rules:[0-9]+.*(invalid|unknown|error|ignoring)" "$RIG_SCRATCH/udevadm-test.txt"; then
  rig_fail "udevadm test complains about the rules"
fi
command -v udevadm >/dev/null && udevadm verify --help >/dev/null 2>&1 &&
  { udevadm verify udev-rules/70-pinpadd.rules || rig_fail "udevadm verify"; }
rig_log "PASS"
