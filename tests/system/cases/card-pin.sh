# rig-keyboards: 2
# Card + PIN end to end (SPEC §9) on the real kernel: USB keyboard 1 (port 1) is keypad
# door's keypad by Match=phys:, keyboard 2 (port 2) its card reader by CardReader=phys:,
# CardMode=card+pin. A card typed on the reader (digits, Enter) and then a PIN on the
# keypad give ONE code message carrying both (a second card before the PIN replaces the
# first); `pinpadctl serve` grants the right pair, denies the right PIN with an unknown
# card and with another person's card, and grants a duress PIN with its card, after
# which an `alarm` reaches `pinpadctl listen` and serve logs a warning with the name.
# No digit of a PIN or card reaches either log.
# Every wait ends on an event (a log line, a message), with a deadline only against a
# hang. Host side: card-pin.host.py types what the guest asks for, on the keyboard it
# names.
. "$RIG_LIB/guest.sh"
rig_start_udevd
pad=$(rig_node_of_phys "usb-*-1/input0") || rig_fail "no keyboard on USB port 1"
reader=$(rig_node_of_phys "usb-*-2/input0") || rig_fail "no keyboard on USB port 2"
run=/tmp/pinpadd
mkdir -p $run
log=$RIG_SCRATCH/daemon.log
serve_log=$RIG_SCRATCH/serve.log
events=$RIG_SCRATCH/events.txt
ctl() { .build/debug/pinpadctl --socket $run/s.sock "$@"; }
# Background clients run the binary itself, so that $! is its pid (not a subshell's).
bg_ctl() { exec .build/debug/pinpadctl --socket $run/s.sock "$@"; }

# The secrets live in shell variables and reach programs only on stdin (the host driver
# gets the keys to type in $RIG_SCRATCH/keys-N).
alice_card=0012345678 alice_pin=1357
bob_card=0087654321 bob_pin=8642 bob_duress=2468
stranger_card=0055500555

cat >$run/pinpadd.conf <<CONF
[Keypad door]
Match=phys:usb-*-1/input0
CardReader=phys:usb-*-2/input0
CardMode=card+pin
PinAfterCardSec=30
CONF
.build/debug/pinpadd --check-config --config $run/pinpadd.conf >"$RIG_SCRATCH/check.txt" 2>&1 ||
  { cat "$RIG_SCRATCH/check.txt"; rig_fail "--check-config refused the card reader section"; }
.build/debug/pinpadd --list-devices --config $run/pinpadd.conf | tee "$RIG_SCRATCH/list.txt"
grep -qP "^$pad\t.*-1/input0\tyes\tdoor$" "$RIG_SCRATCH/list.txt" || rig_fail "keyboard 1 is not keypad door"
grep -qP "^$reader\t.*-2/input0\tyes\tdoor \(card reader\)$" "$RIG_SCRATCH/list.txt" ||
  rig_fail "keyboard 2 is not door's card reader"

# The codes file: alice and bob's duress line by `pinpadctl hash --card --key` (card,
# then PIN, one line each on stdin; keyed tags that spare serve the other lines' slow
# checks), bob's ordinary line from openssl's SHA-512 crypt, untagged, to show that
# serve takes any crypt(3) hash beside tagged lines.
t0=$(rig_now)
codes=$run/codes
install -m 0600 /dev/null $codes   # serve refuses a codes file others may read
printf '%s\n%s\n' "$alice_card" "$alice_pin" | ctl hash alice --card --key $run/codes.key >>$codes 2>"$RIG_SCRATCH/hash.log" ||
  { cat "$RIG_SCRATCH/hash.log"; rig_fail "pinpadctl hash alice --card failed"; }
crypt() { printf '%s\n' "$1" | openssl passwd -6 -stdin; }
echo "bob:$(crypt "$bob_pin"):card=$(crypt "$bob_card")" >>$codes
printf '%s\n%s\n' "$bob_card" "$bob_duress" | ctl hash bob --card --duress --key $run/codes.key >>$codes 2>>"$RIG_SCRATCH/hash.log" ||
  { cat "$RIG_SCRATCH/hash.log"; rig_fail "pinpadctl hash bob --card --duress failed"; }
rig_measure hash_codes_file "$t0"
cut -d: -f1,3- $codes | sed 's/card=[^,]*/card=HASH/'
[ "$(stat -c %a $run/codes.key)" = 600 ] || rig_fail "hash --key made a key file others may read"
[ "$(grep -c ':.*cardtag=' $codes)" = 2 ] || rig_fail "hash --key wrote no cardtag="
grep -q "^bob:[^:]*:.*duress" $codes || rig_fail "pinpadctl hash --duress gave no duress option"
[ "$(grep -c ':.*card=\$' $codes)" = 3 ] || rig_fail "not every line has a card= hash"

t0=$(rig_now)
.build/debug/pinpadd --config $run/pinpadd.conf --input auto --display none \
  --socket $run/s.sock --state-dir $run/state --log-level debug 2>"$log" &
daemon=$!
dump() { echo "-- daemon log"; cat "$log"; echo "-- serve log"; cat "$serve_log"; echo "-- events"; cat "$events"; }
# wait_for COUNT PATTERN FILE WHAT: until COUNT lines of FILE match PATTERN.
wait_for() {
  local deadline=$(($(date +%s) + 60)) n
  while :; do
    n=$(grep -c -- "$2" "$3" 2>/dev/null)
    [ "${n:-0}" -ge "$1" ] && return 0
    [ "$(date +%s)" -ge "$deadline" ] && { dump; rig_fail "no $4 within 60 s"; }
    kill -0 $daemon 2>/dev/null || { dump; rig_fail "pinpadd ended while waiting for $4"; }
    sleep 0.05
  done
}
wait_for 1 "$pad\b.* grabbed" "$log" "grab of the keypad"
wait_for 1 "$reader\b.* grabbed" "$log" "grab of the card reader"
rig_measure start_and_grab_both "$t0"
bg_ctl listen >"$events" &
listener=$!
bg_ctl serve --codes $codes --key $run/codes.key 2>"$serve_log" &
server=$!
deadline=$(($(date +%s) + 60))
until ctl status | grep -q '"clients":3'; do   # listen, serve and this request
  [ "$(date +%s)" -ge "$deadline" ] && { ctl status; dump; rig_fail "serve and listen never connected"; }
  kill -0 $server 2>/dev/null || { dump; rig_fail "pinpadctl serve ended"; }
  sleep 0.2
done

# type_keys KEYBOARD QCODE...: the host types them on USB keyboard KEYBOARD (1 or 2).
step=0
type_keys() {
  step=$((step + 1))
  echo "$*" >"$RIG_SCRATCH/keys-$step"
  rig_signal "keys-$step"
}
# qcodes PREFIX DIGITS: "0" "0" "1" ... (PREFIX "") or "kp_1" "kp_3" ... (PREFIX kp_).
qcodes() {
  local i
  for ((i = 0; i < ${#2}; i++)); do printf '%s%s ' "$1" "${2:i:1}"; done
}
# attempt N CARD PIN [EARLIER_CARD]: the card on the reader (after EARLIER_CARD, which
# it replaces), once the daemon holds it the PIN on the keypad; returns when the Nth
# code message and the Nth verdict are in.
attempt() {
  local reads t card
  t=$(rig_now)
  for card in ${4:-} "$2"; do
    reads=$(grep -c "card read\|card replaced" "$log")
    # shellcheck disable=SC2046
    type_keys 2 $(qcodes "" "$card") ret
    wait_for $((reads + 1)) "card read\|card replaced" "$log" "card read for attempt $1"
  done
  # shellcheck disable=SC2046
  type_keys 1 $(qcodes kp_ "$3") kp_enter
  wait_for "$1" '"type":"code"' "$events" "code message of attempt $1"
  rig_measure "attempt_${1}_card_to_code" "$t"
  t=$(rig_now)
  wait_for "$1" '"type":"verdict"' "$events" "verdict of attempt $1"
  rig_measure "attempt_${1}_code_to_verdict" "$t"
}
attempt 1 "$alice_card" "$alice_pin" "$stranger_card"  # the right pair (alice's card
grep -q "card replaced" "$log" || rig_fail "alice's card did not replace the first"  # 2nd)
attempt 2 "$stranger_card" "$alice_pin"   # the right PIN, a card nobody has: denied
attempt 3 "$bob_card" "$alice_pin"        # the right PIN with another person's card: denied
attempt 4 "$bob_card" "$bob_duress"       # bob's duress PIN with his card: granted, alarm
wait_for 1 '"type":"alarm"' "$events" "alarm after the duress code"
kill $server $listener
wait $server $listener 2>/dev/null
cat "$events"

python3 - "$events" "$alice_pin:$alice_card" "$alice_pin:$stranger_card" "$alice_pin:$bob_card" \
  "$bob_duress:$bob_card" <<'PY' || rig_fail "the messages are not what card + PIN promises"
import json, sys
messages = [json.loads(line) for line in open(sys.argv[1])]
codes = [m for m in messages if m["type"] == "code"]
verdicts = {m["id"]: m["result"] for m in messages if m["type"] == "verdict"}
alarms = [m for m in messages if m["type"] == "alarm"]
expected = [a.split(":") for a in sys.argv[2:]]
results = ["granted", "denied", "denied", "granted"]
ok = True
def check(condition, text):
    global ok
    if not condition:
        print("python: " + text)
        ok = False
check(len(codes) == 4, "%d code messages for 4 card + PIN attempts" % len(codes))
for n, (m, (pin, card), result) in enumerate(zip(codes, expected, results), 1):
    check(m.get("keypad") == "door", "attempt %d: keypad %r" % (n, m.get("keypad")))
    check(m.get("code") == pin, "attempt %d: the code is not the PIN typed" % n)
    check(m.get("card") == card, "attempt %d: the card is not the one read" % n)
    check(verdicts.get(m["id"]) == result, "attempt %d: verdict %r, not %s" % (n, verdicts.get(m["id"]), result))
check(len(alarms) == 1, "%d alarm messages, not 1" % len(alarms))
if alarms and len(codes) == 4:
    a = alarms[0]
    check((a.get("reason"), a.get("keypad"), a.get("id")) == ("duress", "door", codes[3]["id"]),
          "alarm %r is not duress on door for attempt 4" % a)
sys.exit(0 if ok else 1)
PY

cat "$serve_log"
grep -i "warning" "$serve_log" | grep -i "duress" | grep -q "bob" ||
  rig_fail "serve logged no duress warning with bob's name"
grep -i "duress" "$serve_log" | grep -q "alice" && rig_fail "serve called alice's grant a duress"

kill -TERM $daemon
rc=0
wait $daemon || rc=$?
[ $rc = 0 ] || { dump; rig_fail "pinpadd exit $rc after SIGTERM"; }
# The patterns go to grep on stdin, not in its argv.
if printf '%s\n' "$alice_pin" "$alice_card" "$bob_pin" "$bob_card" "$bob_duress" "$stranger_card" \
  "${alice_card#00}" "${bob_card#00}" "${stranger_card#00}" | grep -F -f - "$log" "$serve_log"; then
  rig_fail "a PIN or card number reached a log"
fi
if grep -E "KEY_KP[0-9]|KEY_[0-9]\b" "$log"; then rig_fail "a digit key reached the log"; fi
rig_log "daemon log: $(wc -l <"$log") lines, serve log: $(wc -l <"$serve_log") lines, no digit of a secret"
rig_log "PASS"
