#!/usr/bin/env bash
# Seeds for the MetadataReader fuzz target, made like the tests' fixtures: small images from vips with
# EXIF and GPS written by exiftool, in every container, plus variants (PNG Raw profile zTXt, WebP from vips).
set -euo pipefail
out="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tags=(-q -q -m -overwrite_original -Make=Canon "-Model=Canon EOS 5D" -Orientation#=6 -ExposureTime=1/250 -FNumber=2.8
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
python3 - "$work/seed.jpg" "$out/seed.raf" <<'PY'
import struct, sys
jpeg = open(sys.argv[1], "rb").read()
header = b"FUJIFILMCCD-RAW 0201FF383501" + b"X-T4".ljust(32, b"\0")
header = header.ljust(84, b"\0") + struct.pack(">II", 120, len(jpeg))
open(sys.argv[2], "wb").write(header.ljust(120, b"\0") + jpeg)
PY
python3 - "$work/seed.tif" "$out/seed.cr3" <<'PY'
import struct, sys
tiff = open(sys.argv[1], "rb").read()
def box(kind, body):
    return struct.pack(">I", len(body) + 8) + kind + body
canon = bytes.fromhex("85c0b687820f11e08111f4ce462b6a48")
uuid = box(b"uuid", canon + box(b"CMT1", tiff) + box(b"CMT2", tiff) + box(b"CMT4", tiff))
data = box(b"ftyp", b"crx \0\0\0\1crx isom") + box(b"moov", uuid) + box(b"mdat", b"\0" * 16)
open(sys.argv[2], "wb").write(data)
PY
# XMP only (Exempi's path): a scanner's or an editor's packet in JPEG APP1, PNG iTXt (plain and compressed), WebP.
xmp=(-q -q -m -overwrite_original -all= "-XMP-exif:DateTimeOriginal=2019:05:01 10:20:30+02:00" -XMP-tiff:Make=Nikon
     "-XMP-tiff:Model=NIKON D850" "-XMP-exifEX:LensModel=AF-S 24-70" -XMP-exif:ExposureTime=1/250 -XMP-exif:ISO=400
     "-XMP-exif:GPSLatitude=33.85 S" "-XMP-exif:GPSLongitude=151.2 E" -XMP-exif:GPSAltitude=12.5 "-XMP-photoshop:DateCreated=2019:05:01")
for ext in jpg png webp; do
  vips black "$work/xmp.$ext" 16 12 --bands 3
  exiftool "${xmp[@]}" "$work/xmp.$ext"
  cp "$work/xmp.$ext" "$out/xmp-only.$ext"
done
vips black "$work/xmpz.png" 16 12 --bands 3
exiftool -z "${xmp[@]}" "$work/xmpz.png"
cp "$work/xmpz.png" "$out/xmp-only-compressed.png"
# IPTC only (libiptcdata's path): a press photo's record in the JPEG's Photoshop APP13 resources.
vips black "$work/iptc.jpg" 16 12 --bands 3
exiftool -q -q -m -overwrite_original -all= -IPTC:DateCreated=2019:05:01 -IPTC:TimeCreated=10:20:30+02:00 \
  -IPTC:By-line=Agency -IPTC:City=Oslo "$work/iptc.jpg"
cp "$work/iptc.jpg" "$out/iptc-only.jpg"
