#!/usr/bin/env bash
# Installs Berth's production dependencies on the host, for an image build that reaches no registry:
# `npm ci --omit=dev --ignore-scripts` from the same package-lock.json into
# node_modules/.berth-image/node_modules, stamped with the lockfile's SHA-256. The Dockerfile copies
# them when present (and refuses them if the lockfile has changed since); otherwise it runs npm ci itself.
# No production dependency has an install script or a native part, so the host's install is the
# image's, whatever Node or OS the host has.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/node_modules/.berth-image"
stamp=$(sha256sum < "$root/package-lock.json" | cut -d' ' -f1)
if [[ -f $out/.package-lock.sha256 && $(cat "$out/.package-lock.sha256") == "$stamp" ]]; then
  echo "production dependencies already prepared in $out" >&2
  exit 0
fi
rm -rf "$out"
mkdir -p "$out"
cp "$root/package.json" "$root/package-lock.json" "$out/"
(cd "$out" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
rm "$out/package.json" "$out/package-lock.json"
echo "$stamp" > "$out/.package-lock.sha256"
echo "production dependencies prepared in $out ($(du -sh "$out/node_modules" | cut -f1))" >&2
