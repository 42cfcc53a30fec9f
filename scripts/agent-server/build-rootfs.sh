#!/usr/bin/env bash
# Usage: build-rootfs.sh RECIPE OUTDIR
# Builds, from Debian's packages and PyPI's wheels (no image is pulled), the root filesystem of an agent
# server base image (docs/agent-server.md) from a recipe folder: scripts/agent-server/inmem, the local
# stand-in for the reference's langchain/langgraph-api:3.11, or src/agent-server, the durable server
# Berth builds agents on.
#   - a Debian root by debootstrap (minbase, python3, ca-certificates and the recipe's DEBIAN_PACKAGES)
#     of the recipe's DEBIAN_SUITE;
#   - the wheels of its requirements.txt for its PYTHON_VERSION, hash-checked, in /wheels: offline builds
#     install from there;
#   - its base-build.sh run in the root (a chroot with no network), with the recipe's files in /ctx;
# and writes OUTDIR/rootfs.tar (reproducible) and OUTDIR/config.json in the format of the node's other
# images (scripts/node-images/build-rootfs.sh), which workbench/node/images.ts pushes. Needs root.
set -euo pipefail

(($# == 2)) || { echo "usage: $0 RECIPE OUTDIR" >&2; exit 2; }
recipe=$(cd "$1" && pwd)
shift
[[ $(id -u) == 0 ]] || { echo "build-rootfs: needs root (debootstrap, chroot)" >&2; exit 1; }
source "$(dirname "$0")/../lib/debian-packages.sh"
install_debian_packages debootstrap
DEBIAN_SUITE= DEBIAN_PACKAGES= PYTHON_VERSION= SDIST_WHEELS=
# shellcheck source=inmem/recipe.env
source "$recipe/recipe.env"
suite="$DEBIAN_SUITE"
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
debootstrap --variant=minbase --include="python3,ca-certificates${DEBIAN_PACKAGES:+,$DEBIAN_PACKAGES}" "$suite" "$rootfs" "$mirror" >"$staging/debootstrap.log" 2>&1 ||
  { tail -20 "$staging/debootstrap.log" >&2; exit 1; }

echo "build-rootfs: the wheels of requirements.txt, hash-checked${PYTHON_VERSION:+, for Python $PYTHON_VERSION}" >&2
mkdir -p "$rootfs/wheels"
# The image's Python, when it is not the host's: the wheels of its ABI, for the platforms its glibc runs.
target=()
[[ -n $PYTHON_VERSION ]] && target=(--python-version "$PYTHON_VERSION" --implementation cp --abi "cp${PYTHON_VERSION/./}" --abi abi3 --abi none
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any)
"$python" -m pip download --quiet --no-deps --only-binary=:all: --require-hashes "${target[@]}" -r "$recipe/requirements.txt" -d "$rootfs/wheels"
for sdist in $SDIST_WHEELS; do "$python" -m pip wheel --quiet --no-deps "$sdist" -w "$rootfs/wheels"; done

cp -r "$recipe" "$rootfs/ctx"
cp "$(dirname "$0")/uv-from-wheel.py" "$rootfs/ctx/"

echo "build-rootfs: the base image's steps, in the root with no network" >&2
mount --bind /dev "$rootfs/dev"
mount -t proc proc "$rootfs/proc"
mapfile -t image_env < <(grep -v '^#' "$recipe/image.env")
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
