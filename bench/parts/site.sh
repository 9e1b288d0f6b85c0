#!/usr/bin/env bash
# Benchmark: the site of issue 43 (docs/protocol.md, "Replica: the site"), through the
# real `pinpadctl serve --mqtt --sign-key` and a Mosquitto on loopback:
#   site_replica_after_change_ms   codes file changed → the device's new replica retained
#                                  on the broker (median of 10; the site's share of a
#                                  revocation's 2 s)
#   site_log_drain_10000_ms        10 000 log entries of one door published at once →
#                                  the site's ack of the last (all stored, each once)
# Prints one `name: value` line per figure; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/parts/bin.sh
PINPADCTL=$BENCH_BIN/pinpadctl
[ -x "$PINPADCTL" ] || { echo "site.sh: no $PINPADCTL" >&2; exit 66; }
[ -x /usr/sbin/mosquitto ] || { echo "site.sh: no mosquitto" >&2; exit 69; }
exec python3 - "$PINPADCTL" <<'PY'
import json, os, shutil, socket, sqlite3, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, "bench")
from door_bench import free_port, wait

pinpadctl = sys.argv[1]
work = tempfile.mkdtemp(prefix="pinpadd-site-bench.")
procs = []
def cleanup():
    for p in procs:
        p.kill()
        p.wait()
    shutil.rmtree(work, ignore_errors=True)

try:
    port = free_port()
    conf = os.path.join(work, "mosquitto.conf")
    with open(conf, "w") as f:
        f.write(f"persistence false\nlistener {port} 127.0.0.1\nallow_anonymous true\n"
                "max_queued_messages 20000\n")
    procs.append(subprocess.Popen(["/usr/sbin/mosquitto", "-c", conf],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    wait(lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, 10)
    key = os.path.join(work, "site.key")
    old = os.umask(0o077)
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", key], check=True)
    os.umask(old)
    codes = os.path.join(work, "codes")
    line = subprocess.run([pinpadctl, "hash", "alice"], input="2468\n", text=True,
                          capture_output=True, check=True).stdout.strip()
    hashed = line.split(":", 1)[1]
    def write_codes(n):
        with open(codes, "w") as f:
            f.write(line + "\n" + "".join(f"p{i}:{hashed}\n" for i in range(n)))
        os.chmod(codes, 0o600)
    write_codes(0)
    config = os.path.join(work, "c.conf")
    with open(config, "w") as f:
        f.write(f"[MQTT]\nBroker=mqtt://127.0.0.1:{port}\nTopic=site/bench\n")
    state = os.path.join(work, "state")
    log = open(os.path.join(work, "serve.log"), "w")
    procs.append(subprocess.Popen(
        [pinpadctl, "serve", "--codes", codes, "--state-dir", state, "--mqtt", "--sign-key",
         key, "--config", config], stdout=log, stderr=log))
    client = ["-h", "127.0.0.1", "-p", str(port), "-q", "1"]

    # Replicas: a subscriber prints each one's generation line as it arrives.
    replicas = os.path.join(work, "replicas.txt")
    procs.append(subprocess.Popen(
        ["mosquitto_sub"] + client + ["-t", "pinpadd/door1/replica", "-F", "%p"],
        stdout=open(replicas, "w"), stderr=subprocess.DEVNULL))
    subprocess.run(["mosquitto_pub"] + client + ["-r", "-t", "pinpadd/door1/status", "-m",
                                                 "online"], check=True)
    def generations():
        return [l for l in open(replicas).read().splitlines() if l.startswith("generation ")]
    if not wait(lambda: len(generations()) >= 1):
        print("# site.sh: no replica arrived", file=sys.stderr)
        sys.exit(1)
    times = []
    for n in range(1, 11):
        time.sleep(1.1)  # a device gets at most one replica a second
        seen = len(generations())
        started = time.monotonic()
        write_codes(n)
        if wait(lambda: len(generations()) > seen, 30):
            times.append((time.monotonic() - started) * 1000)
    print(f"site_replica_after_change_ms: {statistics.median(times):.1f}")

    # The log drain: 10 000 entries at once, timed to the ack of the last one.
    acks = os.path.join(work, "acks.txt")
    procs.append(subprocess.Popen(
        ["mosquitto_sub"] + client + ["-t", "pinpadd/door1/log/ack"],
        stdout=open(acks, "w"), stderr=subprocess.DEVNULL))
    time.sleep(0.3)
    log_id = os.urandom(16).hex()
    entries = "".join(json.dumps({
        "log": log_id, "seq": i, "at": "2026-12-07T05:00:00.000Z", "device": "door1",
        "keypad": "front", "person": "alice", "result": "granted", "reason": None,
        "duress": False}, separators=(",", ":")) + "\n" for i in range(1, 10001))
    def drained():
        text = open(acks).read().splitlines()
        return any(json.loads(a).get("upto") == 10000 for a in text[-3:])
    started = time.monotonic()
    subprocess.run(["mosquitto_pub"] + client + ["-t", "pinpadd/door1/log", "-l"],
                   input=entries, text=True, check=True)
    if wait(drained, 120):
        print(f"site_log_drain_10000_ms: {(time.monotonic() - started) * 1000:.0f}")
    else:
        print("# site.sh: the 10 000 entries were not all acked within 120 s", file=sys.stderr)
    db = sqlite3.connect(os.path.join(state, "access.db"))
    stored = db.execute("SELECT count(*), count(DISTINCT seq) FROM log WHERE log_id = ?",
                        (log_id,)).fetchone()
    print(f"# site.sh: {stored[0]} rows stored, {stored[1]} distinct", file=sys.stderr)
finally:
    cleanup()
PY
