"""The door benches of issue 43 (docs/protocol.md, "Replica"), run by bench/parts/door.sh
and bench/parts/revocation.sh: a Mosquitto on loopback, the real site (`pinpadctl serve
--mqtt --sign-key`) and real doors (`pinpadctl mqtt` with `Decide=local`), each door's
daemon a stand-in socket here that speaks the daemon's side (docs/protocol.md, "Socket":
the hello, then code lines; the verdicts read back). Prints `name: value` lines;
asserts nothing.

    python3 bench/door_bench.py latency PINPADCTL     door_local_decision_{p50,p99}_ms_{1000,10000}
    python3 bench/door_bench.py revocation PINPADCTL  revocation_{p50,p99,max}_ms_50

The codes files:

Person i has the PIN `pin(i)` (8 digits) and a yescrypt hash of it made the way
`pinpadctl hash` makes one (libcrypt's crypt_gensalt("$y$", 0): the default cost);
the hashes are slow to make (tens of ms each), so they are made once, on every core,
and kept in .build/bench-cache/yescrypt-N.txt (one hash a line, person i on line i+1;
the PINs are the bench's own, never anybody's). The `tag=` of each line is computed
here as pinpadctl hash computes it (Sources/PinpadControlCore/Access/CodeTag.swift:
HMAC-SHA256 of the label, the hash and the PIN, 4 hex digits) with a fresh key.
"""
import ctypes, hashlib, hmac, json, math, multiprocessing, os, random, shutil, socket
import subprocess, sys, tempfile, threading, time

CACHE = os.path.join(".build", "bench-cache")


def pin(i):
    return f"{(i * 7919 + 13) % 100000000:08d}"


def _crypt():
    lib = ctypes.CDLL("libcrypt.so.1")
    lib.crypt_gensalt.restype = ctypes.c_char_p
    lib.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int]
    lib.crypt.restype = ctypes.c_char_p
    lib.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    return lib


def _hash_range(bounds):
    lib = _crypt()
    out = []
    for i in range(*bounds):
        salt = lib.crypt_gensalt(b"$y$", 0, None, 0)
        out.append(lib.crypt(pin(i).encode(), salt).decode())
    return out


def hashes(n):
    """The yescrypt hashes of persons 0..n-1, made (and cached) when missing."""
    total = max(n, 10000)
    path = os.path.join(CACHE, f"yescrypt-{total}.txt")
    if os.path.exists(path):
        kept = open(path).read().split()
        if len(kept) == total:
            return kept[:n]
    os.makedirs(CACHE, exist_ok=True)
    n = total
    print(f"# door_codes: making {n} yescrypt hashes once ({path})", file=sys.stderr)
    step = 100
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        chunks = pool.map(_hash_range, [(s, min(s + step, n)) for s in range(0, n, step)])
    made = [h for chunk in chunks for h in chunk]
    with open(path + ".tmp", "w") as f:
        f.write("".join(h + "\n" for h in made))
    os.replace(path + ".tmp", path)
    return made[:n]


def new_key(path):
    """A tag key file (64 hex digits, 0600) and its 32 bytes."""
    key = os.urandom(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key.hex() + "\n")
    return key


def tag(key, hash_text, pin_text):
    key_id = hmac.new(key, b"pinpadd key id", hashlib.sha256).hexdigest()[:4]
    mac = hmac.new(key, b"pinpadd pin tag\0" + hash_text.encode() + b"\0" + pin_text.encode(),
                   hashlib.sha256).hexdigest()
    return f"{key_id}.{mac[:4]}"


def lines(n, key, skip=()):
    """The codes file of persons 0..n-1 (but `skip`), tagged with `key`."""
    made = hashes(n)
    return "".join(f"p{i}:{made[i]}:tag={tag(key, made[i], pin(i))}\n"
                   for i in range(n) if i not in skip)




def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait(condition, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.005)
    return False


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


class Rig:
    """A broker, the site's key pair and codes file (with its tag key beside it), the
    site, and a subscriber on every door's `replica/state` that notes when each came."""

    def __init__(self, pinpadctl):
        self.pinpadctl = pinpadctl
        self.work = tempfile.mkdtemp(prefix="pinpadd-door-bench.")
        self.procs = []
        self.port = free_port()
        conf = self.file("mosquitto.conf")
        with open(conf, "w") as f:
            f.write(f"persistence false\nlistener {self.port} 127.0.0.1\n"
                    "allow_anonymous true\nmax_queued_messages 20000\n")
        self.spawn(["/usr/sbin/mosquitto", "-c", conf], "mosquitto")
        wait(lambda: socket.socket().connect_ex(("127.0.0.1", self.port)) == 0, 10)
        old = os.umask(0o077)
        subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out",
                        self.file("site.key")], check=True)
        os.umask(old)
        subprocess.run(["openssl", "pkey", "-in", self.file("site.key"), "-pubout", "-out",
                        self.file("site.pub")], check=True)
        self.codes = self.file("codes")
        self.key = new_key(self.codes + ".key")
        self.states = {}  # device -> [(monotonic time, generation, people)]
        self.lock = threading.Lock()
        sub = self.spawn(["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.port), "-q", "1",
                          "-t", "pinpadd/+/replica/state", "-F", "%t %p"], None,
                         stdout=subprocess.PIPE)
        threading.Thread(target=self._read_states, args=(sub.stdout,), daemon=True).start()

    def file(self, name):
        return os.path.join(self.work, name)

    def spawn(self, argv, log, stdout=None):
        out = open(self.file(log + ".log"), "w") if log else subprocess.DEVNULL
        proc = subprocess.Popen(argv, stdout=stdout or out, stderr=out, text=True)
        self.procs.append(proc)
        return proc

    def _read_states(self, stream):
        for line in stream:
            topic, _, payload = line.partition(" ")
            try:
                state = json.loads(payload)
            except ValueError:
                continue
            with self.lock:
                self.states.setdefault(topic.split("/")[1], []).append(
                    (time.monotonic(), state.get("generation", 0), state.get("people", 0)))

    def latest(self, device):
        with self.lock:
            seen = self.states.get(device)
            return seen[-1] if seen else (0, 0, 0)

    def write_codes(self, text):
        """Replaces the codes file as an editor would (a new file renamed over it); the
        time just before the rename."""
        fd = os.open(self.codes + ".new", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        started = time.monotonic()
        os.rename(self.codes + ".new", self.codes)
        return started

    def start_site(self):
        config = self.file("site.conf")
        with open(config, "w") as f:
            f.write(f"[MQTT]\nBroker=mqtt://127.0.0.1:{self.port}\nTopic=site/bench\n")
        self.spawn([self.pinpadctl, "serve", "--codes", self.codes, "--state-dir",
                    self.file("site-state"), "--mqtt", "--sign-key", self.file("site.key"),
                    "--config", config], "site")

    def start_door(self, name):
        """A door: a stand-in daemon socket and its bridge deciding locally."""
        daemon = StandIn(self.file(name + ".sock"))
        config = self.file(name + ".conf")
        with open(config, "w") as f:
            f.write(f"[MQTT]\nBroker=mqtt://127.0.0.1:{self.port}\nTopic=pinpadd/{name}\n"
                    f"ClientID={name}\nDecide=local\nSiteKey={self.file('site.pub')}\n")
        self.spawn([self.pinpadctl, "--socket", daemon.path, "mqtt", "--config", config,
                    "--state-dir", self.file(name + "-state")], name)
        return daemon

    def close(self):
        for proc in reversed(self.procs):
            proc.kill()
            proc.wait()
        shutil.rmtree(self.work, ignore_errors=True)


class StandIn:
    """The daemon's side of its socket for one bridge: the hello once the bridge
    connects, then code lines; the bridge's lines read back."""

    def __init__(self, path):
        self.path = path
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(1)
        self.client = None
        self.buffer = b""

    def accept(self):
        self.client, _ = self.listener.accept()
        self.client.sendall(b'{"type":"hello","protocol":1,"version":"0.0.0"}\n')

    def verdict(self, pin_text, keypad="front", timeout=60):
        """Sends one code and reads up to its verdict: (seconds, the verdict)."""
        attempt = os.urandom(16).hex()
        now = time.time()
        at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
        line = json.dumps({"type": "code", "id": attempt, "keypad": keypad, "code": pin_text,
                           "at": at}, separators=(",", ":")) + "\n"
        started = time.monotonic()
        self.client.sendall(line.encode())
        self.client.settimeout(timeout)
        while True:
            while b"\n" in self.buffer:
                got, self.buffer = self.buffer.split(b"\n", 1)
                message = json.loads(got)
                if message.get("type") == "verdict" and message.get("id") == attempt:
                    return time.monotonic() - started, message
            chunk = self.client.recv(65536)
            if not chunk:
                raise EOFError("the bridge hung up")
            self.buffer += chunk


def latency(pinpadctl, codes_count=200):
    """A door's local decision of `codes_count` right PINs of people spread over the file,
    one at a time, with 1000 and then 10 000 people (tagged, as pinpadctl hash writes)."""
    rig = Rig(pinpadctl)
    try:
        rig.write_codes(lines(1000, rig.key))
        rig.start_site()
        daemon = rig.start_door("door1")
        daemon.listener.settimeout(60)
        daemon.accept()
        for n in (1000, 10000):
            rig.write_codes(lines(n, rig.key))
            if not wait(lambda: rig.latest("door1")[2] == n, 120):
                print(f"# door.sh: the door never held {n} people", file=sys.stderr)
                return
            picked = random.Random(n).sample(range(n), codes_count)
            times, wrong = [], 0
            for i in picked:
                seconds, verdict = daemon.verdict(pin(i))
                times.append(seconds * 1000)
                wrong += verdict.get("result") != "granted"
            print(f"door_local_decision_p50_ms_{n}: {percentile(times, 50):.1f}")
            print(f"door_local_decision_p99_ms_{n}: {percentile(times, 99):.1f}")
            print(f"# door.sh: {n} people, {codes_count} codes, {wrong} not granted, "
                  f"max {max(times):.1f} ms, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    finally:
        rig.close()


def revocation(pinpadctl, doors=50, people=1000, rounds=4):
    """`doors` bridges on one broker; each round a person is removed from the codes file
    and each door's time from the rename to its `replica/state` of the new generation
    is one sample; then the removed PIN is typed at every door (counted as denied or
    not, outside the timing)."""
    rig = Rig(pinpadctl)
    try:
        rig.write_codes(lines(people, rig.key))
        rig.start_site()
        names = [f"door{k}" for k in range(1, doors + 1)]
        daemons = [rig.start_door(name) for name in names]
        for daemon in daemons:
            daemon.listener.settimeout(60)
            daemon.accept()
        if not wait(lambda: all(rig.latest(name)[2] == people for name in names), 180):
            held = sum(rig.latest(name)[2] == people for name in names)
            print(f"# revocation.sh: only {held} of {doors} doors took the replica",
                  file=sys.stderr)
            return
        times, missed, denied, removed = [], 0, 0, set()
        for r in range(rounds):
            time.sleep(1.5)  # a device gets at most one replica a second
            before = {name: rig.latest(name)[1] for name in names}
            removed.add(r * 97)
            started = rig.write_codes(lines(people, rig.key, skip=removed))

            def arrived(name):
                with rig.lock:
                    return next((t for t, g, _ in rig.states.get(name, [])
                                 if g > before[name]), None)

            wait(lambda: all(arrived(name) is not None for name in names), 30)
            for name in names:
                came = arrived(name)
                if came is None:
                    missed += 1
                else:
                    times.append((came - started) * 1000)
            # Then the removed PIN at each door (after the timing, not in it).
            denied += sum(daemon.verdict(pin(r * 97))[1].get("result") == "denied"
                          for daemon in daemons)
        if times:
            print(f"revocation_p50_ms_{doors}: {percentile(times, 50):.0f}")
            print(f"revocation_p99_ms_{doors}: {percentile(times, 99):.0f}")
            print(f"revocation_max_ms_{doors}: {max(times):.0f}")
        print(f"# revocation.sh: {doors} doors, {people} people, {rounds} revocations, "
              f"{len(times)} samples, {missed} missed in 30 s, the removed PIN denied "
              f"{denied} times of {doors * rounds}, load "
              f"{os.getloadavg()[0]:.1f}", file=sys.stderr)
    finally:
        rig.close()


if __name__ == "__main__":
    {"latency": latency, "revocation": revocation}[sys.argv[1]](sys.argv[2])
