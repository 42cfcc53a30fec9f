#!/usr/bin/env bash
# Installs the Debian packages a local node takes as they are: runc (the OCI runtime under containerd),
# the CNI plugins (bridge, host-local), the registry (CNCF distribution), iptables and iproute2 (kube-proxy
# and the node's network), gcc and libc6-dev (the pause image), what the Postgres and Redis images are
# made of, and git with the CA certificates (the clone step's image; the tests' git server). Does nothing when all are there. No service is started: a policy-rc.d refuses it for
# the duration of the install (the node starts the registry itself).
set -euo pipefail

packages=(runc containernetworking-plugins docker-registry iptables iproute2 gcc libc6-dev busybox-static
          postgresql-15 postgresql-client-15 gosu redis-server redis-tools nftables git ca-certificates ipset)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
(( ${#missing[@]} )) || exit 0
[[ $(id -u) == 0 ]] || { echo "need root to install ${missing[*]} (apt-get install -y ${missing[*]})" >&2; exit 1; }
echo "installing Debian packages for the node: ${missing[*]}" >&2
policy=/usr/sbin/policy-rc.d
restore_policy=
if [[ -e $policy ]]; then restore_policy=$(mktemp); cp -p "$policy" "$restore_policy"; fi
trap 'if [[ -n $restore_policy ]]; then mv -f "$restore_policy" "$policy"; else rm -f "$policy"; fi' EXIT
printf '#!/bin/sh\nexit 101\n' > "$policy"
chmod +x "$policy"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
