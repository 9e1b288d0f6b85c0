#!/usr/bin/env python3
"""Writes tools/pinpadd.order: the functions a running pinpadd executes once it is up,
then those only its start executes, for lld's --symbol-ordering-file (Makefile
RELEASE_FLAGS).

The kernel maps a binary's code 64 KiB around each page a process touches (fault-
around), and what is mapped stays resident (the idle RSS). Laid side by side, the
functions the running daemon executes take a few such windows instead of one in every
corner of the binary; the start's, laid next to them, a few more instead of most of the
binary (issue 55).

    tools/symbol-order.py [.build/release/pinpadd] > tools/pinpadd.order

Runs the release binary under callgrind, collecting only inside the event loop
(`EventLoop.run`), and again collecting from exec to the loop (the start), on the
bench's workloads (bench/driver.py): codes granted and denied
with each display pinpadd can show here (none, the text console on a pty, snapshot
frames), status requests and a reload. Keeps the functions that ran and that lld can
move on their own: those of pinpadd's modules (built with -function-sections) and of
the Swift runtime's and standard library's archives that have a section each. A
function missing from a later build is skipped by lld; regenerate after larger changes
(`make test` runs `--check`, which fails when the list has gone stale).

    tools/symbol-order.py --check tools/pinpadd.order .build/release/pinpadd
"""
import glob
import os
import shutil
import signal
import subprocess
import sys
import argparse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import driver  # noqa: E402

LOOP = "*12PinpadSystem9EventLoopC3run*"


def ran_functions(out):
    """Names of the functions with a cost of their own in a callgrind output file."""
    names, current, after_call = set(), None, False
    with open(out) as f:
        for line in f:
            if line.startswith("fn="):
                current, after_call = line[3:].strip(), False
            elif line.startswith("calls="):
                after_call = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_call:
                    after_call = False  # the call's inclusive cost, not the caller's own
                elif current and any(int(x) for x in line.split()[1:] if x.isdigit()):
                    names.add(current)
    return names


def workload(bench, valgrind, program, display, out, start=False):
    """The workload under callgrind: `out` holds what ran in the loop; with `start`,
    `out`.1 what ran from exec to the loop (the profile dumped as the loop begins)."""
    if display == "snapshot":
        os.makedirs(os.path.join(bench.dir, "frames"), exist_ok=True)
        display = f"snapshot:{bench.dir}/frames"
    cut = f"--dump-before={LOOP}" if start else f"--toggle-collect={LOOP}"
    daemon = bench.pinpadd(display=display, program=program, wrap=(
        valgrind, "--tool=callgrind", "--quiet", cut,
        "--compress-strings=no", "--compress-pos=no", f"--callgrind-out-file={out}"))
    try:
        client = driver.Client(daemon.path)
        for n in range(20):
            client.send({"type": "status"})
            client.expect("status")
            digits = f"{n * 37 % 10000:04d}"
            for i, d in enumerate(digits):
                daemon.type(d.encode())
                client.expect("entry", length=i + 1)
            if n % 5 == 1:  # a backspace, then the digit again
                daemon.type(b"\x7f")
                client.expect("entry", length=3)
                daemon.type(digits[-1].encode())
                client.expect("entry", length=4)
            daemon.type(b"\r")
            code = client.expect("code")
            result = "granted" if n % 5 else "denied"  # no lockout
            client.send({"type": "verdict", "id": code["id"], "result": result})
            client.expect("verdict", id=code["id"])
        os.kill(daemon.pid, signal.SIGHUP)
        client.send({"type": "status"})
        client.expect("status")
        client.close()
    finally:
        daemon.stop()


def functions(binary):
    """The functions the binary defines: name -> (address, size), from nm."""
    table = {}
    nm = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True,
                        text=True, check=True).stdout
    for line in nm.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tT":
            table[fields[3]] = (int(fields[0], 16), int(fields[1], 16))
    return table


def movable(binary):
    """Functions defined in the binary, less those of the toolchain's static archives
    that share a plain .text section (lld would move the whole section)."""
    swiftc = shutil.which("swiftc")
    static = os.path.join(os.path.dirname(os.path.realpath(swiftc)), "..", "lib", "swift_static",
                          "linux") if swiftc else None
    shared = set()
    for archive in glob.glob(os.path.join(static, "*.a")) if static else []:
        table = subprocess.run(["objdump", "-t", archive], capture_output=True, text=True).stdout
        for line in table.splitlines():
            # "VALUE FLAGS SECTION<tab>SIZE [.hidden] NAME"
            left, tab, right = line.partition("\t")
            if tab and left.split()[-1] == ".text" and right.split():
                shared.add(right.split()[-1])
    return functions(binary).keys() - shared


def check(binary, order_file):
    """`make test`: the listed functions are in the binary (most of them: a few renamed
    since the list was made are fine) and lie side by side, as the link was asked."""
    with open(order_file) as f:
        names = [line.strip() for line in f if line.strip()]
    symbols = functions(binary)
    found = [symbols[n] for n in names if n in symbols]
    code = sum(size for _, size in found)
    span = max(a + size for a, size in found) - min(a for a, _ in found) if found else 0
    print(f"symbol order: {len(found)} of {len(names)} listed functions in {binary}, "
          f"{code // 1024} KiB of code laid out in {span // 1024} KiB")
    if len(found) < 0.9 * len(names):
        sys.exit("symbol order: the list is stale; make it again: "
                 "tools/symbol-order.py > tools/pinpadd.order")
    if span > 1.25 * code + 16384:
        sys.exit("symbol order: the listed functions are not side by side "
                 "(one in a section shared with others pulls that section in among them)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=".build/release/pinpadd")
    parser.add_argument("--check", metavar="ORDER_FILE",
                        help="check BINARY against ORDER_FILE instead of making a list")
    args = parser.parse_args()
    if args.check:
        check(args.binary, args.check)
        return
    valgrind = shutil.which("valgrind")
    if not valgrind:
        sys.exit("symbol-order: needs valgrind (apt-get install valgrind)")
    bench = driver.Bench(argparse.Namespace(pinpadd=args.binary, state_parent=None))
    try:
        program = os.path.join(bench.dir, "pinpadd-nodebug")  # valgrind 3.19: no DWARF 5
        subprocess.run(["strip", "--strip-debug", "-o", program, args.binary], check=True)
        ran, started = set(), set()
        for display in ("none", "console", "snapshot"):
            out = os.path.join(bench.dir, f"callgrind-{display}.out")
            workload(bench, valgrind, program, display, out)
            ran |= ran_functions(out)
            workload(bench, valgrind, program, display, out + "-start", start=True)
            started |= ran_functions(out + "-start.1")
        can_move = movable(args.binary)
        for name in sorted(ran & can_move) + sorted((started - ran) & can_move):
            print(name)
    finally:
        bench.log.close()
        shutil.rmtree(bench.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
