#!/usr/bin/env bash
# Benchmark: `shoebox import` against `exiftool -o DIR '-Directory<DateTimeOriginal'
# -d %Y/%m/%d` (copying into date folders) and `rsync -a` (a plain copy), on the same
# local files, alternating runs in one session; prints files/s, MB/s, peak RSS, CPU
# seconds and ratios (medians). An "rsync+sync" row adds a sync of the copy: shoebox
# makes every original durable before it reports, rsync and exiftool do not. A
# "shoebox again" row times a second import of the same tree (the quick check).
#
#   bash bench/import.sh [ROUNDS]   (default 3 rounds per tool and set)
#
# Sets: "small" (1,000 JPEGs of ~170 KB) and "big" (200 12-megapixel JPEGs with EXIF
# and GPS, about 1 GB), made as bench/fetch.sh makes them, in bench/work/corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bash .ci/install-deps
export PATH="/opt/swift/usr/bin:$PATH"
shoebox=$(bash .ci/build-release) || exit 1
exec python3 bench/import_bench.py --shoebox "$shoebox" --rounds "$rounds" --work bench/work
