"""Host side of keypad-auto: type a PIN, unplug the keypad, plug it back, type again."""
import time

import qmp


def type_pin(rig, digits):
    for d in digits:
        rig.qmp.send_key("kp_" + d)
    rig.qmp.send_key("kp_enter")


def drive(rig):
    if not rig.wait("ready"):
        return
    type_pin(rig, "1234")
    if not rig.wait("unplug"):
        return
    rig.qmp.execute("device_del", id="kbd1")
    if not rig.wait("replug"):
        return
    time.sleep(0.5)
    rig.qmp.execute("device_add", driver="usb-kbd", id="kbd1", bus="xhci.0")
    if not rig.wait("type-again"):
        return
    time.sleep(0.3)
    type_pin(rig, "5678")


qmp.main(drive)
