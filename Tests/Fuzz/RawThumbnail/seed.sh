#!/usr/bin/env bash
# Seeds for the RawThumbnail fuzz target: small DNGs LibRaw decodes (16-bit Bayer sensor data),
# without and with an embedded JPEG preview, upright and turned, big- and little-endian.
set -euo pipefail
out="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
vips black "$work/preview.jpg" 32 24 --bands 3
python3 - "$out" "$work/preview.jpg" <<'PY'
import struct, sys
out, preview = sys.argv[1], open(sys.argv[2], "rb").read()

def dng(path, width, height, orientation, jpeg, endian):
    e = endian
    sizes = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 10: 8}
    def pack(kind, values):
        if kind == 1: return bytes(values)
        if kind == 2: return values.encode() + b"\0"
        if kind == 3: return struct.pack(e + "%dH" % len(values), *values)
        if kind == 4: return struct.pack(e + "%dI" % len(values), *values)
        return b"".join(struct.pack(e + ("ii" if kind == 10 else "II"), a, b) for a, b in values)
    def ifd(entries, at):
        entries = sorted(entries)
        body, extra = struct.pack(e + "H", len(entries)), b""
        start = at + 2 + 12 * len(entries) + 4
        for tag, kind, values in entries:
            data = pack(kind, values)
            if len(data) <= 4:
                body += struct.pack(e + "HHI", tag, kind, len(data) // sizes[kind]) + data.ljust(4, b"\0")
            else:
                body += struct.pack(e + "HHII", tag, kind, len(data) // sizes[kind], start + len(extra))
                extra += data + (b"\0" if len(data) % 2 else b"")
        return body + struct.pack(e + "I", 0) + extra
    pixels = b"".join(struct.pack(e + "H", (x * 977 + y * 131) % 65536) for y in range(height) for x in range(width))
    camera = [(0x010F, 2, "Shoebox"), (0x0110, 2, "Seed"), (0x0112, 3, [orientation]), (0xC612, 1, [1, 4, 0, 0]),
              (0xC621, 10, [(1, 1), (0, 1), (0, 1), (0, 1), (1, 1), (0, 1), (0, 1), (0, 1), (1, 1)]),
              (0xC628, 5, [(1, 1), (1, 1), (1, 1)])]
    def sensor(at):
        return [(0x00FE, 4, [0]), (0x0100, 4, [width]), (0x0101, 4, [height]), (0x0102, 3, [16]), (0x0103, 3, [1]),
                (0x0106, 3, [32803]), (0x0111, 4, [at]), (0x0115, 3, [1]), (0x0116, 4, [height]),
                (0x0117, 4, [len(pixels)]), (0x828D, 3, [2, 2]), (0x828E, 1, [0, 1, 1, 2]), (0xC61D, 4, [65535])]
    head = (b"II*\0" if e == "<" else b"MM\0*") + struct.pack(e + "I", 8)
    if jpeg is None:
        size = len(ifd(camera + sensor(0), 8))
        data = head + ifd(camera + sensor(8 + size), 8) + pixels
    else:
        def first(jpeg_at, sub_at):
            return camera + [(0x00FE, 4, [1]), (0x0100, 4, [32]), (0x0101, 4, [24]), (0x0102, 3, [8, 8, 8]),
                             (0x0103, 3, [7]), (0x0106, 3, [6]), (0x0111, 4, [jpeg_at]), (0x0115, 3, [3]),
                             (0x0116, 4, [24]), (0x0117, 4, [len(jpeg)]), (0x014A, 4, [sub_at])]
        jpeg_at = 8 + len(ifd(first(0, 0), 8))
        sub_at = jpeg_at + len(jpeg) + len(jpeg) % 2
        pixels_at = sub_at + len(ifd(sensor(0), sub_at))
        data = (head + ifd(first(jpeg_at, sub_at), 8) + jpeg + b"\0" * (len(jpeg) % 2)
                + ifd(sensor(pixels_at), sub_at) + pixels)
    open(path, "wb").write(data)

dng(out + "/plain.dng", 32, 24, 1, None, "<")
dng(out + "/turned-be.dng", 32, 24, 6, None, ">")
dng(out + "/preview.dng", 32, 24, 8, preview, "<")
dng(out + "/preview-be.dng", 32, 24, 3, preview, ">")
PY
