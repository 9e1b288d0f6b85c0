# EvdevDevice against the real kernel's evdev, where the unit tests' pipe cannot go:
#  1. a key held down when the device is opened is not a press, not even its release,
#     and the grab waits until it is up (EVIOCGKEY + libevdev state), retried only when
#     the device has events (its autorepeats), never in a loop;
#  2. a kernel queue overflow (SYN_DROPPED) is reported as dropped, libevdev resyncs,
#     and keys typed afterwards are read normally.
# Host side: evdev-kernel.host.py.
. "$RIG_LIB/guest.sh"
rig_start_udevd
kbd=$(rig_node_of "QEMU USB Keyboard") || rig_fail "no USB keyboard"

rig_signal hold
rig_wait held
sleep 1  # the press has reached the guest; the key stays down ~9 s more, room for a
# slow probe start on a loaded host
"$RIG_PROBE" watch "$kbd" 16 grab >"$RIG_SCRATCH/held.txt" 2>&1 &
watcher=$!
until grep -q "grab" "$RIG_SCRATCH/held.txt" 2>/dev/null; do sleep 0.05; done
rig_signal opened
wait $watcher || rig_fail "watch failed"
cat "$RIG_SCRATCH/held.txt"
grep -q "down=\[KEY_KP7\]" "$RIG_SCRATCH/held.txt" || rig_fail "KP7 was not down at open"
grep -q "grab notYet" "$RIG_SCRATCH/held.txt" || rig_fail "grabbed while KP7 was down"
grep -q "key KEY_KP7" "$RIG_SCRATCH/held.txt" && rig_fail "held KP7 leaked an event"
# QEMU queues send-key events, so KP8 arrives after KP7's release: it must be read.
grep -q "key KEY_KP8 1" "$RIG_SCRATCH/held.txt" || rig_fail "KP8 typed afterwards was lost"
grep -q "grab grabbed" "$RIG_SCRATCH/held.txt" || rig_fail "never grabbed after KP7 went up"

"$RIG_PROBE" watch "$kbd" 25 after="$RIG_SCRATCH/host-flooded" >"$RIG_SCRATCH/flood.txt" 2>&1 &
watcher=$!
until grep -q "opened" "$RIG_SCRATCH/flood.txt" 2>/dev/null; do sleep 0.05; done
rig_signal flood
until grep -q "key KEY_KP9 0" "$RIG_SCRATCH/flood.txt"; do
  kill -0 $watcher 2>/dev/null || { cat "$RIG_SCRATCH/flood.txt"; rig_fail "no KP9 after the flood"; }
  sleep 0.1
done
kill $watcher
grep -v "key KEY_KP[0-6]" "$RIG_SCRATCH/flood.txt"
echo "keys read during the flood: $(grep -c 'key KEY_KP[0-6] 1' "$RIG_SCRATCH/flood.txt")"
grep -q "dropped" "$RIG_SCRATCH/flood.txt" || rig_fail "no SYN_DROPPED reported"
sed -n '/dropped/,$p' "$RIG_SCRATCH/flood.txt" | grep -q "key KEY_KP9 1" ||
  rig_fail "KP9 after the drop not read"
rig_log "PASS"
