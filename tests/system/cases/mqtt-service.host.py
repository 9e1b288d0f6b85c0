"""Host side of mqtt-service: type alice's PIN, then a wrong one, on the USB keyboard
for the fleet controller to answer."""
import qmp


def drive(rig):
    if not rig.wait("ready"):
        return
    rig.qmp.type_digits("1234")
    rig.qmp.send_key("kp_enter")
    if not rig.wait("wrong"):
        return
    rig.qmp.type_digits("9999")
    rig.qmp.send_key("kp_enter")


qmp.main(drive)
