#!/usr/bin/env bash
# Makes a Docker engine reachable for the image suite: installs Debian's docker.io (and debootstrap,
# which scripts/build-base-image.sh needs) when missing, starts dockerd as root when no engine answers,
# and waits until it does. Safe to run again: it changes nothing when the engine is already up. The
# engine it starts reaches the node's registries (10.243.0.1:5000, and :5001 and :5002 for pushed images) over plain
# HTTP (daemon.json's insecure-registries), as `docker pull` and `docker push` of the node tests need, and
# takes the node's registry as its mirror of Docker Hub (registry-mirrors): no image can be pulled from
# Docker Hub here, and the agent server's base image, langchain/langgraph-api, is built on the node and
# kept in its registry under that name, as the reference's client pulls it before a local build.
set -euo pipefail

log_dir="${BERTH_DOCKER_LOG_DIR:-${TMPDIR:-/tmp}/berth-docker}"
mkdir -p "$log_dir"

source "$(dirname "$0")/lib/debian-packages.sh"
install_debian_packages "${image_packages[@]}"

# The node's registries in daemon.json's insecure-registries, and the first as a Docker Hub mirror (kept
# with whatever else the file says): an engine reads both at start and again on SIGHUP.
registries=(10.243.0.1:5000 10.243.0.1:5001 10.243.0.1:5002)
mirror=http://10.243.0.1:5000
reaches_registries() {
  local configs registry
  configs=$(docker info --format '{{json .RegistryConfig}}' 2>/dev/null) || return 1
  for registry in "${registries[@]}"; do [[ $configs == *"\"$registry\""* ]] || return 1; done
  [[ $configs == *"\"$mirror/\""* || $configs == *"\"$mirror\""* ]]
}
add_insecure_registries() {
  [[ $(id -u) == 0 ]] || { echo "need root to add ${registries[*]} to /etc/docker/daemon.json" >&2; return 1; }
  mkdir -p /etc/docker
  python3 -c '
import json, os, sys
path = "/etc/docker/daemon.json"
config = json.load(open(path)) if os.path.exists(path) and os.path.getsize(path) > 0 else {}
def add(key, values):
    known = config.setdefault(key, [])
    known.extend(v for v in values if v not in known)
add("insecure-registries", sys.argv[2:])
add("registry-mirrors", sys.argv[1:2])
json.dump(config, open(path, "w"), indent=2)
' "$mirror" "${registries[@]}"
}

if docker info >/dev/null 2>&1; then
  if ! reaches_registries; then
    echo "docker engine running: adding ${registries[*]} to its insecure registries (SIGHUP)" >&2
    add_insecure_registries
    pkill -HUP -x dockerd
    for _ in $(seq 1 10); do reaches_registries && break; sleep 1; done
    reaches_registries || echo "the running engine did not take ${registries[*]}: restart it to push to the node's registries" >&2
  fi
  echo "docker engine already running" >&2
  exit 0
fi
add_insecure_registries

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
