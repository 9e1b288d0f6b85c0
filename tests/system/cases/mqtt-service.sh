# rig-boot: systemd
# pinpadd-mqtt.service under the host's real systemd 252 as PID 1: the bridge runs as
# its dynamic user in group pinpadd with the unit's sandbox (PrivateUsers=,
# RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX ...), reaches a Mosquitto on the
# guest's loopback, activates pinpadd.socket's daemon by connecting to it (the daemon
# allows it by its primary group pinpadd), publishes online, hangs up on the daemon
# when the broker is killed and comes back when it returns; the journal holds its
# lines; systemd-analyze security scores the running unit <= 2.0.
. "$RIG_LIB/guest.sh"

if [ "${1:-}" = setup ]; then
  # The debug build made on the host (the toolchain's libraries are in the shared root);
  # make install ships every unit in systemd/, the bridge's included.
  make -s -o build install INSTALL_CONFIGURATION=debug DESTDIR= PREFIX=/usr || rig_fail "make install"
  [ -f /lib/systemd/system/pinpadd-mqtt.service ] || rig_fail "make install left out pinpadd-mqtt.service"
  systemctl --root=/ enable pinpadd.socket || rig_fail "systemctl enable pinpadd.socket"
  cat >/etc/pinpadd/pinpadd.conf <<'EOF2'
[MQTT]
Broker=mqtt://127.0.0.1:1883
Topic=pinpadd/guest
EOF2
  chmod 0644 /etc/pinpadd/pinpadd.conf
  exit 0
fi

export SYSTEMD_PAGER=cat PAGER=cat SYSTEMD_COLORS=0
prop() { systemctl show -P "$2" "$1"; }
[ "$(cat /proc/1/comm)" = systemd ] || rig_fail "PID 1 is $(cat /proc/1/comm), not systemd"
pinpadd --check-config >/dev/null || rig_fail "pinpadd --check-config refused the [MQTT] section"

conf=$RIG_SCRATCH/mosquitto.conf
printf 'user root\npersistence false\nlistener 1883 127.0.0.1\nallow_anonymous true\n' >"$conf"
broker() {
  /usr/sbin/mosquitto -c "$conf" >>"$RIG_SCRATCH/mosquitto.log" 2>&1 &
  mosq=$!
  for _ in $(seq 50); do mosquitto_pub -h 127.0.0.1 -t probe -n 2>/dev/null && return 0; sleep 0.2; done
  rig_fail "mosquitto did not start"
}
status_is() {  # status_is online|offline: the retained TOPIC/status within 30 s
  local deadline=$(($(date +%s) + 30)) got
  while :; do
    got=$(mosquitto_sub -h 127.0.0.1 -t pinpadd/guest/status -C 1 -W 3 2>/dev/null)
    [ "$got" = "$1" ] && return 0
    [ "$(date +%s)" -ge "$deadline" ] && { journalctl -b -u pinpadd-mqtt --no-pager; rig_fail "status is '$got', not $1"; }
    sleep 0.5
  done
}
clients() { pinpadctl status | sed -n 's/.*"clients":\([0-9]*\).*/\1/p'; }

broker
start=$(rig_now)
systemctl start pinpadd-mqtt.service || { systemctl status --no-pager pinpadd-mqtt; rig_fail "start"; }
status_is online
rig_measure bridge_online "$start"
pid=$(prop pinpadd-mqtt MainPID)
[ "$pid" -gt 0 ] || rig_fail "no MainPID"
ps -o uid=,gid=,user=,group=,comm= -p "$pid"
uid=$(ps -o uid= -p "$pid" | tr -d ' ')
[ "$uid" -ge 61184 ] && [ "$uid" -le 65519 ] || rig_fail "uid $uid is not a dynamic user's"
[ "$(ps -o gid= -p "$pid" | tr -d ' ')" = "$(getent group pinpadd | cut -d: -f3)" ] ||
  rig_fail "not group pinpadd"
[ "$(systemctl is-active pinpadd.service)" = active ] || rig_fail "the bridge did not activate pinpadd"
[ "$(clients)" = 2 ] || rig_fail "the daemon has $(clients) clients, not the bridge and pinpadctl"
mosquitto_sub -h 127.0.0.1 -t 'homeassistant/#' -C 2 -W 5 -F '%r %t' | tee "$RIG_SCRATCH/discovery.txt"
grep -c '^1 homeassistant/' "$RIG_SCRATCH/discovery.txt" | grep -qx 2 || rig_fail "no retained discovery"

# The broker goes: the bridge hangs up on the daemon, stays up, and comes back.
kill -9 "$mosq"
deadline=$(($(date +%s) + 15))
until [ "$(clients)" = 1 ]; do
  [ "$(date +%s)" -ge "$deadline" ] && rig_fail "the bridge stayed connected to the daemon"
  sleep 0.2
done
[ "$(systemctl is-active pinpadd-mqtt)" = active ] || rig_fail "the bridge stopped with the broker"
broker
status_is online
[ "$(clients)" = 2 ] || rig_fail "the bridge did not reconnect to the daemon"

journalctl -b -u pinpadd-mqtt --no-pager -o cat | tee "$RIG_SCRATCH/bridge-journal.txt"
grep -q "lost the connection" "$RIG_SCRATCH/bridge-journal.txt" || rig_fail "no loss in the journal"
systemctl stop pinpadd-mqtt
[ "$(prop pinpadd-mqtt Result)" = success ] || rig_fail "Result=$(prop pinpadd-mqtt Result)"
status_is offline
security=$(systemd-analyze security --threshold=20 pinpadd-mqtt.service) || {
  echo "$security"; rig_fail "exposure above 2.0"; }
echo "$security" | tail -1
rig_log "PASS"
