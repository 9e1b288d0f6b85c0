"""Host side of evdev-kernel: hold kp_7 while the guest opens the keyboard, then release
it and press kp_8 in the same instant; later flood the unread device with keys, and type
kp_9 once the guest reads again.

Keys go through `input-send-event`, which QEMU delivers at once. `send-key` is not used
for the held key: QEMU queues a pause of the hold time after the release as well, so a
key sent while kp_7 is held (10 s) would only arrive 10 s after kp_7 went up."""
import time

import qmp


def drive(rig):
    # The held-key check, once per guest attempt (it makes another only when the kernel
    # dropped events during one), until the guest says it is done.
    for attempt in (1, 2, 3):
        if rig.wait_any(["hold-%d" % attempt, "held-done"]) != "hold-%d" % attempt:
            break
        rig.log("kp_7 down (attempt %d)" % attempt)
        rig.qmp.key_events(None, [("kp_7", True)])
        rig.signal("held-%d" % attempt)
        if not rig.wait("opened-%d" % attempt):
            return
        rig.log("kp_7 up and kp_8 down together, kp_8 up 50 ms later")
        rig.qmp.key_events(None, [("kp_7", False), ("kp_8", True)])
        time.sleep(0.05)
        rig.qmp.key_events(None, [("kp_8", False)])
    if not rig.wait("flood"):
        return
    rig.log("flood: 60 keys")
    for i in range(60):
        rig.qmp.send_key("kp_" + str(i % 7), hold_ms=10)
        time.sleep(0.02)
    time.sleep(2)
    rig.signal("flooded")
    time.sleep(1)
    rig.log("kp_9 after the flood")
    rig.qmp.send_key("kp_9")


qmp.main(drive)
