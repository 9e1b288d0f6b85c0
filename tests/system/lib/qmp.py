"""Host-side driver support for the QEMU rig: a QMP client and the scratch handshake.

A case's NAME.host.py imports this (tests/system/lib is on sys.path) and uses
`Rig.from_env()`: `rig.wait("ready")` waits for the guest's `rig_signal ready`,
`rig.signal("go")` answers a guest `rig_wait go`, `rig.qmp` sends QMP commands.
"""
import json
import os
import socket
import sys
import time


class QMPError(Exception):
    pass


class QMP:
    def __init__(self, path, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.file = self.sock.makefile("rwb")
        self.events = []
        greeting = self._read()
        if "QMP" not in greeting:
            raise QMPError(f"no QMP greeting: {greeting}")
        self.execute("qmp_capabilities")

    def _read(self):
        line = self.file.readline()
        if not line:
            raise QMPError("QMP connection closed")
        return json.loads(line)

    def execute(self, command, **arguments):
        message = {"execute": command}
        if arguments:
            message["arguments"] = arguments
        self.file.write(json.dumps(message).encode() + b"\n")
        self.file.flush()
        while True:
            reply = self._read()
            if "event" in reply:
                self.events.append(reply)
                continue
            if "error" in reply:
                raise QMPError(f"{command}: {reply['error']}")
            return reply.get("return")

    def send_key(self, *qcodes, hold_ms=None):
        """Presses the keys together, then releases them (QEMU's send-key)."""
        arguments = {"keys": [{"type": "qcode", "data": q} for q in qcodes]}
        if hold_ms is not None:
            arguments["hold-time"] = hold_ms
        return self.execute("send-key", **arguments)

    def key_to(self, device, qcode, down):
        """A key press or release on one keyboard (`input-send-event` with `device`)."""
        return self.key_events(device, [(qcode, down)])

    def key_events(self, device, changes, head=None):
        """Key presses and releases [(qcode, down), ...] in one `input-send-event`: they
        reach the guest at once, unlike `send-key`, which QEMU queues with a hold-time
        pause after every press *and* every release. device=None: the newest keyboard
        not bound to a display; device=ID (and head=N): the keyboard bound to that
        display head, e.g. keyboard(2) in a `# rig-keyboards: 2` case."""
        events = [{"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": q}}}
                  for q, down in changes]
        arguments = {"events": events}
        if device is not None:
            arguments["device"] = device
        if head is not None:
            arguments["head"] = head
        return self.execute("input-send-event", **arguments)

    def type_on(self, device, qcodes, gap=0.05):
        """Taps each qcode in turn on one keyboard (see key_events), `gap` seconds
        between a press and its release and between keys."""
        for qcode in qcodes:
            self.key_events(device, [(qcode, True)])
            time.sleep(gap)
            self.key_events(device, [(qcode, False)])
            time.sleep(gap)

    def tap(self, device, qcode, hold=0.05):
        self.key_to(device, qcode, True)
        time.sleep(hold)
        self.key_to(device, qcode, False)

    def type_digits(self, digits, keypad=True, gap=0.15):
        for digit in digits:
            self.send_key(("kp_" if keypad else "") + digit)
            time.sleep(gap)


def keyboard(number):
    """The display head that USB keyboard kbdNUMBER (port NUMBER) of a case with
    `# rig-keyboards: N` is bound to: the `device` for key_events/type_on/tap."""
    return "head%d" % number


class Rig:
    def __init__(self, scratch, qmp_path, case_timeout=300):
        self.scratch = scratch
        self.qmp_path = qmp_path
        # A wait lasts at most the case's own timeout (run.sh stops QEMU and this
        # driver then): a guest on a loaded host can take minutes to reach a signal.
        self.case_timeout = case_timeout
        self._qmp = None

    @classmethod
    def from_env(cls):
        return cls(os.environ["RIG_SCRATCH"], os.environ["RIG_QMP"],
                   float(os.environ.get("RIG_TIMEOUT") or 300))

    @property
    def qmp(self):
        if self._qmp is None:
            self._qmp = QMP(self.qmp_path)
        return self._qmp

    def log(self, text):
        print(f"host: {text}", flush=True)

    def wait(self, name, timeout=None):
        """Waits for the guest's `rig_signal NAME`; False if QEMU exited first."""
        path = os.path.join(self.scratch, "guest-" + name)
        deadline = time.monotonic() + (timeout or self.case_timeout)
        while not os.path.exists(path):
            if os.path.exists(os.path.join(self.scratch, "result")):
                return False
            if time.monotonic() > deadline:
                raise TimeoutError(f"guest never signalled {name}")
            time.sleep(0.05)
        return True

    def wait_any(self, names, timeout=None):
        """Waits for the first of the guest's signals NAMES; returns it, None if QEMU
        exited first."""
        deadline = time.monotonic() + (timeout or self.case_timeout)
        while True:
            for name in names:
                if os.path.exists(os.path.join(self.scratch, "guest-" + name)):
                    return name
            if os.path.exists(os.path.join(self.scratch, "result")):
                return None
            if time.monotonic() > deadline:
                raise TimeoutError(f"guest never signalled any of {names}")
            time.sleep(0.05)

    def signal(self, name):
        open(os.path.join(self.scratch, "host-" + name), "w").close()


def main(driver):
    """Runs driver(rig); exit status 0 unless it raised."""
    rig = Rig.from_env()
    try:
        driver(rig)
    except Exception as error:  # the run script reports the guest's result too
        print(f"host: driver failed: {error!r}", flush=True)
        sys.exit(1)
