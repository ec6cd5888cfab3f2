#!/usr/bin/env bash
# Benchmark: `shoebox fetch` into an S3-compatible bucket (--store s3://bench-bucket/PREFIX,
# OpenStack Swift with s3api on 127.0.0.1, from Tests/ShoeboxTestSupport/Resources/swift-s3)
# against the same fetch into a local library, `rclone copy` of the same files from a local
# folder into the bucket (upload only), and curl --parallel downloads followed by
# curl --aws-sigv4 -T uploads; alternating rounds in one session. Prints files/s, MB/s,
# peak RSS (GNU time), CPU s, Swift's CPU s, and S3 requests per original (counted from
# Swift's proxy access log, sent to the driver over UDP) with ratios.
#
#   bash bench/s3.sh [ROUNDS] [BIG] [SMALL] [LARGE]   (default 3 rounds per tool and set, BIG=200
#                                             photos, SMALL=1000 files, LARGE=4 bodies of 200 MB;
#                                             0 leaves that set out)
#
# Sets: the corpus of bench/fetch.sh (bench/fetch_bench.py, reused when it is in
# bench/work/corpus): "small" (1,000 small JPEGs) and "big" (the first BIG of its 200
# 12-megapixel JPEGs, about 5 MB each; a smaller BIG fits a shorter session), and "large"
# (LARGE incompressible bodies of 200 MB, made here: they stream into multipart uploads).
# "local disk" is the peak size of what each tool kept on the local disk at once (the
# library folder's staging, or curl's downloaded files), sampled every 20 ms.
# SHOEBOX=path/to/shoebox skips the release build. Each run writes its own prefix, which
# is checked (object count and bytes) and deleted after the run; Swift's data lives in
# bench/work/swift and is removed at the end. Needs rclone (installed here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
big=${2:-200}
small=${3:-1000}
large=${4:-4}
bash .ci/install-deps
bash bench/install-rclone.sh
export PATH="/opt/swift/usr/bin:$PATH"
if [ -n "${SHOEBOX:-}" ]; then
  shoebox=$(realpath "$SHOEBOX")
else
  shoebox=$(bash .ci/build-release) || exit 1
fi
exec python3 bench/s3_bench.py --shoebox "$shoebox" --rounds "$rounds" --big "$big" --small "$small" --large "$large" --work bench/work
