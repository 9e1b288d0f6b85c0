#!/usr/bin/env bash
# Benchmark: verdict times of `pinpadctl serve` for codes files of 1000 and 10000 people
# (issue 12), through the real serve over a real Unix socket. A small protocol server
# (Python) plays the daemon: it sends code messages (PIN only, right and wrong; card +
# PIN) and times each until its verdict. Prints one `name: value` line per figure (the
# median in milliseconds); asserts nothing.
#
# The people (10000 `pinpadctl hash --card --key` lines, each with a 6-digit PIN and a
# 10-digit card) take minutes to make at yescrypt's default cost: they are made once and
# kept in .build/bench/ (delete it to make them again).
set -euo pipefail
cd "$(dirname "$0")/../.."
# BENCH_BIN: the release binaries' folder (bench/run.sh sets it: `make bench` built
# them). Run alone, it builds them the Makefile's way first.
if [ -z "${BENCH_BIN:-}" ]; then
  make -s --no-print-directory release >&2
  BENCH_BIN=.build/release
fi
PINPADCTL=$BENCH_BIN/pinpadctl
[ -x "$PINPADCTL" ] || { echo "serve.sh: no $PINPADCTL" >&2; exit 66; }
CACHE=.build/bench
mkdir -p "$CACHE"
exec python3 - "$PINPADCTL" "$CACHE" <<'PY'
import atexit, concurrent.futures, json, os, shutil, socket, statistics, subprocess, sys, tempfile, time

pinpadctl, cache = sys.argv[1], sys.argv[2]
PEOPLE = 10000
key = os.path.join(cache, "serve.key")
people = os.path.join(cache, f"serve-{PEOPLE}-tag16.codes")  # 16-bit tags (CodeTag.pinDigits)

def pin(i): return "%06d" % ((i * 7919 + 12345) % 10**6)
def card(i): return "00%08d" % ((i * 104729 + 1000000) % 10**8)

if not os.path.exists(people):
    empty = os.path.join(cache, "empty.conf")
    open(empty, "w").close()
    if not os.path.exists(key):
        # hash --key makes the key when it is missing; make it once, before the pool.
        subprocess.run([pinpadctl, "hash", "seed", "--key", key, "--config", empty],
                       input="123456\n", text=True, capture_output=True, check=True)
    def line(i):
        run = subprocess.run(
            [pinpadctl, "hash", "p%05d" % i, "--card", "--key", key, "--config", empty],
            input=card(i) + "\n" + pin(i) + "\n", text=True, capture_output=True, check=True)
        return run.stdout.strip()
    print(f"making {PEOPLE} codes-file lines in {people} (once; minutes)", file=sys.stderr)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        lines = list(pool.map(line, range(PEOPLE)))
    with open(people + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(people + ".tmp", 0o600)
    os.rename(people + ".tmp", people)
    print(f"made them in {time.monotonic() - started:.0f} s", file=sys.stderr)

all_lines = open(people).read().splitlines()

# Every rule of SPEC §9.4 that lets the line grant now (uses are spent in the database).
RULES = ",from=2020-01-01,until=2099-12-31,hours=0000-2400,uses=1000000000,doors=door*"

class Serve:
    """`pinpadctl serve` connected to a listening socket that plays the daemon."""
    def __init__(self, count, use_key=True, rules=""):
        self.dir = tempfile.mkdtemp(prefix="pinpadd-bench-")
        # Removed when the bench ends (the last one's database is read after close).
        atexit.register(shutil.rmtree, self.dir, True)
        codes = os.path.join(self.dir, "codes")
        with open(codes, "w") as f:
            f.write("\n".join(line + rules for line in all_lines[:count]) + "\n")
        os.chmod(codes, 0o600)
        path = os.path.join(self.dir, "s.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(1)
        args = [pinpadctl, "--socket", path, "serve", "--codes", codes,
                "--state-dir", os.path.join(self.dir, "state")]
        if use_key: args += ["--key", key]
        self.process = subprocess.Popen(args, stderr=subprocess.DEVNULL)
        listener.settimeout(30)
        self.conn, _ = listener.accept()
        listener.close()
        self.conn.sendall(b'{"type":"hello","protocol":1,"version":"bench"}\n')
        self.buffer = b""
        self.n = 0

    def ask(self, members):
        self.n += 1
        # A keypad per code: serve's own lockout (MaxFailures=5 denials in a row on one
        # keypad) would otherwise answer the later wrong PINs unchecked.
        message = {"type": "code", "id": f"b{self.n}", "keypad": f"door{self.n}", **members}
        started = time.monotonic()
        self.conn.sendall(json.dumps(message).encode() + b"\n")
        while True:
            while b"\n" not in self.buffer:
                chunk = self.conn.recv(4096)
                if not chunk: raise SystemExit("serve went away")
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\n", 1)
            verdict = json.loads(line)
            if verdict.get("id") == f"b{self.n}":
                return (time.monotonic() - started) * 1000, verdict["result"]

    def close(self):
        self.process.terminate()
        self.process.wait()

def figure(name, serve, members_of, expected, repeats):
    times = []
    for r in range(repeats):
        ms, result = serve.ask(members_of(r))
        if result != expected:
            print(f"# {name}: got {result}, expected {expected}", file=sys.stderr)
        times.append(ms)
    print(f"{name}: {statistics.median(times):.1f}", flush=True)

for count in (1000, PEOPLE):
    serve = Serve(count)
    person = lambda r: (r * 7907) % count
    figure(f"serve_pin_{count}_ms", serve, lambda r: {"code": pin(person(r))}, "granted", 15)
    figure(f"serve_pin_wrong_{count}_ms", serve, lambda r: {"code": "%07d" % (r * 3331)}, "denied", 15)
    figure(f"serve_card_pin_{count}_ms", serve,
           lambda r: {"card": card(person(r)), "code": pin(person(r))}, "granted", 15)
    serve.close()

# The same 1000 lines without the key: every hash is checked (on every core).
serve = Serve(1000, use_key=False)
figure("serve_pin_wrong_1000_untagged_ms", serve, lambda r: {"code": "1234567"}, "denied", 3)
serve.close()

# 1000 people with rules (issue 22): the rules and the database's commit per decision.
serve = Serve(1000, rules=RULES)
person = lambda r: (r * 7907) % 1000
figure("serve_rules_pin_1000_ms", serve, lambda r: {"code": pin(person(r))}, "granted", 15)
figure("serve_rules_pin_wrong_1000_ms", serve, lambda r: {"code": "%07d" % (r * 3331)}, "denied", 15)
serve.close()

# `pinpadctl log --since` over 10^6 decisions spread over a year (its index on the time).
import sqlite3
db = sqlite3.connect(os.path.join(serve.dir, "state", "access.db"))
now_ms = int(time.time() * 1000)
year_ms = 365 * 86400 * 1000
with db:
    db.executemany(
        "INSERT INTO log (at_ms, keypad, person, result, reason, duress, attempt)"
        " VALUES (?, 'door', ?, ?, ?, 0, '')",
        ((now_ms - year_ms + i * (year_ms // 10**6), "p%05d" % (i % 1000),
          "granted" if i % 3 else "denied", None if i % 3 else "unknown")
         for i in range(10**6)))
db.close()
times = []
for _ in range(3):
    started = time.monotonic()
    run = subprocess.run([pinpadctl, "log", "--state-dir", os.path.join(serve.dir, "state"),
                          "--since", "1d", "--json"], capture_output=True, text=True, check=True)
    times.append((time.monotonic() - started) * 1000)
rows = run.stdout.count("\n")
print(f"log_since_1d_of_1e6_rows_ms: {statistics.median(times):.1f}  # {rows} rows printed", flush=True)
PY
