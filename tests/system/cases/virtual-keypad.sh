# A uinput numeric keypad (lib/uinput.py): virtual devices are not keypads by default
# nor tagged by the udev rules, become one when a Match= token names them, and their
# keys are read through EvdevDevice with the times the kernel gave them.
. "$RIG_LIB/guest.sh"
rig_install_rules
rig_start_udevd
ready=$RIG_SCRATCH/keypad-ready
python3 "$RIG_LIB/uinput.py" keypad "Pinpad Test Keypad" 30 "$ready" \
  "wait=$RIG_SCRATCH/reading KP1 KP2 KP3 KP4 KPENTER" &
keypad=$!
rig_wait_for_node "$ready" 20
udevadm settle
node=$(rig_node_of "Pinpad Test Keypad") || rig_fail "no uinput keypad"
udevadm info "$node" | grep -E "ID_INPUT|TAGS|DEVPATH"
udevadm info "$node" | grep -q "E: DEVPATH=/devices/virtual/input/" || rig_fail "not virtual"
udevadm info "$node" | grep -q ":pinpadd:" && rig_fail "the rules tagged a virtual device"

"$RIG_PROBE" list | tee "$RIG_SCRATCH/list-default.txt"
grep -qP "^$node\tPinpad Test Keypad\t1209:0001\t-\tyes\t-$" "$RIG_SCRATCH/list-default.txt" ||
  rig_fail "a virtual keypad must not be keypad default"
"$RIG_PROBE" list "Pinpad?Test*" | tee "$RIG_SCRATCH/list-matched.txt"
grep -qP "^$node\t.*\tyes\ttest$" "$RIG_SCRATCH/list-matched.txt" || rig_fail "Match= did not name it"
"$RIG_PROBE" list "usb:1209:0001" | grep -qP "^$node\t.*\tyes\ttest$" || rig_fail "usb: match"

"$RIG_PROBE" read "$node" 4 grab >"$RIG_SCRATCH/read.txt" 2>&1 &
reader=$!
until grep -q "grab" "$RIG_SCRATCH/read.txt" 2>/dev/null; do rig_nap 0.05; done
: >"$RIG_SCRATCH/reading"
wait $reader || { cat "$RIG_SCRATCH/read.txt"; rig_fail "reader"; }
cat "$RIG_SCRATCH/read.txt"
[ "$(grep -c 'key KEY_KP[1-4] 1' "$RIG_SCRATCH/read.txt")" = 4 ] || rig_fail "not 4 presses"
grep -q "opened .*virtual=true" "$RIG_SCRATCH/read.txt" || rig_fail "EvdevDevice without udev missed the sysfs path"
kill $keypad 2>/dev/null
rig_log "PASS"
