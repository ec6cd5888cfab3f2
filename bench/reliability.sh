#!/usr/bin/env bash
# Reliability under kill -9 (issue 5): a fetch of FILES URLs from a loopback server
# is killed at KILLS random moments; after each kill `shoebox verify` must pass
# (no partial original, no row without its file, no file without its row: only
# notices about temp files the next run removes); then a final rerun must complete
# every URL and leave a clean library. Prints kills survived / kills tried.
#
#   bench/reliability.sh            # 20 kills, 200 files
#   KILLS=50 FILES=500 SEED=7 bench/reliability.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

KILLS=${KILLS:-20}
FILES=${FILES:-200}
JOBS=${JOBS:-4}
DELAY=${DELAY:-0.25}     # server-side delay per photo, so runs last long enough to be killed mid-way
SEED=${SEED:-$$}
RANDOM=$SEED

echo "building shoebox (release)..." >&2
BIN=$(bash .ci/build-release) || exit 1

WORK=$(mktemp -d /tmp/shoebox-reliability.XXXXXX)
LIBRARY="$WORK/library"
SERVER_PID=""
cleanup() {
    exec 9>&- 2>/dev/null || true          # closing the server's stdin stops it
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

mkfifo "$WORK/server-stdin"
python3 Tests/ShoeboxTestSupport/Resources/Fixtures/fixture_server.py < "$WORK/server-stdin" > "$WORK/port" &
SERVER_PID=$!
exec 9> "$WORK/server-stdin"
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
PORT=$(head -1 "$WORK/port")
for i in $(seq 1 "$FILES"); do
    echo "http://127.0.0.1:$PORT/slow/photo-$i?delay=$DELAY&seed=$i"
done > "$WORK/list.txt"

echo "seed $SEED: $KILLS kills of 'shoebox fetch' ($FILES URLs, --jobs $JOBS, ${DELAY}s per photo)" >&2
tried=0; survived=0; finished_early=0
for k in $(seq 1 "$KILLS"); do
    moment=$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.2 + r / 32767 * 1.2 }')
    "$BIN" fetch "$WORK/list.txt" --library "$LIBRARY" --jobs "$JOBS" > /dev/null 2>> "$WORK/fetch.log" &
    pid=$!
    sleep "$moment"
    if kill -9 "$pid" 2>/dev/null; then
        tried=$((tried + 1))
        wait "$pid" 2>/dev/null || true
    else
        wait "$pid" 2>/dev/null || true
        finished_early=$((finished_early + 1))
        echo "kill $k: the fetch had already finished at ${moment}s" >&2
        continue
    fi
    if "$BIN" verify --library "$LIBRARY" > "$WORK/verify.out" 2> "$WORK/verify.err"; then
        survived=$((survived + 1))
        notices=$(grep -c '^notice:' "$WORK/verify.out" || true)
        stored=$(sed -n 's/^verify: \([0-9]*\) originals checked.*/\1/p' "$WORK/verify.err")
        echo "kill $k at ${moment}s: verify passed ($stored originals so far, $notices notices)" >&2
    else
        echo "kill $k at ${moment}s: VERIFY FAILED" >&2
        cat "$WORK/verify.out" "$WORK/verify.err" >&2
    fi
done

status=0
"$BIN" fetch "$WORK/list.txt" --library "$LIBRARY" --jobs 16 --json > "$WORK/final.jsonl" 2> "$WORK/final.err" || status=$?
complete=$(grep -cE '"outcome":"(stored|skipped)"' "$WORK/final.jsonl" || true)
"$BIN" verify --library "$LIBRARY" > "$WORK/verify.out" 2> "$WORK/verify.err" || true
leftovers=$(grep -c . "$WORK/verify.out" || true)
originals=$(sed -n 's/^verify: \([0-9]*\) originals checked.*/\1/p' "$WORK/verify.err")

echo "kills survived / kills tried: $survived / $tried (runs that finished before their kill: $finished_early)"
echo "final rerun: exit $status, $complete / $FILES URLs stored or already archived, $originals originals in the catalog"
echo "verify after the final rerun: $([ "$leftovers" = 0 ] && echo clean || echo "$leftovers findings")"
[ "$survived" = "$tried" ] && [ "$status" = 0 ] && [ "$complete" = "$FILES" ] && [ "$originals" = "$FILES" ] && [ "$leftovers" = 0 ]
