"""Host side of evdev-kernel: hold kp_7 while the guest opens, type kp_8 (QEMU queues
it behind kp_7's release); then flood the unread device with keys, and type kp_9 once
the guest reads again."""
import time

import qmp


def drive(rig):
    if not rig.wait("hold"):
        return
    rig.log("kp_7 held 10 s")
    rig.qmp.send_key("kp_7", hold_ms=10000)
    rig.signal("held")
    if not rig.wait("opened"):
        return
    rig.log("kp_8 (queued by QEMU until kp_7 is up)")
    rig.qmp.send_key("kp_8")
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
