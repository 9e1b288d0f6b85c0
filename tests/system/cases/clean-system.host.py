"""Host side of clean-system: type the PIN on the USB keyboard once the packaged
daemon, a listener and the reference controller are connected."""
import qmp

PIN = "8642097"  # the case's $pin


def drive(rig):
    if not rig.wait("ready", timeout=600):
        return
    rig.qmp.type_digits(PIN)
    rig.qmp.send_key("kp_enter")


qmp.main(drive)
