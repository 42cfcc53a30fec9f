#!/usr/bin/env bash
# Usage: build-rootfs.sh OUTDIR
# Builds, from Debian's packages and PyPI's wheels (no image is pulled), the root filesystem of a local
# stand-in for the reference's agent server base image, langchain/langgraph-api:3.11 (docs/agent-server.md):
#   - a Debian bookworm root by debootstrap (minbase, python3, ca-certificates): bookworm's Python is 3.11;
#   - the wheels of requirements.txt, hash-checked, in /wheels: offline builds install from there;
#   - base-build.sh run in the root (a chroot with no network): uv, pip, langgraph-api and its runtime
#     installed as the reference image has them, /api editable, /storage/entrypoint.sh;
# and writes OUTDIR/rootfs.tar (reproducible) and OUTDIR/config.json in the format of the node's other
# images (scripts/node-images/build-rootfs.sh), which workbench/node/images.ts pushes. Needs root.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
(($# == 1)) || { echo "usage: $0 OUTDIR" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "build-rootfs: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
suite="${DEBIAN_SUITE:-bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
python="${AGENT_BUILD_PYTHON:-python3}"
mkdir -p "$1"
outdir=$(cd "$1" && pwd)
staging=$(mktemp -d "$outdir/.build-rootfs.XXXXXX")
rootfs="$staging/rootfs"
cleanup() {
  for mount in proc dev; do mountpoint -q "$rootfs/$mount" && umount -l "$rootfs/$mount"; done
  rm -rf "$staging"
}
trap cleanup EXIT

echo "build-rootfs: debootstrap $suite (minbase, python3) from $mirror" >&2
debootstrap --variant=minbase --include=python3,ca-certificates "$suite" "$rootfs" "$mirror" >"$staging/debootstrap.log" 2>&1 ||
  { tail -20 "$staging/debootstrap.log" >&2; exit 1; }

echo "build-rootfs: the wheels of requirements.txt, hash-checked" >&2
mkdir -p "$rootfs/wheels"
"$python" -m pip download --quiet --no-deps --only-binary=:all: --require-hashes -r "$here/requirements.txt" -d "$rootfs/wheels"
# blockbuster needs forbiddenfruit, which PyPI has as an sdist only: its wheel is built here.
"$python" -m pip wheel --quiet --no-deps "forbiddenfruit==0.1.4" -w "$rootfs/wheels"

mkdir -p "$rootfs/ctx/api" "$rootfs/ctx/storage"
cp "$here/api-pyproject.toml" "$rootfs/ctx/api/pyproject.toml"
cp "$here/healthcheck.py" "$rootfs/ctx/api/healthcheck.py"
cp "$here/entrypoint.sh" "$rootfs/ctx/storage/entrypoint.sh"
cp "$here/base-build.sh" "$rootfs/ctx/base-build.sh"

echo "build-rootfs: the base image's steps, in the root with no network" >&2
mount --bind /dev "$rootfs/dev"
mount -t proc proc "$rootfs/proc"
mapfile -t image_env < <(grep -v '^#' "$here/image.env")
unshare --net env -i "${image_env[@]}" chroot "$rootfs" /bin/sh /ctx/base-build.sh >"$staging/base-build.log" 2>&1 ||
  { tail -30 "$staging/base-build.log" >&2; exit 1; }
umount -l "$rootfs/proc" "$rootfs/dev"
chmod 755 "$rootfs/storage/entrypoint.sh"
rm -rf "$rootfs/ctx" "$rootfs/var/cache/apt" "$rootfs/var/lib/apt/lists" "$rootfs/var/log"/*
find "$rootfs" -name __pycache__ -prune -exec rm -rf {} +

json_array() {
  local out="" item
  for item in "$@"; do out+="${out:+, }\"${item//\"/\\\"}\""; done
  printf '[%s]' "$out"
}
{
  printf '{\n  "entrypoint": ["/storage/entrypoint.sh"],\n  "user": "0:0",\n'
  printf '  "env": %s,\n' "$(json_array "${image_env[@]}")"
  printf '  "exposedPorts": ["8000/tcp"],\n  "workingDir": "/api"\n}\n'
} >"$staging/config.json"
tar -C "$rootfs" --create --file "$staging/rootfs.tar" \
  --sort=name --mtime=@0 --numeric-owner --owner=0 --group=0 --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime .
mv -f "$staging/rootfs.tar" "$outdir/rootfs.tar"
mv -f "$staging/config.json" "$outdir/config.json"
echo "build-rootfs: wrote $outdir/rootfs.tar ($(du -h "$outdir/rootfs.tar" | cut -f1)) and $outdir/config.json" >&2
