#!/usr/bin/env bash
# Thumbnail speed, side by side in one run on the same inputs and the same work:
#   shoebox thumbs (one size; two sizes 256+1024)  vs  vipsthumbnail (same libvips,
#   one process per core, VIPS_CONCURRENCY=1)  vs  ImageMagick /usr/bin/convert
#   (-define jpeg:size=, one process per image, as many at once as cores)  vs
#   Pillow draft()+thumbnail() (a process pool over the cores).
# Inputs: N 12-megapixel JPEGs (4000x3000, EXIF orientations 1/6/3/8), fetched
# into a fresh library by `shoebox fetch` from a 127.0.0.1 server.
# Rounds alternate the tools; medians are reported. Targets (issue 4): one size
# >= 1.0x vipsthumbnail's images/s; two sizes <= 1.3x the time of one (the larger
# size alone: the smaller one is derived from its decode; 256 alone is shown for
# reference); >= 1.5x ImageMagick's images/s; peak RSS < 100 MB.
#
# Usage: bench/thumbs.sh [-n IMAGES] [-r ROUNDS] [-q QUALITY] [-b BASELINE]
#   SHOEBOX=path/to/shoebox (default: built by .ci/build-release)
#   -b BASELINE: another shoebox binary (say an earlier commit's .ci/build-release
#   output), timed in the same rounds as "baseline-1" (one size) and "baseline-2" (two
#   sizes) rows on its own library of the same images (fetched by that binary, so
#   neither reads a catalog the other wrote): before/after a change.
set -euo pipefail
cd "$(dirname "$0")/.."

images=32 rounds=5 quality=80 size=256 baseline=""
while getopts "n:r:q:b:" flag; do
  case $flag in
    n) images=$OPTARG ;; r) rounds=$OPTARG ;; q) quality=$OPTARG ;; b) baseline=$(realpath "$OPTARG") ;;
    *) echo "usage: $0 [-n IMAGES] [-r ROUNDS] [-q QUALITY] [-b BASELINE]" >&2; exit 2 ;;
  esac
done
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "baseline $baseline is not an executable" >&2; exit 2; }
cores=$(nproc)
export PATH="/opt/swift/usr/bin:$PATH"
if [ -n "${SHOEBOX:-}" ]; then
  shoebox=$(realpath "$SHOEBOX")
else
  echo "building release shoebox..." >&2
  shoebox=$(bash .ci/build-release) || exit 1
fi
convert=/usr/bin/convert   # the real ImageMagick; a `convert` earlier on PATH may be a stand-in
for tool in vipsthumbnail vips exiftool "$convert" /usr/bin/time python3 curl; do
  command -v "$tool" >/dev/null || { echo "missing $tool (run .ci/install-deps)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/shoebox-bench-thumbs.XXXXXX")
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Pillow in a private virtualenv (PyPI), so the system Python stays untouched.
venv="${XDG_CACHE_HOME:-$HOME/.cache}/shoebox-bench-venv"
if ! "$venv/bin/python" -c "import PIL" 2>/dev/null; then
  echo "installing Pillow into $venv..." >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q pillow >&2
fi
pillow_version=$("$venv/bin/python" -c "import PIL; print(PIL.__version__)")

echo "making $images 12-megapixel JPEGs..." >&2
mkdir -p "$work/src" "$work/www"
bases=4
for b in $(seq 1 $bases); do
  "$convert" -seed "$b" -size 1000x750 plasma:fractal -resize '4000x3000!' -attenuate 0.3 +noise Gaussian \
    -quality 90 "$work/src/base$b.jpg" &
done
wait
orientations=(1 6 3 8)
for i in $(seq 1 "$images"); do
  name=$(printf "IMG_%04d.jpg" "$i")
  cp "$work/src/base$(( (i - 1) % bases + 1 )).jpg" "$work/www/$name"
  echo "-Orientation#=${orientations[$(( i % 4 ))]}" > "$work/args.$i"
  printf -- "-DateTimeOriginal=2024:05:%02d 12:00:%02d\n" "$(( i % 28 + 1 ))" "$(( i % 60 ))" >> "$work/args.$i"
  printf -- "-Model=Bench %d\n" "$i" >> "$work/args.$i"
  exiftool -q -overwrite_original -@ "$work/args.$i" "$work/www/$name"
done
ls "$work/www" > "$work/names.txt"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/www" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
sed "s|^|http://127.0.0.1:$port/|" "$work/names.txt" > "$work/urls.txt"
library="$work/library"
"$shoebox" fetch --library "$library" "$work/urls.txt" >/dev/null 2>"$work/fetch.log" || { cat "$work/fetch.log" >&2; exit 1; }
baseline_library="$work/library-baseline"
if [ -n "$baseline" ]; then
  "$baseline" fetch --library "$baseline_library" "$work/urls.txt" >/dev/null 2>"$work/fetch.log" || { cat "$work/fetch.log" >&2; exit 1; }
fi
kill "$server_pid"; server_pid=""
find "$library/originals" -type f -name '*.jpg' | sort > "$work/files.txt"
count=$(wc -l < "$work/files.txt")
[ "$count" = "$images" ] || { echo "fetch stored $count of $images images" >&2; exit 1; }

# Pillow at its best: draft() picks the JPEG DCT scale, then thumbnail(); a pool over the cores.
cat > "$work/pillow_thumbs.py" <<'PY'
import sys, os
from multiprocessing import Pool
from PIL import Image, ImageOps
size, quality, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def one(path):
    with Image.open(path) as im:
        im.draft("RGB", (size, size))
        im = ImageOps.exif_transpose(im)
        im.thumbnail((size, size))
        im.save(os.path.join(out, os.path.basename(path)), "JPEG", quality=quality)
if __name__ == "__main__":
    files = [line.strip() for line in open(sys.argv[4]) if line.strip()]
    with Pool(os.cpu_count()) as pool:
        pool.map(one, files, chunksize=1)
PY

# Each runner prints "WALL_SECONDS PEAK_RSS_KB CPU_SECONDS" for one pass over
# every image; /usr/bin/time lines ("maxrss user sys", one per process) are
# summed for CPU time, maximised for RSS. On a shared machine CPU time is the
# steadier figure; wall time is what a user waits.
now() { date +%s.%N; }
summarize() {  # $1 start, $2 end, $3 file of "%M %U %S" lines
  awk -v a="$1" -v b="$2" '{ if ($1 > m) m = $1; c += $2 + $3 } END { printf "%.3f %d %.3f", b - a, m, c }' "$3"
}
run_shoebox() {  # $1 = sizes, $2 = binary (default: the shoebox under test), $3 = its library
  local start end
  start=$(now)
  /usr/bin/time -f "%M %U %S" -o "$work/rss" "${2:-$shoebox}" thumbs --library "${3:-$library}" --size "$1" --force \
    --quality "$quality" -j "$cores" >/dev/null 2>"$work/shoebox.err" || { cat "$work/shoebox.err" >&2; exit 1; }
  end=$(now)
  summarize "$start" "$end" "$work/rss"
}
run_vipsthumbnail() {  # $1 = size; one process per core over its share of the files
  local start end out="$work/out-vips" c
  rm -rf "$out"; mkdir -p "$out"; : > "$work/rss.all"
  split -n "r/$cores" "$work/files.txt" "$work/chunk."
  start=$(now)
  for c in "$work"/chunk.*; do
    VIPS_CONCURRENCY=1 /usr/bin/time -f "%M %U %S" -a -o "$work/rss.all" \
      xargs -a "$c" vipsthumbnail -s "$1" -o "$out/%s.jpg[Q=$quality,strip]" &
  done
  wait
  end=$(now)
  rm -f "$work"/chunk.*
  summarize "$start" "$end" "$work/rss.all"
}
run_imagemagick() {  # $1 = size; one convert per image, $cores at once, one thread each
  local start end out="$work/out-im" hint=$(( $1 * 2 ))
  rm -rf "$out"; mkdir -p "$out"; : > "$work/rss.all"
  start=$(now)
  # jpeg:size= lets libjpeg decode at a DCT scale no smaller than twice the target.
  MAGICK_THREAD_LIMIT=1 xargs -a "$work/files.txt" -P "$cores" -I{} /usr/bin/time -f "%M %U %S" -a -o "$work/rss.all" \
    sh -c 'exec "$0" -define "jpeg:size=$1" "$2" -auto-orient -thumbnail "$3" -quality "$4" -strip "$5/$(basename "$2")"' \
    "$convert" "${hint}x${hint}" {} "$1x$1" "$quality" "$out"
  end=$(now)
  summarize "$start" "$end" "$work/rss.all"
}
run_pillow() {  # $1 = size
  local start end out="$work/out-pil"
  rm -rf "$out"; mkdir -p "$out"
  start=$(now)
  /usr/bin/time -f "%M %U %S" -o "$work/rss" "$venv/bin/python" "$work/pillow_thumbs.py" "$1" "$quality" "$out" "$work/files.txt"
  end=$(now)
  summarize "$start" "$end" "$work/rss"
}

tools=(shoebox-1 shoebox-1024 shoebox-2 vipsthumbnail vips-1024 imagemagick pillow)
[ -n "$baseline" ] && tools+=(baseline-1 baseline-2)
declare -A times cpus rss
for t in "${tools[@]}"; do times[$t]=""; cpus[$t]=""; rss[$t]=0; done
record() {  # $1 tool, $2 "wall rss cpu"
  local wall r cpu
  read -r wall r cpu <<< "$2"
  times[$1]+="$wall "
  cpus[$1]+="$cpu "
  [ "$r" -gt "${rss[$1]}" ] && rss[$1]=$r
  return 0
}
echo "warming up (one pass each, not counted)..." >&2
run_shoebox "$size" >/dev/null; run_vipsthumbnail "$size" >/dev/null
[ -n "$baseline" ] && run_shoebox "$size" "$baseline" "$baseline_library" >/dev/null
for round in $(seq 1 "$rounds"); do
  echo "round $round/$rounds..." >&2
  # Alternate the order between rounds.
  order=("${tools[@]}")
  if ! (( round % 2 )); then order=(); for (( k = ${#tools[@]} - 1; k >= 0; k-- )); do order+=("${tools[$k]}"); done; fi
  for t in "${order[@]}"; do
    case $t in
      shoebox-1) record "$t" "$(run_shoebox "$size")" ;;
      shoebox-1024) record "$t" "$(run_shoebox 1024)" ;;
      shoebox-2) record "$t" "$(run_shoebox "$size,1024")" ;;
      vipsthumbnail) record "$t" "$(run_vipsthumbnail "$size")" ;;
      vips-1024) record "$t" "$(run_vipsthumbnail 1024)" ;;
      imagemagick) record "$t" "$(run_imagemagick "$size")" ;;
      pillow) record "$t" "$(run_pillow "$size")" ;;
      baseline-1) record "$t" "$(run_shoebox "$size" "$baseline" "$baseline_library")" ;;
      baseline-2) record "$t" "$(run_shoebox "$size,1024" "$baseline" "$baseline_library")" ;;
    esac
  done
done
# Check every tool produced every thumbnail in the last round.
run_vipsthumbnail "$size" >/dev/null
made_vips=$(find "$work/out-vips" -name '*.jpg' | wc -l)
made_im=$(find "$work/out-im" -name '*.jpg' | wc -l)
made_pil=$(find "$work/out-pil" -name '*.jpg' | wc -l)
made_sb=$(find "$library/thumbnails/$size" -name '*.jpg' | wc -l)
for pair in "shoebox:$made_sb" "vipsthumbnail:$made_vips" "imagemagick:$made_im" "pillow:$made_pil"; do
  [ "${pair#*:}" = "$images" ] || { echo "${pair%%:*} made ${pair#*:} of $images thumbnails" >&2; exit 1; }
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
declare -A med cmed
for t in "${tools[@]}"; do med[$t]=$(echo "${times[$t]}" | median); cmed[$t]=$(echo "${cpus[$t]}" | median); done
rate() { awk -v n="$images" -v s="$1" 'BEGIN {printf "%.1f", n / s}'; }

echo
echo "thumbs benchmark: $images JPEGs 4000x3000 (12 MP), EXIF orientations 1/6/3/8, $cores cores, Q=$quality,"
echo "size ${size} (shoebox-2: ${size} and 1024 from one decode); median of $rounds rounds; $(vips --version),"
echo "ImageMagick $("$convert" -version | head -1 | awk '{print $3}'), Pillow $pillow_version"
printf "%-14s %8s %9s %8s %12s %12s  %s\n" tool "wall s" images/s "CPU s" "img/CPU-s" "peak RSS MB" "wall times (s)"
for t in "${tools[@]}"; do
  printf "%-14s %8.3f %9s %8.3f %12s %12d  %s\n" "$t" "${med[$t]}" "$(rate "${med[$t]}")" "${cmed[$t]}" \
    "$(rate "${cmed[$t]}")" $(( rss[$t] / 1024 )) "${times[$t]}"
done
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
vs_vips=$(ratio "${med[vipsthumbnail]}" "${med[shoebox-1]}")
two_vs_one=$(ratio "${med[shoebox-2]}" "${med[shoebox-1]}")
two_vs_large=$(ratio "${med[shoebox-2]}" "${med[shoebox-1024]}")
vs_im=$(ratio "${med[imagemagick]}" "${med[shoebox-1]}")
vs_pil=$(ratio "${med[pillow]}" "${med[shoebox-1]}")
cratio() { ratio "${cmed[$1]}" "${cmed[$2]}"; }
verdict() { if awk "BEGIN {exit !($1)}"; then echo "met"; else echo "MISSED"; fi; }
echo "shoebox one size vs vipsthumbnail best: ${vs_vips}x images/s (target >= 1.0): $(verdict "$vs_vips >= 1.0");  per CPU-second: $(cratio vipsthumbnail shoebox-1)x"
echo "shoebox two sizes / 1024 alone time:     ${two_vs_large}x (target <= 1.3): $(verdict "$two_vs_large <= 1.3");  CPU: $(cratio shoebox-2 shoebox-1024)x"
# Against the small size alone no one-decode scheme can reach 1.3x: a 1024 thumbnail
# of a 4000x3000 JPEG needs a 1/2-scale decode, 16x the pixels of the 1/8 scale that
# 256 needs. vipsthumbnail's own 1024 / 256 time is printed beside it as that floor.
echo "shoebox two sizes / $size alone time:      ${two_vs_one}x (reference; vipsthumbnail 1024 / $size alone: $(ratio "${med[vips-1024]}" "${med[vipsthumbnail]}")x);  CPU: $(cratio shoebox-2 shoebox-1)x"
echo "shoebox one size vs ImageMagick best:    ${vs_im}x images/s (target >= 1.5): $(verdict "$vs_im >= 1.5");  per CPU-second: $(cratio imagemagick shoebox-1)x"
echo "shoebox one size vs Pillow draft:        ${vs_pil}x images/s;  per CPU-second: $(cratio pillow shoebox-1)x"
echo "shoebox 1024 vs vipsthumbnail 1024:      $(ratio "${med[vips-1024]}" "${med[shoebox-1024]}")x images/s;  per CPU-second: $(cratio vips-1024 shoebox-1024)x"
if [ -n "$baseline" ]; then
  echo "shoebox vs baseline ($baseline), one size:  $(ratio "${med[baseline-1]}" "${med[shoebox-1]}")x images/s;  per CPU-second: $(cratio baseline-1 shoebox-1)x"
  echo "shoebox vs baseline, two sizes:           $(ratio "${med[baseline-2]}" "${med[shoebox-2]}")x images/s;  per CPU-second: $(cratio baseline-2 shoebox-2)x"
fi
echo "shoebox peak RSS: $(( rss[shoebox-1] / 1024 )) MB one size, $(( rss[shoebox-2] / 1024 )) MB two sizes (target < 100): $(verdict "${rss[shoebox-2]} < 102400 && ${rss[shoebox-1]} < 102400")"
