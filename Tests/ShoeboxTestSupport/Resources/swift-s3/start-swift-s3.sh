#!/usr/bin/env bash
# Starts a throw-away S3 server on 127.0.0.1: OpenStack Swift (Debian's swift-proxy,
# swift-object, swift-container, swift-account) with the s3api and tempauth middlewares.
#
#   bash start-swift-s3.sh DIR [--until-stdin-closes]
#       Writes every config, ring and stored object under DIR (made if missing; use a fresh
#       one), starts the account, container, object and proxy servers on free ports of
#       127.0.0.1, waits until a signed S3 request (ListBuckets) succeeds, then prints ONE
#       line on stdout, the endpoint: http://127.0.0.1:PORT
#       It then stays in the foreground until SIGINT/SIGTERM (Ctrl-C), or until one of the
#       servers exits, and stops every server it started before it exits (status 0 after a
#       signal). With --until-stdin-closes it also stops when its stdin reaches end of file:
#       the test harness (SwiftS3Server.swift) keeps a pipe open, so a crashed test process
#       leaves no server behind.
#   bash start-swift-s3.sh stop DIR
#       Stops the server started on DIR (its pid is in DIR/swift-s3.pid).
#
# Credentials (tempauth): access key "test:tester", secret "testing", region us-east-1,
# path-style addressing. The account is made on first use (account_autocreate).
# Example:  curl --aws-sigv4 aws:amz:us-east-1:s3 -H "x-amz-content-sha256: $EMPTY_SHA256" \
#             "http://test%3Atester:testing@127.0.0.1:PORT/"
# Logs: DIR/log/{proxy,object,container,account}.log (start-up errors only: Swift sends its
# request log to syslog, which this machine may not have). With SWIFT_S3_LOG_UDP_PORT=PORT
# set, the proxy sends its syslog lines, one access line per request, to UDP
# 127.0.0.1:PORT instead (bench/s3.sh counts S3 requests from them). Needs root or the user owning DIR
# (the configs name the current user). About 255 MB and 4-5 s to start.
# Nothing here contacts an address other than 127.0.0.1.
set -euo pipefail

if [ "${1:-}" = stop ]; then
  dir="${2:?usage: start-swift-s3.sh stop DIR}"
  pid=$(cat "$dir/swift-s3.pid" 2>/dev/null) || { echo "start-swift-s3: no $dir/swift-s3.pid" >&2; exit 1; }
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.1; done
  echo "start-swift-s3: $pid still running after 10 s" >&2
  exit 1
fi

dir="${1:?usage: start-swift-s3.sh DIR [--until-stdin-closes] | start-swift-s3.sh stop DIR}"
watch_stdin=0
[ "${2:-}" = --until-stdin-closes ] && watch_stdin=1
python=/usr/bin/python3
for tool in swift-proxy-server swift-object-server swift-container-server swift-account-server swift-ring-builder curl; do
  command -v "$tool" >/dev/null || [ -x "/usr/bin/$tool" ] ||
    { echo "start-swift-s3: $tool missing (bash .ci/install-deps installs swift-proxy swift-object swift-container swift-account curl)" >&2; exit 1; }
done
export PATH="/usr/bin:/bin:/usr/sbin:/sbin:$PATH"

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/etc" "$dir/srv/d1" "$dir/log" "$dir/run"
user=$(id -un)

# Four distinct free ports: each socket stays bound until all four are chosen.
read -r proxy_port object_port container_port account_port < <("$python" - <<'PY'
import socket
socks = []
for _ in range(4):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
)

cat >"$dir/etc/swift.conf" <<CONF
[swift-hash]
swift_hash_path_prefix = shoebox-test-prefix
swift_hash_path_suffix = shoebox-test-suffix

[storage-policy:0]
name = Policy-0
default = yes
CONF

common() { # $1: port
  cat <<CONF
[DEFAULT]
devices = $dir/srv
swift_dir = $dir/etc
bind_ip = 127.0.0.1
bind_port = $1
mount_check = false
workers = 0
user = $user
log_facility = LOG_LOCAL0
log_level = INFO
disable_fallocate = true
CONF
}

{ common "$object_port"; cat <<CONF

[pipeline:main]
pipeline = object-server

[app:object-server]
use = egg:swift#object
CONF
} >"$dir/etc/object-server.conf"

{ common "$container_port"; cat <<CONF

[pipeline:main]
pipeline = container-server

[app:container-server]
use = egg:swift#container
CONF
} >"$dir/etc/container-server.conf"

{ common "$account_port"; cat <<CONF

[pipeline:main]
pipeline = account-server

[app:account-server]
use = egg:swift#account
CONF
} >"$dir/etc/account-server.conf"

{ common "$proxy_port"
  if [ -n "${SWIFT_S3_LOG_UDP_PORT:-}" ]; then
    printf 'log_udp_host = 127.0.0.1\nlog_udp_port = %s\n' "$SWIFT_S3_LOG_UDP_PORT"
  fi
  cat <<CONF

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:11211

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:s3api]
use = egg:swift#s3api
location = us-east-1

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin

[filter:copy]
use = egg:swift#copy

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo
CONF
} >"$dir/etc/proxy-server.conf"

for ring in object:"$object_port" container:"$container_port" account:"$account_port"; do
  name=${ring%%:*} port=${ring#*:}
  swift-ring-builder "$dir/etc/$name.builder" create 6 1 1 >/dev/null
  swift-ring-builder "$dir/etc/$name.builder" add "r1z1-127.0.0.1:$port/d1" 1 >/dev/null
  swift-ring-builder "$dir/etc/$name.builder" rebalance >/dev/null
done

pids=()
stopping=0
stop_all() {
  stopping=1
  # A second TERM (the harness signals the group as its stdin closes) must not end this
  # cleanup halfway, leaving servers behind.
  trap - EXIT
  trap '' INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 30); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f "$dir/swift-s3.pid"
}
trap 'stop_all; exit 1' EXIT
trap 'stop_all; exit 0' INT TERM
echo $$ >"$dir/swift-s3.pid"

for server in account container object proxy; do
  "/usr/bin/swift-$server-server" "$dir/etc/$server-server.conf" </dev/null >"$dir/log/$server.log" 2>&1 &
  pids+=($!)
done
printf '%s\n' "${pids[@]}" >"$dir/run/servers.pid"

# Ready when a signed ListBuckets answers 200 (the proxy's /healthcheck answers before the
# rings and the account server are usable). s3api refuses requests without x-amz-content-sha256.
empty_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
ready=0
for _ in $(seq 300); do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 --aws-sigv4 aws:amz:us-east-1:s3 \
    -H "x-amz-content-sha256: $empty_sha256" "http://test%3Atester:testing@127.0.0.1:$proxy_port/" 2>/dev/null) || true
  if [ "$code" = 200 ]; then ready=1; break; fi
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || { echo "start-swift-s3: a server exited during start; logs in $dir/log" >&2; tail -5 "$dir"/log/*.log >&2; exit 1; }
  done
  sleep 0.1
done
[ "$ready" = 1 ] || { echo "start-swift-s3: no signed S3 answer after 30 s (last HTTP status $code); logs in $dir/log" >&2; exit 1; }
# The container and object servers may still be starting after the account server answers
# (a PUT bucket then gets 503): ready for use once a probe bucket can be made and removed.
ready=0
for _ in $(seq 300); do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 --aws-sigv4 aws:amz:us-east-1:s3 -X PUT \
    -H "x-amz-content-sha256: $empty_sha256" "http://test%3Atester:testing@127.0.0.1:$proxy_port/swift-s3-ready-probe" 2>/dev/null) || true
  if [ "$code" = 200 ]; then ready=1; break; fi
  sleep 0.1
done
[ "$ready" = 1 ] || { echo "start-swift-s3: a bucket could not be made after 30 s (last HTTP status $code); logs in $dir/log" >&2; exit 1; }
curl -s -o /dev/null --max-time 5 --aws-sigv4 aws:amz:us-east-1:s3 -X DELETE -H "x-amz-content-sha256: $empty_sha256" \
  "http://test%3Atester:testing@127.0.0.1:$proxy_port/swift-s3-ready-probe" 2>/dev/null || true

echo "http://127.0.0.1:$proxy_port"

if [ "$watch_stdin" = 1 ]; then
  # Ends at end of input (the harness closed its pipe or died); servers are watched meanwhile.
  # (A background job's stdin would be /dev/null: hand the real one over explicitly.)
  ( while read -r _; do :; done; kill -TERM $$ 2>/dev/null ) <&0 &
fi
# Until a signal, or until one server exits.
wait -n "${pids[@]}" || true
[ "$stopping" = 1 ] || { echo "start-swift-s3: a server exited; logs in $dir/log" >&2; exit 1; }
