#!/usr/bin/env bash
# Installs rclone (Debian's package) when it is missing: bench/s3.sh and bench/shared.sh
# make buckets, count and size their objects with it.
set -euo pipefail
command -v rclone >/dev/null && exit 0
echo "installing rclone..." >&2
sudo_cmd=""
[ "$(id -u)" = 0 ] || sudo_cmd="sudo"
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends rclone >/dev/null
