"""Host side of hotplug: plug k2, type kp_5 on it, unplug it, plug it again."""
import time

import qmp


def drive(rig):
    if not rig.wait("ready"):
        return
    rig.log("device_add usb-kbd k2")
    rig.qmp.execute("device_add", driver="usb-kbd", id="k2", bus="xhci.0")
    if not rig.wait("reading"):
        return
    # send-key goes to the keyboard QEMU made active: the newest one.
    rig.log("kp_5")
    rig.qmp.send_key("kp_5")
    if not rig.wait("got-key"):
        return
    rig.log("device_del k2")
    rig.qmp.execute("device_del", id="k2")
    if not rig.wait("removed"):
        return
    time.sleep(0.5)
    rig.log("device_add usb-kbd k2 again")
    rig.qmp.execute("device_add", driver="usb-kbd", id="k2", bus="xhci.0")


qmp.main(drive)
