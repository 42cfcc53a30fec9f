#!/usr/bin/env bash
# Installs the Debian packages a local node takes as they are (scripts/lib/debian-packages.sh says which
# and why). Does nothing when all are there.
set -euo pipefail
source "$(dirname "$0")/lib/debian-packages.sh"
install_debian_packages "${node_packages[@]}"
