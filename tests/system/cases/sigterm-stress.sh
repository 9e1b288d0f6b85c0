# rig-not-in-all: a stress loop for crashes at exit, run by name (issue 41)
# rig-timeout: 2400
# pinpadd started and stopped many times on the rig's 9p root (its libraries are read
# from the host over 9p, as in every case), following the USB keyboard through udev
# and holding a door's lines on the simulated CP2112 (helpers/cp2112-sim.py). Each run
# gets 0-3 SIGHUP reloads and a SIGTERM at a random moment; in every other run the chip
# goes away (and comes back) first, while pinpadd holds its lines: then the relay alone
# (door-gpio says why no edge-watching line may be on a chip that goes away under
# Debian 12's kernel). Every exit must be 0 and the kernel must log no crash. Rounds: RIG_STRESS_ROUNDS=N tests/system/run.sh
# sigterm-stress (default 30).
. "$RIG_LIB/guest.sh"
groupadd -r pinpadd || rig_fail "groupadd"
rig_install_rules
rig_start_udevd
rounds=$(cat "$RIG_SCRATCH/stress-rounds" 2>/dev/null || echo 30)
run=/tmp/pinpadd
mkdir -p $run
cat >$run/pinpadd.conf <<CONF
[Socket]
AllowUsers=root
[Door main]
Relay=cp2112_gpio:0
Contact=cp2112_gpio:1
ExitButton=cp2112_gpio:2
CONF
grep -v -E '^(Contact|ExitButton)=' $run/pinpadd.conf >$run/relay-only.conf
sim=
start_sim() {
  python3 tests/system/helpers/cp2112-sim.py $run/sim.log $run/sim.ctl &
  sim=$!
  rig_wait_for_node "/dev/gpiochip*" 120
  local deadline=$((SECONDS + 120))
  until $RIG_BIN/pinpadd --list-devices --config $run/pinpadd.conf 2>/dev/null | grep -q cp2112_gpio; do
    ((SECONDS < deadline)) || rig_fail "no cp2112_gpio chip"
    rig_nap 0.2
  done
}
stop_sim() { kill -TERM $sim; wait $sim 2>/dev/null; }
start_sim
bad=0 lost=0
for ((i = 1; i <= rounds; i++)); do
  : >$run/log
  conf=$run/pinpadd.conf
  ((i % 2 == 0)) && conf=$run/relay-only.conf
  $RIG_BIN/pinpadd --config $conf --input auto --socket $run/s.sock \
    --state-dir none --display none --log-level info 2>$run/log &
  pid=$!
  rig_wait_lines 1 "pinpadd .* ready" $run/log 120 || { cat $run/log; rig_fail "round $i: not ready"; }
  if ((i % 2 == 0)); then
    stop_sim
    rig_wait_lines 1 "GPIO lines lost" $run/log 60 || { cat $run/log; rig_fail "round $i: lines not lost"; }
    lost=$((lost + 1))
    start_sim
    rig_wait_lines 1 "GPIO lines requested again" $run/log 60 || { cat $run/log; rig_fail "round $i: lines not back"; }
  fi
  for ((h = RANDOM % 4; h > 0; h--)); do
    kill -HUP $pid
    rig_nap "0.$((RANDOM % 5))"
  done
  rig_nap "$((RANDOM % 3)).$((RANDOM % 10))"
  kill -TERM $pid
  rc=0
  wait $pid || rc=$?
  if [ $rc != 0 ]; then
    bad=$((bad + 1))
    rig_log "round $i: exit $rc"
    tail -n 5 $run/log
  fi
done
stop_sim
dmesg | grep -E "segfault at|traps:|general protection|potentially unexpected fatal|BUG:|Oops" |
  tee "$RIG_SCRATCH/kernel-crashes.txt"
{ echo "stress_rounds=$rounds"; echo "stress_chip_lost=$lost"; echo "stress_bad_exits=$bad"; } >>"$RIG_SCRATCH/timings"
rig_log "$((rounds - bad)) of $rounds exits clean ($lost with the chip gone and back)"
[ $bad = 0 ] || rig_fail "$bad of $rounds runs did not exit 0 after SIGTERM"
[ -s "$RIG_SCRATCH/kernel-crashes.txt" ] && rig_fail "the kernel logged a crash"
rig_log "PASS"
