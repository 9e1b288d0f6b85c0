# Hot-plug through pinpadd's UdevMonitor: a second USB keyboard plugged in over QMP is
# reported added (initialised, with digit keys), an EvdevDevice reading it gets a key,
# then reports gone promptly when it is unplugged (no busy loop), the monitor reports the
# removal, and a re-plug is reported added again. Host side: hotplug.host.py.
. "$RIG_LIB/guest.sh"
rig_start_udevd
"$RIG_PROBE" monitor 120 3 >"$RIG_SCRATCH/monitor.txt" 2>&1 &
monitor=$!
until grep -q monitoring "$RIG_SCRATCH/monitor.txt" 2>/dev/null; do rig_nap 0.05; done
t0=$(rig_now)
rig_signal ready

until grep -q "^[0-9.]* added" "$RIG_SCRATCH/monitor.txt"; do
  kill -0 $monitor 2>/dev/null || rig_fail "monitor ended early"
  rig_nap 0.05
done
rig_measure hotplug_add_to_monitor "$t0"
node=$(sed -n 's/^[0-9.]* added \(\/dev\/input\/event[0-9]*\) .*/\1/p' "$RIG_SCRATCH/monitor.txt" | head -1)
grep "added" "$RIG_SCRATCH/monitor.txt"
grep -q "added $node .*id=0627:0001 .*digits=true" "$RIG_SCRATCH/monitor.txt" || rig_fail "added line"
"$RIG_PROBE" read "$node" 1000 grab >"$RIG_SCRATCH/reader.txt" 2>&1 &
reader=$!
until grep -q "grab" "$RIG_SCRATCH/reader.txt" 2>/dev/null; do rig_nap 0.05; done
rig_signal reading

until grep -q "key KEY_KP5 0" "$RIG_SCRATCH/reader.txt"; do
  kill -0 $reader 2>/dev/null || { cat "$RIG_SCRATCH/reader.txt"; rig_fail "reader ended"; }
  rig_nap 0.05
done
t1=$(rig_now)
rig_signal got-key
rc=0
wait $reader || rc=$?
rig_measure unplug_to_gone "$t1"
cat "$RIG_SCRATCH/reader.txt"
[ $rc = 3 ] || rig_fail "reader exit $rc, expected 3 (gone)"
grep -q " gone" "$RIG_SCRATCH/reader.txt" || rig_fail "no gone"
# CPU the reader used: a busy loop after the unplug would show as seconds here.
until grep -q "^[0-9.]* removed" "$RIG_SCRATCH/monitor.txt"; do rig_nap 0.05; done
rig_signal removed

wait $monitor || true
cat "$RIG_SCRATCH/monitor.txt"
[ "$(grep -c '^[0-9.]* added' "$RIG_SCRATCH/monitor.txt")" = 2 ] || rig_fail "re-plug not seen"
grep -q "removed $node " "$RIG_SCRATCH/monitor.txt" || rig_fail "removal of $node not seen"
rig_log "PASS"
