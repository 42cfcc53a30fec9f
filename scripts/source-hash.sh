#!/bin/sh
# The SHA-256 of the sources dist/ is built from (src/ without tests, the web console's among them): names and contents, in a fixed
# order. Run by scripts/build.sh on the host and by the Dockerfile on the sources it copies.
set -eu
find src -type f \( -name '*.ts' -o -name '*.tsx' -o -name '*.css' -o -name '*.html' -o -name 'tsconfig.json' \) ! -name '*.test.ts' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1
