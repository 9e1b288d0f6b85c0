# rig-keyboards: 2
# The rig's two-keyboard mode: USB keyboards on xHCI ports 1 and 2, each bound to a
# display head of its own, have phys paths ending -1/input0 and -2/input0, Match= by
# phys glob tells them apart, and QMP input-send-event aimed at one head reaches that
# keyboard's event node only; keys aimed at no head (send-key, input-send-event
# without a device) reach the AT keyboard.
# Host side: two-keyboards.host.py.
. "$RIG_LIB/guest.sh"
rig_start_udevd
k1=$(rig_node_of_phys "usb-*-1/input0") || rig_fail "no keyboard on USB port 1"
k2=$(rig_node_of_phys "usb-*-2/input0") || rig_fail "no keyboard on USB port 2"
at=$(rig_node_of "AT Translated Set 2 keyboard") || rig_fail "no AT keyboard"
[ "$k1" != "$k2" ] || rig_fail "both phys globs gave $k1"
for node in $k1 $k2; do
  rig_log "$node: $(cat /sys/class/input/"${node#/dev/input/}"/device/phys)"
done

"$RIG_PROBE" list "phys:usb-*-1/input0" | tee "$RIG_SCRATCH/list.txt"
grep -qP "^$k1\tQEMU QEMU USB Keyboard\t0627:0001\tusb-[^\t]*-1/input0\tyes\ttest$" "$RIG_SCRATCH/list.txt" ||
  rig_fail "keyboard 1 is not keypad test by its phys"
grep -qP "^$k2\tQEMU QEMU USB Keyboard\t0627:0001\tusb-[^\t]*-2/input0\tyes\t-$" "$RIG_SCRATCH/list.txt" ||
  rig_fail "keyboard 2 matched the phys glob of keyboard 1"

# Each watcher stops at its own terminator: KP9's release on the USB keyboards (the
# host sends it last to each), KP5's on the AT keyboard.
"$RIG_PROBE" watch "$k1" 120 grab until=KEY_KP9:0 >"$RIG_SCRATCH/k1.txt" 2>&1 &
w1=$!
"$RIG_PROBE" watch "$k2" 120 grab until=KEY_KP9:0 >"$RIG_SCRATCH/k2.txt" 2>&1 &
w2=$!
"$RIG_PROBE" watch "$at" 120 grab until=KEY_KP5:0 >"$RIG_SCRATCH/at.txt" 2>&1 &
w3=$!
for f in k1 k2 at; do
  until grep -q "grab grabbed" "$RIG_SCRATCH/$f.txt" 2>/dev/null; do
    kill -0 $w1 $w2 $w3 2>/dev/null || { cat "$RIG_SCRATCH"/{k1,k2,at}.txt; rig_fail "a probe ended"; }
    rig_nap 0.05
  done
done
t0=$(rig_now)
rig_signal ready    # host: kp_6, kp_5 to no head, kp_1 on head1, kp_2 on head2, kp_9 on both
wait $w1 || rig_fail "watch of keyboard 1 failed"
wait $w2 || rig_fail "watch of keyboard 2 failed"
wait $w3 || rig_fail "watch of the AT keyboard failed"
rig_measure keys_on_both "$t0"
for f in k1 k2 at; do echo "-- $f"; cat "$RIG_SCRATCH/$f.txt"; done
grep -q "key KEY_KP1 1" "$RIG_SCRATCH/k1.txt" || rig_fail "kp_1 aimed at head1 missed keyboard 1"
grep -q "key KEY_KP2 1" "$RIG_SCRATCH/k2.txt" || rig_fail "kp_2 aimed at head2 missed keyboard 2"
grep -q "key KEY_KP2" "$RIG_SCRATCH/k1.txt" && rig_fail "kp_2 aimed at head2 reached keyboard 1"
grep -q "key KEY_KP1" "$RIG_SCRATCH/k2.txt" && rig_fail "kp_1 aimed at head1 reached keyboard 2"
grep -q "key KEY_KP6 1" "$RIG_SCRATCH/at.txt" || rig_fail "input-send-event without a device missed the AT keyboard"
grep -q "key KEY_KP5 1" "$RIG_SCRATCH/at.txt" || rig_fail "send-key missed the AT keyboard"
grep -q "key KEY_KP[56]" "$RIG_SCRATCH/k1.txt" "$RIG_SCRATCH/k2.txt" && rig_fail "a key aimed at no head reached a USB keyboard"
grep -q "key KEY_KP[129]" "$RIG_SCRATCH/at.txt" && rig_fail "a key aimed at a head reached the AT keyboard"
rig_log "PASS"
