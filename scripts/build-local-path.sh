#!/usr/bin/env bash
# Builds Rancher's local-path-provisioner (github.com/rancher/local-path-provisioner, Apache-2.0) from the
# Go module proxy at the version pinned here, into a cache outside git (scripts/lib/cached-build.sh): the
# embedded node's provisioner of volumes a pod that is not root can write (a directory per volume, made
# 0777 by a helper pod), which CloudNativePG's Postgres, run as uid 26, needs. One static binary. Prints
# the bin directory on the last line.
#
# v0.0.37: the module proxy refuses v0.0.31, v0.0.32, v0.0.34 to v0.0.36.
set -euo pipefail

version=v0.0.37

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$0" <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build local-path "$key"
echo "building local-path-provisioner $version into $bin (first time: about a minute on 2 cores)" >&2
start=$SECONDS
GOBIN="$tmp" GOFLAGS= CGO_ENABLED=0 GO111MODULE=on go_compile install -trimpath -ldflags "-s -w" \
  "github.com/rancher/local-path-provisioner@$version" >&2
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build
