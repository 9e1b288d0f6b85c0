"""Host side of clean-system: type the PIN on the USB keyboard once the packaged
daemon, a listener and the reference controller are connected."""
import qmp

PIN = "8642097"  # the case's $pin


def drive(rig):
    # Waits up to the case's own time limit (clean-system's rig-timeout: 1800): an
    # emulated arm64 guest needs longer than 600 s to get there on a loaded host.
    if not rig.wait("ready"):
        return
    rig.qmp.type_digits(PIN)
    rig.qmp.send_key("kp_enter")


qmp.main(drive)
