#!/usr/bin/env bash
# Installs Debian's Chromium for the browser check of the node suite (test/node/browser.test.ts), which
# drives it headless with puppeteer-core. Does nothing when it is there. Prints the browser's path.
set -euo pipefail

if ! dpkg-query -W -f '${Status}' chromium 2>/dev/null | grep -q 'install ok installed'; then
  [[ $(id -u) == 0 ]] || { echo "need root to install chromium (apt-get install -y chromium)" >&2; exit 1; }
  echo "installing Debian's chromium for the browser check" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends chromium >&2
fi
command -v chromium
