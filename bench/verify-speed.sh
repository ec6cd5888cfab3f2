#!/usr/bin/env bash
# Hashing speed of `shoebox verify` on cached files, side by side with the
# reference tools in the same run: sha256sum (one process, and one per core via
# xargs -P) and `openssl dgst -sha256` (one per core). Each tool runs ROUNDS times,
# alternating; medians are printed in GB/s (10^9 bytes per second).
#
#   bench/verify-speed.sh                 # 100 files of 10 MiB
#   FILES=400 SIZE_MB=5 ROUNDS=5 bench/verify-speed.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

FILES=${FILES:-100}
SIZE_MB=${SIZE_MB:-10}
ROUNDS=${ROUNDS:-3}
CORES=$(nproc)

echo "building shoebox (release)..." >&2
BIN=$(bash .ci/build-release) || exit 1

WORK=$(mktemp -d /tmp/shoebox-verify-speed.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
LIBRARY="$WORK/library"
mkdir -p "$LIBRARY/originals/2024/05/01"
echo "making $FILES files of $SIZE_MB MiB..." >&2
for i in $(seq 1 "$FILES"); do
    head -c "$((SIZE_MB * 1048576))" /dev/urandom > "$LIBRARY/originals/2024/05/01/photo-$i.jpg"
done
chmod 0444 "$LIBRARY"/originals/2024/05/01/*
"$BIN" reindex --library "$LIBRARY" > /dev/null
TOTAL=$((FILES * SIZE_MB * 1048576))
cat "$LIBRARY"/originals/2024/05/01/* > /dev/null   # warm the page cache

seconds() { local start end; start=$(date +%s.%N); "$@" > /dev/null 2>&1; end=$(date +%s.%N); calc "$end - $start"; }
calc() { awk "BEGIN { print $1 }"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

files=("$LIBRARY"/originals/2024/05/01/*)
declare -A times
tools=("shoebox verify" "sha256sum" "sha256sum -P$CORES" "openssl -P$CORES")
for round in $(seq 1 "$ROUNDS"); do
    times["shoebox verify"]+="$(seconds "$BIN" verify --library "$LIBRARY")"$'\n'
    times["sha256sum"]+="$(seconds sha256sum "${files[@]}")"$'\n'
    times["sha256sum -P$CORES"]+="$(seconds sh -c "printf '%s\n' \"\$@\" | xargs -P $CORES -n 8 sha256sum" _ "${files[@]}")"$'\n'
    times["openssl -P$CORES"]+="$(seconds sh -c "printf '%s\n' \"\$@\" | xargs -P $CORES -n 8 openssl dgst -sha256" _ "${files[@]}")"$'\n'
done

"$BIN" verify --library "$LIBRARY" 2> "$WORK/summary" > /dev/null
echo "shoebox's own figure (hashing phase only): $(sed -n 's/.*(\(.*B\/s[^)]*\)).*/\1/p' "$WORK/summary")"
printf "%-22s %10s %10s %8s\n" tool "median s" "GB/s" "ratio"
base=""
for tool in "${tools[@]}"; do
    m=$(printf '%s' "${times[$tool]}" | median)
    rate=$(calc "$TOTAL / 1000000000 / $m")
    [ -z "$base" ] && base=$m
    printf "%-22s %10.3f %10.2f %7.2fx\n" "$tool" "$m" "$rate" "$(calc "$m / $base")"
done
echo "($FILES files, $((TOTAL / 1048576)) MiB, $CORES cores, $ROUNDS rounds; ratio = tool time / shoebox time, wall time including catalog and EXIF checks for shoebox)"
