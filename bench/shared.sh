#!/usr/bin/env bash
# Benchmark: the shared catalog. `shoebox fetch` of fetch.sh's small set (1,000 640-pixel
# JPEGs, 65 MB in all; same generated corpus, same nginx on loopback: bench/fetch_bench.py is
# imported) with
#   - the embedded default catalog (library folder + SQLite), 1 process;
#   - --catalog postgres://… (a throw-away PostgreSQL 15, library folder store), 1 worker,
#     then 2 and 3 workers started at once on the same list (wall time until all end);
#   - curl --parallel --parallel-max 16 as the reference.
# Every shoebox worker runs with --jobs 16 --per-host 16 (so 3 workers have 48 transfers
# at once; --jobs N sets it). Alternating rounds, a fresh library folder and a fresh
# database (CREATE DATABASE on one server) for every run; medians of files/s, wall time,
# user+sys CPU of the shoebox workers, CPU of the whole PostgreSQL server (postmaster,
# live and reaped backends, from /proc), peak RSS per worker, and commits per URL
# (pg_stat_database.xact_commit). Then one untimed run per worker count with
# log_statement = 'all': statements (libpq round trips) per URL, by kind, and the longest
# pause between two of them; pgbench's latency of one SELECT 1 (a round trip). Last, the load
# of a 1,000,000-line list into the queue, timed by the server's clock (work_lists
# created_at → loaded_at): its URLs point at a closed port and the worker is interrupted
# once the list is loaded; psql's \copy of the same rows into a table with work_items'
# indexes is printed beside it, as a floor for the server's share.
#
#   bash bench/shared.sh [ROUNDS]   (default 3; about 2.5 minutes on 2 cores)
#   bash bench/shared.sh 3 --jobs 8 --workers 1,2,3,4 --load-lines 100000   (shared_bench.py's options)
#
# The server runs with fsync=off (start-postgres.sh): commits cost no disk flush here.
# Client, nginx and PostgreSQL share this machine's cores: on a 2-core machine more workers
# compete for the same CPU, so this measures the per-URL cost of the queue, not how
# workers on separate machines scale. Work files go to bench/work/.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bash .ci/install-deps
export PATH="/opt/swift/usr/bin:$PATH"
shoebox=$(bash .ci/build-release) || exit 1
shift || true
exec python3 bench/shared_bench.py --shoebox "$shoebox" --rounds "$rounds" --work bench/work "$@"
