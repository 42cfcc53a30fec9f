#!/usr/bin/env bash
# Installs every Debian package any part of Berth takes (scripts/lib/debian-packages.sh), in one apt-get,
# before any parallel build starts: .ci/run and `npm start` call it first. Does nothing when all are there.
set -euo pipefail
source "$(dirname "$0")/lib/debian-packages.sh"
install_debian_packages "${node_packages[@]}" "${lua_packages[@]}" "${browser_packages[@]}" "${image_packages[@]}"
