# rig-qemu: -vga none -device bochs-display -device usb-tablet,bus=xhci.0
# The screen on a real kernel: pinpadd --display fb draws on the bochs-display's
# /dev/fb0 holding the VT; the host's screendump of the idle screen equals, pixel for
# pixel, the snapshot renderer's frame for the same configuration and size; usb-tablet
# clicks on the drawn keys (centres from the daemon's debug log) show the key pressed
# while held and enter a code that arrives on the socket; SIGTERM gives the VT back in
# text mode and exits 0.
# Host side: screen.host.py.
. "$RIG_LIB/guest.sh"
rig_start_udevd
run=/tmp/pinpadd
mkdir -p $run
log="$RIG_SCRATCH/daemon.log"
events="$RIG_SCRATCH/events.txt"

rig_wait_for_node /dev/fb0 30
size=$(cat /sys/class/graphics/fb0/virtual_size)   # "W,H"
bpp=$(cat /sys/class/graphics/fb0/bits_per_pixel)
rig_log "fb0: $(cat /sys/class/graphics/fb0/name) ${size/,/x} at $bpp bpp"
width=${size%,*}
height=${size#*,}

# The VT's modes before: what SIGTERM must give back (KDGETMODE 0x4B3B, KDGKBMODE 0x4B44).
before=$(rig_vt_modes) || rig_fail "cannot read the VT modes"
rig_log "VT modes before (display keyboard): $before"
[ "${before%% *}" = 0 ] || rig_fail "the VT is not in text mode to begin with"

font=/usr/share/consolefonts/Lat15-TerminusBold16.psf.gz
[ -f $font ] || font=""   # then both renderers use the built-in font
conf=$run/pinpadd.conf
cat >$conf <<CONF
[Display]
OnScreenKeypad=yes
Font=$font
SnapshotSize=${width}x${height}
CONF

# The reference frame: the snapshot renderer, same configuration, same size.
$RIG_BIN/pinpadd --config $conf --input auto --display snapshot:"$RIG_SCRATCH/snapshot" \
  --socket $run/snap.sock --state-dir $run/snapstate 2>"$RIG_SCRATCH/snapshot.log" &
snap=$!
until [ -f "$RIG_SCRATCH/snapshot/frame-000001.png" ]; do
  kill -0 $snap 2>/dev/null || { cat "$RIG_SCRATCH/snapshot.log"; rig_fail "snapshot pinpadd ended"; }
  rig_nap 0.05
done
kill -TERM $snap
wait $snap || rig_fail "snapshot pinpadd exit $? after SIGTERM"

t0=$(rig_now)
$RIG_BIN/pinpadd --config $conf --input auto --display fb --socket $run/s.sock \
  --state-dir $run/state --log-level debug 2>"$log" &
daemon=$!
until grep -q "ready" "$log"; do
  kill -0 $daemon 2>/dev/null || { cat "$log"; rig_fail "pinpadd ended"; }
  rig_nap 0.02
done
rig_measure start_to_first_frame "$t0"
until [ -S $run/s.sock ]; do rig_nap 0.05; done
$RIG_BIN/pinpadctl --socket $run/s.sock listen >"$events" &
until grep -q "on-screen keypad: using .*Tablet" "$log"; do
  kill -0 $daemon 2>/dev/null || { cat "$log"; rig_fail "pinpadd ended"; }
  rig_nap 0.05
done
cat "$log"
sed -n 's/.*key centres in reading order //p' "$log" >"$RIG_SCRATCH/keys.txt"
[ -s "$RIG_SCRATCH/keys.txt" ] || rig_fail "no key centres in the debug log"
echo "$width $height" >"$RIG_SCRATCH/size.txt"
during=$(rig_vt_modes)
rig_log "VT modes while running: $during"
[ "${during%% *}" = 1 ] || rig_fail "the VT is not in graphics mode while pinpadd runs"

t1=$(rig_now)
rig_signal ready          # host: screendump + compare, then clicks 2 5 8 0 OK
deadline=$((SECONDS + 90))
until grep -q '"code":"2580"' "$events"; do
  [ "$SECONDS" -ge "$deadline" ] && { cat "$events" "$log"; rig_fail "no code from the clicks"; }
  kill -0 $daemon 2>/dev/null || { cat "$log"; rig_fail "pinpadd ended while waiting for the code"; }
  rig_nap 0.05
done
rig_measure ready_to_clicked_code "$t1"
cat "$events"
rig_wait compared 30

kill -TERM $daemon
rc=0
wait $daemon || rc=$?
[ $rc = 0 ] || { cat "$log"; rig_fail "pinpadd exit $rc after SIGTERM"; }
after=$(rig_vt_modes)
rig_log "VT modes after: $after"
[ "$after" = "$before" ] || rig_fail "VT modes not restored: $after, was $before"
if rig_scrubbed "$log" | grep -E "2580|KEY_[0-9]\b"; then rig_fail "a digit reached the log"; fi
rig_log "PASS"
