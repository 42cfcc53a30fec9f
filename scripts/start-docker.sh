#!/usr/bin/env bash
# Makes a Docker engine reachable for the image suite: installs Debian's docker.io (and debootstrap,
# which scripts/build-base-image.sh needs) when missing, starts dockerd as root when no engine answers,
# and waits until it does. Safe to run again: it changes nothing when the engine is already up.
set -euo pipefail

log_dir="${BERTH_DOCKER_LOG_DIR:-${TMPDIR:-/tmp}/berth-docker}"
mkdir -p "$log_dir"

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if (( ${#missing[@]} )); then
  [[ $(id -u) == 0 ]] || { echo "need root to install ${missing[*]}" >&2; exit 1; }
  echo "installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if docker info >/dev/null 2>&1; then
  echo "docker engine already running" >&2
  exit 0
fi

[[ $(id -u) == 0 ]] || { echo "need root to start dockerd" >&2; exit 1; }
echo "starting dockerd (log: $log_dir/dockerd.log)" >&2
# setsid: dockerd outlives this script and the shell that ran it.
setsid dockerd >"$log_dir/dockerd.log" 2>&1 < /dev/null &
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    echo "docker engine is up: $(docker version --format '{{.Server.Version}}')" >&2
    exit 0
  fi
  sleep 1
done
echo "dockerd did not answer within 60 s; last lines of its log:" >&2
tail -20 "$log_dir/dockerd.log" >&2
exit 1
