# The keypad talks back (pinpadd.conf(5), Feedback=) on the real kernel: a uinput keypad
# with NumLock and CapsLock LEDs (NumLock on, as the device reports it) and a beeper
# (SND_TONE). The kernel hands every LED and sound event that pinpadd writes to the
# device's node back to the uinput descriptor (lib/uinput.py records them with the time
# it read them), so this reads exactly what pinpadd asked for:
#  1. a right PIN, granted by `pinpadctl verdict`: a click (2 kHz, then 0) for each key,
#     CapsLock (the first LED that was off) on for 2 s, a rising two-tone;
#  2. a wrong PIN, denied: the same clicks as the right one, event for event; CapsLock
#     blinks three times, one low tone;
#  3. a second denial with MaxFailures=2: a slow blink until the 3 s lockout ends;
#  4. a grant, and SIGTERM while it shows: CapsLock back off and the tone silenced
#     before pinpadd exits; pinpadd never writes NumLock. (Its close releases the grab,
#     and the kernel then lets the console's keyboard handler put its own lock-LED state
#     on the device: that NumLock write comes after pinpadd's last one and is the
#     kernel's, so it is allowed there and nowhere else.)
# The controller is this script (listen, then verdict): pinpadd never knows which PIN
# is right, and the clicks must not tell either.
. "$RIG_LIB/guest.sh"
rig_start_udevd
run=/tmp/pinpadd
mkdir -p $run
rec=$RIG_SCRATCH/feedback.rec
log=$RIG_SCRATCH/daemon.log
events=$RIG_SCRATCH/events.txt
ctl() { $RIG_BIN/pinpadctl --socket $run/s.sock "$@"; }
bg_ctl() { exec $RIG_BIN/pinpadctl --socket $run/s.sock "$@"; }
mark() { echo "mark $1" >>"$rec"; }

cat >$run/pinpadd.conf <<CONF
[Lockout]
MaxFailures=2
LockoutSec=3
[Keypad pad]
Match=Pinpad?Feedback*
Feedback=auto
CONF
$RIG_BIN/pinpadd --check-config --config $run/pinpadd.conf | grep -q "^Feedback=auto$" ||
  rig_fail "--check-config does not show Feedback=auto"

ready=$RIG_SCRATCH/keypad-ready
: >"$rec"
go="wait=$RIG_SCRATCH/go"
python3 "$RIG_LIB/uinput.py" feedback "Pinpad Feedback Keypad" 600 "$ready" "$rec" \
  "${go}1 KP1 KP2 KP3 KP4 KPENTER ${go}2 KP9 KP8 KP7 KP6 KPENTER ${go}3 KP5 KP5 KP5 KP5 KPENTER ${go}4 KP1 KP2 KP3 KP4 KPENTER" &
keypad=$!
rig_wait_for_node "$ready" 60
node=$(rig_node_of "Pinpad Feedback Keypad") || rig_fail "no uinput keypad"

$RIG_BIN/pinpadd --config $run/pinpadd.conf --input auto --display none \
  --socket $run/s.sock --state-dir $run/state --log-level debug 2>"$log" &
daemon=$!
dump() { echo "-- daemon log"; cat "$log"; echo "-- events"; cat "$events"; echo "-- record"; cat "$rec"; }
rig_wait_lines 1 "$node grabbed" "$log" 60 || { dump; rig_fail "pinpadd never grabbed the keypad"; }
bg_ctl listen >"$events" &
listener=$!
deadline=$((SECONDS + 60))
until ctl status | grep -q '"clients":2'; do # listen and this request
  [ "$SECONDS" -ge "$deadline" ] && { dump; rig_fail "listen never connected"; }
  rig_nap 0.2
done

# attempt N RESULT: types the Nth PIN, answers its code message with RESULT.
attempt() {
  mark "keys$1"
  : >"$RIG_SCRATCH/go$1"
  rig_wait_lines "$1" '"type":"code"' "$events" 60 || { dump; rig_fail "no code message $1"; }
  local id
  id=$(grep '"type":"code"' "$events" | sed -n "${1}p" | sed 's/.*"id":"\([^"]*\)".*/\1/')
  mark "verdict$1"
  ctl verdict "$id" "$2" >/dev/null || { dump; rig_fail "verdict $1 refused"; }
}
attempt 1 granted
rig_nap 3 # the grant's 2 s light, and a margin
attempt 2 denied
rig_nap 2
attempt 3 denied # MaxFailures=2: the lockout's 3 s
rig_wait_lines 1 '"type":"lockout"' "$events" 30 || { dump; rig_fail "no lockout"; }
rig_nap 4
mark end-of-lockout
attempt 4 granted
rig_nap 0.5 # the light is on, the two-tone may still sound
mark sigterm
kill -TERM $daemon
wait $daemon
status=$?
rig_nap 0.5 # the recorder reads what the last writes handed back
mark exit
[ $status = 0 ] || { dump; rig_fail "pinpadd exited $status on SIGTERM"; }
kill $keypad $listener 2>/dev/null
cat "$rec"

python3 - "$rec" <<'PY' || { dump; rig_fail "the feedback is not what pinpadd.conf(5) promises"; }
import sys
EV_LED, EV_SND, NUML, CAPSL, TONE = 0x11, 0x12, 0, 1, 2
phases, name = {}, None
for line in open(sys.argv[1]):
    words = line.split()
    if words[0] == "mark":
        name = words[1]
        phases[name] = []
    elif name:
        phases[name].append((float(words[0]), int(words[1]), int(words[2]), int(words[3])))
failures = []
def check(ok, what):
    if not ok:
        failures.append(what)
def tones(events):
    return [v for _, t, c, v in events if t == EV_SND and c == TONE]
def lstrip0(values):  # a click's end may be read after the next mark
    while values[:1] == [0]:
        values = values[1:]
    return values
def caps(events):
    return [(at, v) for at, t, c, v in events if t == EV_LED and c == CAPSL]
def numlock(events):
    return [i for i, (_, t, c, _) in enumerate(events) if t == EV_LED and c == NUML]
for name, events in phases.items():
    writes = numlock(events)
    if name == "sigterm":  # the console's, after pinpadd's restore and close
        ours = [i for i, (_, t, c, _) in enumerate(events) if (t, c) in ((EV_LED, CAPSL), (EV_SND, TONE))]
        writes = [i for i in writes if not ours or i < max(ours)]
    check(writes == [], "NumLock was written in %s: %r" % (name, [events[i] for i in writes]))
# Keys: a 2 kHz click for each of the five keys (a click that a late timer has not ended
# yet is started again), the same for the right PIN and the wrong one.
for n in (1, 2, 3):
    keys = tones(phases["keys%d" % n])
    check(keys.count(2000) == 5 and set(keys) <= {0, 2000}, "keys of attempt %d: tones %r" % (n, keys))
    check(caps(phases["keys%d" % n]) == [], "keys of attempt %d lit CapsLock" % n)
def shape(events):
    return sorted((t, c, v) for _, t, c, v in events if v != 0)
check(shape(phases["keys1"]) == shape(phases["keys2"]), "a right and a wrong PIN sounded differently")
# Grant: CapsLock on for about 2 s, tones 1000 then 1500 then silence.
grant = phases["verdict1"]
check(lstrip0(tones(grant)) == [1000, 1500, 0], "grant tones %r" % tones(grant))
lit = caps(grant)
check([v for _, v in lit] == [1, 0], "grant light %r" % lit)
if len(lit) == 2:
    check(1.8 <= lit[1][0] - lit[0][0] <= 4.0, "grant light lasted %.2f s" % (lit[1][0] - lit[0][0]))
# Denial: three blinks, one low tone.
deny = phases["verdict2"]
check([v for _, v in caps(deny)] == [1, 0] * 3, "denial blinks %r" % caps(deny))
check(lstrip0(tones(deny)) == [300, 0], "denial tones %r" % tones(deny))
# Lockout: the denial's tone, then a slow blink (on every second) until the 3 s end.
locked = phases["verdict3"] + phases["end-of-lockout"]
check(lstrip0(tones(locked))[:1] == [300], "lockout's denial tone %r" % tones(locked))
blinks = [at for at, v in caps(locked) if v == 1]
check(2 <= len(blinks) <= 4, "%d slow blinks in a 3 s lockout" % len(blinks))
check(all(0.8 <= b - a <= 1.6 for a, b in zip(blinks, blinks[1:])), "blinks at %r" % blinks)
check(not caps(locked) or caps(locked)[-1][1] == 0, "CapsLock left on after the lockout")
# SIGTERM during a grant: CapsLock back off, the tone silenced, before the exit.
end = phases["verdict4"] + phases["sigterm"]
check(caps(end)[-1:] and caps(end)[-1][1] == 0, "CapsLock not restored at exit: %r" % caps(end))
check(tones(end)[-1:] == [0], "the tone was left sounding at exit: %r" % tones(end))
check(phases["exit"] == [], "writes after pinpadd exited: %r" % phases["exit"])
for f in failures:
    print("guest: FAIL: " + f)
sys.exit(1 if failures else 0)
PY
rig_log "PASS"
