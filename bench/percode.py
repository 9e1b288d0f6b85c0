#!/usr/bin/env python3
"""Per-code cost of pinpadd, measured from outside: a real pty as `--input terminal`,
a real Unix socket as the controller. Closed loop: type a code (4 digits + Enter in one
write, as a paste; with --keys one key per write, each waiting for its entry line), read
the code line, answer granted, read the verdict line; repeat.

Prints `name: value` lines: CPU per code (the daemon's own run time from
/proc/PID/task/*/schedstat, and utime+stime from /proc/PID/stat), codes per second,
and with --strace the syscalls per code by kind (strace -f -c attached after the warm-up,
so start-up is not counted).

  bench/percode.py --bin .build/release/pinpadd [--codes 2000] [--state-dir DIR]
                   [--strace] [--keys] [--notify] [--runs N]

--notify runs the daemon with $NOTIFY_SOCKET (a datagram socket this script reads), as
under systemd's Type=notify.
"""

import argparse
import json
import os
import pty
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tty


def cpu_ns(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass
    return total


def ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)


class Controller:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        deadline = time.monotonic() + 20
        while True:
            try:
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        self.buffer = b""

    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise SystemExit("percode: the daemon closed the socket")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def until(self, kind, **match):
        while True:
            message = self.line()
            if message.get("type") == kind and all(message.get(k) == v for k, v in match.items()):
                return message

    def send(self, obj):
        self.sock.sendall(json.dumps(obj, separators=(",", ":")).encode() + b"\n")


def drain(notify):
    try:
        while notify:
            notify.recv(4096)
    except BlockingIOError:
        pass


def one_code(master, ctl, keys):
    if keys:
        for i, key in enumerate(b"1234"):
            os.write(master, bytes([key]))
            ctl.until("entry", length=i + 1)
        os.write(master, b"\r")
    else:
        os.write(master, b"1234\r")
    code = ctl.until("code")
    ctl.send({"type": "verdict", "id": code["id"], "result": "granted"})
    ctl.until("verdict", id=code["id"])


def run(args, state_dir):
    work = tempfile.mkdtemp(prefix="percode-")
    sock_path = os.path.join(work, "pinpadd.sock")
    conf = os.path.join(work, "pinpadd.conf")
    with open(conf, "w") as f:
        f.write("[Entry]\nBurstIntervalSec=0\n[Socket]\nVerdictTimeoutSec=60\n")
    env = dict(os.environ)
    notify = None
    if args.notify:
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(os.path.join(work, "notify.sock"))
        notify.setblocking(False)
        env["NOTIFY_SOCKET"] = os.path.join(work, "notify.sock")
    master, slave = pty.openpty()
    tty.setraw(slave)
    daemon = subprocess.Popen(
        [args.bin, "--config", conf, "--input", "terminal", "--display", "none",
         "--socket", sock_path, "--state-dir", state_dir, "--log-level", args.log_level],
        stdin=slave, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, env=env)
    os.close(slave)
    tracer = None
    try:
        ctl = Controller(sock_path)
        ctl.until("hello")
        for _ in range(args.warmup):
            one_code(master, ctl, args.keys)
            drain(notify)
        if args.strace:
            out = os.path.join(work, "strace.txt")
            tracer = subprocess.Popen(
                ["strace", "-f", "-c", "-o", out, "-p", str(daemon.pid)],
                stderr=subprocess.DEVNULL)
            time.sleep(0.5)  # attached
            one_code(master, ctl, args.keys)  # the first traced code settles the attach
        cpu0, ticks0, t0 = cpu_ns(daemon.pid), ticks(daemon.pid), time.monotonic()
        for _ in range(args.codes):
            one_code(master, ctl, args.keys)
            drain(notify)  # systemd reads at once; a full queue would block the daemon
        cpu1, ticks1, t1 = cpu_ns(daemon.pid), ticks(daemon.pid), time.monotonic()
        result = {
            "code_cpu_us": (cpu1 - cpu0) / 1000 / args.codes,
            "code_cpu_ticks_us": (ticks1 - ticks0) * 1e6 / os.sysconf("SC_CLK_TCK") / args.codes,
            "codes_per_s": args.codes / (t1 - t0),
        }
        if tracer:
            tracer.send_signal(signal.SIGINT)
            tracer.wait()
            tracer = None
            calls = {}
            with open(out) as f:
                for row in f:
                    m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", row)
                    if m and m.group(2) != "total":
                        calls[m.group(2)] = int(m.group(1))
            n = args.codes + 1
            result["syscalls_per_code"] = sum(calls.values()) / n
            for name, count in sorted(calls.items(), key=lambda kv: -kv[1]):
                result[f"syscalls_per_code.{name}"] = count / n
        return result
    finally:
        if tracer:
            tracer.kill()
        if notify:
            notify.close()
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(10)
        except subprocess.TimeoutExpired:
            daemon.kill()
        os.close(master)
        shutil.rmtree(work, ignore_errors=True)


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=".build/release/pinpadd")
    p.add_argument("--codes", type=int, default=2000)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--runs", type=int, default=1, help="median of this many runs")
    p.add_argument("--state-dir", help="default: a new directory under /tmp")
    p.add_argument("--strace", action="store_true")
    p.add_argument("--keys", action="store_true", help="one key per write")
    p.add_argument("--notify", action="store_true", help="with $NOTIFY_SOCKET")
    p.add_argument("--log-level", default="info")
    args = p.parse_args()
    results = []
    for _ in range(args.runs):
        state = args.state_dir or tempfile.mkdtemp(prefix="percode-state-")
        try:
            results.append(run(args, state))
        finally:
            if not args.state_dir:
                shutil.rmtree(state, ignore_errors=True)
    for key in results[0]:
        values = sorted(r.get(key, 0) for r in results)
        print(f"{key}: {values[len(values) // 2]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
