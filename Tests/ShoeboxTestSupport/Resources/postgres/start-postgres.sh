#!/usr/bin/env bash
# Starts a throw-away PostgreSQL 15 server on 127.0.0.1 (Debian's postgresql-15).
#
#   bash start-postgres.sh DIR [--until-stdin-closes]
#       Makes a new cluster in DIR/data (initdb, trust authentication, superuser
#       "postgres", UTF-8), starts it with pg_ctl on a free port of 127.0.0.1 (its Unix
#       socket in DIR, log in DIR/server.log), waits until it accepts connections, then
#       prints ONE line on stdout, the URI of its "postgres" database:
#           postgres://postgres@127.0.0.1:PORT/postgres
#       Without --until-stdin-closes it then exits, leaving the server running: stop it
#       with `start-postgres.sh stop DIR`. With --until-stdin-closes it stays in the
#       foreground and stops the server (pg_ctl stop -m immediate) when its stdin reaches
#       end of file or on SIGINT/SIGTERM: the test harness (PostgresServer.swift) keeps a
#       pipe open, so a crashed test process leaves no server behind.
#   bash start-postgres.sh stop DIR
#       Stops the server started on DIR (immediate mode: no shutdown checkpoint).
#   bash start-postgres.sh resume DIR PORT
#       Starts the stopped server of DIR again on PORT (a database that went away and came back).
#
# PostgreSQL refuses to run as root: as root, DIR is given to the user in
# $SHOEBOX_PG_USER (default: postgres, made by Debian's postgresql package) and initdb
# and pg_ctl run as that user (runuser); as any other user they run as that user.
# DIR's parent folders must be searchable by that user (/tmp is).
# fsync is off (throw-away data): about 1 s and 70 MB to start.
# Binaries: $PG_BIN (default /usr/lib/postgresql/15/bin).
# Nothing here contacts an address other than 127.0.0.1.
set -euo pipefail

bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
export PATH="/usr/bin:/bin:/usr/sbin:/sbin:$PATH"

as_owner=()
if [ "$(id -u)" = 0 ]; then
  owner="${SHOEBOX_PG_USER:-postgres}"
  id -u "$owner" >/dev/null 2>&1 ||
    { echo "start-postgres: user $owner missing (bash .ci/install-deps installs postgresql, which makes it)" >&2; exit 1; }
  as_owner=(runuser -u "$owner" --)
fi

if [ "${1:-}" = stop ]; then
  dir="${2:?usage: start-postgres.sh stop DIR}"
  [ -f "$dir/data/postmaster.pid" ] || exit 0
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || {
    pid=$(head -1 "$dir/data/postmaster.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  }
  exit 0
fi

if [ "${1:-}" = resume ]; then
  dir="${2:?usage: start-postgres.sh resume DIR PORT}"
  port="${3:?usage: start-postgres.sh resume DIR PORT}"
  # The server outlives this script: it must not keep the caller's descriptors (pipes a
  # test reads to their end) open.
  for fd in /proc/$$/fd/*; do
    n=${fd##*/}
    if [ "$n" -gt 2 ] && [ "$n" != 255 ]; then eval "exec $n>&-" 2>/dev/null || true; fi
  done
  exec "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off" start >/dev/null
fi

dir="${1:?usage: start-postgres.sh DIR [--until-stdin-closes] | start-postgres.sh stop DIR | start-postgres.sh resume DIR PORT}"
watch_stdin=0
[ "${2:-}" = --until-stdin-closes ] && watch_stdin=1
for tool in initdb pg_ctl; do
  [ -x "$bin/$tool" ] ||
    { echo "start-postgres: $bin/$tool missing (bash .ci/install-deps installs postgresql)" >&2; exit 1; }
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ ${#as_owner[@]} -gt 0 ] && chown "$owner" "$dir"
chmod 700 "$dir"

"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
  { echo "start-postgres: initdb failed:" >&2; tail -20 "$dir/initdb.log" >&2; exit 1; }

stop_server() {
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
}

# A free port (another process may take it before the server binds: then try again).
started=0
for _ in 1 2 3 4 5; do
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off" start >/dev/null 2>&1; then
    started=1
    break
  fi
done
if [ $started = 0 ]; then
  echo "start-postgres: the server did not start; end of $dir/server.log:" >&2
  tail -20 "$dir/server.log" >&2 || true
  exit 1
fi

if [ $watch_stdin = 1 ]; then
  trap 'stop_server; exit 0' INT TERM
  trap stop_server EXIT
fi
echo "postgres://postgres@127.0.0.1:$port/postgres"
if [ $watch_stdin = 1 ]; then
  while read -r _; do :; done
fi
