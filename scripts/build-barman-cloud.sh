#!/usr/bin/env bash
# Builds CloudNativePG's barman-cloud plugin (github.com/cloudnative-pg/plugin-barman-cloud, Apache-2.0)
# from the Go module proxy at the version pinned here, into a cache outside git
# (scripts/lib/cached-build.sh): one static binary, `manager`, which is both the plugin CloudNativePG's
# operator calls (`manager operator`, run by the embedded node on the host beside the operator, over a
# unix socket) and the sidecar of each Postgres pod that archives and backs up with barman-cloud's
# commands (`manager instance`, in the node's barman-cloud-sidecar image). Prints the bin directory on
# the last line; beside `manager`: the ObjectStore CRD in crds/, the plugin's ClusterRole in rbac/.
#
# v0.14.0, built against CloudNativePG v1.30.0: v0.15.0 needs modules the proxy does not serve.
set -euo pipefail

version=v0.14.0

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/cached-build.sh"
key=$(cat "$0" <(go env GOVERSION GOOS GOARCH) | sha256sum | cut -c1-16)
cached_build barman-cloud "$key"
echo "building the barman-cloud plugin $version into $bin (first time: about two minutes on 2 cores)" >&2
start=$SECONDS

src=$(module_dir "github.com/cloudnative-pg/plugin-barman-cloud@$version")
(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go_compile build -trimpath -ldflags "-s -w" -o "$tmp/manager" ./cmd/manager) >&2
mkdir -p "$tmp/crds" "$tmp/rbac"
cp "$src"/config/crd/bases/*.yaml "$tmp/crds/"
cp "$src/config/rbac/role.yaml" "$tmp/rbac/"
chmod -R u+w "$tmp"
echo "  built in $((SECONDS - start))s" >&2
finish_cached_build
