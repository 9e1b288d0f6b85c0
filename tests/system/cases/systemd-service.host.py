"""Host side of systemd-service: type a PIN on the USB keyboard once the service runs."""
import qmp


def drive(rig):
    if not rig.wait("ready"):
        return
    rig.qmp.type_digits("1234")
    rig.qmp.send_key("kp_enter")


qmp.main(drive)
