#!/usr/bin/env bash
# Raw thumbnails (issue 19), side by side in one run: shoebox thumbs on camera-sized DNGs
# (24 megapixels, 16-bit Bayer sensor data, made by bench/raw_thumbs_bench.py), by LibRaw in a
# child process per step, against what a user would script with the established tools for the
# preview path: exiftool -b -PreviewImage | vipsthumbnail (no tool here decodes the sensor data:
# libvips cannot, and Debian's dcraw/darktable/RawTherapee are not installed).
# Cases: the embedded 1620x1080 preview (-s 256; -s 256,1024), the half-size decode when the
# preview is too small (-s 2048) or missing (-s 256). Medians of ROUNDS, per file; the peak RSS of
# the largest process (shoebox or its LibRaw child).
#
# Usage: bench/raw-thumbs.sh [-n FILES] [-r ROUNDS]    SHOEBOX=path/to/shoebox (default: built by .ci/build-release)
set -euo pipefail
cd "$(dirname "$0")/.."
files=4 rounds=5
while getopts "n:r:" flag; do
  case $flag in
    n) files=$OPTARG ;; r) rounds=$OPTARG ;;
    *) echo "usage: $0 [-n FILES] [-r ROUNDS]" >&2; exit 2 ;;
  esac
done
export PATH="/opt/swift/usr/bin:$PATH"
if [ -n "${SHOEBOX:-}" ]; then
  shoebox=$(realpath "$SHOEBOX")
else
  echo "building release shoebox..." >&2
  shoebox=$(bash .ci/build-release) || exit 1
fi
for tool in vipsthumbnail exiftool /usr/bin/convert python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool (run .ci/install-deps)" >&2; exit 2; }
done
exec python3 bench/raw_thumbs_bench.py "$shoebox" "$files" "$rounds"
