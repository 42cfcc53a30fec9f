#!/usr/bin/env bash
# Installs Debian's Chromium for the browser check of the node suite (test/node/browser.test.ts), which
# drives it headless with puppeteer-core, and NSS's certutil, with which the check makes the browser a
# trust store that holds the local apps CA. Does nothing when they are there. Prints the browser's path.
set -euo pipefail

packages=(chromium libnss3-tools)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  [[ $(id -u) == 0 ]] || { echo "need root to install ${missing[*]} (apt-get install -y ${missing[*]})" >&2; exit 1; }
  echo "installing Debian's ${missing[*]} for the browser check" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
command -v chromium
