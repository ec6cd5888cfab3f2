#!/usr/bin/env bash
# Seeds for the MetadataReader fuzz target, made like the tests' fixtures: small images from vips with
# EXIF and GPS written by exiftool, in every container, plus variants (PNG Raw profile zTXt, WebP from vips).
set -euo pipefail
out="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tags=(-q -m -overwrite_original -Make=Canon "-Model=Canon EOS 5D" -Orientation#=6 -ExposureTime=1/250 -FNumber=2.8
      -ISO=100 -FocalLength=35 "-LensModel=EF24-70mm" "-DateTimeOriginal=2024:05:01 12:34:56" -OffsetTimeOriginal=+02:00
      -GPSLatitude=33.85 -GPSLatitudeRef=S -GPSLongitude=151.2 -GPSLongitudeRef=E -GPSAltitude=12.5 -GPSAltitudeRef#=1
      -Software=seed)
for ext in jpg tif png webp heic avif; do
  vips black "$work/seed.$ext" 16 12 --bands 3
  exiftool "${tags[@]}" "$work/seed.$ext"
  cp "$work/seed.$ext" "$out/"
done
vips copy "$work/seed.jpg" "$out/vips-prefixed-exif.webp"
python3 - "$work/seed.png" "$out/raw-profile-ztxt.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
out, offset, exif = data[:8], 8, None
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)
while offset < len(data):
    length, = struct.unpack(">I", data[offset:offset + 4])
    kind, body = data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
    offset += 12 + length
    if kind == b"eXIf":
        exif = body
        continue
    if kind == b"IEND":
        blob = b"Exif\0\0" + exif
        text = "\nexif\n%8d\n%s\n" % (len(blob), blob.hex())
        out += chunk(b"zTXt", b"Raw profile type exif\0\0" + zlib.compress(text.encode()))
    out += chunk(kind, body)
open(sys.argv[2], "wb").write(out)
PY
