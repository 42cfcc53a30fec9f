# Every Debian package a part of Berth takes, declared once, and the one way they are installed: under
# one lock (flock on /var/lock/berth-apt.lock, or $BERTH_APT_LOCK), one apt-get at a time, so builds
# that start in parallel on a fresh machine never race for apt's own locks. Sourced by the install
# scripts.

# The node: runc (the OCI runtime under containerd), the CNI plugins (bridge, host-local), the registry
# (CNCF distribution), iptables, nftables, ipset and iproute2 (kube-proxy, kube-router and the node's
# network), gcc and libc6-dev (the pause image), what the Postgres and Redis images are made of, and git
# with the CA certificates (the clone step's image; the tests' git server), debootstrap (the agent
# servers' base images), Python 3.11 (the barman-cloud sidecar image's interpreter and standard library).
node_packages=(debootstrap runc containernetworking-plugins docker-registry iptables iproute2 gcc libc6-dev busybox-static
               postgresql-15 postgresql-client-15 gosu redis-server redis-tools nftables git ca-certificates ipset
               python3.11)
# The Argo CD health check's interpreters: a current Lua and 5.1, gopher-lua's dialect.
lua_packages=(lua5.4 lua5.1)
# The browser check (headless Chromium) and NSS's certutil for its trust store.
browser_packages=(chromium libnss3-tools)
# The image builds: debootstrap (Berth's base image, the agent servers' roots) and a Docker engine.
image_packages=(debootstrap docker.io)

# Installs those of the named packages that are missing; nothing (and no lock) when all are there. No
# service starts during the install: a policy-rc.d refuses it (the node starts the registry itself).
install_debian_packages() {
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  (( ${#missing[@]} )) || return 0
  [[ $(id -u) == 0 ]] || { echo "need root to install ${missing[*]} (apt-get install -y ${missing[*]})" >&2; return 1; }
  (
    flock 9
    # Another caller may have installed them while this one waited.
    local still=() policy=/usr/sbin/policy-rc.d restore=
    for package in "${missing[@]}"; do
      dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || still+=("$package")
    done
    (( ${#still[@]} )) || exit 0
    echo "installing Debian packages: ${still[*]}" >&2
    if [[ -e $policy ]]; then restore=$(mktemp); cp -p "$policy" "$restore"; fi
    trap 'if [[ -n $restore ]]; then mv -f "$restore" "$policy"; else rm -f "$policy"; fi' EXIT
    printf '#!/bin/sh\nexit 101\n' > "$policy"
    chmod +x "$policy"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${still[@]}" >&2
  ) 9>"${BERTH_APT_LOCK:-/var/lock/berth-apt.lock}"
}
