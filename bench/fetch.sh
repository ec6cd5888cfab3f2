#!/usr/bin/env bash
# Benchmark: `shoebox fetch` against `aria2c -j 16 -i LIST` and
# `curl --parallel --parallel-max 16`, same corpus, same nginx on loopback,
# alternating runs in one session; prints files/s, MB/s, peak RSS and ratios.
# A "curl+sync" row times curl plus syncing its files to disk, as shoebox does.
#
#   bash bench/fetch.sh [ROUNDS] [BASELINE]   (default 3 rounds per tool and set)
#
# BASELINE: another shoebox binary (say an earlier commit's .ci/build-release
# output), timed in the same rounds as a "baseline" row: before/after a change.
#
# Sets: "small" (1,000 JPEGs of 1024x768, ~173 KB: the size issue #23 names), "big" (200 12-megapixel JPEGs with EXIF+GPS,
# about 1 GB; its first 40 are also timed alone), a 100,000-URL list for
# shoebox's files/s and peak RSS, then a 1,000,000-line list of 110,000 distinct
# URLs (those, and a tenth of them again with a query) each about nine times
# (lines/s, with the deduplicator spilling to disk past 100,000 keys). Work files go to
# bench/work/ (about 4 GB at the peak with 3 rounds; the small set's runs each keep their own
# folder until the set ends, see fetch_bench.py).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bash .ci/install-deps
export PATH="/opt/swift/usr/bin:$PATH"
shoebox=$(bash .ci/build-release) || exit 1
baseline=()
[ -n "${2:-}" ] && baseline=(--baseline "$2")
exec python3 bench/fetch_bench.py --shoebox "$shoebox" --rounds "$rounds" --work bench/work "${baseline[@]}"
