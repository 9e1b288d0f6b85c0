"""A virtual input device through /dev/uinput, for guest-side tests (python3 in the guest).

    python3 "$RIG_LIB/uinput.py" keypad NAME SECONDS [READY_FILE] [SCRIPT]

creates a numeric keypad (KEY_KP0..9, KEY_KPENTER, KEY_BACKSPACE, KEY_ESC, bus USB,
id 1209:0001), touches READY_FILE once it exists, plays SCRIPT and keeps the device for
SECONDS. It is virtual: its sysfs path is under /sys/devices/virtual/input.

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

EV_SYN, EV_KEY = 0, 1
KEYS = {"ESC": 1, "BACKSPACE": 14, "KP7": 71, "KP8": 72, "KP9": 73, "KP4": 75, "KP5": 76,
        "KP6": 77, "KP1": 79, "KP2": 80, "KP3": 81, "KP0": 82, "KPENTER": 96}
BUS_USB = 0x03
UI_SET_EVBIT = 0x40045564      # _IOW('U', 100, int)
UI_SET_KEYBIT = 0x40045565     # _IOW('U', 101, int)
UI_DEV_SETUP = 0x405C5503      # _IOW('U', 3, struct uinput_setup) (92 bytes)
UI_DEV_CREATE = 0x5501         # _IO('U', 1)
UI_DEV_DESTROY = 0x5502        # _IO('U', 2)


class VirtualDevice:
    def __init__(self, name, keys, vendor=0x1209, product=0x0001):
        self.fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
        fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_KEY)
        for code in keys:
            fcntl.ioctl(self.fd, UI_SET_KEYBIT, code)
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

    def close(self):
        fcntl.ioctl(self.fd, UI_DEV_DESTROY)
        os.close(self.fd)


def main(argv):
    if len(argv) < 4 or argv[1] != "keypad":
        print(__doc__, file=sys.stderr)
        return 64
    name, seconds = argv[2], float(argv[3])
    ready = argv[4] if len(argv) > 4 else None
    script = argv[5].split() if len(argv) > 5 else []
    device = VirtualDevice(name, KEYS.values())
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
