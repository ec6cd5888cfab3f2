#!/usr/bin/env bash
# Benchmark: `shoebox gallery` (issue #22) on generated libraries of 10,000 and 100,000 photos:
# generation time (first and rerun), peak RSS and page weights (bench/gallery_bench.py).
#
#   bash bench/gallery.sh                          # 10,000 and 100,000 photos, 3 rounds
#   bash bench/gallery.sh --sizes 10000 --rounds 1 --keep /tmp/gallery-bench
set -euo pipefail
cd "$(dirname "$0")/.."
echo "building shoebox (release)..." >&2
BIN=$(bash .ci/build-release) || exit 1
exec python3 bench/gallery_bench.py --shoebox "$BIN" "$@"
