#!/usr/bin/env bash
# Benchmark: latency hiding. `shoebox fetch` against curl --parallel, aria2c and wget2 at the
# same concurrency (16), from a slow origin on 127.0.0.1 (each response's first byte after
# 50 ms and 200 ms, bodies paced at 2 MB/s a connection) behind nginx serving TLS with
# HTTP/1.1 and with HTTP/2; every URL on one host, then spread over 8 hosts (ports). Prints
# files/s against the ideal jobs / (TTFB + size / rate), CPU s and peak RSS; medians of
# alternating rounds. Target (issue 23): within 5% of the ideal, ahead of every peer.
#
#   bash bench/latency.sh [ROUNDS] [SLOTS]   (default 3 rounds; 16 x SLOTS files, default 30)
#
# Uses the small set of bench/fetch.sh's corpus (bench/work/corpus, made when missing) and a
# throwaway CA and certificate for 127.0.0.1 (bench/work/latency-tls).
# SHOEBOX=path/to/shoebox skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
slots=${2:-30}
bash .ci/install-deps
export PATH="/opt/swift/usr/bin:$PATH"
shoebox=${SHOEBOX:-$(bash .ci/build-release)} || exit 1
exec python3 bench/latency_bench.py --shoebox "$shoebox" --rounds "$rounds" --slots "$slots" --work bench/work
