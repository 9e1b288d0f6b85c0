"""Host side of mqtt-service: type alice's PIN, then a wrong one, on the USB keyboard
for the fleet controller to answer; then the same for the door deciding locally, and
alice's again after its bridge restarted."""
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
    # The door decides itself: broker and site gone, then its bridge restarted.
    for signal, digits in (("local", "1234"), ("local-wrong", "9999"), ("kept", "1234")):
        if not rig.wait(signal):
            return
        rig.qmp.type_digits(digits)
        rig.qmp.send_key("kp_enter")


qmp.main(drive)
