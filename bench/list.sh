#!/usr/bin/env bash
# Benchmark: `shoebox list` (issue #21) on a catalog of 1,000,000 originals, against the
# sqlite3 shell running the equivalent SQL on the same file (bench/list_bench.py generates
# the rows and prints the table of medians).
#
#   bash bench/list.sh                       # 1,000,000 rows, 5 rounds (~2 minutes with the build done)
#   bash bench/list.sh --rows 100000 --rounds 3 --keep /tmp/list-lib
set -euo pipefail
cd "$(dirname "$0")/.."
command -v sqlite3 >/dev/null || { echo "list.sh: needs the sqlite3 shell (apt-get install sqlite3)" >&2; exit 1; }
echo "building shoebox (release)..." >&2
BIN=$(bash .ci/build-release) || exit 1
exec python3 bench/list_bench.py --shoebox "$BIN" "$@"
