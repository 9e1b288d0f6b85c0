#!/bin/bash
# The example broker ACL (examples/mosquitto-acl, the shipped file itself) enforced by a
# real Mosquitto on 127.0.0.1, with a password file for door1, door2, controller and
# homeassistant (run by `make test`):
#  * every topic the bridge (Decide=site and Decide=local, doors included), the site
#    controller (serve --mqtt --sign-key) and Home Assistant publish reaches the reader
#    that needs it, and the same publish from a login that does not own the topic (door2
#    for door1, Home Assistant or door1 for the controller's) reaches nobody;
#  * what each login can read at all (a `#` subscription beside the ones the programs
#    make): door2 reads none of door1's topics (verdicts, replica, commands, log acks,
#    codes), Home Assistant no code, verdict, replica or log, a door nothing but its own
#    verdicts, commands, replica, log acks and the site's status;
#  * with --bridge PINPADCTL: the real bridge as door1 (Decide=local) and as door2
#    (Decide=site), each on a scripted daemon with a keypad and a door, the real site
#    (serve --mqtt --sign-key) as controller, and Home Assistant's `open` on both doors:
#    each decision, replica, log entry and door event goes through, and the broker logs
#    no "Denied" line meanwhile.
# Every publish carries a payload of its own, so each check looks for exactly it. A check
# reads a subscriber's output only once a last message sent after everything else came
# through (one broker thread, each client's messages in order).
# Usage: tests/mosquitto-acl.sh [--bridge PINPADCTL] [ACL_FILE]   (MOSQUITTO_ACL_KEEP=1:
#   the broker's log and every program's output are kept, their folder named at the end)
#   ACL_FILE: by default the shipped examples/mosquitto-acl; another one only to see the
#   checks fail (an older ACL, or one that allows everything).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
bridge=
if [[ ${1:-} == --bridge ]]; then
  bridge=$(realpath "$2")
  shift 2
fi
acl=$(realpath "${1:-$src/examples/mosquitto-acl}")

for tool in /usr/sbin/mosquitto mosquitto_pub mosquitto_sub mosquitto_passwd python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "mosquitto-acl: $tool not found (apt-get install mosquitto mosquitto-clients python3)" >&2
    exit 69
  fi
done

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ -n ${MOSQUITTO_ACL_KEEP:-} ]]; then
    echo "mosquitto-acl: kept $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
fails=0
checks=0
ok() { checks=$((checks + 1)); }
# expect WHAT COMMAND...: one check, that COMMAND succeeds (WHAT says what did not).
expect() {
  local what=$1
  shift
  if "$@"; then ok; else bad "$what"; fi
}
bad() {
  checks=$((checks + 1)) fails=$((fails + 1))
  echo "mosquitto-acl: FAIL: $*"
}

# --- the broker ------------------------------------------------------------------------
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
: >"$work/passwords"
for user in door1 door2 controller homeassistant; do
  mosquitto_passwd -b "$work/passwords" "$user" "pw-$user"
  echo "pw-$user" >"$work/$user.pw"
done
# wait_for FILE LINE SECONDS: true once FILE holds LINE (a whole line).
wait_for() {
  local deadline=$((SECONDS + $3))
  until grep -qFx -- "$2" "$1" 2>/dev/null; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}
# wait_grep FILE REGEX SECONDS: true once a line of FILE matches REGEX (grep -E).
wait_grep() {
  local deadline=$((SECONDS + $3))
  until grep -qE -- "$2" "$1" 2>/dev/null; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}
# start_broker NAME: a broker (persistence off: nothing retained from an earlier one) on
# $port with the ACL, its log in NAME.log.
start_broker() {
  cat >"$work/$1.conf" <<EOC
user root
persistence false
log_dest file $work/$1.log
log_type all
listener $port 127.0.0.1
allow_anonymous false
password_file $work/passwords
acl_file $acl
EOC
  timeout 300 /usr/sbin/mosquitto -c "$work/$1.conf" >"$work/$1.out" 2>&1 &
  pids+=($!)
  if ! wait_grep "$work/$1.log" "mosquitto version .* running" 10; then
    cat "$work/$1.out" "$work/$1.log" || true
    echo "mosquitto-acl: FAIL: the broker did not start with $acl"
    exit 1
  fi
}
# log_type all: "Denied PUBLISH" is a debug line. The log names topics, never payloads.
start_broker table

# pub USER TOPIC PAYLOAD [r]: one QoS 1 publish (retained with r), acknowledged.
pub() {
  timeout 10 mosquitto_pub -h 127.0.0.1 -p "$port" -u "$1" -P "pw-$1" -q 1 ${4:+-r} \
    -t "$2" -m "$3"
}
# sub NAME USER FILTER...: a subscriber in the background, its messages (`topic payload`)
# and its debug lines in NAME.out, once the broker acknowledged its subscriptions.
sub() {
  local name=$1 user=$2 args=()
  shift 2
  for filter in "$@"; do args+=(-t "$filter"); done
  timeout 120 stdbuf -oL mosquitto_sub -h 127.0.0.1 -p "$port" -i "acl-sub-$name" -u "$user" \
    -P "pw-$user" -q 1 -v -d \
    "${args[@]}" >"$work/$name.out" 2>&1 &
  pids+=($!)
  wait_grep "$work/$name.out" "received SUBACK" 10 || {
    cat "$work/$name.out" >&2
    echo "mosquitto-acl: FAIL: $name ($user) was not subscribed" >&2
    exit 1
  }
}
# messages NAME: the topics and payloads NAME received.
messages() { grep -E '^(pinpadd|homeassistant)/' "$work/$1.out" || true; }

# --- the topic table -------------------------------------------------------------------
# Subscribers: the filters each program subscribes to (fleet controller and site; door1's
# bridge with Decide=local; Home Assistant's entities and discovery), and a `#` for each
# login, which gets whatever the ACL lets it read.
D=pinpadd/door1
sub controller controller 'pinpadd/+/+/code' 'pinpadd/+/status' 'pinpadd/+/+/state' 'pinpadd/+/log'
sub door1 door1 "$D/+/verdict" "$D/door/+/command" "$D/replica" pinpadd/site/status "$D/log/ack"
sub ha homeassistant 'homeassistant/#' "$D/status" "$D/main/event" "$D/main/state" \
  "$D/door/front/event" "$D/door/front/state" "$D/replica/state"
sub controller-all controller '#'
sub door1-all door1 '#'
sub door2-all door2 '#' "$D/+/verdict" "$D/door/+/command" "$D/replica" "$D/log/ack" \
  "$D/+/code" "$D/log"
sub ha-all homeassistant '#'

n=0
seen=()   # "SUBSCRIBER|TOPIC PAYLOAD|what"
unseen=() # the same, for publishes that must reach nobody
# allow WRITER TOPIC RETAIN SUBSCRIBER...: WRITER's publish reaches each SUBSCRIBER.
allow() {
  local writer=$1 topic=$2 retain=$3 payload reader
  shift 3
  n=$((n + 1)) payload="acl-$n-$writer"
  pub "$writer" "$topic" "$payload" $retain || bad "$writer: mosquitto_pub on $topic failed"
  for reader in "$@"; do seen+=("$reader|$topic $payload|$writer's $topic reaches $reader"); done
}
# deny WRITER TOPIC SUBSCRIBER...: WRITER's publish (never retained) reaches none of them.
deny() {
  local writer=$1 topic=$2 payload reader
  shift 2
  n=$((n + 1)) payload="acl-$n-$writer"
  pub "$writer" "$topic" "$payload" || true
  for reader in "$@"; do unseen+=("$reader|$topic $payload|$writer's $topic refused"); done
}
retained=r

# The bridge (door1): status, a keypad's code, events and state, its door's event and
# state, its replica's state and log (Decide=local), its discovery configs. door2 may
# publish none of them.
owned_by_door1=(
  "$D/status $retained controller ha controller-all ha-all"
  "$D/main/code - controller controller-all"
  "$D/main/event - ha ha-all"
  "$D/main/state $retained ha controller controller-all ha-all"
  "$D/door/front/event - ha ha-all"
  "$D/door/front/state $retained ha ha-all"
  "$D/replica/state $retained ha ha-all"
  "$D/log - controller controller-all"
  "homeassistant/event/pinpadd_door1/main/config $retained ha ha-all"
  "homeassistant/sensor/pinpadd_door1/main_phase/config $retained ha ha-all"
  "homeassistant/lock/pinpadd_door1/door_front/config $retained ha ha-all"
  "homeassistant/binary_sensor/pinpadd_door1/door_front_contact/config $retained ha ha-all"
  "homeassistant/sensor/pinpadd_door1/replica_age/config $retained ha ha-all"
)
for row in "${owned_by_door1[@]}"; do
  read -r topic ret readers <<<"$row"
  [[ $ret == - ]] && ret=
  # shellcheck disable=SC2086
  allow door1 "$topic" "$ret" $readers
  # shellcheck disable=SC2086
  deny door2 "$topic" $readers
done
# The controller's (fleet: verdicts; site: replicas, log acks, its status): only it may
# publish them, not the door they are for, another door or Home Assistant.
owned_by_controller=(
  "$D/main/verdict - door1 door1-all"
  "$D/replica $retained door1 door1-all"
  "$D/log/ack - door1 door1-all"
  "pinpadd/site/status $retained door1 door1-all door2-all"
)
for row in "${owned_by_controller[@]}"; do
  read -r topic ret readers <<<"$row"
  [[ $ret == - ]] && ret=
  # shellcheck disable=SC2086
  allow controller "$topic" "$ret" $readers
  for writer in door2 door1 homeassistant; do
    # shellcheck disable=SC2086
    deny "$writer" "$topic" $readers
  done
done
# Home Assistant's: a door's command (the lock entity's open), its own status (the
# integration's birth message). Neither door may command door1.
allow homeassistant "$D/door/front/command" "" door1 door1-all
deny door2 "$D/door/front/command" door1 door1-all
deny door1 "$D/door/front/command" door1 door1-all
allow homeassistant homeassistant/status "" ha ha-all
deny door1 homeassistant/status ha ha-all
# Home Assistant is no door: the door patterns apply to every login, so without its
# own lines it could say pinpadd/homeassistant is online, get that device's replica
# (every line without doors=) and ask the controller codes of its own.
deny homeassistant pinpadd/homeassistant/status controller controller-all
deny homeassistant pinpadd/homeassistant/main/code controller controller-all
deny homeassistant pinpadd/homeassistant/main/state controller controller-all
deny homeassistant homeassistant/lock/pinpadd_homeassistant/door_front/config ha ha-all
# Nor is the controller.
deny controller pinpadd/controller/status ha-all
deny controller homeassistant/lock/pinpadd_controller/door_front/config ha ha-all
allow controller pinpadd/homeassistant/replica "$retained"
unseen+=("ha-all|pinpadd/homeassistant/replica acl-$n-controller|homeassistant reads no replica")
allow controller pinpadd/homeassistant/main/verdict ""
unseen+=("ha-all|pinpadd/homeassistant/main/verdict acl-$n-controller|homeassistant reads no verdict")

# The last messages: once each subscriber has its own, it has all it will get.
end="end-$RANDOM$RANDOM"
pub door1 "$D/status" "$end" r
pub controller pinpadd/site/status "$end" r
for name in controller ha controller-all ha-all; do
  wait_for "$work/$name.out" "$D/status $end" 10 || bad "$name: the last message never came"
done
for name in door1 door1-all door2-all; do
  wait_for "$work/$name.out" "pinpadd/site/status $end" 10 || bad "$name: the last message never came"
done

for entry in "${seen[@]}"; do
  IFS='|' read -r name line what <<<"$entry"
  if grep -qFx -- "$line" "$work/$name.out"; then ok; else bad "$what: it did not"; fi
done
for entry in "${unseen[@]}"; do
  IFS='|' read -r name line what <<<"$entry"
  if grep -qFx -- "$line" "$work/$name.out"; then bad "$what: it reached $name"; else ok; fi
done
# What each login reads at all (its `#`): only these topics.
# only NAME REGEX WHAT: every topic NAME received matches REGEX.
only() {
  local extra
  extra=$(messages "$1" | cut -d' ' -f1 | grep -vE "$2" | sort -u || true)
  if [[ -n $extra ]]; then bad "$3 $(echo "$extra" | tr '\n' ' ')"; else ok; fi
}
only door2-all '^pinpadd/site/status$' "door2 reads another door's topics:"
only door1-all '^(pinpadd/door1/([^/]+/verdict|door/[^/]+/command|replica|log/ack)|pinpadd/site/status)$' \
  "door1 reads what is not its own:"
only ha-all '^(pinpadd/[^/]+/(status|[^/]+/(event|state)|door/[^/]+/(event|state))|pinpadd/site/status|homeassistant/.*)$' \
  "homeassistant reads codes, verdicts, replicas, commands or logs:"
only controller-all '^pinpadd/[^/]+/(status|[^/]+/(code|state)|log)$' \
  "the controller reads what it does not use:"
echo "mosquitto-acl: topic table: $((checks - fails)) of $checks checks passed ($acl)"

if [[ -z $bridge ]]; then
  ((fails == 0)) || exit 1
  exit 0
fi

# --- the real programs -----------------------------------------------------------------
# A scripted daemon (no GPIO on the host): it greets, answers `status` with the keypad
# `main` and the door `front`, answers `open` with an unlocked door, and once the file
# GO exists sends an entry event and one code (decided by the bridge, or by the
# controller through it). It records the type, id and result of each line it is sent.
cat >"$work/daemon.py" <<'PY'
import json, os, select, socket, sys
path, record, go, attempt = sys.argv[1:5]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(4)
lock, sent = "locked", False
def status():
    return {"type": "status", "version": "9.9.9",
            "keypads": [{"name": "main", "state": "idle", "length": 0, "failures": 0,
                         "locked_seconds": 0}],
            "doors": [{"name": "front", "lock": lock, "contact": "closed", "forced": False,
                       "lines": "ok"}]}
while True:
    conn, _ = server.accept()
    conn.sendall(b'{"type":"hello","protocol":1,"version":"9.9.9"}\n')
    buffer = b""
    while True:
        if not sent and os.path.exists(go):
            sent = True
            entry = {"type": "entry", "keypad": "main", "event": "started", "length": 1}
            conn.sendall(json.dumps(entry).encode() + b"\n")
            code = {"type": "code", "id": attempt, "keypad": "main", "code": "97531",
                    "at": "2026-12-07T20:00:00.000Z"}
            conn.sendall(json.dumps(code).encode() + b"\n")
        if not select.select([conn], [], [], 0.1)[0]:
            continue
        data = conn.recv(4096)
        if not data:
            break
        buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            message = json.loads(line)
            with open(record, "a") as f:
                f.write("%s %s %s\n" % (message.get("type"), message.get("id", "-"),
                                        message.get("result", "-")))
            if message.get("type") == "open" and message.get("door") == "front":
                lock = "unlocked"
                conn.sendall(b'{"type":"door","door":"front","event":"unlocked","by":"remote"}\n')
            elif message.get("type") == "status":
                conn.sendall(json.dumps(status()).encode() + b"\n")
PY
openssl genpkey -algorithm ed25519 -out "$work/site.key" 2>/dev/null
openssl pkey -in "$work/site.key" -pubout -out "$work/site.pub"
: >"$work/codes"
chmod 0600 "$work/codes"
section() { # USER TOPIC CLIENTID [LINE...]
  local user=$1 topic=$2 id=$3
  shift 3
  printf '%s\n' "[MQTT]" "Broker=mqtt://127.0.0.1:$port" "Username=$user" \
    "PasswordFile=$work/$user.pw" "Topic=$topic" "ClientID=$id" "$@"
}
section door1 pinpadd/door1 acl-door1 Decide=local "SiteKey=$work/site.pub" >"$work/door1.conf"
section door2 pinpadd/door2 acl-door2 >"$work/door2.conf"
section controller site/acl acl-site >"$work/site.conf"
# A broker of its own: no retained message of the table above.
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
pids=()
start_broker programs
sub bridge-ha homeassistant '#'
for door in door1 door2; do
  attempt=$(python3 -c 'import os; print(os.urandom(16).hex())')
  echo "$attempt" >"$work/$door.attempt"
  timeout 120 python3 "$work/daemon.py" "$work/$door.sock" "$work/$door.lines" "$work/$door.go" \
    "$attempt" >"$work/$door-daemon.out" 2>&1 &
  pids+=($!)
done
timeout 120 "$bridge" serve --codes "$work/codes" --state-dir "$work/site-state" --mqtt \
  --sign-key "$work/site.key" --config "$work/site.conf" >"$work/site.out" 2>&1 &
pids+=($!)
for door in door1 door2; do
  deadline=$((SECONDS + 10))
  until [[ -S $work/$door.sock ]] || ((SECONDS > deadline)); do sleep 0.05; done
  timeout 120 "$bridge" --socket "$work/$door.sock" mqtt --config "$work/$door.conf" \
    --state-dir "$work/$door-state" >"$work/$door-bridge.out" 2>&1 &
  pids+=($!)
done
# Seen by Home Assistant: both doors online with their discovery and state, door1's
# replica taken (a generation other than 0).
for line in "pinpadd/door1/status online" "pinpadd/door2/status online"; do
  expect "bridge: Home Assistant never saw $line" wait_for "$work/bridge-ha.out" "$line" 15
done
expect "bridge: door1 took no replica from the site" \
  wait_grep "$work/bridge-ha.out" '^pinpadd/door1/replica/state \{"generation":[1-9]' 15
# A code on each keypad: door1 decides it (its log goes to the site, which acks it),
# door2's goes to the controller, whose verdict comes back.
touch "$work/door1.go" "$work/door2.go"
for door in door1 door2; do
  expect "bridge: $door's daemon got no verdict for its code" \
    wait_grep "$work/$door.lines" "^verdict $(cat "$work/$door.attempt") " 15
done
# Home Assistant opens both doors.
for door in door1 door2; do
  expect "homeassistant: open $door failed" \
    pub homeassistant "pinpadd/$door/door/front/command" open
  expect "bridge: $door's daemon got no open" wait_grep "$work/$door.lines" "^open " 15
  expect "bridge: Home Assistant never saw $door's door unlocked" \
    wait_grep "$work/bridge-ha.out" "^pinpadd/$door/door/front/event .*\"unlocked\"" 15
  expect "bridge: Home Assistant never saw $door's door state unlocked" \
    wait_grep "$work/bridge-ha.out" "^pinpadd/$door/door/front/state \{\"lock\":\"unlocked\"" 15
done
# Every topic of the table went through the broker: "Sending PUBLISH to CLIENT (...,
# 'TOPIC', ...)" in its log.
delivered() { # CLIENT TOPIC
  expect "bridge: the broker sent no $2 to $1" \
    wait_grep "$work/programs.log" "Sending PUBLISH to $1 \(d0, q[01], r[01], m[0-9]+, '$2'" 15
}
delivered acl-door1 pinpadd/door1/replica
delivered acl-door1 pinpadd/site/status
delivered acl-door1 pinpadd/door1/log/ack
delivered acl-door1 pinpadd/door1/door/front/command
delivered acl-door2 pinpadd/door2/main/verdict
delivered acl-door2 pinpadd/door2/door/front/command
for door in door1 door2; do
  delivered acl-site-serve "pinpadd/$door/status"
  delivered acl-site-serve "pinpadd/$door/main/state"
  delivered acl-sub-bridge-ha "pinpadd/$door/status"
  delivered acl-sub-bridge-ha "pinpadd/$door/main/event"
  delivered acl-sub-bridge-ha "pinpadd/$door/main/state"
  delivered acl-sub-bridge-ha "pinpadd/$door/door/front/event"
  delivered acl-sub-bridge-ha "pinpadd/$door/door/front/state"
  delivered acl-sub-bridge-ha "homeassistant/event/pinpadd_$door/main/config"
  delivered acl-sub-bridge-ha "homeassistant/sensor/pinpadd_$door/main_phase/config"
  delivered acl-sub-bridge-ha "homeassistant/lock/pinpadd_$door/door_front/config"
  delivered acl-sub-bridge-ha "homeassistant/binary_sensor/pinpadd_$door/door_front_contact/config"
done
delivered acl-site-serve pinpadd/door2/main/code
delivered acl-site-serve pinpadd/door1/log
delivered acl-sub-bridge-ha pinpadd/door1/replica/state
delivered acl-sub-bridge-ha homeassistant/sensor/pinpadd_door1/replica_age/config
denied=$(grep "Denied" "$work/programs.log" || true)
if [[ -n $denied ]]; then
  bad "bridge: the broker denied what the programs did: $denied"
else
  ok
fi
if ((fails > 0)); then
  for f in site door1-bridge door2-bridge; do
    echo "--- $f"
    tail -20 "$work/$f.out"
  done
fi
echo "mosquitto-acl: $((checks - fails)) of $checks checks passed ($acl, bridge $bridge)"
((fails == 0))
