"""Host side of systemd-service: type a PIN on the USB keyboard once the service runs,
then plug in a second one."""
import qmp


def drive(rig):
    if not rig.wait("ready"):
        return
    rig.qmp.type_digits("1234")
    rig.qmp.send_key("kp_enter")
    if not rig.wait("plug"):
        return
    rig.qmp.execute("device_add", driver="usb-kbd", id="k2", bus="xhci.0")


qmp.main(drive)
