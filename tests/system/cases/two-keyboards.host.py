"""Host side of two-keyboards: kp_6 by input-send-event and kp_5 by send-key, neither
aimed at a head (both reach the AT keyboard), then kp_1 on keyboard 1, kp_2 on keyboard
2, and kp_9 on each as its watcher's terminator."""
import qmp
from qmp import keyboard


def drive(rig):
    if not rig.wait("ready"):
        return
    rig.log("kp_6 and kp_5 to no head, then kp_1 -> head1, kp_2 -> head2, kp_9 -> both")
    rig.qmp.type_on(None, ["kp_6"])
    rig.qmp.send_key("kp_5")
    rig.qmp.type_on(keyboard(1), ["kp_1"])
    rig.qmp.type_on(keyboard(2), ["kp_2"])
    rig.qmp.type_on(keyboard(1), ["kp_9"])
    rig.qmp.type_on(keyboard(2), ["kp_9"])


qmp.main(drive)
