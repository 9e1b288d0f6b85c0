# The issue's "done when" on a real kernel: pinpadd --input auto with udevd finds the
# emulated USB keyboard, grabs it, and a PIN typed on it over QMP reaches the socket;
# unplugging and re-plugging it mid-use leaves the daemon running and the keypad
# working again; --list-devices shows it as a keypad; no digit reaches the log.
# Host side: keypad-auto.host.py.
. "$RIG_LIB/guest.sh"
rig_start_udevd
run=/tmp/pinpadd
mkdir -p $run
log="$RIG_SCRATCH/daemon.log"
events="$RIG_SCRATCH/events.txt"

$RIG_BIN/pinpadd --list-devices >"$RIG_SCRATCH/list.txt" || rig_fail "--list-devices failed"
cat "$RIG_SCRATCH/list.txt"
grep -P "\tQEMU QEMU USB Keyboard\t0627:0001\t.*\tyes\tdefault$" "$RIG_SCRATCH/list.txt" \
  || rig_fail "--list-devices does not show the USB keyboard as keypad default"

t0=$(rig_now)
$RIG_BIN/pinpadd --input auto --display none --socket $run/s.sock --state-dir $run/state \
  --log-level debug 2>"$log" &
daemon=$!
until [ -S $run/s.sock ]; do
  kill -0 $daemon 2>/dev/null || { cat "$log"; rig_fail "pinpadd ended"; }
  rig_nap 0.05
done
$RIG_BIN/pinpadctl --socket $run/s.sock listen >"$events" &
until grep -q "QEMU USB Keyboard.*grabbed\|event.* grabbed" "$log" && grep -q "USB Keyboard" "$log"; do
  rig_nap 0.05
done
rig_measure discovery_and_grab "$t0"
cat "$log"

wait_for() {  # wait_for PATTERN FILE WHAT
  local deadline=$((SECONDS + 60))
  until grep -q "$1" "$2"; do
    [ "$SECONDS" -ge "$deadline" ] && { cat "$2"; rig_fail "no $3"; }
    kill -0 $daemon 2>/dev/null || { cat "$log"; rig_fail "pinpadd ended while waiting for $3"; }
    rig_nap 0.05
  done
}

t1=$(rig_now)
rig_signal ready                       # host types 1 2 3 4 Enter on the keypad
wait_for '"code":"1234"' "$events" "first code"
rig_measure first_code "$t1"
id=$(sed -n 's/.*"type":"code","id":"\([^"]*\)".*/\1/p' "$events" | head -1)
$RIG_BIN/pinpadctl --socket $run/s.sock verdict "$id" granted || rig_fail "verdict refused"
grabs=$(grep -c "grabbed" "$log")
rig_signal unplug                      # host: device_del
wait_for '"event":"removed"' "$events" "keypad removed event"
rig_signal replug                      # host: device_add
wait_for '"event":"added"' "$events" "keypad added event"
t2=$(rig_now)
until [ "$(grep -c "grabbed" "$log")" -gt "$grabs" ]; do rig_nap 0.05; done
rig_signal type-again                  # host types 5 6 7 8 Enter
wait_for '"code":"5678"' "$events" "code after re-plug"
rig_measure replug_to_code "$t2"
cat "$events"

kill -TERM $daemon
rc=0
wait $daemon || rc=$?
[ $rc = 0 ] || rig_fail "pinpadd exit $rc after SIGTERM"
[ ! -e $run/s.sock ] || rig_fail "socket left behind"
if rig_scrubbed "$log" | grep -E "1234|5678|KEY_KP[0-9]|KEY_[0-9]\b"; then rig_fail "a digit reached the log"; fi
rig_log "PASS"
