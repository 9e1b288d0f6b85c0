"""Host side of card-pin: for each guest signal keys-N, types the qcodes listed in
$RIG_SCRATCH/keys-N ("KEYBOARD QCODE...") on that USB keyboard (1 the keypad, 2 the
card reader), each aimed at the keyboard's display head; "unplug I" and "plug I"
unplug USB keyboard I and plug it back in on its port, bound to its head again."""
import os
import time

import qmp
from qmp import keyboard


def replug(rig, number):
    """device_add of kbdI on port I with display headI; QEMU frees the id of an
    unplugged device asynchronously, so a "Duplicate ID" is tried again."""
    for _ in range(50):
        try:
            rig.qmp.execute("device_add", driver="usb-kbd", id="kbd%d" % number,
                            bus="xhci.0", port=str(number), display="head%d" % number)
            return
        except qmp.QMPError as error:
            if "Duplicate" not in str(error):
                raise
            time.sleep(0.1)
    raise qmp.QMPError("kbd%d: the id stayed taken" % number)


def drive(rig):
    step = 1
    while rig.wait_any(["keys-%d" % step]):
        with open(os.path.join(rig.scratch, "keys-%d" % step)) as f:
            words = f.read().split()
        if words[0] == "unplug":
            rig.log("keys-%d: device_del kbd%s" % (step, words[1]))
            rig.qmp.execute("device_del", id="kbd%s" % words[1])
        elif words[0] == "plug":
            rig.log("keys-%d: device_add kbd%s" % (step, words[1]))
            replug(rig, int(words[1]))
        else:
            rig.log("keys-%d: %d keys on keyboard %s" % (step, len(words) - 1, words[0]))
            rig.qmp.type_on(keyboard(int(words[0])), words[1:])
        step += 1


qmp.main(drive)
