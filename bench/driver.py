#!/usr/bin/env python3
"""The driver of `make bench`: plays keypad (through a real pty) and controller (on the
Unix socket) for pinpadd and for the C baseline (bench/baseline.c), alternating them,
and prints one `name: value` line per figure, ratios last. Asserts nothing.

  driver.py --pinpadd BIN --baseline BIN [--smoke]

--smoke: one short closed loop against each (a few codes), no figures; `make test`
runs it so that the benchmark does not rot.

Measured from outside only: CPU from /proc/PID/task/*/schedstat (nanoseconds on the
CPU, every thread), RSS from /proc/PID/status, wake-ups from the context switches in
/proc/PID/task/*/status, syscalls from `strace -c -f -p PID`.
"""

import argparse
import json
import os
import pty
import resource
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROUNDS = 5  # alternated rounds of pinpadd and C, medians reported
CODES_PER_ROUND = 300
STRACE_CODES = 200
LATENCY_CODES = 200
LATENCY_CODES_BURST = 60  # each key waits out BurstIntervalSec (15 ms)
ALLOC_WARMUP = 20
ALLOC_CODES = 200
INSTR_CODES = (20, 220)  # callgrind runs of few and many codes; the difference counts
REPLAY_PRESSES = 40_000
# Each replay round is some 20 ms of CPU less a start's (2-3 ms, which itself moves by a
# millisecond): with three rounds one slow one moved the median by a third.
REPLAY_ROUNDS = 7
REPLAY_INSTR_PRESSES = 4_000  # the replay under callgrind (about 50 times slower)
STALLED_CLIENTS = 200
CLIENTS = 1000
MEMORY_CODES = 1000  # entries with the frames drawn, then (maybe) idle (memory part)
MEMORY_RELOADS = 100  # SIGHUPs among them
# How long the memory part's daemon idles before its last reading, counted from the end
# of its codes (it idles beside the other parts): only when BENCH_IDLE_SECONDS is given
# (`make bench-idle`: 3600, the memory part alone); without it `make bench` takes no
# idle reading and the daemon stops with the other parts.
MEMORY_IDLE_SECONDS = (float(os.environ["BENCH_IDLE_SECONDS"])
                       if os.environ.get("BENCH_IDLE_SECONDS") else None)


def emit(name, value):
    if isinstance(value, float):
        value = f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"
    print(f"{name}: {value}", flush=True)


def cpu_ns(pid):
    """Nanoseconds on the CPU of every live thread of pid."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def switches(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def rollup_kib(pid):
    """Rss, Private_Dirty (what only this process holds and wrote) and Locked (resident
    pages the kernel may never reclaim) from /proc/PID/smaps_rollup, and VmLck (the size
    of the locked mappings, resident or not: with MCL_ONFAULT a page is locked once
    touched) from /proc/PID/status, in KiB."""
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0] in ("Rss:", "Private_Dirty:", "Locked:"):
                fields[parts[0][:-1].lower()] = int(parts[1])
    fields["vmlck"] = status_kib(pid, "VmLck")
    return fields


def settled_cpu(pid, quiet=0.3):
    """The CPU nanoseconds of `pid` once they stopped growing for `quiet` seconds (a
    replay has ended)."""
    last, since = cpu_ns(pid), time.perf_counter()
    while time.perf_counter() - since < quiet:
        time.sleep(0.05)
        now = cpu_ns(pid)
        if now != last:
            last, since = now, time.perf_counter()
    return last


class Daemon:
    """pinpadd or the baseline on a fresh pty, its socket at `path`. `started`: from
    exec until the first connection got its hello line (the daemon's loop runs)."""

    def __init__(self, argv, path, log, drain=False, env=None):
        self.path = path
        self.master, slave = pty.openpty()
        self.argv = argv
        # posix_spawn: no fork of this (large) Python process inside the timed part.
        actions = [(os.POSIX_SPAWN_DUP2, slave, 0), (os.POSIX_SPAWN_DUP2, slave, 1),
                   (os.POSIX_SPAWN_DUP2, log.fileno(), 2)]
        t0 = time.perf_counter()
        self.pid = os.posix_spawn(argv[0], argv, env or os.environ, file_actions=actions,
                                 setsid=True)
        os.close(slave)
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(path)
                break
            except OSError:
                s.close()
                if os.waitpid(self.pid, os.WNOHANG)[0]:
                    raise RuntimeError(f"{argv[0]} exited before its socket accepted")
                if time.perf_counter() - t0 > 20:
                    raise RuntimeError(f"{argv[0]}: no socket after 20 s")
                time.sleep(0.0001)
        s.settimeout(20)
        hello = b""
        while b"\n" not in hello:  # accepted: the daemon's loop runs
            data = s.recv(4096)
            if not data:
                raise RuntimeError(f"{argv[0]} closed the first connection")
            hello += data
        self.started = time.perf_counter() - t0
        self.start_cpu = cpu_ns(self.pid) / 1e6  # milliseconds on the CPU until then
        s.close()
        self.drainer = None
        if drain:  # a console display writes to the pty: read it, or the daemon blocks
            self.drainer = threading.Thread(target=self._drain, daemon=True)
            self.drainer.start()

    def _drain(self):
        try:
            while os.read(self.master, 65536):
                pass
        except OSError:
            pass

    def type(self, data):
        os.write(self.master, data)

    def stop(self):
        os.kill(self.pid, signal.SIGTERM)
        deadline = time.perf_counter() + 10
        while not os.waitpid(self.pid, os.WNOHANG)[0]:
            if time.perf_counter() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.001)
        os.close(self.master)


class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.settimeout(30)
        self.buf = b""
        self.expect("hello")

    def line(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise RuntimeError("the daemon closed the connection")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def expect(self, kind, **fields):
        while True:
            message = self.line()
            if message.get("type") == kind and all(message.get(k) == v for k, v in fields.items()):
                return message

    def send(self, message):
        self.sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def close(self):
        self.sock.close()


def one_code(daemon, client, n):
    """4 digits, each answered by its entry line, then Enter; the code answered with a
    verdict. Returns the seconds from Enter to the code line."""
    digits = f"{n % 10000:04d}"
    for i, d in enumerate(digits):
        daemon.type(d.encode())
        client.expect("entry", length=i + 1)
    t0 = time.perf_counter()
    daemon.type(b"\r")
    code = client.expect("code")
    latency = time.perf_counter() - t0
    client.send({"type": "verdict", "id": code["id"], "result": "granted"})
    client.expect("verdict", id=code["id"])
    return latency


class Bench:
    def __init__(self, args):
        self.args = args
        self.dir = tempfile.mkdtemp(prefix="pinpadd-bench.", dir=args.state_parent)
        self.log = open(os.path.join(self.dir, "daemon.log"), "ab")
        self.runs = 0
        self.figures = {}

    def config(self, burst_zero=True, extra=""):
        path = os.path.join(self.dir, f"pinpadd-{int(burst_zero)}-{abs(hash(extra))}.conf")
        with open(path, "w") as f:
            # The package creates the group pinpadd; this machine may lack it, and a group
            # that is missing costs a long NSS search (nss-systemd's userdb) at start-up.
            # root's group stands in: found at once in /etc/group, as pinpadd is there.
            f.write("[Socket]\nGroup=root\nAllowGroups=root\n")
            f.write("[Entry]\n")
            if burst_zero:
                f.write("BurstIntervalSec=0\n")
            f.write(extra)
        return path

    def pinpadd(self, display="none", input_spec="terminal", burst_zero=True, extra="",
                state_parent=None, env=None, wrap=(), program=None):
        self.runs += 1
        sock = os.path.join(self.dir, f"p{self.runs}.sock")
        state = os.path.join(state_parent or self.dir, f"state{self.runs}")
        os.makedirs(state, exist_ok=True)
        argv = [*wrap, program or self.args.pinpadd, "--config", self.config(burst_zero, extra),
                "--input", input_spec, "--display", display, "--socket", sock,
                "--state-dir", state, "--log-level", "warning"]
        return Daemon(argv, sock, self.log, drain=display.startswith("console"), env=env)

    def floor_listener(self, variant="listen-swift_static"):
        """bench/floor/listen.swift: binds, accepts, says one line; the start-up floor.
        `listen-swift_static_cxx`: the same with libstdc++ linked in too, as pinpadd is."""
        self.runs += 1
        sock = os.path.join(self.dir, f"f{self.runs}.sock")
        program = os.path.join(self.args.floor_dir, variant)
        return Daemon([program, sock], sock, self.log)

    def baseline(self, env=None, wrap=(), program=None):
        self.runs += 1
        sock = os.path.join(self.dir, f"c{self.runs}.sock")
        return Daemon([*wrap, program or self.args.baseline, "serve", sock], sock, self.log,
                      env=env)

    def closed_loop(self, daemon, codes, first=0):
        client = Client(daemon.path)
        client.send({"type": "status"})
        client.expect("status")
        t0 = time.perf_counter()
        cpu0 = cpu_ns(daemon.pid)
        latencies = [one_code(daemon, client, first + n) for n in range(codes)]
        cpu = cpu_ns(daemon.pid) - cpu0
        wall = time.perf_counter() - t0
        client.close()
        return cpu / codes / 1000, codes / wall, latencies

    # The figures -------------------------------------------------------------------

    def smoke(self):
        for start in (self.pinpadd, self.baseline):
            daemon = start()
            try:
                self.closed_loop(daemon, 3)
            finally:
                daemon.stop()
        print("bench smoke: pinpadd and the C baseline each answered 3 codes")
        if self.args.alloc_counter:
            counts = self.allocs(warmup=1, codes=3, show=False)
            print(f"bench smoke: the malloc counter counted {counts['p']:.0f} per code")

    def code_loop(self):
        cpu = {"p": [], "c": []}
        rate = {"p": [], "c": []}
        start = {"p": [], "c": []}
        start_cpu = {"p": [], "c": []}
        for _ in range(ROUNDS):
            for key, make in (("p", self.pinpadd), ("c", self.baseline)):
                daemon = make()
                try:
                    us, per_s, _ = self.closed_loop(daemon, CODES_PER_ROUND)
                finally:
                    daemon.stop()
                cpu[key].append(us)
                rate[key].append(per_s)
                start[key].append(daemon.started * 1000)
                start_cpu[key].append(daemon.start_cpu)
        # Start-up alone, more often: exec until the socket accepts; with the floor (a
        # static Swift program that only binds, accepts and says hello) alternated too.
        starters = [("p", self.pinpadd), ("c", self.baseline)]
        if self.args.floor_dir:
            starters.append(("f", self.floor_listener))
            start["f"], start_cpu["f"] = [], []
            if os.path.exists(os.path.join(self.args.floor_dir, "listen-swift_static_cxx")):
                starters.append(("fx", lambda: self.floor_listener("listen-swift_static_cxx")))
                start["fx"], start_cpu["fx"] = [], []
        for _ in range(15):
            for key, make in starters:
                daemon = make()
                daemon.stop()
                start[key].append(daemon.started * 1000)
                start_cpu[key].append(daemon.start_cpu)
        med = {n: {k: statistics.median(v[k]) for k in v} for n, v in
               (("cpu", cpu), ("rate", rate), ("start", start), ("start_cpu", start_cpu))}
        emit("code_cpu_us", med["cpu"]["p"])
        emit("code_cpu_us_c", med["cpu"]["c"])
        emit("codes_per_s", med["rate"]["p"])
        emit("codes_per_s_c", med["rate"]["c"])
        emit("startup_ms", med["start"]["p"])
        emit("startup_ms_c", med["start"]["c"])
        emit("startup_cpu_ms", med["start_cpu"]["p"])
        emit("startup_cpu_ms_c", med["start_cpu"]["c"])
        if "f" in start:
            emit("startup_ms_floor", med["start"]["f"])
            emit("startup_cpu_ms_floor", med["start_cpu"]["f"])
        if "fx" in start:
            emit("startup_ms_floor_static_cxx", med["start"]["fx"])
            emit("startup_cpu_ms_floor_static_cxx", med["start_cpu"]["fx"])
        # The state directory (the lockout file) on tmpfs: what the file's writes cost.
        if os.path.isdir("/dev/shm"):
            tmpfs = tempfile.mkdtemp(prefix="pinpadd-bench.", dir="/dev/shm")
            try:
                on_tmpfs = []
                for _ in range(3):
                    daemon = self.pinpadd(state_parent=tmpfs)
                    try:
                        on_tmpfs.append(self.closed_loop(daemon, CODES_PER_ROUND)[0])
                    finally:
                        daemon.stop()
                emit("code_cpu_us_state_tmpfs", statistics.median(on_tmpfs))
            finally:
                shutil.rmtree(tmpfs, ignore_errors=True)
        self.ratios["code_cpu_ratio"] = med["cpu"]["p"] / med["cpu"]["c"]
        self.ratios["startup_ratio"] = med["start"]["p"] / med["start"]["c"]
        if "f" in start:
            self.ratios["startup_floor_ratio"] = med["start"]["p"] / med["start"]["f"]
        if "fx" in start:  # against the floor linked as pinpadd is (libstdc++ in it too)
            self.ratios["startup_floor_static_cxx_ratio"] = (med["start"]["p"]
                                                             / med["start"]["fx"])

    def syscalls(self):
        results = {}
        for key, make in (("p", self.pinpadd), ("c", self.baseline)):
            daemon = make()
            out = os.path.join(self.dir, f"strace-{key}.txt")
            try:
                client = Client(daemon.path)
                tracer = subprocess.Popen(
                    ["strace", "-c", "-f", "-p", str(daemon.pid), "-o", out],
                    stderr=subprocess.PIPE)
                # strace says "Process N attached" per thread once it traces.
                tracer.stderr.readline()
                time.sleep(0.3)
                for n in range(STRACE_CODES):
                    one_code(daemon, client, n)
                tracer.send_signal(signal.SIGINT)
                tracer.wait(30)
                client.close()
            finally:
                daemon.stop()
            calls = 0
            with open(out) as f:
                for line in f:
                    fields = line.split()
                    if fields and fields[-1] == "total":
                        calls = int(fields[3])
            results[key] = calls / STRACE_CODES
        emit("syscalls_per_code", results["p"])
        emit("syscalls_per_code_c", results["c"])
        self.ratios["syscalls_ratio"] = results["p"] / max(results["c"], 1e-9)

    def instructions(self):
        """User-space instructions per code of the closed loop, counted by callgrind (so
        not moved by a busy machine as CPU time is): each program runs INSTR_CODES[0] and
        INSTR_CODES[1] codes, and the difference of the two counts over the difference of
        the codes is the figure (start-up and exit cancel out). pinpadd runs without its
        debug sections (valgrind 3.19 cannot read DWARF 5); code is the same."""
        valgrind = shutil.which("valgrind")
        if not valgrind:
            print("# instructions: no valgrind, skipped", flush=True)
            return
        program = os.path.join(self.dir, "pinpadd-nodebug")
        subprocess.run(["strip", "--strip-debug", "-o", program, self.args.pinpadd], check=True)
        results = {}
        for key, make, binary in (("p", self.pinpadd, program),
                                  ("c", self.baseline, self.args.baseline)):
            counts = []
            for codes in INSTR_CODES:
                out = os.path.join(self.dir, f"callgrind-{key}-{codes}.out")
                daemon = make(wrap=(valgrind, "--tool=callgrind", "--quiet",
                                    f"--callgrind-out-file={out}"), program=binary)
                try:
                    client = Client(daemon.path)
                    for n in range(codes):
                        one_code(daemon, client, n)
                    client.close()
                finally:
                    daemon.stop()
                with open(out) as f:
                    totals = [line for line in f if line.startswith(("summary:", "totals:"))]
                counts.append(int(totals[0].split()[1]))
            results[key] = (counts[1] - counts[0]) / (INSTR_CODES[1] - INSTR_CODES[0])
        emit("code_instructions", results["p"])
        emit("code_instructions_c", results["c"])
        self.ratios["code_instructions_ratio"] = results["p"] / max(results["c"], 1)

        # The replay the same way: a recording of REPLAY_INSTR_PRESSES presses less the
        # empty one, per press (pinpadd replays them through the session; C parses).
        path, empty = self.recordings(REPLAY_INSTR_PRESSES)
        per_press = {}
        for key in ("p", "c"):
            counts = []
            for recording in (empty, path):
                out = os.path.join(self.dir, f"callgrind-replay-{key}-{len(counts)}.out")
                wrap = (valgrind, "--tool=callgrind", "--quiet", f"--callgrind-out-file={out}")
                if key == "p":
                    daemon = self.pinpadd(input_spec=f"replay-fast:{recording}", wrap=wrap,
                                          program=program)
                    try:
                        settled_cpu(daemon.pid)
                    finally:
                        daemon.stop()
                else:
                    subprocess.run([*wrap, self.args.baseline, "parse", recording],
                                   stdout=subprocess.DEVNULL, check=True)
                with open(out) as f:
                    totals = [line for line in f if line.startswith(("summary:", "totals:"))]
                counts.append(int(totals[0].split()[1]))
            per_press[key] = (counts[1] - counts[0]) / REPLAY_INSTR_PRESSES
        emit("replay_instructions_per_press", per_press["p"])
        emit("replay_instructions_per_press_c", per_press["c"])
        self.ratios["replay_instructions_ratio"] = per_press["p"] / max(per_press["c"], 1)

    def latency(self):
        for burst_zero, codes, suffix in ((True, LATENCY_CODES, ""),
                                          (False, LATENCY_CODES_BURST, "_default_burst")):
            daemon = self.pinpadd(burst_zero=burst_zero)
            try:
                _, _, latencies = self.closed_loop(daemon, codes)
            finally:
                daemon.stop()
            latencies.sort()
            p50 = latencies[len(latencies) // 2] * 1e6
            p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e6
            emit("key_to_code_p50_us" + suffix, p50)
            emit("key_to_code_p99_us" + suffix, p99)

    def allocs(self, warmup=ALLOC_WARMUP, codes=ALLOC_CODES, show=True):
        """Heap allocations per code in the closed loop: malloc and its kin counted by
        bench/alloc_count.c (LD_PRELOAD) into a shared file read before and after
        ALLOC_CODES codes, after ALLOC_WARMUP codes that let the buffers reach their
        size."""
        results = {}
        for key, make in (("p", self.pinpadd), ("c", self.baseline)):
            counter = os.path.join(self.dir, f"allocs-{key}")
            with open(counter, "wb") as f:
                f.write(bytes(8))
            env = dict(os.environ, LD_PRELOAD=self.args.alloc_counter,
                       ALLOC_COUNT_FILE=counter)
            daemon = make(env=env)
            try:
                client = Client(daemon.path)
                for n in range(warmup):
                    one_code(daemon, client, n)
                with open(counter, "rb") as f:
                    before = int.from_bytes(f.read(8), "little")
                for n in range(codes):
                    one_code(daemon, client, n)
                with open(counter, "rb") as f:
                    after = int.from_bytes(f.read(8), "little")
                client.close()
            finally:
                daemon.stop()
            if after == 0:
                raise RuntimeError("the malloc counter counted nothing (LD_PRELOAD?)")
            results[key] = (after - before) / codes
        if show:
            emit("allocs_per_code", results["p"])
            emit("allocs_per_code_c", results["c"])
        return results

    def idle(self):
        daemon = self.pinpadd()
        try:
            client = Client(daemon.path)
            time.sleep(0.5)
            for suffix in ("", "_entry_open"):
                if suffix:
                    daemon.type(b"1")
                    client.expect("entry", length=1)
                    time.sleep(0.2)
                s0 = switches(daemon.pid)
                time.sleep(3)  # under InterKeyTimeoutSec (5 s): the entry stays open
                emit("idle_wakeups_per_s" + suffix, (switches(daemon.pid) - s0) / 3)
            client.close()
        finally:
            daemon.stop()

    def rss(self):
        for display, name in (("console", "rss_kib"), ("none", "rss_kib_display_none"),
                              (f"snapshot:{self.dir}/frames", "rss_kib_snapshot_800x480")):
            if display.startswith("snapshot"):
                os.makedirs(f"{self.dir}/frames", exist_ok=True)
            daemon = self.pinpadd(display=display)
            try:
                self.closed_loop(daemon, 10)
                time.sleep(0.2)
                self.figures[name] = status_kib(daemon.pid, "VmRSS")
                emit(name, self.figures[name])
                if name == "rss_kib":  # of which anonymous (heap, stacks): the rest is files
                    emit("rss_anon_kib", status_kib(daemon.pid, "RssAnon"))
                if name == "rss_kib_display_none":  # the peak: at start, before the release
                    emit("rss_peak_kib_display_none", status_kib(daemon.pid, "VmHWM"))
            finally:
                daemon.stop()
            shutil.rmtree(f"{self.dir}/frames", ignore_errors=True)
        daemon = self.baseline()
        try:
            self.closed_loop(daemon, 10)
            emit("rss_kib_c", status_kib(daemon.pid, "VmRSS"))
            emit("rss_anon_kib_c", status_kib(daemon.pid, "RssAnon"))
        finally:
            daemon.stop()

    def memory_start(self):
        """The memory a device pays, under the packaged unit's settings (LimitMEMLOCK=
        infinity: mlockall), frames drawn (--display snapshot: the renderer draws each
        frame into an 800x480 framebuffer in memory, as on fbdev, and writes it out):
        read at idle after start, after MEMORY_CODES entries and MEMORY_RELOADS SIGHUP
        reloads, and (memory_end) after MEMORY_IDLE_SECONDS of idle, while the other
        parts run (no idle reading without BENCH_IDLE_SECONDS)."""
        frames = os.path.join(self.dir, "memory-frames")
        os.makedirs(frames, exist_ok=True)
        # The unit's LimitMEMLOCK=infinity where this process may raise the limit (the
        # child inherits it); else pinpadd locks all with CAP_IPC_LOCK, which root has.
        kept = resource.getrlimit(resource.RLIMIT_MEMLOCK)
        try:
            resource.setrlimit(resource.RLIMIT_MEMLOCK,
                               (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        except (ValueError, OSError):
            pass
        try:
            daemon = self.pinpadd(display=f"snapshot:{frames}")
        finally:
            resource.setrlimit(resource.RLIMIT_MEMLOCK, kept)
        time.sleep(1)  # the start is over
        self.memory_emit("start", daemon.pid)
        client = Client(daemon.path)
        every = MEMORY_CODES // MEMORY_RELOADS
        for n in range(MEMORY_CODES):
            one_code(daemon, client, n)
            if n % every == every - 1:
                os.kill(daemon.pid, signal.SIGHUP)
                client.send({"type": "status"})  # a round trip: reloads do not pile up
                client.expect("status")
            if n % 100 == 99:  # the frames' files: what the tmpfs holds is not pinpadd's
                for name in os.listdir(frames):
                    os.unlink(os.path.join(frames, name))
        client.close()
        time.sleep(1)
        self.memory_emit("after_use", daemon.pid)
        self.memory_daemon = (daemon, time.perf_counter())

    def memory_end(self):
        daemon, since = self.memory_daemon
        try:
            if MEMORY_IDLE_SECONDS is None:
                print("# memory: no idle reading (make bench-idle, or BENCH_IDLE_SECONDS)",
                      flush=True)
                return
            left = MEMORY_IDLE_SECONDS - (time.perf_counter() - since)
            if left > 0:
                print(f"# memory: idling {left:.0f} s more (BENCH_IDLE_SECONDS)", flush=True)
                time.sleep(left)
            self.memory_emit(f"idle_{MEMORY_IDLE_SECONDS:.0f}s", daemon.pid)
        finally:
            daemon.stop()

    def memory_emit(self, phase, pid):
        for name, kib in rollup_kib(pid).items():
            emit(f"memory_{phase}_{name}_kib", kib)

    def memory(self):
        self.memory_start()
        self.memory_end()

    def stalled_clients(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
        daemon = self.pinpadd()
        try:
            controller = Client(daemon.path)
            socks = []
            for _ in range(CLIENTS):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(daemon.path)
                socks.append(s)
            readers, stalled = socks[STALLED_CLIENTS:], socks[:STALLED_CLIENTS]
            stop = threading.Event()

            def drain():
                sel = selectors.DefaultSelector()
                for s in readers:
                    s.setblocking(False)
                    sel.register(s, selectors.EVENT_READ)
                while not stop.is_set():
                    for key, _ in sel.select(0.1):
                        try:
                            if not key.fileobj.recv(65536):
                                sel.unregister(key.fileobj)
                        except OSError:
                            pass

            thread = threading.Thread(target=drain, daemon=True)
            thread.start()
            # The stalled ones ask for status again and again and never read the answers.
            burst = b'{"type":"status"}\n' * 2000
            for s in stalled:
                s.setblocking(False)
                try:
                    s.send(burst)
                except OSError:
                    pass
            for n in range(20):
                one_code(daemon, controller, n)
            stop.set()
            thread.join()
            for s in socks:
                s.close()
            controller.close()
            time.sleep(1)
            emit("rss_kib_after_stalled_clients", status_kib(daemon.pid, "VmRSS"))
        finally:
            daemon.stop()

    def recordings(self, presses):
        """An evemu recording of `presses` keypad presses ("1234" and Enter, each with its
        scan code and a SYN, 80 ms apart) and one with no event; their paths."""
        path = os.path.join(self.dir, f"presses-{presses}.evemu")
        empty = os.path.join(self.dir, "empty.evemu")
        header = ("# EVEMU 1.3\n# Input device name: \"bench keypad\"\nN: bench keypad\n"
                  "I: 0003 1a2c 0e24 0110\nP: 00 00 00 00 00 00 00 00\n"
                  "B: 00 13 00 12 00 00 00 00 00\n"
                  "################################\n#      Waiting for events      #\n"
                  "################################\n")
        codes = {"1": 0x4f, "2": 0x50, "3": 0x51, "4": 0x4b, "\n": 0x60}
        with open(empty, "w") as f:
            f.write(header)
        with open(path, "w") as f:
            f.write(header)
            t = 0.0
            keys = "1234\n" * (presses // 5)
            for k in keys:
                c = codes[k]
                for value in (1, 0):
                    t += 0.08
                    scan = 0x70000 + c  # decimal in evemu's files, type and code in hex
                    f.write(f"E: {t:.6f} 0004 0004 {scan}\t# EV_MSC / MSC_SCAN             {scan}\n")
                    f.write(f"E: {t:.6f} 0001 {c:04x} {value:04d}\t# EV_KEY / KEY_KP             {value}\n")
                    f.write(f"E: {t:.6f} 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +80ms\n")
        return path, empty

    def replay(self):
        path, empty = self.recordings(REPLAY_PRESSES)

        def pinpadd_cpu(recording):
            daemon = self.pinpadd(input_spec=f"replay-fast:{recording}")
            try:
                return settled_cpu(daemon.pid), status_kib(daemon.pid, "VmHWM")
            finally:
                daemon.stop()

        def c_cpu(recording):
            proc = subprocess.Popen([self.args.baseline, "parse", recording],
                                    stdout=subprocess.PIPE)
            out = proc.stdout.read().decode()
            _, _, usage = os.wait4(proc.pid, 0)
            proc.returncode = 0
            return (usage.ru_utime + usage.ru_stime) * 1e9, int(out.split()[-2])

        p, c, peak, peak_c = [], [], [], []
        for _ in range(REPLAY_ROUNDS):
            full, hwm = pinpadd_cpu(path)
            base, _ = pinpadd_cpu(empty)
            p.append((full - base) / 1e6)
            peak.append(hwm)
            full, maxrss = c_cpu(path)
            base, _ = c_cpu(empty)
            c.append((full - base) / 1e6)
            peak_c.append(maxrss)
        emit("replay_parse_ms", statistics.median(p))
        emit("replay_parse_ms_c", statistics.median(c))
        emit("replay_peak_rss_kib", statistics.median(peak))
        emit("replay_peak_rss_kib_c", statistics.median(peak_c))
        self.ratios["replay_parse_ratio"] = statistics.median(p) / max(statistics.median(c), 1e-3)

    def floor(self):
        """What a program that does nothing costs: bench/floor/empty.swift with the Swift
        runtime linked statically and dynamically, and empty.c."""
        for name in ("swift_static", "swift_dynamic", "c"):
            program = os.path.join(self.args.floor_dir, f"empty-{name}")
            proc = subprocess.Popen([program])
            time.sleep(0.3)
            self.figures[f"rss_kib_empty_{name}"] = status_kib(proc.pid, "VmRSS")
            emit(f"rss_kib_empty_{name}", self.figures[f"rss_kib_empty_{name}"])
            proc.kill()
            proc.wait()
            times = []
            for _ in range(20):
                t0 = time.perf_counter()
                os.waitpid(os.posix_spawn(program, [program, "exit"], os.environ), 0)
                times.append((time.perf_counter() - t0) * 1000)
            emit(f"startup_ms_empty_{name}", statistics.median(times))
        daemon = self.floor_listener()
        try:
            time.sleep(0.3)
            emit("rss_kib_floor_listen", status_kib(daemon.pid, "VmRSS"))
        finally:
            daemon.stop()
        if "rss_kib_display_none" in self.figures:
            self.ratios["rss_over_floor_kib"] = (self.figures["rss_kib_display_none"]
                                                 - self.figures["rss_kib_empty_swift_static"])

    def print_ratios(self):
        for name, value in self.ratios.items():
            emit(name, value)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pinpadd", required=True)
    parser.add_argument("--baseline", required=True)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--alloc-counter", help="bench/alloc_count.c built as a shared "
                        "object; adds allocs_per_code")
    parser.add_argument("--only", help="comma-separated: code_loop,syscalls,instructions,"
                        "latency,idle,rss,stalled_clients,replay,memory")
    parser.add_argument("--state-parent", default=None,
                        help="where the state directories go (default: $TMPDIR)")
    parser.add_argument("--ratios", action="store_true", help="print the ratios")
    parser.add_argument("--floor-dir", help="where run.sh built bench/floor/empty-*; adds "
                        "the floor figures")
    args = parser.parse_args()
    bench = Bench(args)
    try:
        if args.smoke:
            bench.smoke()
        else:
            bench.ratios = {}
            parts = args.only or ("memory_start,code_loop,syscalls,instructions,latency,"
                                  "idle,rss,stalled_clients,"
                                  "replay" + (",allocs" if args.alloc_counter else "")
                                  + (",floor" if args.floor_dir else "") + ",memory_end")
            for part in parts.split(","):
                getattr(bench, part)()
            if args.ratios:
                bench.print_ratios()
            else:
                with open(os.environ.get("BENCH_RATIOS", os.devnull), "w") as f:
                    for name, value in bench.ratios.items():
                        f.write(f"{name} {value}\n")
    finally:
        bench.log.close()
        if os.environ.get("BENCH_KEEP") != "1":
            shutil.rmtree(bench.dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
