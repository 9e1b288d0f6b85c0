"""Host side of rig-smoke: once the guest reader is waiting, type kp_1."""
import qmp


def drive(rig):
    if not rig.wait("ready"):
        return
    rig.log("sending kp_1")
    rig.qmp.send_key("kp_1")


qmp.main(drive)
