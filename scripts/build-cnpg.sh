#!/usr/bin/env bash
# Builds CloudNativePG's operator (github.com/cloudnative-pg/cloudnative-pg, Apache-2.0) from the Go module
# proxy at the version pinned here, into a cache outside git (scripts/lib/cached-build.sh): one static
# binary, `manager`, which is the operator (`manager controller`) and, copied into each Postgres pod by its
# init container, the instance manager too. The embedded node runs the operator as a process of its own
# (workbench/node/postgres-operator.ts), as it runs KEDA. Prints the bin directory on the last line; beside
# `manager`: the CRDs in crds/, the operator's ClusterRole in rbac/, its admission webhooks in webhook/.
#
# v1.30.0, not v1.30.1: the module proxy serves neither github.com/cloudnative-pg/machinery v0.6.0 nor
# github.com/cloudnative-pg/barman-cloud v0.6.0, which the newer one needs (docs/data.md).
set -euo pipefail

version=v1.30.0

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$0" <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build cnpg "$key"
echo "building CloudNativePG $version into $bin (first time: about three minutes on 2 cores)" >&2
start=$SECONDS

module=github.com/cloudnative-pg/cloudnative-pg
src=$(module_dir "$module@$version")
ldflags="-s -w"
(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "$ldflags" -o "$tmp/manager" ./cmd/manager) >&2
mkdir -p "$tmp/crds" "$tmp/rbac" "$tmp/webhook"
cp "$src"/config/crd/bases/*.yaml "$tmp/crds/"
cp "$src/config/rbac/role.yaml" "$tmp/rbac/"
cp "$src/config/webhook/manifests.yaml" "$tmp/webhook/"
chmod -R u+w "$tmp"
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build
