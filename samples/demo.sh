#!/usr/bin/env bash
# Shoebox in five minutes, on the bundled sample photos:
#
#   bash samples/demo.sh [LIBRARY]
#
# 1. installs the Debian packages Shoebox needs (bash .ci/install-deps; uses sudo when not root),
# 2. builds shoebox in release mode (bash .ci/build-release: the Swift runtime linked in),
# 3. serves samples/photos on a free port of 127.0.0.1 (python3 samples/serve.py),
# 4. runs fetch -> inspect -> thumbs -> gallery -> verify into a fresh library,
# 5. prints where the gallery page is, and always stops the server.
#
# LIBRARY is where the demo library goes; it must not exist yet, or be empty
# (default: inside a new folder ${TMPDIR:-/tmp}/shoebox-demo.XXXXXX, which also
# holds the rewritten URL list). Besides these, only Swift's build folder .build/
# in the checkout is written.
#
# Environment: SHOEBOX=/path/to/shoebox runs that binary instead, skipping the
# package install and the build (the tests do this). NO_COLOR turns colour off.
set -euo pipefail
# LIBRARY is relative to where the user stands, not to the checkout.
requested_library=''
[ $# = 1 ] && [[ "$1" != -* ]] && requested_library=$(realpath -m -- "$1")
cd "$(dirname "$0")/.."
checkout=$PWD

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\e[1m' red=$'\e[31m' plain=$'\e[0m'; else bold='' red='' plain=''; fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$plain"; }
show() { printf '%s$ %s%s\n' "$bold" "$*" "$plain"; }
die() { printf '%sdemo: %s%s\n' "$red" "$*" "$plain" >&2; exit 1; }

case "${1:-}" in
  -h|--help) sed -n "2,18s/^# \\{0,1\\}//p" samples/demo.sh; exit 0 ;;
  -*) die "unknown option '$1'; usage: bash samples/demo.sh [LIBRARY]" ;;
esac
[ $# -le 1 ] || die "too many arguments; usage: bash samples/demo.sh [LIBRARY]"

# --- 1 and 2: packages and build -------------------------------------------
if [ -n "${SHOEBOX:-}" ]; then
  shoebox=$SHOEBOX
  [ -x "$shoebox" ] || die "SHOEBOX=$shoebox is not an executable file; unset SHOEBOX to build one"
else
  step "Installing the Debian packages Shoebox needs (when missing)"
  show "bash .ci/install-deps"
  bash .ci/install-deps
  step "Building shoebox in release mode (the first build takes a few minutes)"
  show "bash .ci/build-release    # swift build -c release --static-swift-stdlib"
  shoebox=$(bash .ci/build-release) || die "the build failed (messages above)"
fi
run() { show "shoebox $*"; "$shoebox" "$@"; }

# Commands still missing from this build are skipped with a clear note instead of failing obscurely.
missing=()
for command in fetch inspect thumbs gallery verify; do
  "$shoebox" help "$command" >/dev/null 2>&1 || missing+=("$command")
done
has() { [[ " ${missing[*]} " != *" $1 "* ]]; }
skip() { printf '%sSKIPPED: this build of shoebox has no "%s" command yet (shoebox help lists the commands it has).%s\n' "$red" "$1" "$plain"; }
[ ${#missing[@]} = 0 ] || printf '%sNote: this build of shoebox lacks: %s; those steps are skipped.%s\n' "$red" "${missing[*]}" "$plain"

# --- 3: a fresh library and the sample server ---------------------------------
demo=$(mktemp -d "${TMPDIR:-/tmp}/shoebox-demo.XXXXXX")
library=${requested_library:-$demo/library}
if [ -e "$library" ] && [ -n "$(ls -A "$library" 2>/dev/null)" ]; then
  rm -rf "$demo"
  die "$library is not empty; give a new folder (the demo wants a fresh library)"
fi
server=''
stop_server() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; server=''; fi
}
trap stop_server EXIT
trap 'exit 130' INT TERM

step "Serving samples/photos on 127.0.0.1"
python3 samples/serve.py --port 0 --port-file "$demo/port" &
server=$!
for _ in $(seq 100); do
  [ -s "$demo/port" ] && break
  kill -0 "$server" 2>/dev/null || die "the sample server did not start (message above)"
  sleep 0.1
done
[ -s "$demo/port" ] || die "the sample server did not answer within 10 seconds"
port=$(cat "$demo/port")
sed "s#127\.0\.0\.1:8000#127.0.0.1:$port#g" samples/urls.txt > "$demo/urls.txt"
echo "URL list: $demo/urls.txt (samples/urls.txt with port $port)"

# --- 4: the five commands -------------------------------------------------------
status=0
step "Downloading the list into a new library (two entries fail on purpose: a 404 and an HTML page)"
if has fetch; then
  set +e; run fetch "$demo/urls.txt" --library "$library"; fetched=$?; set -e
  case $fetched in
    0|1) [ $fetched = 1 ] && echo "(exit status 1: some URLs failed, as the two bad entries should)" ;;
    *) die "fetch ended with exit status $fetched (see above; 'man shoebox' explains the statuses)" ;;
  esac
else skip fetch; status=1; fi

step "Reading the EXIF and GPS of what was archived"
if has inspect; then run inspect --library "$library" || { echo "(inspect exit status $?)"; status=1; }
else skip inspect; status=1; fi

step "Making thumbnails (256 and 1024 pixels)"
if has thumbs; then run thumbs --library "$library" || { echo "(thumbs exit status $?)"; status=1; }
else skip thumbs; status=1; fi

step "Writing the gallery page"
if has gallery; then run gallery --library "$library" || { echo "(gallery exit status $?)"; status=1; }
else skip gallery; status=1; fi

step "Verifying the library (sizes, SHA-256, metadata)"
if has verify; then run verify --library "$library" || { echo "(verify exit status $?)"; status=1; }
else skip verify; status=1; fi

stop_server

# --- 5: where things are ---------------------------------------------------------
step "Done"
echo "Library:  $library"
if [ -d "$library/originals" ]; then
  echo "Originals:"
  (cd "$library" && find originals -type f | sort | sed 's/^/  /')
fi
if [ -f "$library/gallery/index.html" ]; then
  echo "Gallery:  $library/gallery/index.html"
  echo "          open file://$library/gallery/index.html in a browser"
else
  echo "Gallery:  not written (see the messages above)"
  status=1
fi
echo "Manual:   man -l $checkout/man/shoebox.1"
[ $status = 0 ] || printf '%sThe demo did not complete every step (see above).%s\n' "$red" "$plain"
exit $status
