"""A small PNG reader for the rig (no PIL on these machines): 8-bit, non-interlaced,
grey / RGB / RGBA / grey+alpha, any filter. Enough for QEMU's screendump and the
project's own snapshots."""
import struct
import zlib


def read(path):
    """Returns (width, height, rows) with rows a list of bytes, 3 bytes (RGB) per pixel."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat = 8, b""
    width = height = channels = None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace:
                raise ValueError(f"{path}: only 8-bit non-interlaced PNG")
            channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        previous = line
        if channels == 3:
            rows.append(bytes(line))
        else:
            rgb = bytearray()
            for x in range(width):
                px = line[x * channels:(x + 1) * channels]
                rgb += bytes([px[0]] * 3) if channels <= 2 else bytes(px[:3])
            rows.append(bytes(rgb))
    return width, height, rows


def differences(a, b):
    """(count of differing pixels, first differing (x, y) or None) for two read() results."""
    (wa, ha, ra), (wb, hb, rb) = a, b
    if (wa, ha) != (wb, hb):
        return wa * ha, ("size", (wa, ha), (wb, hb))
    count, first = 0, None
    for y in range(ha):
        if ra[y] == rb[y]:
            continue
        for x in range(wa):
            if ra[y][3 * x:3 * x + 3] != rb[y][3 * x:3 * x + 3]:
                count += 1
                if first is None:
                    first = (x, y, ra[y][3 * x:3 * x + 3].hex(), rb[y][3 * x:3 * x + 3].hex())
    return count, first
