#!/usr/bin/env bash
# Installs the Lua interpreters the Argo CD health-check tests run the script in: Debian's lua5.4
# (a current Lua) and lua5.1 (the dialect of gopher-lua, which Argo CD embeds). Does nothing when both
# are there.
set -euo pipefail

missing=()
for interpreter in lua5.4 lua5.1; do
  command -v "$interpreter" >/dev/null || missing+=("$interpreter")
done
(( ${#missing[@]} )) || exit 0
[[ $(id -u) == 0 ]] || { echo "need root to install ${missing[*]} (apt-get install -y ${missing[*]})" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
