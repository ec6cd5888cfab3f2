#!/usr/bin/env bash
# Benchmark: the shared catalog (issue #18). `shoebox fetch` of fetch.sh's small set (1,000
# 1024x768 JPEGs, 173 MB) and, in the same run, of its big set (the first 100 12-MP JPEGs,
# ~4.9 MB each, 486 MB; --big N), same generated corpus, same nginx on loopback
# (bench/fetch_bench.py is imported), with
#   - the embedded default catalog (library folder + SQLite), 1 process;
#   - --catalog postgres://… (a throw-away PostgreSQL 15) and a library folder store,
#     1 worker, then 2 and 3 workers started at once on the same list (wall time until all end);
#   - --catalog postgres://… and --store s3://BUCKET/archive, no library folder: the originals
#     in OpenStack Swift with s3api on 127.0.0.1 (bench/s3_bench.py's start_swift and
#     ProxyLog are imported), 1, 2 and 3 workers;
#   - curl --parallel --parallel-max 16 as the reference.
# Every shoebox worker runs with --jobs 16 --per-host 16 (--jobs N sets it). Alternating
# rounds, a fresh library folder, database and bucket for every run. One table per set
# (medians): files/s, MB/s, wall time, user+sys CPU of the shoebox workers, CPU of the whole
# PostgreSQL server and of Swift, peak RSS per worker, commits per URL
# (pg_stat_database.xact_commit) and statements per URL (log_statement = 'all' on every
# PostgreSQL run: one libpq round trip each; by kind below the table); for the S3 rows, S3
# requests per original by kind (PUT, HEAD, multipart, GET, LIST, DELETE) from Swift's
# proxy access log, and the bucket listed after each run (N objects, the set's bytes).
# Then pgbench's latency of one SELECT 1 (a round trip), and the load of a 1,000,000-line list
# into the queue, timed by the server's clock (work_lists created_at → loaded_at): its URLs
# point at a closed port and the worker is interrupted once the list is loaded; psql's \copy
# of the same rows into a table with work_items' indexes is printed beside it, as a floor.
#
#   bash bench/shared.sh [ROUNDS]   (default 3 rounds of the rows without S3, 1 of the S3 rows:
#                                    Swift takes ~40 ms of CPU per object, a small-set S3 run
#                                    20-40 s; about 4 minutes on 2 cores shared with other work)
#   bash bench/shared.sh 3 --s3-rounds 3 --big 40 --workers '' --load-lines 0   (shared_bench.py's
#       options: --workers/--s3-workers worker counts of the local-store/S3 rows, '' none;
#       --small/--big N files, 0 leaves a set out; --jobs; --no-statements)
#
# The server runs with fsync=off (start-postgres.sh): commits cost no disk flush here.
# Client, nginx, PostgreSQL and Swift share this machine's cores: on a 2-core machine more
# workers compete for the same CPU, so this measures the per-URL cost of the queue, not how
# workers on separate machines scale. Work files go to bench/work/ (Swift's data, about 2 GB
# at the end of a default run, is removed). Needs rclone (installed here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bash .ci/install-deps
bash bench/install-rclone.sh
export PATH="/opt/swift/usr/bin:$PATH"
shoebox=$(bash .ci/build-release) || exit 1
shift || true
exec python3 bench/shared_bench.py --shoebox "$shoebox" --rounds "$rounds" --work bench/work "$@"
