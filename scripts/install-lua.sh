#!/usr/bin/env bash
# Installs the Lua interpreters the Argo CD health-check tests run the script in: Debian's lua5.4
# (a current Lua) and lua5.1 (the dialect of gopher-lua, which Argo CD embeds). Does nothing when both
# are there.
set -euo pipefail
source "$(dirname "$0")/lib/debian-packages.sh"
install_debian_packages "${lua_packages[@]}"
