"""A virtual input device through /dev/uinput, for guest-side tests (python3 in the guest).

    python3 "$RIG_LIB/uinput.py" keypad NAME SECONDS [READY_FILE] [SCRIPT]
    python3 "$RIG_LIB/uinput.py" feedback NAME SECONDS READY_FILE RECORD [SCRIPT]

creates a numeric keypad (KEY_KP0..9, KEY_KPENTER, KEY_BACKSPACE, KEY_ESC, bus USB,
id 1209:0001), touches READY_FILE once it exists, plays SCRIPT and keeps the device for
SECONDS. It is virtual: its sysfs path is under /sys/devices/virtual/input.
`feedback` adds NumLock and CapsLock LEDs (NumLock on from the start, as the device
reports it) and a beeper (SND_TONE, SND_BELL), and writes each LED and sound event that
a program writes to the device's node, as the kernel hands it back to uinput, to RECORD:
"SECONDS TYPE CODE VALUE" a line (CLOCK_MONOTONIC, read as it comes).

SCRIPT is steps separated by spaces:
  KP1          a tap (down, 20 ms, up), then 50 ms before the next step
  down=KP7     press and keep it down (the kernel autorepeats it); up=KP7 releases it,
               and the next step follows at once (no pause: a key pressed right after)
  wait=FILE    wait until FILE exists
  touch=FILE   create FILE (uinput writes are delivered synchronously, so every event
               before it is already in each reader's queue)
"""
import fcntl
import os
import struct
import sys
import time

EV_SYN, EV_KEY, EV_LED, EV_SND = 0, 1, 0x11, 0x12
LED_NUML, LED_CAPSL = 0, 1
SND_BELL, SND_TONE = 1, 2
KEYS = {"ESC": 1, "BACKSPACE": 14, "KP7": 71, "KP8": 72, "KP9": 73, "KP4": 75, "KP5": 76,
        "KP6": 77, "KP1": 79, "KP2": 80, "KP3": 81, "KP0": 82, "KPENTER": 96}
BUS_USB = 0x03
UI_SET_EVBIT = 0x40045564      # _IOW('U', 100, int)
UI_SET_KEYBIT = 0x40045565     # _IOW('U', 101, int)
UI_SET_LEDBIT = 0x40045569     # _IOW('U', 105, int)
UI_SET_SNDBIT = 0x4004556a     # _IOW('U', 106, int)
UI_DEV_SETUP = 0x405C5503      # _IOW('U', 3, struct uinput_setup) (92 bytes)
UI_DEV_CREATE = 0x5501         # _IO('U', 1)
UI_DEV_DESTROY = 0x5502        # _IO('U', 2)


class VirtualDevice:
    def __init__(self, name, keys, vendor=0x1209, product=0x0001, feedback=False):
        self.fd = os.open("/dev/uinput", (os.O_RDWR if feedback else os.O_WRONLY) | os.O_NONBLOCK)
        fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_KEY)
        for code in keys:
            fcntl.ioctl(self.fd, UI_SET_KEYBIT, code)
        if feedback:
            fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_LED)
            for code in (LED_NUML, LED_CAPSL):
                fcntl.ioctl(self.fd, UI_SET_LEDBIT, code)
            fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_SND)
            for code in (SND_BELL, SND_TONE):
                fcntl.ioctl(self.fd, UI_SET_SNDBIT, code)
        setup = struct.pack("HHHH80sI", BUS_USB, vendor, product, 1, name.encode()[:79], 0)
        fcntl.ioctl(self.fd, UI_DEV_SETUP, setup)
        fcntl.ioctl(self.fd, UI_DEV_CREATE)

    def emit(self, type_, code, value):
        now = time.monotonic()
        os.write(self.fd, struct.pack("llHHi", int(now), int(now % 1 * 1e6), type_, code, value))

    def key(self, code, value):
        self.emit(EV_KEY, code, value)
        self.emit(EV_SYN, 0, 0)

    def tap(self, code, hold=0.02):
        self.key(code, 1)
        time.sleep(hold)
        self.key(code, 0)

    def record(self, path):
        """A thread that appends what the kernel hands back (LED and sound writes to the
        device's node) to `path`, one line each, with the time it was read."""
        import select
        import threading

        def run():
            with open(path, "a", buffering=1) as out:
                while True:
                    try:
                        select.select([self.fd], [], [], 1.0)
                        data = os.read(self.fd, 24 * 64)
                    except BlockingIOError:
                        continue
                    except OSError:
                        return
                    now = time.monotonic()
                    for i in range(0, len(data) - 23, 24):
                        _, _, type_, code, value = struct.unpack("llHHi", data[i:i + 24])
                        if type_ in (EV_LED, EV_SND):
                            out.write("%.6f %d %d %d\n" % (now, type_, code, value))

        threading.Thread(target=run, daemon=True).start()

    def close(self):
        fcntl.ioctl(self.fd, UI_DEV_DESTROY)
        os.close(self.fd)


def main(argv):
    feedback = len(argv) > 5 and argv[1] == "feedback"
    if len(argv) < 4 or (argv[1] != "keypad" and not feedback):
        print(__doc__, file=sys.stderr)
        return 64
    name, seconds = argv[2], float(argv[3])
    ready = argv[4] if len(argv) > 4 else None
    if feedback:
        argv = argv[:5] + argv[6:]  # RECORD taken out: SCRIPT is argv[5] as for keypad
    script = argv[5].split() if len(argv) > 5 else []
    device = VirtualDevice(name, KEYS.values(), feedback=feedback)
    if feedback:
        device.emit(EV_LED, LED_NUML, 1)  # NumLock on, as the device says
        device.emit(EV_SYN, 0, 0)
        device.record(sys.argv[5])
    end = time.monotonic() + seconds
    time.sleep(0.5)  # let udev and readers see the device
    if ready:
        open(ready, "w").close()
    for step in script:
        if step.startswith("wait="):
            while not os.path.exists(step[5:]) and time.monotonic() < end:
                time.sleep(0.05)
        elif step.startswith("touch="):
            open(step[6:], "w").close()
        elif step.startswith("down="):
            device.key(KEYS[step[5:]], 1)
        elif step.startswith("up="):
            device.key(KEYS[step[3:]], 0)
        else:
            device.tap(KEYS[step])
            time.sleep(0.05)
    while time.monotonic() < end:
        time.sleep(0.1)
    device.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
