#!/usr/bin/env python3
"""A Silicon Labs CP2112 (USB 10c4:ea90) played through /dev/uhid, so that the in-tree
hid-cp2112 driver binds and gives a real /dev/gpiochip (label cp2112_gpio, 8 lines).

The driver speaks HID feature reports: 0x02 GPIO config (direction mask, push-pull
mask, special functions, clock divider), 0x03 GPIO get (latch byte), 0x04 GPIO set
(values, mask), 0x05 version (part 0x0C, version 0x03), 0x06 SMBus config (13 bytes).
Any other report is refused at once (the driver asks for 0x20, the lock byte).

Usage: cp2112-sim.py LOG CONTROL_FIFO
- LOG gets one line per change an output line makes, "MONO_NS out LINE VALUE", and per
  direction change, "MONO_NS dir MASK" (CLOCK_MONOTONIC, the guest's, as pinpadd's).
- CONTROL_FIFO takes lines "in LINE 0|1" (an input's level), "quit".
The simulator exits (destroying the device: the chip disappears) on SIGTERM or quit.
"""
import os
import select
import signal
import struct
import sys
import time

UHID_DESTROY, UHID_START, UHID_STOP, UHID_OPEN, UHID_CLOSE, UHID_OUTPUT = 1, 2, 3, 4, 5, 6
UHID_GET_REPORT, UHID_GET_REPORT_REPLY, UHID_CREATE2 = 9, 10, 11
UHID_SET_REPORT, UHID_SET_REPORT_REPLY = 13, 14
EVENT_SIZE = 4 + 4372  # struct uhid_event (packed): the type and the largest member
BUS_USB = 3
EIO = 5

# Vendor page; logical 0..255, 8-bit fields; one feature report per id (id, bytes).
FEATURES = [(0x02, 4), (0x03, 1), (0x04, 2), (0x05, 2), (0x06, 13)]
descriptor = bytes([0x06, 0x00, 0xFF, 0x09, 0x01, 0xA1, 0x01, 0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08])
for rid, count in FEATURES:
    descriptor += bytes([0x85, rid, 0x95, count, 0x09, 0x01, 0xB1, 0x02])
descriptor += bytes([0xC0])


class Chip:
    def __init__(self, log):
        self.direction = 0x00  # 1 = output
        self.push_pull = 0x00
        self.outputs = 0x00
        self.inputs = 0x00
        self.written = set()
        self.log = log
        # `on-unlock LINE LEVEL`: the input level set the moment output 0 (the relay)
        # next goes to 1, as a person pushes the door when the lock buzzes.
        self.on_unlock = None

    def note(self, text):
        self.log.write("%d %s\n" % (time.monotonic_ns(), text))
        self.log.flush()

    def latch(self):
        return (self.outputs & self.direction) | (self.inputs & ~self.direction & 0xFF)

    def get(self, rnum):
        if rnum == 0x02:
            return bytes([0x02, self.direction, self.push_pull, 0x00, 0x00])
        if rnum == 0x03:
            return bytes([0x03, self.latch()])
        if rnum == 0x05:
            return bytes([0x05, 0x0C, 0x03])
        if rnum == 0x06:
            # clock speed 100 kHz (BE), address, auto-read, timeouts, retries (13 bytes)
            return bytes([0x06, 0x00, 0x01, 0x86, 0xA0, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        return None

    def set(self, data):
        rnum = data[0]
        if rnum == 0x02 and len(data) >= 3:
            if data[1] != self.direction:
                self.note("dir %d" % data[1])
            self.direction, self.push_pull = data[1], data[2]
            return True
        if rnum == 0x04 and len(data) >= 3:
            value, mask = data[1], data[2]
            before = self.outputs
            self.outputs = (self.outputs & ~mask & 0xFF) | (value & mask)
            for line in range(8):
                bit = 1 << line
                # Every change, and the first level set on each line.
                if mask & bit and ((before ^ self.outputs) & bit or line not in self.written):
                    self.note("out %d %d" % (line, 1 if self.outputs & bit else 0))
                if mask & bit:
                    self.written.add(line)
            if self.on_unlock and not before & 1 and self.outputs & 1:
                line, level = self.on_unlock
                self.on_unlock = None
                self.inputs = (self.inputs | (1 << line)) if level else (self.inputs & ~(1 << line))
                self.note("in %d %d" % (line, level))
            return True
        return rnum == 0x06


def main():
    log = open(sys.argv[1], "a")
    control_path = sys.argv[2]
    if not os.path.exists(control_path):
        os.mkfifo(control_path)
    control = os.open(control_path, os.O_RDWR | os.O_NONBLOCK)
    chip = Chip(log)
    uhid = os.open("/dev/uhid", os.O_RDWR)
    create = struct.pack(
        "<I128s64s64sHHIIII4096s", UHID_CREATE2, b"CP2112 simulator", b"sim/cp2112", b"",
        len(descriptor), BUS_USB, 0x10C4, 0xEA90, 0x0100, 0, descriptor)
    os.write(uhid, create)
    chip.note("created")
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    pending = b""
    while not stop:
        try:
            ready, _, _ = select.select([uhid, control], [], [], 0.5)
        except InterruptedError:
            continue
        if uhid in ready:
            event = os.read(uhid, EVENT_SIZE)
            kind = struct.unpack_from("<I", event)[0]
            if kind == UHID_GET_REPORT:
                rid, rnum, _rtype = struct.unpack_from("<IBB", event, 4)
                data = chip.get(rnum)
                if data is None:
                    reply = struct.pack("<IIHH", UHID_GET_REPORT_REPLY, rid, EIO, 0)
                else:
                    reply = struct.pack("<IIHH", UHID_GET_REPORT_REPLY, rid, 0, len(data)) + data
                os.write(uhid, reply.ljust(EVENT_SIZE, b"\0"))
            elif kind == UHID_SET_REPORT:
                rid, rnum, _rtype, size = struct.unpack_from("<IBBH", event, 4)
                data = event[12:12 + size]
                ok = chip.set(data)
                reply = struct.pack("<IIH", UHID_SET_REPORT_REPLY, rid, 0 if ok else EIO)
                os.write(uhid, reply.ljust(EVENT_SIZE, b"\0"))
            elif kind == UHID_OUTPUT:
                pass
        if control in ready:
            try:
                pending += os.read(control, 4096)
            except BlockingIOError:
                pass
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                words = line.decode().split()
                if words[:1] == ["in"] and len(words) == 3:
                    bit = 1 << int(words[1])
                    chip.inputs = (chip.inputs | bit) if words[2] == "1" else (chip.inputs & ~bit)
                    chip.note("in %s %s" % (words[1], words[2]))
                elif words[:1] == ["on-unlock"] and len(words) == 3:
                    chip.on_unlock = (int(words[1]), 1 if words[2] == "1" else 0)
                    chip.note("armed on-unlock %s %s" % (words[1], words[2]))
                elif words[:1] == ["quit"]:
                    stop.append(1)
    os.write(uhid, struct.pack("<I", UHID_DESTROY).ljust(EVENT_SIZE, b"\0"))
    chip.note("destroyed")
    os.close(uhid)


if __name__ == "__main__":
    main()
