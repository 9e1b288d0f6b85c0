# The rig itself: udev in the guest, the QEMU USB keyboard found through pinpadd's own
# udev enumeration with ID_INPUT_KEY, listed as a keypad, and a QMP send-key of kp_1
# read as KEY_KP1 by EvdevDevice (grabbed). Host side: rig-smoke.host.py.
. "$RIG_LIB/guest.sh"
rig_start_udevd
kbd=$(rig_node_of "QEMU USB Keyboard") || rig_fail "no QEMU USB keyboard"
rig_log "keyboard at $kbd"
udevadm info "$kbd" | grep -q "ID_INPUT_KEY=1" || rig_fail "udev did not set ID_INPUT_KEY"

start=$(rig_now)
"$RIG_PROBE" enumerate | tee "$RIG_SCRATCH/enumerate.txt"
rig_measure discovery_enumerate "$start"
grep -q "id=0627:0001 .*digits=true.*ID_INPUT_KEY=1" "$RIG_SCRATCH/enumerate.txt" ||
  rig_fail "UdevMonitor.enumerate did not find 0627:0001 with ID_INPUT_KEY=1"

"$RIG_PROBE" list | tee "$RIG_SCRATCH/list.txt"
grep -qP "^$kbd\tQEMU QEMU USB Keyboard\t0627:0001\t.+\tyes\tdefault$" "$RIG_SCRATCH/list.txt" ||
  rig_fail "--list-devices line for the keyboard is wrong"

# The real command, once the daemon has it wired: the same input lines as the probe's
# (its "# GPIO chips" and "# DRM connectors" sections after them are not the probe's).
if [ -x $RIG_BIN/pinpadd ] &&
  $RIG_BIN/pinpadd --list-devices >"$RIG_SCRATCH/pinpadd-list.txt" 2>&1 &&
  grep -qP "^/dev/input/event[0-9]+\t" "$RIG_SCRATCH/pinpadd-list.txt"; then
  sed -n '/^# /q;p' "$RIG_SCRATCH/pinpadd-list.txt" >"$RIG_SCRATCH/pinpadd-inputs.txt"
  diff "$RIG_SCRATCH/list.txt" "$RIG_SCRATCH/pinpadd-inputs.txt" ||
    rig_fail "pinpadd --list-devices differs from the probe's list"
  rig_log "pinpadd --list-devices matches"
else
  rig_log "pinpadd --list-devices not wired yet: skipped"
fi

start=$(rig_now)
"$RIG_PROBE" read "$kbd" 1 grab >"$RIG_SCRATCH/read.txt" 2>&1 &
reader=$!
rig_wait_for_node "$RIG_SCRATCH/read.txt"
until grep -q "grab" "$RIG_SCRATCH/read.txt"; do rig_nap 0.05; done
rig_measure open_and_grab "$start"
rig_signal ready
start=$(rig_now)
wait $reader || { cat "$RIG_SCRATCH/read.txt"; rig_fail "reader failed"; }
rig_measure send_key_to_event "$start"
cat "$RIG_SCRATCH/read.txt"
grep -q "grab grabbed" "$RIG_SCRATCH/read.txt" || rig_fail "not grabbed"
grep -q "key KEY_KP1 1" "$RIG_SCRATCH/read.txt" || rig_fail "no KEY_KP1 press"
rig_log "PASS"
