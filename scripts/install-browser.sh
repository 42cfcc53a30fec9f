#!/usr/bin/env bash
# Installs Debian's Chromium for the browser check of the node suite (test/node/browser.test.ts), which
# drives it headless with puppeteer-core, and NSS's certutil, with which the check makes the browser a
# trust store that holds the local apps CA. Does nothing when they are there. Prints the browser's path.
set -euo pipefail
source "$(dirname "$0")/lib/debian-packages.sh"
install_debian_packages "${browser_packages[@]}"
command -v chromium
