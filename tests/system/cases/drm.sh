# rig-qemu: -vga none -device bochs-display,xres=800,yres=480
# rig-kernel: drm_kms_helper.fbdev_emulation=0
# The screen through DRM/KMS on a kernel without fbdev emulation: /dev/dri/card0 and no
# /dev/fb0. `pinpadd --list-devices` lists the connector, connected, in its preferred
# mode; pinpadd with Output=auto chooses DRM; the host's screendump equals, pixel for
# pixel, the snapshot renderer's frame of the same state, idle and after digits typed on
# the USB keyboard (a second pinpadd with --display snapshot reads the same keyboard
# without grabbing it, so both draw the same states); a VT switch away and back redraws
# the whole screen; the connector forced off and back on through sysfs, each time with a
# drm change event for card0, is logged, nothing is drawn meanwhile, the
# daemon goes on (a digit typed then is kept) and the whole screen is redrawn when it is
# back; a run with Rotate=90 shows the rotated snapshot; SIGTERM gives the VT back in
# text mode and exits 0. Last, pinpadd started with the connector off logs that it waits
# for one, is ready meanwhile, and shows the screen once the connector is back.
# Host side: drm.host.py.
. "$RIG_LIB/guest.sh"
rig_start_udevd
run=/tmp/pinpadd
mkdir -p $run

rig_wait_for_node /dev/dri/card0 30
if [ -e /dev/fb0 ]; then
  rig_log "cmdline: $(cat /proc/cmdline); fb0: $(cat /sys/class/graphics/fb0/name 2>&1)"
  rig_fail "/dev/fb0 exists: fbdev emulation is not off"
fi
rig_log "card0, no fb0"

listing=$($RIG_BIN/pinpadd --list-devices 2>&1)
echo "$listing"
grep -qP '^/dev/dri/card0\tVirtual-1\tconnected\t800x480@' <<<"$listing" ||
  rig_fail "--list-devices does not list Virtual-1 connected at 800x480"

before=$(rig_vt_modes) || rig_fail "cannot read the VT modes"
rig_log "VT modes before (display keyboard): $before"

font=/usr/share/consolefonts/Lat15-TerminusBold16.psf.gz
[ -f $font ] || font=""

status=/sys/class/drm/card0-Virtual-1/status
[ -w $status ] || rig_fail "no $status"

# connector off|detect: forces the connector off, or back to what it detects, and sends
# the change event a display's hot-plug interrupt would. bochs-drm has no hot-plug
# detection (no connector polling), so the write to status alone sends no uevent (seen
# with udevadm monitor under Debian 12's 6.1 kernel): the event is sent through the
# card's uevent file, as `udevadm trigger --action=change` does.
connector() {
  echo "$1" >$status || rig_fail "cannot write $1 to $status"
  echo change >/sys/class/drm/card0/uevent || rig_fail "cannot send a change event for card0"
}

# wait_log LOG TEXT PID [COUNT]: waits until LOG has COUNT (default 1) lines with TEXT,
# failing if PID ends first.
wait_log() {
  local log=$1 text=$2 pid=$3 count=${4:-1}
  local deadline=$((SECONDS + 60))
  until [ "$(grep -cF -- "$text" "$log")" -ge "$count" ]; do
    kill -0 "$pid" 2>/dev/null || { cat "$log"; rig_fail "pinpadd ended before logging: $text"; }
    if [ "$SECONDS" -ge "$deadline" ]; then
      cat "$log"
      [ -z "${uevents:-}" ] || { echo "udev drm events:"; cat "$uevents"; }
      rig_fail "pinpadd never logged: $text"
    fi
    rig_nap 0.1
  done
}

# The connector forced off (a digit is typed meanwhile: not drawn, kept) and back.
unplug_and_back() {
  local name=$1 log=$2 daemon=$3
  uevents=$RIG_SCRATCH/$name-uevents
  stdbuf -oL udevadm monitor --kernel --udev --subsystem-match=drm >"$uevents" 2>&1 &
  local monitor=$!
  rig_nap 1
  connector off
  wait_log "$log" "display: Virtual-1 gone" $daemon
  rig_log "connector off: $(cat $status)"
  rig_signal "$name-unplugged"   # host: type a digit, check it is not drawn
  rig_wait "$name-typed-unplugged" 120
  kill -0 $daemon || rig_fail "pinpadd ended with the connector off"
  connector detect
  wait_log "$log" "display: DRM /dev/dri/card0 Virtual-1 800x480" $daemon 2
  rig_log "connector back: $(cat $status)"
  rig_signal "$name-replugged"   # host: compare
  rig_wait "$name-replug-redrawn" 120
  kill $monitor
  wait $monitor 2>/dev/null || true
  rig_log "drm events seen by udevadm monitor:"
  cat "$uevents"
  uevents=
}

# One round: a DRM pinpadd (Output=auto) and a snapshot pinpadd on the same keyboard,
# both with `Rotate=$1`; the host compares and types; SIGTERM ends both.
round() {
  local rotate=$1 name=$2
  local conf=$run/$name.conf log="$RIG_SCRATCH/$name.log" snaps="$RIG_SCRATCH/$name-snapshot"
  cat >$conf <<CONF
[Entry]
Mask=digits
InterKeyTimeoutSec=600
TotalTimeoutSec=600
[Keypad usb]
Match=usb:0627:0001
Grab=no
[Display]
Output=auto
Font=$font
SnapshotSize=800x480
Rotate=$rotate
CONF
  $RIG_BIN/pinpadd --config $conf --input auto --display snapshot:"$snaps" \
    --socket $run/$name-snap.sock --state-dir $run/$name-snapstate 2>"$RIG_SCRATCH/$name-snap.log" &
  local snap=$!
  local t0
  t0=$(rig_now)
  $RIG_BIN/pinpadd --config $conf --input auto --socket $run/$name.sock \
    --state-dir $run/$name-state --log-level debug 2>"$log" &
  local daemon=$!
  local deadline=$((SECONDS + 60))
  until grep -q "ready" "$log" && grep -q "ready" "$RIG_SCRATCH/$name-snap.log"; do
    kill -0 $daemon 2>/dev/null || { cat "$log"; rig_fail "pinpadd ($name) ended"; }
    kill -0 $snap 2>/dev/null || { cat "$RIG_SCRATCH/$name-snap.log"; rig_fail "snapshot pinpadd ($name) ended"; }
    [ "$SECONDS" -ge "$deadline" ] && { cat "$log"; rig_fail "pinpadd ($name) not ready"; }
    rig_nap 0.05
  done
  rig_measure "${name}_start_to_ready" "$t0"
  cat "$log"
  grep -q "display: DRM /dev/dri/card0 Virtual-1 800x480" "$log" ||
    rig_fail "Output=auto did not choose DRM"
  local during
  during=$(rig_vt_modes)
  rig_log "VT modes while running: $during"
  [ "${during%% *}" = 1 ] || rig_fail "the VT is not in graphics mode while pinpadd runs"
  echo "$snaps" >"$RIG_SCRATCH/snapshots"
  rig_signal "$name-ready"   # host: compare idle, type, compare
  rig_wait "$name-typed" 180
  if [ "$name" = upright ]; then
    # Away to VT 2 (master dropped: a digit typed meanwhile is not drawn) and back
    # (master taken back, the screen redrawn whole, with that digit).
    chvt 2 || rig_fail "chvt 2"
    rig_signal "$name-away"
    rig_wait "$name-typed-away" 120
    chvt 1 || rig_fail "chvt 1"
    rig_signal "$name-switched"
    rig_wait "$name-redrawn" 120
    unplug_and_back "$name" "$log" $daemon
  fi
  kill -TERM $daemon $snap
  local rc=0
  wait $daemon || rc=$?
  [ $rc = 0 ] || { cat "$log"; rig_fail "pinpadd ($name) exit $rc after SIGTERM"; }
  wait $snap || rig_fail "snapshot pinpadd ($name) exit $? after SIGTERM"
  local after
  after=$(rig_vt_modes)
  rig_log "VT modes after: $after"
  [ "$after" = "$before" ] || rig_fail "VT modes not restored: $after, was $before"
  if rig_scrubbed "$log" | grep -E "2580|KEY_[0-9]\b|KEY_KP[0-9]\b"; then rig_fail "a digit reached the log"; fi
}

chvt 1 2>/dev/null || true
round 0 upright
round 90 rotated

# Started with no connected connector: it waits (ready meanwhile), then shows the screen.
connector off
conf=$run/waiting.conf
log=$RIG_SCRATCH/waiting.log
# Device= names the card: the rig's other display head is card1, connected.
printf '[Keypad usb]\nMatch=usb:0627:0001\nGrab=no\n[Display]\nOutput=drm\nDevice=/dev/dri/card0\nFont=%s\n' \
  "$font" >$conf
$RIG_BIN/pinpadd --config $conf --input auto --socket $run/waiting.sock \
  --state-dir $run/waiting-state 2>"$log" &
daemon=$!
wait_log "$log" "display: waiting for a connected connector on /dev/dri/card0" $daemon
wait_log "$log" "ready" $daemon
connector detect
wait_log "$log" "display: DRM /dev/dri/card0 Virtual-1 800x480" $daemon
cat "$log"
kill -TERM $daemon
wait $daemon || { cat "$log"; rig_fail "waiting pinpadd exit $? after SIGTERM"; }
rig_log "PASS"
