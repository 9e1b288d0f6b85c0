# A door (SPEC §10) on a real kernel GPIO driver: helpers/cp2112-sim.py plays a CP2112
# through /dev/uhid, the in-tree hid-cp2112 driver gives /dev/gpiochipN (label
# cp2112_gpio); line 0 is the lock relay, 1 the door contact, 2 the exit button, 3 the
# buzzer, 4 the granted LED, 5 the denied LED (LedDeniedActiveLow=yes). The
# simulator logs every level the driver sets, with the guest's CLOCK_MONOTONIC, and
# takes input levels on a FIFO; helpers/door-controller.py grants the one PIN and
# stamps every message. PINs are typed on the USB keyboard by door-gpio.host.py.
# Checked: the relay is driven locked first; a granted PIN pulses it for OpenSec
# (never shorter by more than 100 ms, measured on the chip's side; a starved guest may
# be up to 0.5 s late), a denied one never touches it; the door's feedback
# (pinpadd.conf(5), Buzzer=, LedGranted=, LedDenied=): inactive from the start, a grant
# lights the granted LED for OpenSec with the buzzer on for its two-tone, a denial
# blinks the denied LED three times with the buzzer on for its tone, keys click, and
# SIGTERM leaves every output inactive; forced,
# opened/closed, held_open, exit; `pinpadctl open` from root unlocks, from nobody not;
# the chip going away (the relay alone on it: see there) is one log line and a status
# field, and its return re-locks;
# SIGTERM in a pulse locks before exit; after SIGKILL a restart drives locked first;
# no digit of the PINs in any log or non-code message.
# Figures: grant-to-relay latency p50/p90/max over $GRANTS grants (20: each is a typed
# PIN and a 0.5 s pulse, 2.3 s under a loaded CI), contact-to-event latency over 6.
. "$RIG_LIB/guest.sh"
groupadd -r pinpadd || rig_fail "groupadd"
rig_install_rules
rig_start_udevd
GRANTS=20
run=/tmp/pinpadd
mkdir -p $run
log=$RIG_SCRATCH/daemon.log
sim_log=$RIG_SCRATCH/sim.log
messages=$RIG_SCRATCH/messages.txt
verdicts=$RIG_SCRATCH/verdicts.txt
ctl() { $RIG_BIN/pinpadctl --socket $run/s.sock "$@"; }
pin=1357 wrong=2468
: >"$sim_log" >"$messages" >"$verdicts"

dump() {
  echo "-- daemon log"; tail -n 40 "$log"; echo "-- sim log"; tail -n 20 "$sim_log"
  echo "-- messages"; tail -n 20 "$messages"
  # A crash: the kernel names the faulting address and the offset into the binary
  # (show_unhandled_signals); pinpadd is not dumpable, so there is no core.
  echo "-- kernel"; dmesg | grep -E "segfault|traps:|general protection|trap " | tail -n 5
}
# wait_for COUNT REGEX FILE WHAT: until COUNT lines of FILE match REGEX (120 s).
wait_for() {
  rig_wait_lines "$1" "$2" "$3" 120 || { dump; rig_fail "no $4 within 120 s"; }
}
count() { grep -c -- "$1" "$2" 2>/dev/null || true; }
relay_changes() { count " out 0 " "$sim_log"; }

start_sim() {
  python3 tests/system/helpers/cp2112-sim.py "$sim_log" $run/sim.ctl &
  sim=$!
  # The chip's node first, waited for without a process (the simulator's Python start
  # is most of this wait), then pinpadd must list it by its label.
  rig_wait_for_node "/dev/gpiochip*" 120
  local deadline=$((SECONDS + 120))
  until $RIG_BIN/pinpadd --list-devices --config $run/pinpadd.conf 2>/dev/null | grep -q "cp2112_gpio"; do
    ((SECONDS < deadline)) || { dmesg | tail -20; rig_fail "no cp2112_gpio chip appeared"; }
    rig_nap 0.2
  done
}
contact() { echo "in 1 $1" >$run/sim.ctl; }
exit_button() { echo "in 2 $1" >$run/sim.ctl; }

cat >$run/pinpadd.conf <<CONF
[Entry]
Length=4
# Keys typed through QMP can arrive seconds apart on a loaded TCG guest: no timeout
# may wipe a PIN in the middle.
InterKeyTimeoutSec=60
TotalTimeoutSec=120
[Socket]
AllowUsers=root
[Door main]
Relay=cp2112_gpio:0
OpenSec=0.5
Contact=cp2112_gpio:1
HeldOpenSec=1
ExitButton=cp2112_gpio:2
DebounceSec=0.02
Buzzer=cp2112_gpio:3
LedGranted=cp2112_gpio:4
LedDenied=cp2112_gpio:5
LedDeniedActiveLow=yes
CONF
$RIG_BIN/pinpadd --check-config --config $run/pinpadd.conf >"$RIG_SCRATCH/check.txt" 2>&1 ||
  { cat "$RIG_SCRATCH/check.txt"; rig_fail "--check-config refused the door"; }

t0=$(rig_now)
start_sim
rig_measure chip_appears "$t0"
# udev-rules/70-pinpadd.rules gives the chip to group pinpadd.
udevadm settle
chip=$($RIG_BIN/pinpadd --list-devices --config $run/pinpadd.conf | grep -P "\tcp2112_gpio\t" | cut -f1)
[ "$(stat -c %G:%a "$chip")" = "pinpadd:660" ] || rig_fail "$chip is $(stat -c %G:%a "$chip"), not pinpadd:660"
$RIG_BIN/pinpadd --list-devices --config $run/pinpadd.conf | sed -n '/# GPIO chips/,$p' | tee "$RIG_SCRATCH/list.txt"
grep -qP "^  0\t.*\t\[Door main\] Relay$" "$RIG_SCRATCH/list.txt" || rig_fail "--list-devices does not show line 0 as the relay"
grep -qP "^  2\t.*\t\[Door main\] ExitButton$" "$RIG_SCRATCH/list.txt" || rig_fail "--list-devices does not show line 2 as the exit button"
# A chip may also be named by its name (gpiochipN; a label survives a re-plug, a name
# may not).
printf '[Door byname]\nRelay=%s:5\n' "$(basename "$(grep -P '\tcp2112_gpio\t' "$RIG_SCRATCH/list.txt" | cut -f1)")" >$run/byname.conf
$RIG_BIN/pinpadd --list-devices --config $run/byname.conf | grep -qP "^  5\t.*\t\[Door byname\] Relay$" ||
  rig_fail "a chip named by its name is not found"

# start_daemon N [CONFIG]: the Nth pinpadd of the case, and its controller.
start_daemon() {
  $RIG_BIN/pinpadd --config "${2:-$run/pinpadd.conf}" --input auto --display none \
    --socket $run/s.sock --state-dir none --log-level debug 2>>"$log" &
  daemon=$!
  wait_for "$1" "pinpadd .* ready" "$log" "ready line"
  chmod 0666 $run/s.sock # so that the daemon's credential check is what refuses nobody
  echo "$pin" | python3 tests/system/helpers/door-controller.py $run/s.sock "$messages" "$verdicts" &
  controller=$!
  wait_for "$1" '"type":"hello"' "$messages" "controller connected"
}
start_daemon 1
# The relay's first level is locked (0: FailMode=secure, not active-low), set before
# pinpadd said it was ready; nothing has unlocked it.
first=$(grep -m1 " out 0 " "$sim_log" | cut -d' ' -f4)
[ "$first" = 0 ] || { dump; rig_fail "the relay's first level was $first, not locked"; }
grep -q " out 0 1" "$sim_log" && rig_fail "the relay unlocked at start"
# The feedback outputs start inactive: buzzer and granted LED 0, the denied LED
# (active-low) 1.
for want in "3 0" "4 0" "5 1"; do
  first=$(grep -m1 " out ${want% *} " "$sim_log" | cut -d' ' -f4)
  [ "$first" = "${want#* }" ] || { dump; rig_fail "output ${want% *} first set to '$first', not ${want#* }"; }
done

step=0
type_keys() { step=$((step + 1)); echo "$*" >"$RIG_SCRATCH/keys-$step"; rig_signal "keys-$step"; }
pin_keys() { local i; for ((i = 0; i < ${#1}; i++)); do printf 'kp_%s ' "${1:i:1}"; done; }
event_count() { count "\"type\":\"door\",\"door\":\"main\",\"event\":\"$1\"" "$messages"; }

# A granted PIN: the relay is driven unlocked, then locked OpenSec later.
# shellcheck disable=SC2046
type_keys $(pin_keys $pin)
wait_for 1 '"event":"locked"' "$messages" "relock after the grant"
grep -q '"event":"unlocked","by":"' "$messages" || rig_fail "no unlocked-by-ID event"
on=$(grep " out 0 1" "$sim_log" | head -1 | cut -d' ' -f1)
off=$(awk -v on="$on" '$2 == "out" && $3 == 0 && $4 == 0 && $1 > on { print $1; exit }' "$sim_log")
pulse_ms=$(( (off - on) / 1000000 ))
rig_log "relay pulse ${pulse_ms} ms for OpenSec=0.5"
echo "relay_pulse_ms=$pulse_ms" >>"$RIG_SCRATCH/timings"
# Never short; late by up to 100 ms on an idle guest (seen: 611 ms with three TCG guests
# and a compile sharing 2 cores), so the bound above allows for a starved guest.
[ $pulse_ms -ge 400 ] && [ $pulse_ms -le 1000 ] || rig_fail "relay pulse ${pulse_ms} ms, not 500 (400 to 1000)"

# A denied PIN never touches the relay.
before=$(relay_changes)
# shellcheck disable=SC2046
type_keys $(pin_keys $wrong)
wait_for 1 '"result":"denied"' "$messages" "denied verdict"
[ "$(relay_changes)" = "$before" ] || rig_fail "a denied PIN moved the relay"
rig_nap 2 # the denial's three blinks and tone
# The door's feedback over time (the chip's stamps): the grant, the wrong PIN's keys,
# the denial.
python3 - "$verdicts" "$sim_log" <<'PY' || { dump; rig_fail "the door's feedback is not what pinpadd.conf(5) promises"; }
import sys
verdicts = [l.split() for l in open(sys.argv[1])]
grant = [int(v[0]) for v in verdicts if v[2] == "granted"][0]
deny = [int(v[0]) for v in verdicts if v[2] == "denied"][0]
outs = [tuple(int(w) for w in (l.split()[0], l.split()[2], l.split()[3]))
        for l in open(sys.argv[2]) if l.split()[1] == "out"]
def line(n, start, end):
    return [(t, v) for t, o, v in outs if o == n and start <= t < end]
def level(n, at):  # the line's last level set at or before `at`
    before = [v for t, o, v in outs if o == n and t <= at]
    return before[-1] if before else None
s = 1e9
failures = []
def check(ok, what):
    if not ok:
        failures.append(what)
# Grant: LedGranted on for OpenSec (0.5 s), the buzzer on with it for the two-tone
# (300 ms); the denied LED untouched.
lit = line(4, grant, deny)
check([v for _, v in lit] == [1, 0], "granted LED %r" % lit)
if len(lit) == 2:
    on, off = lit[0][0], lit[1][0]
    check(0.4 <= (off - on) / s <= 1.5, "granted LED lit %.2f s for OpenSec=0.5" % ((off - on) / s))
    check(level(3, on + 0.05 * s) == 1, "the buzzer is not on with the grant")
    quiet = [t for t, v in line(3, on, on + 2 * s) if v == 0]
    check(quiet and 0.2 <= (quiet[0] - on) / s <= 1.2,
          "the grant's buzzer ended %r s after the light" % ([(t - on) / s for t in quiet[:1]]))
check(line(5, grant, deny) == [], "the grant blinked the denied LED")
# The wrong PIN's keys click on the buzzer.
check(any(v == 1 for _, v in line(3, grant + 0.4 * s, deny)), "no click for the wrong PIN's keys")
# Denial: three blinks of the denied LED (active-low: 0 is lit), the buzzer on for its
# tone (700 ms); the granted LED untouched.
blinks = line(5, deny, deny + 4 * s)
check([v for _, v in blinks] == [0, 1] * 3, "denied LED %r" % blinks)
if blinks:
    steps = [(b[0] - a[0]) / s for a, b in zip(blinks, blinks[1:])]
    check(all(0.1 <= d <= 0.8 for d in steps), "denied LED steps %r s" % steps)
    on = blinks[0][0]
    check(level(3, on + 0.05 * s) == 1, "the buzzer is not on with the denial")
    quiet = [t for t, v in line(3, on, on + 3 * s) if v == 0]
    check(quiet and 0.5 <= (quiet[0] - on) / s <= 1.6,
          "the denial's buzzer ended %r s after the blink" % ([(t - on) / s for t in quiet[:1]]))
check(line(4, deny, deny + 4 * s) == [], "the denial lit the granted LED")
for f in failures:
    print("guest: FAIL: " + f)
sys.exit(1 if failures else 0)
PY

# The contact opening while locked: opened, forced; closing: closed, relay untouched.
contact 1
wait_for 1 '"event":"forced"' "$messages" "forced event"
contact 0
wait_for 1 '"event":"closed"' "$messages" "closed event"
[ "$(relay_changes)" = "$before" ] || rig_fail "the contact moved the relay"

# pinpadctl open from root unlocks; the door opened then and kept open: held_open.
# The simulator opens the contact the moment the relay unlocks (within OpenSec however
# slow this shell is on a loaded guest).
echo "on-unlock 1 1" >$run/sim.ctl
wait_for 1 'armed on-unlock 1 1' "$sim_log" "the simulator armed"
ctl open main || rig_fail "pinpadctl open main failed for root"
grep -q '"event":"unlocked","by":"remote"' "$messages" || wait_for 1 '"by":"remote"' "$messages" "remote unlock"
wait_for 2 '"event":"opened"' "$messages" "opened after the remote unlock"
wait_for 1 '"event":"held_open"' "$messages" "held_open"
[ "$(event_count forced)" = 1 ] || rig_fail "an authorised opening was called forced"
contact 0
wait_for 2 '"event":"closed"' "$messages" "closed after held_open"
wait_for 2 '"event":"locked"' "$messages" "relock after the remote open"

# The exit button unlocks.
exit_button 1
wait_for 1 '"event":"exit"' "$messages" "exit event"
wait_for 1 '"by":"exit"' "$messages" "unlock by the exit button"
exit_button 0
wait_for 3 '"event":"locked"' "$messages" "relock after the exit button"

# nobody may not open it: forbidden, and the relay stays where it was.
before=$(relay_changes)
if setpriv --reuid=65534 --regid=65534 --clear-groups $RIG_BIN/pinpadctl --socket $run/s.sock open main \
  2>"$RIG_SCRATCH/nobody.txt"; then rig_fail "pinpadctl open as nobody succeeded"; fi
grep -q forbidden "$RIG_SCRATCH/nobody.txt" || { cat "$RIG_SCRATCH/nobody.txt"; rig_fail "nobody was not told forbidden"; }
ctl open nowhere 2>"$RIG_SCRATCH/nowhere.txt" && rig_fail "open of an unknown door succeeded"
grep -q "no door named nowhere" "$RIG_SCRATCH/nowhere.txt" || rig_fail "no error for an unknown door"
[ "$(relay_changes)" = "$before" ] || rig_fail "an unauthorised or unknown open moved the relay"

# Contact-to-event latency: the simulator's stamp of the level, the controller's of
# the message (bounded by the driver's polling and DebounceSec=0.02).
lat=()
for i in 1 2 3 4 5 6; do
  n=$(event_count forced)
  contact 1
  wait_for $((n + 1)) '"event":"forced"' "$messages" "forced event $i"
  t_in=$(grep " in 1 1" "$sim_log" | tail -1 | cut -d' ' -f1)
  t_ev=$(grep '"event":"forced"' "$messages" | tail -1 | cut -d' ' -f1)
  lat+=($(( (t_ev - t_in) / 1000000 )))
  n=$(event_count closed)
  contact 0
  wait_for $((n + 1)) '"event":"closed"' "$messages" "closed event $i"
done
contact_ms=$(printf '%s\n' "${lat[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] " " a[NR] }')
rig_log "contact-to-event latency p50/max ms: $contact_ms"
echo "contact_to_event_ms_p50=${contact_ms% *}" >>"$RIG_SCRATCH/timings"
echo "contact_to_event_ms_max=${contact_ms#* }" >>"$RIG_SCRATCH/timings"

# Grant-to-relay latency over $GRANTS grants: the controller's stamp of the verdict it
# sent, the chip's stamp of the relay going unlocked.
t0=$(rig_now)
for ((i = 1; i <= GRANTS; i++)); do
  n=$(event_count locked)
  # shellcheck disable=SC2046
  type_keys $(pin_keys $pin)
  wait_for $((n + 1)) '"event":"locked"' "$messages" "relock after grant $i"
done
rig_measure "grants_$GRANTS" "$t0"
python3 - "$verdicts" "$sim_log" <<'PY' | tee -a "$RIG_SCRATCH/timings"
import sys
grants = [int(l.split()[0]) for l in open(sys.argv[1]) if l.split()[2] == "granted"]
ons = [int(l.split()[0]) for l in open(sys.argv[2]) if l.split()[1:] == ["out", "0", "1"]]
lat = []
for g in grants[1:]:  # the first grant is the pulse-length check above
    later = [o for o in ons if o >= g]
    if later:
        lat.append((later[0] - g) / 1e6)
lat.sort()
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print("grant_to_relay_ms_p50=%.1f" % p(0.5))
print("grant_to_relay_ms_p90=%.1f" % p(0.9))
print("grant_to_relay_ms_max=%.1f" % lat[-1])
print("grant_to_relay_count=%d" % len(lat))
PY

# The chip goes away: one log line, the status says so, pinpadd lives; it comes back.
# With the relay alone on it: the guest's kernel (Debian 12's 6.1) frees a removed
# chip's interrupts while a process still holds them, and the process's later release
# of its edge-watching lines (Contact=, ExitButton=) writes to freed memory: the guest
# was seen to oops in a later allocation (the known gpiolib problem, "gpiolib: cdev:
# release IRQs when the gpio chip device is removed", linux-gpio, February 2024).
kill -TERM $daemon
rc=0
wait $daemon || rc=$?
[ $rc = 0 ] || { dump; rig_fail "pinpadd exit $rc after SIGTERM"; }
wait $controller 2>/dev/null
grep -v -E '^(Contact|ExitButton|HeldOpenSec|DebounceSec)=' $run/pinpadd.conf >$run/relay-only.conf
start_daemon 2 $run/relay-only.conf
kill -TERM $sim
wait $sim
wait_for 1 "door main: GPIO lines lost" "$log" "lost-lines log line"
ctl status | tee "$RIG_SCRATCH/status-lost.json" | grep -q '"lock":"unknown".*"lines":"lost"' || rig_fail "status does not say the lines are lost"
sleep 2.5 # two of the daemon's 1 s checks: still one line
[ "$(count "GPIO lines lost" "$log")" = 1 ] || rig_fail "the lost chip was logged more than once"
ctl open main 2>/dev/null && rig_fail "a door with lost lines said it opened"
kill -0 $daemon || rig_fail "pinpadd died when the chip went away"
start_sim
wait_for 1 "door main: GPIO lines requested again" "$log" "lines back"
ctl status | grep -q '"lock":"locked".*"lines":"ok"' || rig_fail "status does not say the lines are back"
last=$(grep " out 0 " "$sim_log" | tail -1 | cut -d' ' -f4)
[ "$last" = 0 ] || rig_fail "the relay is not locked after the chip came back"

# From here on OpenSec=5, so that a relay locked at SIGTERM and one locked when its
# pulse ended stay apart however slow a loaded guest is (with 0.5 s they did not).
kill -TERM $daemon
rc=0
wait $daemon || rc=$?
[ $rc = 0 ] || { dump; rig_fail "pinpadd exit $rc after SIGTERM"; }
wait $controller 2>/dev/null
sed -i 's/^OpenSec=0.5$/OpenSec=5/' $run/pinpadd.conf
start_daemon 3

# SIGTERM during an open pulse: locked before exit, exit 0.
ctl open main
t_on=$(grep " out 0 1" "$sim_log" | tail -1 | cut -d' ' -f1)
kill -TERM $daemon
rc=0
wait $daemon || rc=$?
[ $rc = 0 ] || { dump; rig_fail "pinpadd exit $rc after SIGTERM"; }
t_off=$(awk -v on="$t_on" '$2 == "out" && $3 == 0 && $4 == 0 && $1 > on { print $1; exit }' "$sim_log")
[ -n "$t_off" ] || rig_fail "SIGTERM left the relay unlocked"
[ $(( (t_off - t_on) / 1000000 )) -lt 4000 ] || rig_fail "the relay locked only when the pulse ended, not at SIGTERM"
for want in "3 0" "4 0" "5 1"; do
  last=$(grep " out ${want% *} " "$sim_log" | tail -1 | cut -d' ' -f4)
  [ "$last" = "${want#* }" ] || { dump; rig_fail "output ${want% *} left at '$last' after SIGTERM, not ${want#* }"; }
done
wait $controller 2>/dev/null

# SIGKILL during an open pulse: the line is released as it was (cp2112 keeps its latch);
# the next start drives it locked before it is ready.
start_daemon 4
ctl open main
kill -KILL $daemon
wait $daemon 2>/dev/null
wait $controller 2>/dev/null
rig_log "after SIGKILL the relay line reads $(grep " out 0 " "$sim_log" | tail -1 | cut -d' ' -f4) (last level set)"
n=$(count " out 0 0" "$sim_log")
start_daemon 5
[ "$(count " out 0 0" "$sim_log")" -gt "$n" ] || rig_fail "the restart did not drive the relay locked"
kill -TERM $daemon
wait $daemon
kill -TERM $sim
wait $sim 2>/dev/null

# No digit of either PIN in a log line or in any message but the controller's codes.
# Ids and process and user numbers are left out (rig_scrubbed): they are not a PIN's.
if rig_scrubbed "$log" "$RIG_SCRATCH/status-lost.json" | grep -F -e "$pin" -e "$wrong"; then
  rig_fail "a PIN reached the daemon log"
fi
# (Not through grep -f <(...): the guest has no /dev/fd, and grep's error read as "none".)
# Attempt ids are 32 random hex digits, which may hold a PIN's digits by chance, in
# "id" and in a door's "by" (the attempt that opened it: "ef2468..." held 2468 once),
# so every such id is scrubbed as in the log.
if cut -d' ' -f2- "$messages" | rig_scrubbed |
  grep -F -e "$pin" -e "$wrong"; then
  rig_fail "a PIN reached a message"
fi
if grep -E "KEY_KP[0-9]|KEY_[0-9]\b" "$log"; then rig_fail "a digit key reached the log"; fi
rig_log "daemon log $(wc -l <"$log") lines, $(wc -l <"$messages") messages, no digit of a PIN"
rig_log "PASS"
