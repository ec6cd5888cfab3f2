#!/usr/bin/env bash
# Benchmark: `shoebox inspect --json` against `exiftool -json -n` (one process for all files) and
# `exiv2 -pa` (one process for all files) on 1,000 generated JPEGs with full EXIF and GPS, in the same run,
# alternating the tools for ROUNDS rounds; prints each tool's median files/s and the ratios.
# Targets (issue 3): shoebox >= 20x exiftool's files/s, and >= exiv2's files/s.
# Usage: bench/inspect.sh [FILES (default 1000) | FOLDER] [ROUNDS (default 5)]
# A FOLDER (such as bench/work/camera-corpus from bench/camera-corpus.sh: real camera files, raws and
# every container) is read instead of the generated JPEGs; there a tool's non-zero exit (a file it cannot
# read) is not a failure, as each tool reports such files and goes on.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
count="${1:-1000}"
rounds="${2:-5}"
folder=""
if [ -d "$count" ]; then folder="$count"; count=corpus; fi
work="bench/work/inspect-$count"

echo "building shoebox (release)..." >&2
shoebox=$(bash .ci/build-release) || exit 1

if [ -n "$folder" ]; then
  mkdir -p "$work"
elif [ ! -f "$work/.complete" ]; then
  echo "generating $count JPEGs with full EXIF and GPS in $work..." >&2
  rm -rf "$work"
  mkdir -p "$work/photos"
  base="$work/base.jpg"
  vips gaussnoise "$work/noise.v" 800 600
  vips colourspace "$work/noise.v" "$work/rgb.v" srgb
  vips copy "$work/rgb.v" "$base[Q=90]"
  rm -f "$work"/*.v
  makes=("Canon|Canon EOS 5D Mark IV|EF24-70mm f/2.8L II USM" "NIKON CORPORATION|NIKON D850|AF-S NIKKOR 24-70mm f/2.8E ED VR"
         "SONY|ILCE-7M3|FE 24-105mm F4 G OSS" "FUJIFILM|X-T4|XF16-55mmF2.8 R LM WR" "Apple|iPhone 13 Pro|iPhone 13 Pro back camera 5.7mm f/1.5")
  args="$work/exiftool.args"
  : >"$args"
  for i in $(seq 1 "$count"); do
    name=$(printf "IMG_%05d.jpg" "$i")
    cp "$base" "$work/photos/$name"
    IFS='|' read -r make model lens <<<"${makes[$((i % 5))]}"
    lat=$(awk -v i="$i" 'BEGIN { printf "%.6f", ((i * 7919) % 17000) / 100.0 - 85 }')
    lon=$(awk -v i="$i" 'BEGIN { printf "%.6f", ((i * 104729) % 35800) / 100.0 - 179 }')
    alt=$(awk -v i="$i" 'BEGIN { printf "%.2f", ((i * 31) % 3000) - 400 + 0.25 }')
    day=$(( (i % 28) + 1 )); hour=$(( i % 24 ))
    {
      [ "$i" -gt 1 ] && echo "-execute"
      printf '%s\n' -q -m -overwrite_original "-Make=$make" "-Model=$model" "-LensModel=$lens" "-Software=Firmware 1.$((i % 10))"
      printf '%s\n' "-Artist=Bench Photographer" "-Copyright=(c) 2024 Bench" "-ImageDescription=Benchmark photo $i"
      printf '%s\n' "-DateTimeOriginal=2024:05:$(printf %02d $day) $(printf %02d $hour):12:34" "-CreateDate=2024:05:$(printf %02d $day) $(printf %02d $hour):12:34"
      printf '%s\n' "-ModifyDate=2024:06:01 10:00:00" "-OffsetTimeOriginal=+02:00" "-OffsetTime=+02:00" "-SubSecTimeOriginal=$((i % 100))"
      printf '%s\n' "-Orientation#=$(( (i % 8) + 1 ))" "-ExposureTime=1/$(( 30 * ((i % 8) + 1) ))" "-FNumber=$(( (i % 5) + 2 )).8"
      printf '%s\n' "-ISO=$(( 100 * ((i % 6) + 1) ))" "-FocalLength=$(( 20 + i % 180 ))" "-FocalLengthIn35mmFormat=$(( 20 + i % 180 ))"
      printf '%s\n' "-ExposureProgram#=3" "-MeteringMode#=5" "-Flash#=16" "-WhiteBalance#=0" "-ExposureCompensation=-0.3"
      printf '%s\n' "-ColorSpace#=1" "-ExifImageWidth=800" "-ExifImageHeight=600" "-XResolution=300" "-YResolution=300" "-ResolutionUnit=inches"
      printf '%s\n' "-GPSLatitude=${lat#-}" "-GPSLatitudeRef=$([ "${lat:0:1}" = - ] && echo S || echo N)"
      printf '%s\n' "-GPSLongitude=${lon#-}" "-GPSLongitudeRef=$([ "${lon:0:1}" = - ] && echo W || echo E)"
      printf '%s\n' "-GPSAltitude=${alt#-}" "-GPSAltitudeRef#=$([ "${alt:0:1}" = - ] && echo 1 || echo 0)"
      printf '%s\n' "-GPSDateStamp=2024:05:$(printf %02d $day)" "-GPSTimeStamp=$(printf %02d $hour):12:34" "-GPSMapDatum=WGS-84"
      echo "$work/photos/$name"
    } >>"$args"
  done
  exiftool -@ "$args"
  touch "$work/.complete"
fi
if [ -n "$folder" ]; then
  mapfile -t files < <(find "$folder" -type f | sort)
else
  files=("$work"/photos/*.jpg)
fi
echo "files: ${#files[@]} ($(du -sh "$work/photos" | cut -f1)), rounds: $rounds, cores: $(nproc)" >&2
cat "${files[@]}" >/dev/null  # warm the page cache for every tool alike

now() { date +%s.%N; }
declare -A times
run() {  # name, command...
  local name="$1"; shift
  local start end
  start=$(now)
  "$@" >/dev/null 2>"$work/$name.err" || [ -n "$folder" ] || { echo "$name failed: $(head -3 "$work/$name.err")" >&2; exit 1; }
  end=$(now)
  times[$name]+="$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f", e - s }') "
}
for round in $(seq 1 "$rounds"); do
  run shoebox "$shoebox" inspect --json "${files[@]}"
  run exiftool exiftool -json -n "${files[@]}"
  run exiv2 exiv2 -pa "${files[@]}"
  echo "round $round: shoebox ${times[shoebox]##* } exiftool ... done" >/dev/null
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
declare -A rate
printf '%-10s %12s %12s   %s\n' tool "median s" "files/s" "all runs (s)"
for tool in shoebox exiftool exiv2; do
  m=$(echo "${times[$tool]}" | median)
  rate[$tool]=$(awk -v n="${#files[@]}" -v m="$m" 'BEGIN { printf "%.0f", n / m }')
  printf '%-10s %12.3f %12s   %s\n' "$tool" "$m" "${rate[$tool]}" "${times[$tool]}"
done
vs_exiftool=$(awk -v a="${rate[shoebox]}" -v b="${rate[exiftool]}" 'BEGIN { printf "%.1f", a / b }')
vs_exiv2=$(awk -v a="${rate[shoebox]}" -v b="${rate[exiv2]}" 'BEGIN { printf "%.2f", a / b }')
echo "shoebox vs exiftool: ${vs_exiftool}x (target >= 20x)"
echo "shoebox vs exiv2:    ${vs_exiv2}x (target >= 1x)"
# Sanity: the JSON shoebox printed has one object per file and GPS for each.
objects=$("$shoebox" inspect --json "${files[@]}" | grep -c '"GPSLatitude"' || true)
echo "shoebox objects with GPSLatitude: $objects of ${#files[@]}"
