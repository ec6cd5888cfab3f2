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
# XMP only: TIFF's XMLPacket (tag 700), HEIC's and AVIF's "mime" item.
for ext in tif heic avif; do
  vips black "$work/xmp.$ext" 16 12 --bands 3
  exiftool -q -q -m -overwrite_original -all= "-XMP-exif:DateTimeOriginal=2019:05:01 10:20:30" -XMP-tiff:Make=Nikon \
    "-XMP-exif:GPSLatitude=33.85 S" "$work/xmp.$ext"
  cp "$work/xmp.$ext" "$out/xmp-only.$ext"
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
# Maker notes (MakerNoteReader's path): Canon notes (CameraSettings, ShotInfo, lens name, a footer naming
# an older offset), Nikon type-3, Casio QVC, Olympus (Equipment IFD), Kodak KDK and Minolta CameraSettings
# notes, each in a hand-laid little-endian EXIF block of a tiny JPEG.
python3 - "$work/iptc.jpg" "$out/makernotes-canon.jpg" "$out/makernotes-nikon.jpg" <<'PY'
import struct, sys
jpeg = open(sys.argv[1], "rb").read()
def ifd(values, start, stated=0):
    table, tail = struct.pack("<H", len(values)), b""
    tail_start = start + 2 + 12 * len(values) + 4
    for tag, kind, count, data in values:
        table += struct.pack("<HHI", tag, kind, count)
        if len(data) <= 4:
            table += data.ljust(4, b"\0")
        else:
            table += struct.pack("<I", tail_start + len(tail) - stated)
            tail += data + (b"\0" if len(data) % 2 else b"")
    return table + b"\0\0\0\0" + tail
def exif(make, note_at_offset):
    make = make + b"\0"
    make_at = 8 + 2 + 24 + 4
    exif_at = make_at + len(make) + len(make) % 2
    note_at = exif_at + 2 + 12 + 4
    note = note_at_offset(note_at)
    block = b"II*\0" + struct.pack("<IH", 8, 2) + struct.pack("<HHII", 0x010F, 2, len(make), make_at)
    block += struct.pack("<HHII", 0x8769, 4, 1, exif_at) + b"\0\0\0\0" + make + b"\0" * (len(make) % 2)
    block += struct.pack("<H", 1) + struct.pack("<HHII", 0x927C, 7, len(note), note_at) + b"\0\0\0\0" + note
    payload = b"Exif\0\0" + block
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]
settings = [92] + [0] * 45
settings[16] = 15
shot = [54, 35, 164] + [0] * 24
def canon(start):
    values = [(1, 3, 46, struct.pack("<46h", *settings)), (4, 3, 27, struct.pack("<27h", *shot)),
              (0x95, 2, 16, b"EF50mm f/1.8 II\0")]
    return ifd(values, start, stated=32) + b"II*\0" + struct.pack("<I", start - 32)
def nikon(start):
    inner = b"II*\0" + struct.pack("<I", 8) + ifd([(2, 3, 2, struct.pack("<2H", 0, 200))], 8)
    return b"Nikon\0\x02\x10\0\0" + inner
def olympus(start):
    main = ifd([(0x2010, 13, 1, struct.pack("<I", 30))], 12)
    return b"OLYMPUS\0II\x03\0" + main + ifd([(0x0203, 2, 20, b"OLYMPUS M.17mm F1.8\0")], 30)
kodak = bytearray(b"KDK INFO" + b"\0" * 0x62)
kodak[8 + 0x1E:8 + 0x20] = struct.pack(">H", 673)
kodak[8 + 0x20:8 + 0x24] = struct.pack(">I", 464)
kodak[8 + 0x60:8 + 0x62] = struct.pack(">H", 108)
minolta = bytearray(56 * 4)
minolta[9 * 4 + 3], minolta[10 * 4 + 3] = 104, 44
lens = b"Mamiya LS 80mm f/2.8 D\0\0"
phaseone = (b"IIIICwaR" + struct.pack("<II", 16, 0) + struct.pack("<II", 3, 0) + struct.pack("<4I", 0x10C, 4, 4, 7320)
            + struct.pack("<4I", 0x10D, 4, 4, 5484) + struct.pack("<4I", 0x412, 1, len(lens), 16 + 8 + 48) + lens)
reconyx = bytearray(b"\x01\xf1\x03\x00" + b"\0" * 60)
reconyx[22:34] = struct.pack("<6H", 5, 4, 10, 3, 16, 2020)
reconyx = bytes(reconyx)
open(sys.argv[2], "wb").write(exif(b"Canon", canon))
open(sys.argv[3], "wb").write(exif(b"NIKON CORPORATION", nikon))
folder = sys.argv[2].rsplit("/", 1)[0]
for name, make, note in [
        ("casio", b"CASIO COMPUTER CO.,LTD.", lambda start: b"QVC\0\0\0" + ifd([(0x3014, 3, 1, struct.pack("<H", 50))], start + 6)),
        ("olympus", b"OLYMPUS IMAGING CORP.", olympus),
        ("kodak", b"EASTMAN KODAK COMPANY", lambda start: bytes(kodak)),
        ("minolta", b"Minolta Co., Ltd.", lambda start: ifd([(3, 7, len(minolta), bytes(minolta))], start)),
        ("phaseone", b"Leaf", lambda start: phaseone),
        ("reconyx", b"RECONYX", lambda start: reconyx)]:
    open(folder + "/makernotes-" + name + ".jpg", "wb").write(exif(make, note))
PY
# Minolta MRW (MRWContainer's path): "\0MRM", a PRD block with the pixel size, a TTW block holding the seed TIFF.
python3 - "$work/seed.tif" "$out/seed.mrw" <<'PY'
import struct, sys
tiff = open(sys.argv[1], "rb").read()
prd = b"21810002" + struct.pack(">4H", 2456, 3272, 2448, 3264) + b"\x0c\x0c\x59\0\0\0\0\0"
blocks = b"\0PRD" + struct.pack(">I", len(prd)) + prd + b"\0TTW" + struct.pack(">I", len(tiff)) + tiff
open(sys.argv[2], "wb").write(b"\0MRM" + struct.pack(">I", len(blocks)) + blocks + b"\x55" * 64)
PY
# Kyocera RAW (KyoceraRawContainer's path): the 156-byte header with its text fields back to front.
python3 - "$out/seed-kyocera.raw" <<'PY'
import struct, sys
header = bytearray(156)
for offset, text in ((0x0C, b"N DIGITAL"), (0x19, b"KYOCERA"), (0x21, b"2005:07:16 18:14:30")):
    header[offset:offset + len(text)] = text[::-1]
for offset, value in ((0x34, 13), (0x38, 56), (0x58, 56), (0x70, 55)):
    header[offset:offset + 4] = struct.pack(">I", value)
open(sys.argv[1], "wb").write(bytes(header) + b"\x40" * 64)
PY
# Canon CRW (CRWContainer's path): CIFF heaps with make and model, a subheap with the time stamp,
# the image info and Canon's CameraSettings, ShotInfo and FocalLength arrays.
python3 - "$out/seed.crw" <<'PY'
import struct, sys
def heap(entries):
    values, table = b"", struct.pack("<H", len(entries))
    for tag, data in entries:
        table += struct.pack("<HII", tag, len(data), len(values))
        values += data
    return values + table + struct.pack("<I", len(values))
settings = [92] + [0] * 45
settings[16], settings[25] = 0x4000 | 200, 1
shot = [54] + [0] * 26
shot[21], shot[22] = 0x74, 0xC0
props = heap([(0x180E, struct.pack("<3I", 1068485966, 0, 0)), (0x1810, struct.pack("<IIfi", 3072, 2048, 1.0, 0)),
              (0x102D, struct.pack("<46H", *settings)), (0x102A, struct.pack("<27H", *shot)), (0x1029, struct.pack("<4H", 1, 24, 0, 0))])
root = heap([(0x080A, b"Canon\0Canon EOS DIGITAL REBEL\0"), (0x300A, props)])
open(sys.argv[1], "wb").write(b"II" + struct.pack("<I", 26) + b"HEAPCCDR" + b"\1\0\2\0" + b"\0" * 8 + root)
PY
# Sigma X3F (X3FContainer's path): a version 2.0 header, a PROP section of UTF-16 pairs, the SECd directory.
python3 - "$out/seed.x3f" <<'PY'
import struct, sys
pairs = [("CAMMANUF", "SIGMA"), ("CAMMODEL", "SIGMA SD10"), ("TIME", "978309395"), ("ISO", "100"),
         ("SHUTTER", "0.00929"), ("APERTURE", "8.35419"), ("FLENGTH", "30")]
chars, positions = [], b""
for name, value in pairs:
    positions += struct.pack("<I", len(chars)); chars += [ord(c) for c in name] + [0]
    positions += struct.pack("<I", len(chars)); chars += [ord(c) for c in value] + [0]
prop = b"SECp" + struct.pack("<5I", 0x10000, len(pairs), 0, 0, len(chars)) + positions + struct.pack("<%dH" % len(chars), *chars)
header = bytearray(b"FOVb" + struct.pack("<I", 0x20000) + b"\0" * 40)
header[28:36] = struct.pack("<2I", 2268, 1512)
body = bytes(header) + prop
table = b"SECd" + struct.pack("<2I", 0x20000, 1) + struct.pack("<2I", len(header), len(prop)) + b"PROP"
open(sys.argv[1], "wb").write(body + table + struct.pack("<I", len(body)))
PY
# JPEG 2000 (JP2Container) and JPEG XL (JXLContainer): image header, XMP box, bare codestream, container
# with a Brotli-compressed Exif box (libbrotlienc's bytes for a block whose Make is "Canon").
python3 - "$out/seed.jp2" "$out/seed-bare.jxl" "$out/seed-boxed.jxl" <<'PY'
import struct, sys
def box(kind, payload): return struct.pack(">I", len(payload) + 8) + kind + payload
xmp = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/></rdf:RDF></x:xmpmeta>')
jp2 = (bytes([0, 0, 0, 0x0C]) + b"jP  \r\n\x87\n" + box(b"ftyp", b"jp2 \0\0\0\0jp2 ")
       + box(b"jp2h", box(b"ihdr", struct.pack(">II", 3701, 2717) + bytes([0, 3, 7, 7, 0, 0]))) + box(b"xml ", xmp)
       + box(b"jp2c", b"\xff\x4f\xff\x51" + b"\0" * 40))
open(sys.argv[1], "wb").write(jp2)
codestream = bytes([0xFF, 0x0A, 0x00, 0x02, 0x1C, 0x00, 0x1D, 0x00]) + b"\0" * 24
open(sys.argv[2], "wb").write(codestream)
compressed = bytes([0x1b, 0x23, 0x00, 0xf8, 0x07, 0xe1, 0x64, 0x27, 0x98, 0xa6, 0x0b, 0x51, 0x6a, 0x4a, 0x91, 0x8d,
                    0x82, 0xa1, 0x84, 0xff, 0xd3, 0x08, 0x13, 0xa9, 0xb0, 0x00, 0x4b, 0x00])
boxed = (bytes([0, 0, 0, 0x0C]) + b"JXL \r\n\x87\n" + box(b"ftyp", b"jxl \0\0\0\0jxl ") + box(b"brob", b"Exif" + compressed)
         + box(b"jxlc", codestream))
open(sys.argv[3], "wb").write(boxed)
PY
# A JPEG's APP0 CIFF heaps (HEAPJPGM) and APP12 Picture Info text (the JPEG side segments of older cameras).
python3 - "$out/seed.crw" "$work/iptc.jpg" "$out/seed-app0-ciff.jpg" "$out/seed-app12.jpg" <<'PY'
import struct, sys
ciff = bytearray(open(sys.argv[1], "rb").read())
ciff[6:14] = b"HEAPJPGM"
jpeg = open(sys.argv[2], "rb").read()
def segment(marker, payload): return b"\xff" + bytes([marker]) + struct.pack(">H", len(payload) + 2) + payload
open(sys.argv[3], "wb").write(jpeg[:2] + segment(0xE0, bytes(ciff)) + jpeg[2:])
text = b"[picture info]\r\nTimeDate=909698819\r\nShutter=33363\r\nFNumber=F2.8\r\n\0"
open(sys.argv[4], "wb").write(jpeg[:2] + segment(0xEC, text) + jpeg[2:])
PY
