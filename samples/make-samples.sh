#!/usr/bin/env bash
# Makes the sample photos in samples/photos/ (committed; the demo never remakes them).
#
#   bash samples/make-samples.sh
#
# Each photo is drawn upright with ImageMagick (light sky at the top, dark ground at
# the bottom, a caption with an arrow pointing up), turned so that its EXIF
# Orientation tag puts it upright again, encoded with libvips (JPEG, PNG, WebP,
# HEIC) and tagged with exiftool. Needs the Debian packages imagemagick,
# libvips-tools and libimage-exiftool-perl (bash .ci/install-deps installs them).
# samples/README.md lists what each photo carries.
set -euo pipefail
cd "$(dirname "$0")"
out=photos
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The real ImageMagick: a different `convert` may come first on PATH.
convert=/usr/bin/convert
[ -x "$convert" ] || convert=convert
for tool in vips exiftool "$convert"; do
  command -v "$tool" >/dev/null || { echo "make-samples: '$tool' not found; run: bash .ci/install-deps" >&2; exit 2; }
done

# draw NAME WIDTH HEIGHT CAPTION SKY GROUND: an upright scene in $work/NAME.png.
draw() {
  local name=$1 width=$2 height=$3 caption=$4 sky=$5 ground=$6
  local horizon=$((height * 3 / 5)) sun=$((width / 8))
  "$convert" -size "${width}x${horizon}" "gradient:${sky}-#f4e3c1" \
    \( -size "${width}x$((height - horizon))" "gradient:${ground}-#101010" \) -append +repage \
    -fill '#ffd84a' -draw "circle $((width * 3 / 4)),$((horizon / 2)) $((width * 3 / 4 + sun / 2)),$((horizon / 2))" \
    -font DejaVu-Sans-Bold -gravity north -fill '#1c2c4c' -pointsize $((width / 16)) \
    -annotate +0+$((height / 20)) "↑ up ↑" \
    -gravity south -fill white -pointsize $((width / 20)) -annotate +0+$((height / 20)) "$caption" \
    -alpha off -depth 8 +set date:create +set date:modify -define png:exclude-chunks=date,time \
    "$work/$name.png"
}

# orient NAME ORIENTATION: stores the upright scene turned so that EXIF ORIENTATION
# shows it upright again (6: viewer turns 90° clockwise, 3: 180°, 8: 90° anticlockwise).
orient() {
  local name=$1 orientation=$2
  case "$orientation" in
    1) cp "$work/$name.png" "$work/$name.stored.png" ;;
    3) vips rot "$work/$name.png" "$work/$name.stored.png" d180 ;;
    6) vips rot "$work/$name.png" "$work/$name.stored.png" d270 ;;
    8) vips rot "$work/$name.png" "$work/$name.stored.png" d90 ;;
    *) echo "make-samples: orientation $orientation not drawn here" >&2; exit 1 ;;
  esac
}

# tag FILE EXIFTOOL-ARGS...: writes EXIF into FILE in place (no backup, no other metadata).
tag() {
  local file=$1; shift
  exiftool -q -q -overwrite_original -all= "$file"
  exiftool -q -overwrite_original -P "$@" "$file"
}

rm -f "$out"/*
mkdir -p "$out"

# 1. JPEG, Canon DSLR, northern and eastern hemispheres, upright.
draw oslo-fjord 640 427 "Oslo fjord · Canon EOS 5D Mark IV" '#7fb2ff' '#2f5a3a'
orient oslo-fjord 1
vips copy "$work/oslo-fjord.stored.png" "$out/oslo-fjord.jpg[Q=82,strip]"
tag "$out/oslo-fjord.jpg" -Make=Canon '-Model=Canon EOS 5D Mark IV' '-LensModel=EF24-70mm f/2.8L II USM' \
  '-DateTimeOriginal=2023:06:21 04:12:33' '-CreateDate=2023:06:21 04:12:33' -OffsetTimeOriginal=+02:00 \
  -ExposureTime=1/250 -FNumber=8 -ISO=100 -FocalLength=35 -Orientation#=1 '-Software=Canon DPP 4.17' \
  -GPSLatitude=59.907500 -GPSLatitudeRef=N -GPSLongitude=10.753000 -GPSLongitudeRef=E \
  -GPSAltitude=12.5 -GPSAltitudeRef#=0

# 2. JPEG, iPhone portrait held upright (stored sideways, Orientation 6), southern and eastern.
draw sydney-harbour 480 640 "Sydney · iPhone 14 Pro" '#ff9a5c' '#1d3b5a'
orient sydney-harbour 6
vips copy "$work/sydney-harbour.stored.png" "$out/sydney-harbour.jpg[Q=82,strip]"
tag "$out/sydney-harbour.jpg" -Make=Apple '-Model=iPhone 14 Pro' \
  '-LensModel=iPhone 14 Pro back triple camera 6.86mm f/1.78' \
  '-DateTimeOriginal=2024:01:26 19:45:10' '-CreateDate=2024:01:26 19:45:10' -OffsetTimeOriginal=+11:00 \
  -ExposureTime=1/120 -FNumber=1.78 -ISO=64 -FocalLength=6.86 -Orientation#=6 -Software=17.2.1 \
  -GPSLatitude=33.856800 -GPSLatitudeRef=S -GPSLongitude=151.215300 -GPSLongitudeRef=E \
  -GPSAltitude=4.2 -GPSAltitudeRef#=0

# 3. PNG with an eXIf chunk, Nikon, southern and western hemispheres, upside down (Orientation 3).
draw lima-coast 640 427 "Lima · NIKON D850" '#9ad0ff' '#6b4a2b'
orient lima-coast 3
vips copy "$work/lima-coast.stored.png" "$out/lima-coast.png[compression=9,strip]"
tag "$out/lima-coast.png" '-Make=NIKON CORPORATION' '-Model=NIKON D850' '-LensModel=24.0-70.0 mm f/2.8' \
  '-DateTimeOriginal=2022:11:03 16:20:05' '-CreateDate=2022:11:03 16:20:05' -OffsetTimeOriginal=-05:00 \
  -ExposureTime=1/500 -FNumber=5.6 -ISO=200 -FocalLength=50 -Orientation#=3 '-Software=Ver.1.10' \
  -GPSLatitude=12.121100 -GPSLatitudeRef=S -GPSLongitude=77.029700 -GPSLongitudeRef=W \
  -GPSAltitude=87 -GPSAltitudeRef#=0

# 4. WebP with an EXIF chunk, Sony, below sea level, portrait stored sideways (Orientation 8).
draw dead-sea 427 640 "Dead Sea · ILCE-7M3" '#bfe3ff' '#8a7a5a'
orient dead-sea 8
vips copy "$work/dead-sea.stored.png" "$out/dead-sea.webp[Q=75,strip]"
tag "$out/dead-sea.webp" -Make=SONY -Model=ILCE-7M3 '-LensModel=FE 24-105mm F4 G OSS' \
  '-DateTimeOriginal=2021:03:14 10:02:41' '-CreateDate=2021:03:14 10:02:41' -OffsetTimeOriginal=+02:00 \
  -ExposureTime=1/1000 -FNumber=11 -ISO=100 -FocalLength=24 -Orientation#=8 '-Software=ILCE-7M3 v4.01' \
  -GPSLatitude=31.559000 -GPSLatitudeRef=N -GPSLongitude=35.473200 -GPSLongitudeRef=E \
  -GPSAltitude=430.5 -GPSAltitudeRef#=1

# 5. HEIC (HEVC through libheif), iPhone, northern and western hemispheres.
draw manhattan 640 480 "New York · iPhone 15" '#4a5f9a' '#202030'
orient manhattan 1
vips copy "$work/manhattan.stored.png" "$out/manhattan.heic[Q=50,strip]"
tag "$out/manhattan.heic" -Make=Apple '-Model=iPhone 15' '-LensModel=iPhone 15 back dual wide camera 6.06mm f/1.6' \
  '-DateTimeOriginal=2024:08:09 21:30:00' '-CreateDate=2024:08:09 21:30:00' -OffsetTimeOriginal=-04:00 \
  -ExposureTime=1/60 -FNumber=1.6 -ISO=800 -FocalLength=6.06 -Orientation#=1 -Software=17.6.1 \
  -GPSLatitude=40.758000 -GPSLatitudeRef=N -GPSLongitude=73.985500 -GPSLongitudeRef=W \
  -GPSAltitude=15 -GPSAltitudeRef#=0

# 6. JPEG, Fujifilm, EXIF but no GPS and no UTC offset.
draw garden 640 427 "Garden · FUJIFILM X-T4" '#a8d8ff' '#3f7a2a'
orient garden 1
vips copy "$work/garden.stored.png" "$out/garden.jpg[Q=82,strip]"
tag "$out/garden.jpg" -Make=FUJIFILM -Model=X-T4 '-LensModel=XF16-80mmF4 R OIS WR' \
  '-DateTimeOriginal=2020:05:17 14:05:09' '-CreateDate=2020:05:17 14:05:09' \
  -ExposureTime=1/320 -FNumber=4 -ISO=160 -FocalLength=23 -Orientation#=1 '-Software=Digital Camera X-T4 Ver1.01'

# 7. JPEG without any EXIF (a scanned print): dated by the server's Last-Modified or the download time.
draw scanned-print 600 400 "Scanned print · no EXIF" '#d0c0a0' '#5a4630'
orient scanned-print 1
vips copy "$work/scanned-print.stored.png" "$out/scanned-print.jpg[Q=80,strip]"
exiftool -q -overwrite_original -all= "$out/scanned-print.jpg"

# Check: each photo, turned by its Orientation tag, has its light sky at the top.
for file in "$out"/*; do
  VIPS_WARNING=0 vips autorot "$file" "$work/upright.v"
  height=$(vipsheader -f height "$work/upright.v")
  strip=$((height / 10))
  width=$(vipsheader -f width "$work/upright.v")
  vips crop "$work/upright.v" "$work/top.v" 0 0 "$width" "$strip"
  vips crop "$work/upright.v" "$work/bottom.v" 0 $((height - strip)) "$width" "$strip"
  top=$(vips avg "$work/top.v")
  bottom=$(vips avg "$work/bottom.v")
  awk -v t="$top" -v b="$bottom" -v f="$file" 'BEGIN { if (t < b + 40) { printf "make-samples: %s is not upright (top %.0f, bottom %.0f)\n", f, t, b > "/dev/stderr"; exit 1 } }'
done
du -cb "$out"/* | tail -1 | awk '{ printf "samples: %d files, %d bytes\n", n, $1 }' n="$(ls "$out" | wc -l)"
